package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * dtrace_go's buffer checks through the real command: a principal buffer that cannot hold the
 * largest record (dtrace(1M)'s own ERROR clause's at least), an aggregation buffer or a dynamic variable space that cannot hold one element of the
 * largest kind the enabling makes, and a fill buffer smaller than its END enablings'
 * reserve, refuse to start with DTrace's words and exit 1; sizes that only drop records run.
 */
class BufferSizesTest {

    private static final String MATCHED = "dtrace: description 'BEGIN ' matched 1 probe\n";

    @Test
    void aPrincipalBufferThatCannotHoldTheLargestRecordIsRefused() {
        try (RealCommand d = new RealCommand()) {
            assertEquals(1, d.run("-x", "bufsize=0", "-n", "BEGIN { exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Enabling exceeds size of buffer\n", d.err());
            // dtrace(1M)'s ERROR clause is the largest here: 8 + 12 + 5 * 8 bytes
            assertEquals(1, d.run("-b", "59", "-n", "BEGIN { exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Enabling exceeds size of buffer\n", d.err());
            assertEquals(0, d.run("-q", "-b", "60", "-n", "BEGIN { exit(0); }"), d.err());
            // a clause's larger record: 8 + 12 + a 256-byte string and its NUL + exit()'s 4
            assertEquals(1, d.run("-b", "280", "-x", "strsize=256", "-n", "BEGIN { trace(execname); exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Enabling exceeds size of buffer\n", d.err());
            assertEquals(0, d.run("-q", "-b", "281", "-x", "strsize=256", "-n", "BEGIN { trace(execname); exit(0); }"), d.err());
        }
    }

    /**
     * dtrace_state_buffers: a buffer that cannot be had (here: larger than the JVM's heap, where
     * its records would live) is ENOMEM with bufresize=manual, and halved until it can be had
     * with bufresize=auto, the default, which dtrace(1M) reports as "buffer size lowered to".
     */
    @Test
    void aBufferThatCannotBeHadIsRefusedWhenManualAndLoweredWhenAuto() {
        try (RealCommand d = new RealCommand()) {
            assertEquals(1, d.run("-x", "bufsize=1t", "-x", "bufresize=manual", "-n", "BEGIN { exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Cannot allocate memory\n", d.err());
            assertEquals(0, d.run("-q", "-x", "bufsize=1t", "-x", "specsize=1t", "-n", "BEGIN { exit(0); }"), d.err());
            String[] lines = d.err().split("\n");
            assertEquals(2, lines.length, d.err());
            // halved from 1t: a power of two, printed in its unit
            assertTrue(lines[0].matches("dtrace: buffer size lowered to [0-9]+[kmg]"), d.err());
            assertTrue(lines[1].matches("dtrace: speculation size lowered to [0-9]+[kmg]"), d.err());
            assertEquals(1, d.run("-x", "bufresize=sometimes", "-n", "BEGIN { exit(0); }"), d.err());
            assertEquals("dtrace: failed to set -x bufresize: Invalid value for specified option\n", d.err());
        }
        assertEquals("512m", Invocation.scaled(512L << 20));
        assertEquals("1g", Invocation.scaled(1L << 30));
        assertEquals("3355443200 bytes", Invocation.scaled(3355443200L));
    }

    @Test
    void anAggregationBufferThatCannotHoldOneEntryIsRefusedOnlyWhenTheProgramAggregates() {
        try (RealCommand d = new RealCommand()) {
            // count() without a key: the aggregation's 8-byte id and its 8-byte value
            assertEquals(1, d.run("-x", "aggsize=8", "-n", "BEGIN { @ = count(); exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Enabling exceeds size of buffer\n", d.err());
            assertEquals(0, d.run("-q", "-x", "aggsize=16", "-n", "BEGIN { @ = count(); exit(0); }"), d.err());
            // a string key takes strsize + 1, aligned: 8 + 72 + 8
            assertEquals(1, d.run("-x", "aggsize=80", "-x", "strsize=64", "-n", "BEGIN { @[execname] = count(); exit(0); }"), d.err());
            assertEquals(0, d.run("-q", "-x", "aggsize=88", "-x", "strsize=64", "-n", "BEGIN { @[execname] = count(); exit(0); }"), d.err());
            assertEquals(0, d.run("-q", "-x", "aggsize=4", "-n", "BEGIN { exit(0); }"), d.err());
        }
    }

    @Test
    void aDynamicVariableSpaceThatCannotHoldTheLargestVariableIsRefused() {
        try (RealCommand d = new RealCommand()) {
            // an int-keyed int element: 16 bytes
            assertEquals(1, d.run("-x", "dynvarsize=15", "-n", "BEGIN { a[1] = 1; exit(0); }"), d.err());
            assertEquals(MATCHED + "dtrace: could not enable tracing: Enabling exceeds size of buffer\n", d.err());
            assertEquals(0, d.run("-q", "-x", "dynvarsize=16", "-n", "BEGIN { a[1] = 1; exit(0); }"), d.err());
            // a string thread-local: strsize + 1
            assertEquals(1, d.run("-x", "dynvarsize=64", "-x", "strsize=64", "-n", "BEGIN { self->s = execname; exit(0); }"), d.err());
            assertEquals(0, d.run("-q", "-x", "dynvarsize=65", "-x", "strsize=64", "-n", "BEGIN { self->s = execname; exit(0); }"), d.err());
            // no dynamic variable, no need
            assertEquals(0, d.run("-q", "-x", "dynvarsize=1", "-n", "BEGIN { x = 1; exit(0); }"), d.err());
        }
    }

    @Test
    void aFillBufferMustHoldTheEndEnablingsRecords() {
        String end = "BEGIN { exit(0); } END { trace(execname); } END { trace(execname); } END { trace(execname); }";
        try (RealCommand d = new RealCommand()) {
            // END's record (12 + 65 bytes) is more than 32: the END check comes first
            assertEquals(1, d.run("-x", "bufpolicy=fill", "-x", "bufsize=32", "-x", "strsize=64", "-n",
                    "BEGIN { exit(0); } END { trace(execname); }"), d.err());
            assertEquals("dtrace: description 'BEGIN ' matched 2 probes\n"
                    + "dtrace: could not enable tracing: END enablings exceed size of principal buffer\n", d.err());
            // three END records of 12 + 65 bytes: 231, more than 128 (which holds one)
            assertEquals(1, d.run("-x", "bufpolicy=fill", "-x", "bufsize=128", "-x", "strsize=64", "-n", end), d.err());
            assertEquals("dtrace: description 'BEGIN ' matched 4 probes\n"
                    + "dtrace: could not enable tracing: END enablings exceed size of principal buffer\n", d.err());
            // the switch policy reserves nothing: what does not fit of END's records is a drop there
            assertEquals(0, d.run("-q", "-x", "bufsize=128", "-x", "strsize=64", "-n", end), d.err());
            assertEquals(0, d.run("-q", "-x", "bufpolicy=fill", "-x", "bufsize=256", "-x", "strsize=64", "-n", end),
                    d.err());
        }
    }

    @Test
    void aFullFillBufferStopsTracingWithoutDropsAndEndStillRecords() {
        // each BEGIN record takes 20 bytes (header 12, one integer 8); END's 12 are kept aside
        String prog = "BEGIN { printf(\"%d\\n\", 1); } BEGIN { printf(\"%d\\n\", 2); } BEGIN { printf(\"%d\\n\", 3); }"
                + " BEGIN { printf(\"%d\\n\", 4); } BEGIN { exit(3); } END { printf(\"end\\n\"); }";
        try (RealCommand d = new RealCommand()) {
            assertEquals(0, d.run("-q", "-x", "bufpolicy=fill", "-x", "bufsize=64", "-n", prog), d.err());
            assertEquals("1\n2\nend\n\n", d.out());
            assertEquals("", d.err());
            // room for them all: exit(3) is seen, END runs as ever
            assertEquals(3, d.run("-q", "-x", "bufpolicy=fill", "-x", "bufsize=256", "-n", prog), d.err());
            assertEquals("1\n2\n3\n4\nend\n\n", d.out());
            // the switch policy drops what does not fit (the fourth, the exit record, END's) and goes on to exit(3)
            assertEquals(3, d.run("-q", "-x", "bufsize=64", "-n", prog), d.err());
            assertEquals("1\n2\n3\n\n", d.out());
            assertTrue(d.err().matches("(dtrace: \\d+ drops? on CPU \\d+\n)+"), d.err()); // a line a CPU
            // -x droptags names the kind, as dt_handle_cpudrop's DTRACEDROP_PRINCIPAL
            assertEquals(3, d.run("-q", "-x", "droptags", "-x", "bufsize=64", "-n", prog), d.err());
            // (END may run on another CPU than BEGIN: a line a CPU)
            assertTrue(d.err().matches("(dtrace: \\[DTRACEDROP_PRINCIPAL\\] \\d+ drops? on CPU \\d+\n)+"), d.err());
        }
    }
}
