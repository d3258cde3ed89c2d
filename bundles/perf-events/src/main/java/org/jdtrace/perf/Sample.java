package org.jdtrace.perf;

import java.lang.foreign.MemorySegment;

/**
 * One PERF_RECORD_SAMPLE as the drain thread reads it, handed to a {@link RecordHandler}. A
 * flyweight: the same object is filled again for the next record, and {@link #raw()} is valid only
 * during the call. The fields present are those the event's sample type asked for (0 or empty
 * otherwise).
 */
public final class Sample {

    public int cpu;
    public int pid;
    public int tid;
    public long time;
    public long ip;
    /** The call chain's program counters, kernel frames first then user frames, context markers removed. */
    public final long[] kernelChain = new long[128];
    public int kernelDepth;
    public final long[] userChain = new long[128];
    public int userDepth;
    /** User registers in perf_regs order of the event's sample_regs_user mask (PERF_SAMPLE_REGS_USER). */
    public final long[] userRegs = new long[32];
    public int userRegsCount;
    /**
     * PERF_SAMPLE_STACK_USER: the user stack copied at the sample, {@code userStack[0..userStackSize)}
     * from the user sp up (the array is reused and may be longer).
     *
     * @since 1.4
     */
    public byte[] userStack = new byte[0];
    /** @since 1.4 */
    public int userStackSize;
    /** PERF_SAMPLE_RAW's bytes (a tracepoint's record, a BPF program's output). */
    public MemorySegment raw = MemorySegment.NULL;
    /** Whether the sample was taken in user mode (PERF_RECORD_MISC_USER). */
    public boolean user;
}
