package org.jdtrace.libdtrace.rt;

/** The aggregating functions (DTRACEAGG_*), with the layout of their data words. */
public enum AggKind {
    COUNT, SUM, MIN, MAX, AVG, STDDEV, QUANTIZE, LQUANTIZE, LLQUANTIZE;

    /** A histogram: printed as a distribution, valued by its weighted sum. */
    public boolean histogram() {
        return this == QUANTIZE || this == LQUANTIZE || this == LLQUANTIZE;
    }

    /** Power-of-two buckets: 63 negative, zero, 63 positive (DTRACE_QUANTIZE_NBUCKETS). */
    public static final int QUANTIZE_NBUCKETS = 127;
    public static final int QUANTIZE_ZEROBUCKET = 63;

    /** DTRACE_QUANTIZE_BUCKETVAL. */
    public static long bucketValue(int b) {
        if (b < QUANTIZE_ZEROBUCKET) return -(1L << (QUANTIZE_ZEROBUCKET - 1 - b));
        if (b == QUANTIZE_ZEROBUCKET) return 0;
        return 1L << (b - QUANTIZE_ZEROBUCKET - 1);
    }

    /** The quantize() bucket of a value (dtrace_aggregate_quantize). */
    public static int quantizeBucket(long v) {
        if (v == 0) return QUANTIZE_ZEROBUCKET;
        if (v > 0) return QUANTIZE_ZEROBUCKET + 1 + (63 - Long.numberOfLeadingZeros(v));
        long m = -v;
        int log = 63 - Long.numberOfLeadingZeros(m);
        return Math.max(0, QUANTIZE_ZEROBUCKET - 1 - log);
    }
}
