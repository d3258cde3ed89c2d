package org.jdtrace.perf;

/**
 * Kernel uprobes with a BPF program that captures, at each hit and in the hitting thread, what a
 * clause of the JVM reads later: the thread's identity and name, its user registers and the top
 * of its user stack; the records come to a {@link UserProbeHandler} on the drain thread. Each
 * {@link #attach} is one uprobe_multi link: the kernel removes its probes when it is closed, or
 * when the last descriptor goes with a killed JVM, so nothing is left in the traced process or in
 * the kernel. Any number of them (and of other tracers' uprobes) share an address.
 *
 * @since 1.4
 */
@org.osgi.annotation.versioning.ProviderType
public interface UserProbes extends AutoCloseable {

    /** The cookies {@link #filter} takes: 0 .. COOKIES - 1. */
    int COOKIES = 65536;

    /**
     * Probes at the file offsets {@code offsets} of {@code path}, every hit a record with
     * {@code cookie}; {@code refCtrOffsets} the USDT semaphore's file offset for each (0: none; null
     * for none at all), which the kernel counts up while the probe is there; {@code pid} 0 for
     * every process that maps the file, now or later, else that process only; {@code onReturn}:
     * return probes (uretprobes) of the functions entered at the offsets, whose records hold the
     * registers after the return (pc in the caller). Closing the handle removes them.
     *
     * @throws PerfException with the kernel's reason when it refuses them
     */
    AutoCloseable attach(String path, long[] offsets, long[] refCtrOffsets, long cookie, int pid, boolean onReturn);

    /** Records of {@code cookie}'s probes from process {@code pid} only (0: every process), dropped in the kernel. */
    void filter(long cookie, int pid);

    /**
     * Hits of {@code cookie}'s probes copy at least {@code bytes} of the user stack above the
     * stack pointer (whole pages from the stack pointer's page up, as far as the stack is mapped;
     * at most {@link #maxStackBytes()}), for an unwinder's ustack(); 0 (the default): the small
     * copy the capture was opened with.
     *
     * @since 1.5
     */
    default void stack(long cookie, int bytes) {}

    /** The most bytes above the stack pointer {@link #stack} copies. @since 1.5 */
    default int maxStackBytes() {
        return 0;
    }

    /**
     * Every hit of {@code cookie}'s probes (that its filter lets through) also sends signal
     * {@code signal} to the hitting process, in the kernel, right after its record is written
     * (bpf_send_signal; 0: none, the default). The thread takes it on its way back to user mode,
     * once the probed instruction has run: SIGSTOP holds the process at the probe until the
     * record has been handled and the caller continues it. A reused cookie starts with none.
     * Each record says which signal its hit sent ({@link UserHit#signal}), so a change of the
     * cookie's signal never leaves a held process unknown to the handler.
     *
     * @since 1.5
     */
    void signal(long cookie, int signal);

    /**
     * The clauses the kernel may run at the hits of {@code cookie}'s probe (its
     * Probe.kernelClauses, read at {@link #commit}): predicates that decide in the kernel whether
     * a hit's record is sent at all, and aggregations kept in BPF maps, folded into the consumer's
     * at each snapshot (the probe is told through Probe.runInKernel). Argument i is where
     * {@code args[i]} says in the captured register frame ({@link #argument}; -1: not there, and a
     * clause that reads it runs in the JVM); {@code function} is the probe's probefunc. Null
     * {@code probe}: none (the cookie's hits are all sent). Takes effect at {@link #commit}.
     *
     * @throws PerfException when a clause of kernelclauses=force (KernelClause.required) cannot
     *         run in the kernel there
     * @since 1.5
     */
    default void clauses(long cookie, org.jdtrace.spi.Probe probe, int[] args, String function) {}

    /**
     * An argument's place for {@link #clauses}: word {@code word} of the register frame, its low
     * {@code bytes} bytes (1, 2, 4, 8) sign- or zero-extended (Abi.kernelRegsSdtArgument's encoding).
     *
     * @since 1.5
     */
    static int argument(int word, int bytes, boolean signed) {
        return word | bytes << 8 | (signed ? 1 << 16 : 0);
    }

    /**
     * The program is built anew when {@link #clauses} changed since (the provider's batch is done).
     * A program the kernel refuses: each of its clauses is reported once through
     * Probe.kernelRefused and runs in the JVM from then on. @since 1.5
     */
    default void commit() {}

    /**
     * Aggregations made since the last call start from what their maps hold now (the consumer goes
     * live: what was counted while the probes went in is not its own). @since 1.5
     */
    default void sync() {}

    /**
     * Records the kernel could not write so far (a full ring); those the handler was not told of
     * yet are reported to it now ({@link UserProbeHandler#lost}, per CPU), as they are when a
     * later record comes and on close. Call it after a drain to learn of losses at the end.
     */
    long lost();

    /** Closes every link, the program and the ring (its records are read first). Idempotent. */
    @Override
    void close();
}
