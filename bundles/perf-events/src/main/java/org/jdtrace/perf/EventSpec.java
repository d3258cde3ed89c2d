package org.jdtrace.perf;

/**
 * What to open: a perf_event_attr's essentials. {@code type}/{@code config} as perf_event_open(2)
 * takes them; {@code period} is a sample period, or a frequency when {@code freq}; the sample
 * type and flags are PERF_SAMPLE_* and the attr bit field; {@code regsUser} the sample_regs_user
 * mask; {@code ringPages} the data pages of each ring (a power of two); {@code pid} -1 for every
 * task, or one task (then one event, on any CPU, inherited by its children); {@code cpu} with
 * pid -1: -1 for one event on every online CPU, or the one CPU to watch (every task there);
 * {@code stackUser} the sample_stack_user size (bytes of user stack each sample copies from the
 * sp up, with {@link #SAMPLE_STACK_USER}; a multiple of 8 below 64 KB), 0 for none.
 */
public record EventSpec(int type, long config, long period, boolean freq, long sampleType, long flags,
        long regsUser, int ringPages, int pid, boolean disabled, int cpu, int stackUser) {

    public EventSpec {
        if (cpu >= 0 && pid >= 0) throw new IllegalArgumentException("one task or one CPU, not both");
        if (stackUser < 0 || stackUser >= 65536 || (stackUser & 7) != 0) {
            throw new IllegalArgumentException("stack copy size " + stackUser + " is not a multiple of 8 below 64 KB");
        }
    }

    /** No stack copy. */
    public EventSpec(int type, long config, long period, boolean freq, long sampleType, long flags,
            long regsUser, int ringPages, int pid, boolean disabled, int cpu) {
        this(type, config, period, freq, sampleType, flags, regsUser, ringPages, pid, disabled, cpu, 0);
    }

    /** Every CPU (or one task on any CPU). */
    public EventSpec(int type, long config, long period, boolean freq, long sampleType, long flags,
            long regsUser, int ringPages, int pid, boolean disabled) {
        this(type, config, period, freq, sampleType, flags, regsUser, ringPages, pid, disabled, -1);
    }

    public static final int TYPE_SOFTWARE = 1, TYPE_TRACEPOINT = 2;
    public static final long SAMPLE_IP = 1, SAMPLE_TID = 2, SAMPLE_TIME = 4, SAMPLE_CALLCHAIN = 32,
            SAMPLE_CPU = 128, SAMPLE_RAW = 1024, SAMPLE_REGS_USER = 4096;
    /** @since 1.4 */
    public static final long SAMPLE_STACK_USER = 8192;
    public static final long FLAG_COMM = 1 << 9, FLAG_TASK = 1 << 13, FLAG_SAMPLE_ID_ALL = 1 << 18;
}
