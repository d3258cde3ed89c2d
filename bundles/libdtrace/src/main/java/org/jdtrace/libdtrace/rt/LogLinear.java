/*
 * LogLinear: the buckets of llquantize(value, factor, low, high, nsteps), as DTrace on Linux
 * lays them out. Each order of magnitude [factor^m, factor^(m+1)), m = low..high, is split
 * linearly into steps of factor^(m+1) / nsteps (at least 1); a step that starts below the order
 * belongs to the order before, so an order's buckets start at factor^m and then at the multiples
 * of its step. Negative values mirror the positive buckets; values closer to 0 than factor^low
 * fall in the 0 bucket; the two ends are "<= -factor^(high+1)" and ">= factor^(high+1)".
 *
 * Data layout: [<= -max] [negative buckets, most negative first] [0] [positive buckets] [>= max].
 * Immutable.
 */
package org.jdtrace.libdtrace.rt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public final class LogLinear {

    public final long factor;
    public final long low;
    public final long high;
    public final long nsteps;
    /** Start of each positive bucket, ascending. */
    private final long[] starts;
    /** factor^(high+1): where the top bucket starts. */
    private final long max;

    public LogLinear(long factor, long low, long high, long nsteps) {
        this.factor = factor;
        this.low = low;
        this.high = high;
        this.nsteps = nsteps;
        List<Long> s = new ArrayList<>();
        long lo = pow(factor, low);
        for (long m = low; m <= high; m++) {
            long hi = multiply(lo, factor);
            long step = Math.max(1, hi / nsteps);
            s.add(lo);
            for (long b = (lo / step + 1) * step; b < hi; b += step) {
                s.add(b);
            }
            lo = hi;
        }
        this.max = lo;
        this.starts = s.stream().mapToLong(Long::longValue).toArray();
    }

    private static long pow(long f, long n) {
        long v = 1;
        for (long i = 0; i < n; i++) v = multiply(v, f);
        return v;
    }

    private static long multiply(long a, long b) {
        long r = a * b;
        return a != 0 && r / a != b ? Long.MAX_VALUE : r;
    }

    /** Number of data words. */
    public int buckets() {
        return 2 * starts.length + 3;
    }

    private int zero() {
        return starts.length + 1;
    }

    public int bucket(long v) {
        if (v >= max) return buckets() - 1;
        if (v <= -max) return 0;
        long m = Math.abs(v);
        int i = Arrays.binarySearch(starts, m);
        if (i < 0) i = -i - 2; // the last start <= m
        if (i < 0) return zero();
        return v > 0 ? zero() + 1 + i : zero() - 1 - i;
    }

    /** The label dtrace prints for bucket {@code i}. */
    public String label(int i) {
        if (i == 0) return "<= -" + max;
        if (i == buckets() - 1) return ">= " + max;
        if (i == zero() && low > 0) return "abs() < " + starts[0];
        return Long.toString(value(i));
    }

    /** The value a bucket stands for (its start), for the ordering of histograms. */
    public long value(int i) {
        if (i == 0) return -max;
        if (i == buckets() - 1) return max;
        int z = zero();
        if (i == z) return 0;
        return i > z ? starts[i - z - 1] : -starts[z - 1 - i];
    }

    /**
     * The lowest value of each bucket but the first, ascending: bucket(v) is the number of them
     * that are <= v (a kernel program's search, org.jdtrace.spi.KernelClause); null when two
     * buckets start at the same value (parameters whose orders overflow a long).
     */
    public long[] bounds() {
        int z = zero(), n = buckets();
        long[] b = new long[n - 1];
        for (int i = 1; i < n; i++) {
            // a negative bucket's values run from the next start's negation (exclusive) up to its own
            if (i < z) b[i - 1] = -(z - i == starts.length ? max : starts[z - i]) + 1;
            else if (i == z) b[i - 1] = -starts[0] + 1;
            else b[i - 1] = i == n - 1 ? max : starts[i - z - 1];
        }
        for (int i = 1; i < b.length; i++) {
            if (b[i] <= b[i - 1]) return null;
        }
        return b;
    }

    public boolean sameAs(LogLinear o) {
        return factor == o.factor && low == o.low && high == o.high && nsteps == o.nsteps;
    }
}
