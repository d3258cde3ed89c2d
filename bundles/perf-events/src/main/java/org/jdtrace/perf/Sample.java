package org.jdtrace.perf;

import java.lang.foreign.MemorySegment;

/**
 * One PERF_RECORD_SAMPLE as the drain thread reads it, handed to a {@link RecordHandler}. A
 * flyweight: the same object is filled again for the next record, and {@link #raw} and
 * {@link #userStack} are valid only during the call. The fields present are those the event's sample type asked for (0 or empty
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
     * PERF_SAMPLE_STACK_USER: the user stack copied at the sample, {@code userStackSize} bytes of
     * {@code userStack} from {@code userStackOffset}, from the user sp up: the ring's record read
     * in place (no copy of its 8 KB is made for a walk that reads a few hundred bytes of it),
     * valid only during the call, as {@link #raw}.
     *
     * @since 2.0
     */
    public MemorySegment userStack = MemorySegment.NULL;
    /** @since 2.0 */
    public long userStackOffset;
    /** @since 1.4 */
    public int userStackSize;
    /** PERF_SAMPLE_RAW's bytes (a tracepoint's record, a BPF program's output). */
    public MemorySegment raw = MemorySegment.NULL;
    /** Whether the sample was taken in user mode (PERF_RECORD_MISC_USER). */
    public boolean user;
}
