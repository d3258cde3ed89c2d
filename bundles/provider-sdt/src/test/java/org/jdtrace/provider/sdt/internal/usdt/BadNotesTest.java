package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Notes a tracer must refuse in part (ft_usdt_bad): an operand spec that names no register
 * refuses that probe's arguments only (it fires, its args are 0; the next probe keeps its
 * own); a semaphore inside the code is refused and never written (the code reads back as in
 * the file while the probe is enabled, and the program's output is right).
 */
class BadNotesTest {

    private final Platform platform = new Platform();

    @AfterEach
    void tearDown() {
        platform.close();
    }

    @Test
    void unreadableOperandsAndASemaphoreOutsideTheDataAreRefused() throws Exception {
        String bin = Platform.bin("ft_usdt_bad");
        ElfSymbol victim;
        byte[] original;
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            victim = elf.symbol("victim").orElseThrow();
            original = elf.bytes(victim);
        }
        Platform.Run r = platform.run("-q", "-n",
                "bad$target:::opspec { printf(\"opspec %d %d\\n\", arg0, arg1); }"
                        + " bad$target:::good { printf(\"good %d\\n\", arg0); }"
                        + " bad$target:::sem { printf(\"sem\\n\"); }",
                "-c", bin + " 5000 ");
        ProcessHandle t = RetireTest.target(bin);
        assertNotNull(t, r.toString());
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!r.out().contains("sem\n") && System.nanoTime() < deadline) Thread.sleep(2);
        if (t.isAlive()) {
            long at = RetireTest.bias(t.pid(), bin) + victim.value();
            try {
                assertArrayEquals(original, RetireTest.memory(t.pid(), at, original.length), "the code named as semaphore is untouched");
            } catch (java.io.IOException gone) {
                // the process ended meanwhile: its output below says the same
            }
        }
        assertEquals(0, r.await(), r.toString());
        List<String> lines = r.out().lines().toList();
        assertEquals(5000, lines.stream().filter(l -> l.equals("sem")).count(), r.toString());
        assertTrue(lines.contains("opspec 0 0") && lines.stream().filter(l -> l.startsWith("opspec ")).allMatch(l -> l.equals("opspec 0 0")),
                "refused arguments read 0");
        assertTrue(lines.contains("good 4999"), "the next probe keeps its arguments");
        long v = 0;
        for (int i = 0; i < 5000; i++) v += i * 5L + 1;
        assertTrue(lines.contains("victim " + v), "the program ran right: " + r);

        Platform.Run l = platform.run("-lv", "-n", "bad$target:::opspec", "-c", bin + " 0");
        assertEquals(0, l.await(), l.toString());
        assertTrue(!l.out().contains("args[0]"), "no arguments listed for a probe whose specs were refused: " + l);
    }
}
