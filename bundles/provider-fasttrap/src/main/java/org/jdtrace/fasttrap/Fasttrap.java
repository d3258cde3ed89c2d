package org.jdtrace.fasttrap;

import java.util.Collection;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The processes fasttrap follows (fasttrap_proc_t's table) and their events, for providers of
 * per-process probes other than pid (USDT). One ptrace attachment per process, whoever asked.
 */
@ProviderType
public interface Fasttrap {

    /** The processes followed now (-c, -p, and those grabbed for probes). */
    Collection<? extends TracedTarget> targets();

    /**
     * {@code l} is told of every event from now on: {@link TargetListener#followed} for each
     * process followed later, before it runs. Processes already followed are in
     * {@link #targets()}.
     */
    void addTargetListener(TargetListener l);

    void removeTargetListener(TargetListener l);
}
