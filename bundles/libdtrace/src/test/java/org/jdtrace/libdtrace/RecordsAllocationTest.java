package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Probe context allocates nothing (house rule): a clause that records trace() and printf() data
 * writes it raw into its thread's buffers (DThread, PrincipalBuffer), which grow to their
 * high-water mark and are reused after each drain. Measured with the JVM's per-thread allocation
 * counter over firings after a first round and a drain; the output stays what it was.
 */
class RecordsAllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void traceAndPrintfRecordsAllocateNothingOnceWarm() throws Exception {
        DRun r = DRun.script("""
                test:libwork.so:work:entry { trace(arg0); trace("str"); printf("%d %s|\\n", arg0 * 2, "x"); }
                """);
        r.go();
        int n = 2_000;
        r.fireTimes(DRun.ENTRY, n);
        r.session.drain();
        String first = r.out();
        assertTrue(first.contains("1999 str1999 x|\n") || first.contains("3998 x|"), first.substring(0, 200));

        long before = THREADS.getCurrentThreadAllocatedBytes();
        r.fireTimes(DRun.ENTRY, n);
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        // the second round reuses what the first grew: nothing per firing (a few bytes of slack
        // for the JVM's own bookkeeping, far below one object per firing)
        assertTrue(allocated < n, allocated + " bytes allocated by " + n + " firings");

        r.session.drain();
        String all = r.end();
        long lines = all.lines().filter(l -> l.endsWith(" x|")).count();
        assertEquals(2L * n, lines, all.substring(0, 300));
        assertTrue(all.contains("3998 x|"), "printf's integer argument");
    }
}
