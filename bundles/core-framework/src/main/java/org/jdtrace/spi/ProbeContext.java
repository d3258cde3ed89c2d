package org.jdtrace.spi;

/**
 * What the D runtime reads at a firing (the probe-context half of dtrace_mstate_t), supplied by
 * the firing provider: the calling Java thread for JVM-side providers, a stopped thread of a
 * traced process for the pid provider. One compiled clause serves every kind of context.
 *
 * <p>Methods that read the traced program's memory or registers throw {@link FaultException},
 * which the framework turns into a dtrace:::ERROR firing; tracing goes on.
 */
public interface ProbeContext {

    /** Argument {@code i} (arg0..arg9), 0 when the probe has fewer. */
    long arg(int i);

    /** Typed argument for {@code args[i]} when the provider has one (a String, a Long...), else arg(i). */
    default Object argObject(int i) {
        return arg(i);
    }

    long pid();

    long ppid();

    long tid();

    String execname();

    int cpu();

    /** User register by DTrace number (uregs[R_RIP]); fault where there is no user context. */
    default long uregs(int reg) throws FaultException {
        throw new FaultException(FaultException.Kind.ILLOP, 0);
    }

    /**
     * True when the probe fires in the very thread that runs its clauses, as the JVM-side probes
     * do (dtrace:::BEGIN in dtrace's own process): uregs[] are then that thread's own registers,
     * read at the time through the ISA (Abi.callingThreadUreg), as DTrace on Linux's BEGIN uprobe
     * gives dtrace's. False (the default) where the registers are another thread's (a stopped
     * traced process, a sample): uregs() gives them.
     */
    default boolean firesInCallingThread() {
        return false;
    }

    /** Copies {@code len} bytes from the user address space (copyin). */
    default byte[] copyin(long addr, int len) throws FaultException {
        throw new FaultException(FaultException.Kind.BADADDR, addr);
    }

    /** Reads a NUL-terminated string of at most {@code max} bytes (copyinstr). */
    default String copyinstr(long addr, int max) throws FaultException {
        throw new FaultException(FaultException.Kind.BADADDR, addr);
    }

    /** Writes bytes into the user address space (copyout, destructive). */
    default void copyout(byte[] data, long addr) throws FaultException {
        throw new FaultException(FaultException.Kind.BADADDR, addr);
    }

    /** User stack program counters, innermost first, at most {@code max} frames. */
    default long[] ustack(int max) {
        return new long[0];
    }

    /**
     * Kernel stack program counters (stack()), innermost first, at most {@code max} frames; empty
     * where the firing has no kernel context (every JVM-side and ptrace probe).
     */
    default long[] stack(int max) {
        return new long[0];
    }

    /** Symbolises a kernel address as {@code module`function+0xoff}, or null. */
    default String ksym(long pc) {
        return null;
    }

    /**
     * The firing's time on CLOCK_MONOTONIC in ns (D's timestamp): now, unless the event happened
     * earlier than it is delivered (kernel events drained from their rings carry their own time).
     */
    default long timestamp() {
        return System.nanoTime();
    }

    /**
     * The firing thread's time on CPU in ns (D's vtimestamp): what the thread has run since it
     * was created, as the kernel accounts it (its task's sum_exec_runtime, the first field of
     * /proc/PID/task/TID/schedstat), at the event. The default is the calling Java thread's CPU
     * time (CLOCK_THREAD_CPUTIME_ID), right where the probe fires in the thread that runs its
     * clauses (firesInCallingThread); a provider whose probes fire in another thread's name (a
     * traced process's, a kernel event's) gives that thread's, read at the event or while it is
     * stopped there.
     *
     * @since 1.9
     */
    default long vtimestamp() {
        return ThreadCpuTime.callingThread();
    }

    /**
     * {@code curpsinfo->member} of the firing process as the provider recorded it at the event:
     * an integer member ({@code pr_uid}, {@code pr_gid}, {@code pr_euid}, {@code pr_egid}), or
     * {@link Long#MIN_VALUE} when it did not (the runtime then reads /proc, after the event for
     * a kernel event, and a process gone since reads as zeros). pr_pid, pr_ppid and pr_fname are
     * always the context's own pid(), ppid() and execname().
     *
     * @since 1.9
     */
    default long psinfo(String member) {
        return Long.MIN_VALUE;
    }

    /**
     * As {@link #psinfo} for a char array member ({@code pr_psargs}): the text recorded at the
     * event, or null when the provider did not record it.
     *
     * @since 1.9
     */
    default String psinfoString(String member) {
        return null;
    }

    /** The errno of the system call that just returned (syscall:::return), else 0. */
    default long errno() {
        return 0;
    }

    /** Symbolises a user address as {@code module`function+0xoff}, or null. */
    default String usym(long pc) {
        return null;
    }

    /** The return address of the current user function (ucaller), 0 if none. */
    default long ucaller() {
        return 0;
    }

    /**
     * The firing thread's Java frames for stack() and jstack() at a JVM-side probe, innermost
     * first, at most {@code max}, each symbolised as {@code module`Class.method+bci} (the bundle,
     * a backquote, the function as the provider names it, the bytecode offset); null where the
     * context has no Java frames (a traced process's thread), so that stack() stays empty and
     * jstack() walks the user stack. Called in probe context.
     */
    default String[] javaStack(int max) {
        return null;
    }

    /**
     * jstack() where the context has no Java frames of its own ({@link #javaStack} null): the
     * user stack, innermost first, at most {@code max}, each frame as ustack() prints it except
     * that a JVM's frames the provider can name from the JVM's own structures are named so (a
     * HotSpot interpreter frame by its method); null where the provider has no such walk, so
     * that jstack() is ustack()'s frames. Called in probe context.
     *
     * @since 1.10
     */
    default String[] jstack(int max) {
        return null;
    }

    /** Sends a signal to the current process (raise, destructive). */
    default void raise(int signal) throws FaultException {
        throw new FaultException(FaultException.Kind.ILLOP, 0);
    }

    /** Stops the current process (stop, destructive). */
    default void stopProcess() throws FaultException {
        throw new FaultException(FaultException.Kind.ILLOP, 0);
    }

    /**
     * {@code args[i]->member} where the provider types args[i] as {@code psinfo_t *} or
     * {@code lwpsinfo_t *} (ArgDesc.translatedType; its raw arg(i) is the pid or tid it describes):
     * the integer member as the provider recorded it at the event, or {@link Long#MIN_VALUE} when
     * it did not (the runtime then reads /proc for the process or thread arg(i) names).
     *
     * @since 1.6
     */
    default long argInfo(int i, String member) {
        return Long.MIN_VALUE;
    }

    /**
     * As {@link #argInfo} for a char array member ({@code pr_fname}, {@code pr_name}): the text
     * recorded at the event, or null when the provider did not record it.
     *
     * @since 1.6
     */
    default String argInfoString(int i, String member) {
        return null;
    }
}
