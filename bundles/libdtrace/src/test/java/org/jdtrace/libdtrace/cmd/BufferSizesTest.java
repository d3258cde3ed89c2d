package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * dtrace_state_go's buffer checks through the real command: a principal or aggregation buffer
 * set below 8 bytes that an enabling needs, and a fill buffer smaller than its END enablings'
 * reserve, refuse to start with DTrace's words and exit 1; sizes that only drop records run.
 */
class BufferSizesTest {

    private static final String MATCHED = "dtrace: description 'BEGIN ' matched 1 probe\n";

    @Test
    void aPrincipalBufferBelowEightBytesIsRefused() {
        try (RealCommand d = new RealCommand()) {
            assertEquals(1, d.run("-x", "bufsize=0", "-n", "BEGIN { exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Enabling exceeds size of buffer\n", d.err());
            // aligned down to 8 first: 15 is 8, enough for dtrace_state_go
            assertEquals(1, d.run("-b", "7", "-n", "BEGIN { exit(0); }"), d.err());
            assertEquals(0, d.run("-q", "-b", "15", "-n", "BEGIN { exit(0); }"), d.err());
        }
    }

    @Test
    void anAggregationBufferBelowEightBytesIsRefusedOnlyWhenTheProgramAggregates() {
        try (RealCommand d = new RealCommand()) {
            assertEquals(1, d.run("-x", "aggsize=4", "-n", "BEGIN { @ = count(); exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Enabling exceeds size of buffer\n", d.err());
            assertEquals(0, d.run("-q", "-x", "aggsize=4", "-n", "BEGIN { exit(0); }"), d.err());
        }
    }

    @Test
    void aFillBufferMustHoldTheEndEnablingsRecords() {
        String end = "BEGIN { exit(0); } END { trace(execname); }";
        try (RealCommand d = new RealCommand()) {
            // END's record: its header and a 64-byte string with its NUL, more than 32 bytes
            assertEquals(1, d.run("-x", "bufpolicy=fill", "-x", "bufsize=32", "-x", "strsize=64", "-n", end), d.err());
            assertEquals("dtrace: description 'BEGIN ' matched 2 probes\n"
                    + "dtrace: could not enable tracing: END enablings exceed size of principal buffer\n", d.err());
            // the switch policy reserves nothing: END's record is a drop there
            assertEquals(0, d.run("-q", "-x", "bufsize=32", "-x", "strsize=64", "-n", end), d.err());
            assertEquals(0, d.run("-q", "-x", "bufpolicy=fill", "-x", "bufsize=128", "-x", "strsize=64", "-n", end),
                    d.err());
        }
    }
}
