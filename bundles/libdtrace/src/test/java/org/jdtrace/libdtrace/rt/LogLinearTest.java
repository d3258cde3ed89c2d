package org.jdtrace.libdtrace.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import org.junit.jupiter.api.Test;

/** llquantize()'s buckets: the bounds a kernel program searches give bucket() for every value. */
class LogLinearTest {

    @Test
    void aValuesBucketIsTheNumberOfBoundsAtOrBelowIt() {
        long[][] params = {{10, 0, 6, 20}, {10, 1, 6, 10}, {2, 0, 8, 2}, {10, 2, 8, 100}, {4, 3, 10, 16}};
        for (long[] p : params) {
            LogLinear l = new LogLinear(p[0], p[1], p[2], p[3]);
            long[] b = l.bounds();
            assertNotNull(b);
            assertEquals(l.buckets() - 1, b.length);
            // every bound and its neighbours, and the ends of a long
            for (long bound : b) {
                for (long v : new long[] {bound - 1, bound, bound + 1}) assertEquals(l.bucket(v), below(b, v), p[0] + " " + v);
            }
            for (long v : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE}) {
                assertEquals(l.bucket(v), below(b, v), p[0] + " " + v);
            }
        }
    }

    private static int below(long[] bounds, long v) {
        int n = 0;
        for (long b : bounds) if (b <= v) n++;
        return n;
    }
}
