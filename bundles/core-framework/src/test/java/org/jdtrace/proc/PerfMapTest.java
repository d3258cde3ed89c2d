package org.jdtrace.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
}
