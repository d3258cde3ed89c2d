package org.jdtrace.fasttrap;

import org.osgi.annotation.versioning.ProviderType;

/** One user's hold on a shared tracepoint. */
@ProviderType
public interface Site extends AutoCloseable {

    long pc();

    /**
     * The kernel may run {@code probe}'s clauses (its Probe.kernelClauses) at this site's hits,
     * argument i where {@code args[i]} says in the kernel's register frame
     * (Abi.kernelRegsSdtArgument's encoding, -1: not there, and a clause reading it runs in the
     * JVM): a hit none of whose clauses needs the JVM then never leaves the kernel. Built at the
     * end of the framework's batch (the pid provider's commit); again after Probe.kernelClauses
     * changed. A site on ptrace ignores it (every hit is stopped and judged in the JVM).
     *
     * @throws TracepointRefused when a clause of kernelclauses=force cannot run in the kernel here
     * @since 1.2
     */
    default void kernelClauses(org.jdtrace.spi.Probe probe, int[] args) throws TracepointRefused {}

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
