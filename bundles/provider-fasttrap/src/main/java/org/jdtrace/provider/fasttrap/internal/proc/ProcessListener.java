package org.jdtrace.provider.fasttrap.internal.proc;

/** Life events of a traced process, delivered on its control thread. */
public interface ProcessListener {

    /** The process exec'd: its tracepoints are gone and it is defunct for the pid provider. */
    default void exec(TracedProcess process) {}

    /** The process is gone; {@code status} is its wait status. */
    default void exited(TracedProcess process, int status) {}
}
