package org.jdtrace.libdtrace.rt;

/**
 * One ECB firing's record in a principal buffer: EPID, CPU and time (the dtrace_rechdr_t) and
 * the data of its recording actions, in action order. {@code seq} orders records of one thread.
 */
public record Record(int epid, int cpu, long timestamp, long seq, Datum[] data) {

    public static final int HEADER = 12;
}
