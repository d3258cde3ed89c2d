package org.jdtrace.perf;

/**
 * The kernel's perf events and BPF for providers (the role illumos' cyclic subsystem and SDT
 * probes of its kernel play for profile, proc and sched). Everything opened here belongs to the
 * caller, which closes it; whatever is still open when this service goes away (bundle stop) is
 * closed by it.
 */
@org.osgi.annotation.versioning.ProviderType
public interface PerfEvents {

    /** The online CPUs the events cover. */
    int cpus();

    /**
     * Null when the events cover the whole machine (root, or perf_event_paranoid -1); otherwise
     * the one line saying how the kernel narrows them for this user.
     */
    String narrowed();

    /** The highest sampling rate the kernel allows (perf_event_max_sample_rate). */
    int maxSampleRate();

    /** A tracepoint by category and name (tracefs mounted on first use); PerfException when the kernel lacks it. */
    KernelTracepoint tracepoint(String category, String name);

    /** Opens {@code spec} (on every CPU unless it names a task) and drains its rings into {@code handler}. */
    EventSet open(EventSpec spec, RecordHandler handler);

    /** A BPF map (BPF_MAP_CREATE). */
    BpfObject map(int type, int keySize, int valueSize, int maxEntries, String name);

    /** Loads a tracepoint program; its ld_imm64 map references already hold the maps' fds. */
    BpfObject program(long[] insns, String name);

    /**
     * Loads a perf-event program (BPF_PROG_TYPE_PERF_EVENT) for {@link EventSet#attach}: it runs
     * at each sample of the set's events, in the sampled task's context, and a return of 0 drops
     * the sample before it reaches the ring. Only that set's events run it (unlike a tracepoint's
     * programs, which every user of the tracepoint shares).
     *
     * @since 1.1
     */
    BpfObject perfEventProgram(long[] insns, String name);

    /**
     * Attaches a loaded tracepoint program to {@code tp}: one perf event (a tracepoint's programs
     * run for every CPU), enabled, no ring. Closing the handle detaches it.
     */
    AutoCloseable attach(KernelTracepoint tp, BpfObject program);

    /**
     * Reads every open ring now, on the calling thread (the drain thread does it every few ms):
     * every record written before the call is handed to its handler before it returns.
     */
    void drain();

    /** The kernel symbol at {@code pc} as {@code function+0xoff} ({@code /proc/kallsyms}), or null. */
    String ksym(long pc);

    /**
     * The address of the kernel's function {@code name} ({@code /proc/kallsyms}), or 0 when there
     * is none or the kernel hides its addresses.
     *
     * @since 1.3
     */
    default long kaddr(String name) {
        return 0;
    }

    /**
     * Kernel uprobes whose hits are captured in the kernel (see {@link UserProbes}): each record
     * holds {@code regsWords} words of the hit's register frame (the ISA's pt_regs), and
     * {@code stackBytes} (a multiple of 8, at most 4096) of user stack read from the address in
     * word {@code spWord}.
     *
     * @throws PerfException with the kernel's reason when it offers no such probes to this user
     *         (no uprobe_multi links, no privilege for BPF)
     * @since 1.4
     */
    default UserProbes userProbes(int regsWords, int spWord, int stackBytes, UserProbeHandler handler) {
        throw new PerfException("this perf events service has no uprobes", 0);
    }

    /**
     * Whether the program of a {@link UserProbes} capture runs {@code clause} (a whole one,
     * KernelClause.whole: thread-locals in the kernel) at a probe whose arguments are where
     * {@code args} says ({@link UserProbes#argument}; -1: not captured): its every expression can
     * be evaluated there. False (the default) where no capture runs clauses.
     *
     * @since 1.6
     */
    default boolean userProbesRun(org.jdtrace.spi.KernelClause clause, int[] args) {
        return false;
    }
}
