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

    /** Records the kernel lost so far (a full ring). */
    long lost();

    /** Closes every link, the program and the ring (its records are read first). Idempotent. */
    @Override
    void close();
}
