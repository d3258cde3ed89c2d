package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A fault in an ERROR enabling fires no ERROR and is not reported as an error: it is counted and
 * reported as "N error(s) in ERROR probe enabling" (DTRACEDROP_DBLERROR), tracing going on.
 */
class DoubleErrorTest {

    @Test
    void aFaultInsideErrorIsCountedNotReported() {
        String prog = "BEGIN { trace(*(int *)NULL); } ERROR { trace(*(int *)NULL); } BEGIN { exit(0); }";
        try (RealCommand d = new RealCommand()) {
            assertEquals(0, d.run("-x", "droptags", "-n", prog), d.err());
            String err = d.err();
            assertTrue(err.contains("dtrace: [DTRACEDROP_DBLERROR] 1 error in ERROR probe enabling\n"), err);
            // BEGIN's fault is reported once; ERROR's own fault is not
            assertEquals(1, err.split("invalid address", -1).length - 1, err);
            assertTrue(err.contains("(dtrace:::BEGIN): invalid address (0x0)"), err);
            assertEquals(0, d.run("-q", "-n", prog), d.err());
            assertTrue(d.err().contains("dtrace: 1 error in ERROR probe enabling\n"), d.err());
        }
    }
}
