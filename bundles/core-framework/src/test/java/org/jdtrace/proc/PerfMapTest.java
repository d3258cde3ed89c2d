package org.jdtrace.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PerfMap on map files in HotSpot's format (the lines `jcmd PID Compiler.perfmap` writes): Java
 * methods named Class.method, stubs and the interpreter as they are, a pc in no entry unnamed, and
 * a method compiled after the first read found once the file has changed.
 */
class PerfMapTest {

    @TempDir
    Path dir;

    @Test
    void namesJitCodeAndRereadsTheMapForAPcItDoesNotKnow() throws Exception {
        Path map = dir.resolve("perf-1.map");
        Files.writeString(map, """
                0x00007efcf393fd60 0x00000000000194c8 Interpreter
                0x00007f972fec7c80 0x00000000000000d8 long Spin.inner(long)
                0x00007f972fec8780 0x00000000000000c8 void Spin.outer()
                0x00007f9728400000 0x0000000000000100 StubRoutines (1)
                """);
        PerfMap m = new PerfMap(map);
        assertEquals("Interpreter+0x6d8", m.describe(0x00007efcf393fd60L + 0x6d8));
        assertEquals("Spin.inner", m.describe(0x00007f972fec7c80L));
        assertEquals("Spin.outer+0x3c", m.describe(0x00007f972fec8780L + 0x3c));
        assertEquals("StubRoutines (1)+0xc6", m.describe(0x00007f9728400000L + 0xc6));
        assertNull(m.describe(0x00007f972fec7c80L + 0xd8), "past inner's end");

        // compiled since: the file is written again; the unknown pc makes it re-read (after 100 ms)
        Thread.sleep(150);
        Files.writeString(map, Files.readString(map) + "0x00007f97283fff80 0x0000000000000238 long Spin.inner(long)\n");
        assertEquals("Spin.inner+0x10", m.describe(0x00007f97283fff80L + 0x10));
        assertNull(new PerfMap(dir.resolve("none.map")).describe(0x1000), "no map, no names");
    }

    /** Lines a JIT writes; a reader may see any prefix of them while it rewrites the file. */
    private static final String LINES = """
            0x00007efcf393fd60 0x00000000000194c8 Interpreter
            0x00007f972fec7c80 0x00000000000000d8 long Spin.inner(long)
            0x00007f972fec8780 0x00000000000000c8 void Spin.outer()
            """;

    @Test
    void aMapCutShortMidLineGivesTheLinesWrittenAndNoNameCutShort() throws Exception {
        Path map = dir.resolve("perf-2.map");
        // the writer stopped inside the last line: "void Spin.ou" must not name outer's code
        Files.writeString(map, LINES.substring(0, LINES.indexOf("void Spin.outer") + "void Spin.ou".length()));
        PerfMap m = new PerfMap(map);
        assertEquals("Spin.inner+0x8", m.describe(0x00007f972fec7c80L + 8));
        assertNull(m.describe(0x00007f972fec8780L + 8), "a line cut short names nothing");
        // garbage a reader may meet: not hex, no size, an address range that wraps, a NUL, bad UTF-8
        Files.write(map, ("0xzz 0x10 void A.a()\n0x1000\n0xffffffffffffff00 0x1000 void B.b()\n"
                + "0x2000 0x10 void C.\0c()\n0x3000 0x10 void D.\u00ff()\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        Thread.sleep(150);
        PerfMap g = new PerfMap(map);
        assertNull(g.describe(0xffffffffffffff10L), "a range that wraps names nothing");
        assertNull(g.describe(0x1004));
        assertEquals("D.\ufffd+0x4", g.describe(0x3004), "bad UTF-8 is replaced, not thrown");
    }

    @Test
    void aMapRewrittenWhileReadNeverNamesWronglyNorThrows() throws Exception {
        Path map = dir.resolve("perf-3.map");
        Files.writeString(map, LINES);
        PerfMap m = new PerfMap(map);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        // jcmd's way: truncate, then write the lines again, here a few bytes at a time
        Thread writer = Thread.ofPlatform().start(() -> {
            byte[] all = LINES.getBytes();
            while (!stop.get()) {
                try (java.io.FileOutputStream out = new java.io.FileOutputStream(map.toFile())) {
                    for (int i = 0; i < all.length; i += 7) {
                        out.write(all, i, Math.min(7, all.length - i));
                        out.flush();
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
        int named = 0;
        try {
            // 1.5 s of reads, longer (up to 20 s) until one found the line written whole
            long start = System.nanoTime();
            while (System.nanoTime() - start < 1_500_000_000L || named == 0 && System.nanoTime() - start < 20_000_000_000L) {
                String inner = m.describe(0x00007f972fec7c80L + 0x10), outer = m.describe(0x00007f972fec8780L + 0x3c);
                if (inner != null) {
                    assertEquals("Spin.inner+0x10", inner);
                    named++;
                }
                if (outer != null) assertEquals("Spin.outer+0x3c", outer);
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertTrue(named > 0, "the map named inner at least once while it was rewritten");
    }
}
