/*
 * Aggregation: one aggregation variable of a consumer (dtrace_aggvarid_t plus its dt_ident):
 * its function, the widths of its keys, the lquantize() parameters, and the generation counter
 * through which clear() and trunc() reach the per-thread buffers.
 *
 * Firing threads never lock: each thread accumulates into its own AggCells (see DThread); a
 * cell whose generation is older than the aggregation's is reset before use, which is how a
 * clear() or trunc() processed by the consumer discards what threads accumulated before it.
 * An update racing with a generation change can be lost; DTrace has the same window between a
 * buffer switch and the consumer's clear.
 */
package org.jdtrace.libdtrace.rt;

import java.math.BigInteger;
import java.util.Arrays;

public final class Aggregation {

    public final int id;
    public final String name;
    public final AggKind kind;
    /** Key widths in bytes (1, 2, 4, 8) or 0 for a string key. */
    public final int[] keySizes;
    public final long lqBase;
    public final long lqStep;
    public final int lqLevels;
    /** The buckets of an llquantize() aggregation, else null. */
    public final LogLinear llq;
    volatile int gen;

    public Aggregation(int id, String name, AggKind kind, int[] keySizes, long lqBase, long lqLimit, long lqStep) {
        this(id, name, kind, keySizes, lqBase, lqLimit, lqStep, null);
    }

    public Aggregation(int id, String name, int[] keySizes, LogLinear llq) {
        this(id, name, AggKind.LLQUANTIZE, keySizes, 0, 0, 1, llq);
    }

    private Aggregation(int id, String name, AggKind kind, int[] keySizes, long lqBase, long lqLimit, long lqStep,
                        LogLinear llq) {
        this.llq = llq;
        this.id = id;
        this.name = name;
        this.kind = kind;
        this.keySizes = keySizes.clone();
        this.lqBase = lqBase;
        this.lqStep = lqStep <= 0 ? 1 : lqStep;
        this.lqLevels = kind == AggKind.LQUANTIZE ? (int) ((lqLimit - lqBase) / this.lqStep) : 0;
    }

    public boolean keyed() {
        return keySizes.length > 0;
    }

    int dataLength() {
        return switch (kind) {
            case AVG -> 2;
            case STDDEV -> 4;
            case QUANTIZE -> AggKind.QUANTIZE_NBUCKETS;
            case LQUANTIZE -> lqLevels + 2;
            case LLQUANTIZE -> llq.buckets();
            default -> 1;
        };
    }

    /**
     * The bytes one entry (one key's value) takes in an aggregation buffer of aggsize bytes: the
     * aggregation id (as dtrace_aggkey's, 8 with its alignment), each key 8-byte aligned (a string
     * key strsize bytes and its NUL), and the value's words.
     */
    public long entryBytes(Options o) {
        long n = 8;
        for (int k : keySizes) n += ((k == 0 ? o.get("strsize") + 1 : k) + 7) & ~7L;
        return n + 8L * dataLength();
    }

    /** A fresh value: the identity of the function. */
    public long[] identity() {
        long[] d = new long[dataLength()];
        if (kind == AggKind.MIN) d[0] = Long.MAX_VALUE;
        if (kind == AggKind.MAX) d[0] = Long.MIN_VALUE;
        return d;
    }

    /** Applies one update to data words (the hot path; no allocation). */
    public void apply(long[] d, long value, long incr) {
        switch (kind) {
            case COUNT -> d[0]++;
            case SUM -> d[0] += value;
            case MIN -> { if (value < d[0]) d[0] = value; }
            case MAX -> { if (value > d[0]) d[0] = value; }
            case AVG -> { d[0]++; d[1] += value; }
            case STDDEV -> {
                d[0]++;
                d[1] += value;
                // 128-bit sum of squares in d[2] (high) / d[3] (low)
                long sq = value * value;
                long hi = Math.multiplyHigh(value, value);
                long lo = d[3] + sq;
                if (Long.compareUnsigned(lo, d[3]) < 0) hi++;
                d[3] = lo;
                d[2] += hi;
            }
            case QUANTIZE -> d[AggKind.quantizeBucket(value)] += incr;
            case LQUANTIZE -> d[lquantizeBucket(value)] += incr;
            case LLQUANTIZE -> d[llq.bucket(value)] += incr;
        }
    }

    /** The bucket of a histogram that counts the value 0. */
    public int zeroBucket() {
        return switch (kind) {
            case QUANTIZE -> AggKind.QUANTIZE_ZEROBUCKET;
            case LQUANTIZE -> lquantizeBucket(0);
            case LLQUANTIZE -> llq.bucket(0);
            default -> 0;
        };
    }

    int lquantizeBucket(long v) {
        if (v < lqBase) return 0;
        long i = (v - lqBase) / lqStep;
        if (i >= lqLevels) return lqLevels + 1;
        return (int) i + 1;
    }

    /** Merges {@code src} into {@code dst} (dt_aggregate's aggregation of per-CPU data). */
    public void merge(long[] dst, long[] src) {
        switch (kind) {
            case MIN -> { if (src[0] < dst[0]) dst[0] = src[0]; }
            case MAX -> { if (src[0] > dst[0]) dst[0] = src[0]; }
            case STDDEV -> {
                dst[0] += src[0];
                dst[1] += src[1];
                long lo = dst[3] + src[3];
                long carry = Long.compareUnsigned(lo, dst[3]) < 0 ? 1 : 0;
                dst[3] = lo;
                dst[2] += src[2] + carry;
            }
            default -> {
                for (int i = 0; i < dst.length; i++) dst[i] += src[i];
            }
        }
    }

    /** The scalar a %@d conversion and value sorting see for count/sum/min/max/avg/stddev. */
    public long scalar(long[] d) {
        return scalar(d, 1);
    }

    /** {@link #scalar(long[])} of data normalized by {@code normal} (dt_print_datum's divisions). */
    public long scalar(long[] d, long normal) {
        return switch (kind) {
            case AVG -> d[0] == 0 ? 0 : d[1] / normal / d[0];
            case STDDEV -> stddev(d, normal);
            case QUANTIZE, LQUANTIZE, LLQUANTIZE -> 0;
            default -> d[0] / normal;
        };
    }

    /**
     * dt_stddev's integer arithmetic: sqrt(sumsq / n - (sum / n)^2) with 128-bit quotients and
     * an integer square root (a double loses the variance of large values).
     */
    static long stddev(long[] d) {
        return stddev(d, 1);
    }

    /**
     * dt_stddev(data, normal) as illumos computes it: the sum divided by the normalization
     * factor, the sum of squares by its square (a normalized stddev is the stddev of the values
     * divided by it; DTrace on Linux divides the squares once, and no test of its suite
     * normalizes a stddev).
     */
    static long stddev(long[] d, long normal) {
        if (d[0] == 0) return 0;
        BigInteger n = BigInteger.valueOf(d[0]);
        BigInteger avg = BigInteger.valueOf(d[1] / normal).divide(n);
        BigInteger norm = BigInteger.valueOf(normal);
        BigInteger sumsq = BigInteger.valueOf(d[2]).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(d[3])))
                .divide(norm).divide(norm);
        BigInteger diff = sumsq.divide(n).subtract(avg.multiply(avg));
        return diff.signum() <= 0 ? 0 : diff.sqrt().longValue();
    }

    @Override
    public String toString() {
        return "@" + name + "[" + Arrays.toString(keySizes) + "]=" + kind;
    }
}
