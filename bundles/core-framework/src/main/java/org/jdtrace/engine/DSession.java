package org.jdtrace.engine;

import java.io.PrintStream;
import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.spi.Probe;

/**
 * The D half of one consumer's state (dtrace_state_t as libdtrace sees it): options, variables,
 * aggregations, speculations, per-thread principal buffers and the printing of what they hold.
 * The framework half (ConsumerImpl) drives it:
 * {@code compile* -> begin -> (drain at switchrate)* -> end -> close}.
 * Thread-safe: ECB bodies it compiled run on any thread while the consumer drains.
 */
@org.osgi.annotation.versioning.ProviderType
public interface DSession {

    /** -x / #pragma option; throws for an unknown option or bad value, worded as dtrace. */
    void setOption(String name, String value) throws DTraceException;

    String getOption(String name);

    /**
     * The value of option {@code name} if it is one the framework hands to every provider
     * (Provider.option: fbt-max), else null. Called after {@link #setOption} succeeded.
     */
    Long providerOption(String name);

    /**
     * The value of option {@code name} if it is one that travels with this consumer's
     * descriptions to the providers (Provider.provide(desc, consumerOptions): uprobes, 0 off and
     * 1 on), else null. Called after {@link #setOption} succeeded.
     *
     * @since 1.6
     */
    default Long consumerOption(String name) {
        return null;
    }

    DProgram compile(String source, String sourceName, List<String> macroArgs) throws DTraceException;

    /**
     * The framework's probe table as the compiler sees it: {@code args[]} of a clause is typed from
     * the argument descriptions of the probes its descriptions match (dt_idcook_args). Set once,
     * before the first compile; without it {@code args[]} is int64_t. Since 1.1.
     */
    default void probeArgs(ProbeArgs lookup) {
    }

    /**
     * A statement list for -n/-P/-m/-f/-i descriptions with no clause: the default action
     * (trace nothing but print the CPU/ID/FUNCTION:NAME line).
     */
    default DProgram compileDescriptions(List<String> descriptions) throws DTraceException {
        return compileDescriptions(descriptions, null);
    }

    /** As above, with {@code $1..} in the descriptions expanded from {@code macroArgs} ($0 first). */
    DProgram compileDescriptions(List<String> descriptions, List<String> macroArgs) throws DTraceException;

    /**
     * Tracing starts; records are printed to {@code out}, diagnostics to {@code err}. Refused
     * (dtrace's "could not enable tracing: ...") when the programs need what the options do not
     * allow, e.g. destructive actions without -w.
     */
    void begin(PrintStream out, PrintStream err) throws DTraceException;

    /** Prints the records buffered so far and reports drops (dtrace_consume). */
    void drain();

    /**
     * Firings of an enabled probe were lost before they ran (a provider's kernel ring was full):
     * drops on {@code cpu}, reported with the next drain as the principal buffer's.
     *
     * @since 1.4
     */
    default void lost(int cpu, long count) {}

    /**
     * A provider could not run {@code clause} (as its statement names it) in the kernel after all
     * (Probe.kernelRefused): it runs in the JVM. One warning line per clause, {@code reason} its
     * cause.
     *
     * @since 1.5
     */
    default void kernelRefused(String clause, String reason) {}

    /** A fault happened in an ECB: record it for the default ERROR report. */
    void fault(int epid, Probe probe, DFault fault);

    /** After END fired: drain, then print aggregations not yet printed (dtrace's exit path). */
    void end();

    /** exit() ran in some clause. */
    boolean exitRequested();

    /**
     * {@code wake} is run (from probe context: it must not block) when a clause's exit() is
     * committed, so that a consumer waiting for its next period ends at once instead of polling
     * {@link #exitRequested}.
     *
     * @since 1.2
     */
    default void onExit(Runnable wake) {}

    int exitStatus();

    /** Tells the D half which probe an epid belongs to, for the CPU/ID/FUNCTION:NAME lines. */
    void ecbCreated(int epid, Probe probe, Statement statement);

    /**
     * The clause an epid runs, as the D half numbers its clauses (the N of the "dt_clause_N" its
     * fault reports name): dtrace:::ERROR's arg2, as DTrace on Linux passes it. 0 when unknown.
     *
     * @since 1.3
     */
    default int clauseOf(int epid) {
        return 0;
    }
}
