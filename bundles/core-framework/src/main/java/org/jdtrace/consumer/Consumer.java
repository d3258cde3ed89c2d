package org.jdtrace.consumer;

import java.io.PrintStream;
import java.util.List;

/**
 * One consumer (dtrace_hdl_t): compile programs, enable them, run, and print what they record.
 * The life cycle is dtrace(1M)'s: {@link #setOption}, {@link #compile}, {@link #exec},
 * {@link #go}, then {@link #work} until {@link Status#DONE}, then {@link #close()}, which always
 * disables every ECB and releases every probe, however the run ended.
 */
public interface Consumer extends AutoCloseable {

    /** -x name[=value] and #pragma D option; unknown options fail as dtrace does. */
    void setOption(String name, String value) throws DTraceException;

    /** Current value of an option, or null when unset. */
    String getOption(String name);

    /**
     * The options set on this consumer that travel with its descriptions and processes instead of
     * holding for the whole JVM ({@code uprobes}: 0 for -x uprobes=off, 1 for on), as the
     * providers get them (Provider.provide(desc, consumerOptions)) and process control
     * (ProcessControl.create/grab with consumerOptions). Empty when none is set.
     *
     * @since 1.3
     */
    default java.util.Map<String, Long> consumerOptions() {
        return java.util.Map.of();
    }

    /**
     * Compiles D source (dtrace_program_strcompile). {@code macroArgs} are {@code $0..$n}
     * ({@code $0} the script name). {@code descriptionsOnly} is the -n/-P/-m/-f/-i case where the
     * text is a probe description list, possibly with clauses.
     */
    Program compile(String source, String sourceName, List<String> macroArgs) throws DTraceException;

    /** Compiles a probe description given with -P/-m/-f/-n/-i, with no clause (lists, or traces with the default action). */
    default Program compileDescription(DescriptionKind kind, String description) throws DTraceException {
        return compileDescription(kind, description, null);
    }

    /**
     * As above, with macro arguments ({@code $0..$n}, as for {@link #compile}): dtrace expands
     * {@code $1} in {@code -n 'pid$1::malloc:entry' 1234} too.
     */
    Program compileDescription(DescriptionKind kind, String description, List<String> macroArgs) throws DTraceException;

    /** Creates the program's enablings (dtrace_program_exec); returns how many probes matched. */
    int exec(Program program) throws DTraceException;

    /** The probes a program's descriptions match now, for -l. */
    List<ProbeInfo> list(Program program) throws DTraceException;

    /** Starts tracing: BEGIN fires; output goes to {@code out}, diagnostics to {@code err}. */
    void go(PrintStream out, PrintStream err) throws DTraceException;

    /**
     * Waits up to one switchrate period, drains the buffers and prints their records
     * (dtrace_work). Returns DONE once exit() ran or stop() was asked and END was printed.
     */
    Status work() throws DTraceException;

    /** Asks the run to end (Ctrl-C): END fires, aggregations print, work() then returns DONE. */
    void stop();

    /** The status passed to exit(), or 0. */
    int exitStatus();

    /** Disables every ECB and releases everything. Idempotent. */
    @Override
    void close();

    enum Status { OK, DONE }

    enum DescriptionKind { NAME, PROVIDER, MODULE, FUNCTION, ID }
}
