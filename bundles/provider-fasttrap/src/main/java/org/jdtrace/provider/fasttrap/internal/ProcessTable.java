package org.jdtrace.provider.fasttrap.internal;

import java.util.Collection;
import java.util.function.Consumer;

/**
 * The processes under jdtrace's control (fasttrap_proc_t's table), owned by the pid provider
 * and shared with the other providers of this bundle that watch the same processes (syscall):
 * one ptrace attachment per process whoever asked for it. Bundle-private service.
 */
public interface ProcessTable {

    /** The processes followed now (-c, -p and those grabbed for pid probes). */
    Collection<ProcessState> processes();

    /** {@code l} is told of every process followed from now on, before it runs. */
    void addTrackListener(Consumer<ProcessState> l);

    void removeTrackListener(Consumer<ProcessState> l);
}
