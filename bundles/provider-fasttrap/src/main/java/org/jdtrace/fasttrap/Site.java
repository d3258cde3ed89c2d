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

    /** Stops this handler; the last one out puts the original instruction back. Idempotent. */
    @Override
    void close();
}
