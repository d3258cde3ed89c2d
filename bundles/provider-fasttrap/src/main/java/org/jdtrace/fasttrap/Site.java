package org.jdtrace.fasttrap;

import org.osgi.annotation.versioning.ProviderType;

/** One user's hold on a shared tracepoint. */
@ProviderType
public interface Site extends AutoCloseable {

    long pc();

    /**
     * Hits copy {@code bytes} of the user stack at the event (0: the small default), for a probe
     * whose clauses walk the user stack (Probe.userStack, option ustackbytes); a site that reads
     * the stopped thread's stack itself (ptrace) ignores it.
     *
     * @since 1.2
     */
    default void stack(int bytes) {}

    /** Stops this handler; the last one out puts the original instruction back. Idempotent. */
    @Override
    void close();
}
