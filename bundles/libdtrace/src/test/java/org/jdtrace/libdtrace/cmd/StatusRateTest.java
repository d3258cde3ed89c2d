package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * exit() is seen at the consumer's next status check: with a statusrate set, END runs at the first
 * check (every statusrate from the start of tracing) after the exit(), and no probe but END fires
 * in between; with the default, at once. (tick-N on the profile provider's JVM timer: no perf
 * events here.)
 */
class StatusRateTest {

    private static final String PROG = "tick-100ms { n++; } tick-100ms /n == 2/ { ts = timestamp; exit(0); }"
            + " END { printf(\"%d %d\\n\", n, (timestamp - ts) / 1000000); }";

    private static long[] run(RealCommand d, String... opts) {
        String[] args = new String[opts.length + 3];
        args[0] = "-q";
        System.arraycopy(opts, 0, args, 1, opts.length);
        args[opts.length + 1] = "-n";
        args[opts.length + 2] = PROG;
        assertEquals(0, d.run(args), d.err());
        String[] f = d.out().strip().split(" ");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }

    @Test
    void endWaitsForTheNextStatusCheckAndNothingElseFiresMeanwhile() {
        try (RealCommand d = new RealCommand(new org.jdtrace.core.providers.profile.ProfileProvider())) {
            // exit() at about 200 ms, the first check at 1500 ms
            long[] r = run(d, "-x", "statusrate=1500ms");
            assertEquals(2, r[0], "no tick after the exit()");
            assertTrue(r[1] > 1000 && r[1] < 2000, "END " + r[1] + " ms after the exit()");
            // the default: at once
            r = run(d);
            assertEquals(2, r[0]);
            assertTrue(r[1] < 500, "END " + r[1] + " ms after the exit()");
        }
    }
}
