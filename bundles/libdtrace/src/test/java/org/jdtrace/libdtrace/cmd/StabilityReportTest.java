package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * dtrace -v and -lv behind the real framework, dtrace provider, consumer, D session and
 * dtrace(1M) command: the stability report in the layout of dtrace's exec_prog and
 * print_probe_info, with the values of the Dynamic Tracing Guide's dtrace provider table.
 */
class StabilityReportTest {

    private final RealCommand cmd = new RealCommand();

    @AfterEach
    void tearDown() {
        cmd.close();
    }

    private int run(String... argv) {
        return cmd.run(argv);
    }

    private String out() {
        return cmd.out();
    }

    private static String block(String title, String attrs) {
        String[] a = attrs.split("/");
        return "\n\t" + title + "\n\t\tIdentifier Names: " + a[0] + "\n\t\tData Semantics:   " + a[1]
                + "\n\t\tDependency Class: " + a[2] + "\n";
    }

    @Test
    void verboseReportsTheProgramsMinimumAttributesAfterTheMatchedLine() {
        assertEquals(0, run("-v", "-n", "dtrace:::BEGIN { trace(htons(1)); exit(0); }"));
        assertTrue(out().startsWith("\nStability attributes for description dtrace:::BEGIN :\n"
                + block("Minimum Probe Description Attributes", "Stable/Stable/Common")
                + block("Minimum Statement Attributes", "Evolving/Evolving/Common") + "\n"), out());
        assertEquals("dtrace: description 'dtrace:::BEGIN ' matched 1 probe\n",
                cmd.err());
    }

    @Test
    void compileOnlyVerboseStillReports() {
        assertEquals(0, run("-e", "-v", "-n", "BEGIN { exit(0); }"));
        assertEquals("\nStability attributes for description BEGIN :\n"
                + block("Minimum Probe Description Attributes", "Unstable/Unstable/Common")
                + block("Minimum Statement Attributes", "Stable/Stable/Common") + "\n", out());
    }

    @Test
    void listVerbosePrintsTheProvidersAttributes() {
        assertEquals(0, run("-lv", "-n", "dtrace:::ERROR"));
        assertTrue(out().contains("ERROR\n" + block("Probe Description Attributes", "Stable/Stable/Common")
                + block("Argument Attributes", "Stable/Stable/Common") + "\n\tArgument Types\n"), out());
    }

    @Test
    void aminRefusesInDtracesWords() {
        assertEquals(1, run("-xerrtags", "-x", "amin=Evolving/Evolving/Common", "-n", "BEGIN { exit(0); }"));
        assertEquals("dtrace: invalid probe specifier BEGIN { exit(0); }: [D_ATTR_MIN] attributes for clause "
                + "(Unstable/Unstable/Common) are less than predefined minimum\n",
                cmd.err());
        assertEquals(1, run("-x", "amin=Stabl", "-n", "BEGIN { exit(0); }"));
        assertEquals("dtrace: failed to set -x amin: Invalid value for specified option\n",
                cmd.err());
    }
}
