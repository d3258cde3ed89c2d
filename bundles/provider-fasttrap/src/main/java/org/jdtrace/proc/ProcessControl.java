package org.jdtrace.proc;

import java.util.List;

/**
 * Creates and grabs target processes (an OSGi service of the pid provider's bundle).
 * A consumer expands {@code $target} to {@link TargetProcess#pid()}.
 */
public interface ProcessControl {

    /**
     * dtrace -c: starts {@code argv} (argv[0] looked up in PATH, environment inherited) stopped
     * before its first instruction with its libraries mapped. It runs at {@link TargetProcess#go()}.
     */
    TargetProcess create(List<String> argv) throws ProcessException;

    /** dtrace -p: grabs a running process, held stopped until {@link TargetProcess#go()}. */
    TargetProcess grab(int pid) throws ProcessException;
}
