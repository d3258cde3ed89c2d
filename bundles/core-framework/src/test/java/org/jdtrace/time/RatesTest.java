package org.jdtrace.time;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RatesTest {

    @Test
    void bareNumbersDependOnWhereTheyAreWritten() {
        assertEquals(10_309_278, Rates.intervalNanos("97", Rates.Bare.HZ));
        assertEquals(97, Rates.intervalNanos("97", Rates.Bare.NANOSECONDS));
        assertEquals(1_000_000_000, Rates.intervalNanos("1000000000", Rates.Bare.NANOSECONDS));
        assertEquals(100_000_000, Rates.intervalNanos("10hz", Rates.Bare.NANOSECONDS));
        assertEquals(5_000_000, Rates.intervalNanos("5ms", Rates.Bare.HZ));
    }

    @Test
    void badValuesAreRefused() {
        assertEquals(-1, Rates.intervalNanos("", Rates.Bare.HZ));
        assertEquals(-1, Rates.intervalNanos("0", Rates.Bare.NANOSECONDS));
        assertEquals(-1, Rates.intervalNanos("10 ms", Rates.Bare.HZ));
        assertEquals(-1, Rates.intervalNanos("ms", Rates.Bare.HZ));
        assertEquals(-1, Rates.intervalNanos("3weeks", Rates.Bare.HZ));
    }
}
