package org.jdtrace.libdtrace.rt;

/**
 * One thread's data words for one aggregation key, stamped with the aggregation generation
 * they belong to. Written only by its thread; read by the consumer at snapshot time (plain
 * 64-bit words, which the JVM on amd64 never tears).
 */
public final class AggCell {
    int gen;
    final long[] data;

    AggCell(int gen, long[] data) {
        this.gen = gen;
        this.data = data;
    }
}
