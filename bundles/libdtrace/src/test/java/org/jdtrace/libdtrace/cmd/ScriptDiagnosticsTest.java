package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dtrace -s behind the real framework, consumer, D session and command: errors found after
 * compiling (when the program is enabled) are still reported as dtrace reports them while
 * compiling, at the line they concern.
 */
class ScriptDiagnosticsTest {

    private final RealCommand cmd = new RealCommand();

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() {
        cmd.close();
    }

    @Test
    void anUnmatchedDescriptionIsReportedAtItsLine() throws IOException {
        Path x = Files.writeString(dir.resolve("x.d"), "BEGIN\n{\n\ti = 0;\n}\n\nnosuch::tick-1sec,\n  nosuch:::x\n{\n\ttrace(i);\n}\n");
        assertEquals(1, cmd.run("-xerrtags", "-s", x.toString()));
        assertEquals("dtrace: failed to compile script " + x + ": [D_PDESC_ZERO] line 6: probe description "
                + ":nosuch::tick-1sec does not match any probes\n", cmd.err());
        Path y = Files.writeString(dir.resolve("y.d"), "BEGIN\n{\n}\n\nBEGIN,\n  nosuch:::x\n{\n}\n");
        assertEquals(1, cmd.run("-s", y.toString()));
        assertEquals("dtrace: failed to compile script " + y + ": line 6: probe description "
                + "nosuch:::x does not match any probes\n", cmd.err());
    }

    @Test
    void compilingAloneFindsADescriptionThatMatchesNothingBeforeTheClauseIsChecked() {
        // dt_setcontext while compiling: -e reports it, before args[0]->x would be checked
        assertEquals(1, cmd.run("-e", "-n", "io:::start"));
        assertEquals("dtrace: invalid probe specifier io:::start: probe description io:::start does not match any probes\n",
                cmd.err());
        assertEquals(1, cmd.run("-e", "-n", "io:::start { trace(args[0]->b_bcount); }"));
        assertEquals("dtrace: invalid probe specifier io:::start { trace(args[0]->b_bcount); }: probe description"
                + " io:::start does not match any probes\n", cmd.err());
        // -Z: zero matches are allowed, and the clause is checked
        assertEquals(0, cmd.run("-Z", "-e", "-n", "io:::start"));
        assertEquals("", cmd.err());
        assertEquals(0, cmd.run("-e", "-n", "BEGIN { trace(1); }"));
        // -l implies -Z: the listing says what matched nothing
        assertEquals(1, cmd.run("-l", "-n", "io:::start"));
        assertEquals("dtrace: failed to match io:::start: No probe matches description\n", cmd.err());
    }
}
