package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KallsymsTest {

    private static final Path KALLSYMS = Path.of("/proc/kallsyms");

    @Test
    void oneAddressScannedFromTheFileIsTheLoadedTablesAddress() {
        Kallsyms table = Kallsyms.load();
        for (String name : new String[] {"do_idle", "schedule", "do_syscall_64", "no_such_function_here"}) {
            assertEquals(table.address(name), Kallsyms.address(KALLSYMS, name), name);
        }
        assertNotEquals(0, Kallsyms.address(KALLSYMS, "do_idle"));
    }

    @Test
    void aScanTakesOnlyVmlinuxFunctionsAtTheirWholeName(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("kallsyms");
        Files.writeString(f, """
                ffffffff81000000 D do_idle
                ffffffff81000010 t not_do_idle
                ffffffffc0000000 t do_idle\t[some_module]
                0000000000000000 T do_idle
                ffffffff81000020 t do_idle
                ffffffff81000030 T do_idle
                """);
        assertEquals(0xffffffff81000020L, Kallsyms.address(f, "do_idle"));
        assertEquals(0, Kallsyms.address(f, "idle"));
        assertEquals(0, Kallsyms.address(dir.resolve("absent"), "do_idle"));
    }

    @Test
    void aScanReadsChunksOfWholeLinesFindingANameThatCrossesTheirBoundaries(@TempDir Path dir) throws Exception {
        // lines of every length around the 64 KB chunk: some line crosses each boundary, and the
        // name sits after several chunks (as do_idle does in /proc/kallsyms)
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 300_000; i++) {
            text.append(String.format("ffffffff8%07x t fn_%d%s%n", i * 16, i, "_".repeat(i % 97)));
        }
        text.append("ffffffff8fffff00 T do_idle\n");
        Path f = dir.resolve("kallsyms");
        Files.writeString(f, text);
        assertEquals(0xffffffff8fffff00L, Kallsyms.address(f, "do_idle"));
        assertEquals(0xffffffff80000010L, Kallsyms.address(f, "fn_1_"));
        // the last line is whole only with its newline
        Files.writeString(f, text.substring(0, text.length() - 1));
        assertEquals(0, Kallsyms.address(f, "do_idle"));
    }
}
