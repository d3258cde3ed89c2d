package org.jdtrace.proc;

import java.util.List;

/**
 * Creates and grabs target processes for dtrace's -c and -p (libdtrace's dtrace_proc_create and
 * dtrace_proc_grab). Offered as an OSGi service by the pid provider's bundle, so that the probes
 * it creates for {@code pid<PID>} and the process the command line started share one ptrace
 * attachment. A consumer expands {@code $target} to {@link TargetProcess#pid()}.
 */
public interface ProcessControl {

    /**
     * dtrace -c: starts {@code argv} (argv[0] looked up in PATH, environment inherited) stopped
     * before its first instruction with its libraries mapped; it runs at
     * {@link TargetProcess#go()}. {@code stdio} says which of its standard streams are pipes to
     * this process ({@link TargetProcess#stdin()} ...) rather than inherited.
     */
    TargetProcess create(List<String> argv, Stdio stdio) throws ProcessException;

    /**
     * dtrace -c -x evaltime=...: as {@link #create(List, Stdio)}, the process held at
     * {@code at} instead. A provider that cannot stop there refuses (this default: anything
     * but {@link Evaltime#POSTINIT}, the point create(List, Stdio) holds it at).
     *
     * @since 1.1
     */
    default TargetProcess create(List<String> argv, Stdio stdio, Evaltime at) throws ProcessException {
        if (at != Evaltime.POSTINIT) {
            throw new ProcessException("cannot stop a process at evaltime " + at.name().toLowerCase(java.util.Locale.ROOT));
        }
        return create(argv, stdio);
    }

    /** dtrace -p: grabs a running process, held stopped until {@link TargetProcess#go()}. */
    TargetProcess grab(int pid) throws ProcessException;

    /**
     * As {@link #create(List, Stdio, Evaltime)} for a consumer with {@code consumerOptions}
     * (Consumer.consumerOptions): {@code uprobes} 0 (dtrace -x uprobes=off) puts the process's
     * pid and USDT probes on ptrace, 1 on the kernel's uprobes where the kernel allows them; absent,
     * the provider's default. The choice is the consumer's, never the JVM's: a later consumer
     * without the option gets the default again.
     *
     * @since 2.0
     */
    default TargetProcess create(List<String> argv, Stdio stdio, Evaltime at, java.util.Map<String, Long> consumerOptions)
            throws ProcessException {
        return create(argv, stdio, at);
    }

    /** As {@link #grab(int)}, the process traced as {@code consumerOptions} say (see create). @since 2.0 */
    default TargetProcess grab(int pid, java.util.Map<String, Long> consumerOptions) throws ProcessException {
        return grab(pid);
    }

    /**
     * The most pid tracepoints that may exist at once (dtrace -x fasttrap-max=N; the default,
     * 250000, comes from the provider's configuration, pid org.jdtrace.fasttrap).
     */
    void setFasttrapMax(int max);

    /**
     * Where a created process is held for its probes to be evaluated (dtrace(1M) -x evaltime):
     * EXEC right after exec, only the executable and the dynamic linker mapped; PREINIT once the
     * linker has mapped the libraries, before any initialiser runs; POSTINIT (the default) at the
     * executable's entry point, the libraries' initialisers run (on Linux the executable's own
     * constructors run after it, from the C library's start-up); MAIN at the first instruction
     * of main().
     *
     * @since 1.1
     */
    enum Evaltime { EXEC, PREINIT, POSTINIT, MAIN }

    /** Which standard streams of a created process are pipes (true) or inherited (false). */
    record Stdio(boolean pipeIn, boolean pipeOut, boolean pipeErr) {
        public static final Stdio INHERIT = new Stdio(false, false, false);
    }
}
