package org.jdtrace.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One read per file for every user: this JVM's libc by its path and through /proc/self/map_files
 * (the inode it maps) is one file, one SymbolTable, each fact made once; a copy (another inode)
 * is another file; what is not an ELF file, or not there, is null.
 */
class ObjectFilesTest {

    @TempDir
    Path dir;

    private static String[] libcMapping() throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] f = l.trim().split("\\s+", 6);
            if (f.length == 6 && f[5].endsWith("/libc.so.6")) return f;
        }
        throw new AssertionError("no libc.so.6 in this JVM's maps");
    }

    @Test
    void aFileIsReadOnceByPathAndByItsMappedInode() throws Exception {
        String[] m = libcMapping();
        Path libc = Path.of(m[5]), viaProc = Path.of("/proc/self/map_files/" + m[0]);
        ObjectFiles o = new ObjectFiles();
        SymbolTable t = o.symbols(libc);
        assertTrue(t.size() > 1000, "libc's functions: " + t.size());
        assertSame(t, o.symbols(viaProc));
        assertSame(t, o.symbols(libc));
        AtomicInteger made = new AtomicInteger();
        Object f = o.fact(libc, "test", e -> { made.incrementAndGet(); return new Object(); });
        assertSame(f, o.fact(viaProc, "test", e -> { made.incrementAndGet(); return new Object(); }));
        assertEquals(1, made.get());
        assertEquals(1, o.reads());

        Path copy = dir.resolve("libc.so.6");
        Files.copy(libc, copy);
        SymbolTable c = o.symbols(copy);
        assertNotSame(t, c);
        assertEquals(t.size(), c.size());
        assertEquals(2, o.reads());
    }

    @Test
    void whatIsNoElfFileOrNotThereIsNull() throws Exception {
        ObjectFiles o = new ObjectFiles();
        Path text = Files.writeString(dir.resolve("notes.txt"), "not an ELF file\n");
        assertNull(o.symbols(text));
        assertNull(o.symbols(dir.resolve("missing")));
        assertNull(o.elf(text));
        assertEquals(0, o.reads());
    }
}
