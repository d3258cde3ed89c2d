package org.jdtrace.perf;

/**
 * One perf event on every CPU (or on one task), each with its mmap'd ring, drained by the service.
 * close() disables and closes every event, unmaps every ring and stops its draining; it is
 * idempotent.
 */
@org.osgi.annotation.versioning.ProviderType
public interface EventSet extends AutoCloseable {

    /** The events' descriptors, by CPU index. */
    int[] fds();

    /** Records the kernel lost so far, over every CPU. */
    long lost();

    /** Enables every event (sets opened with {@link EventSpec#disabled()} start disabled). */
    void enable();

    /**
     * Runs {@code program} (from {@link PerfEvents#perfEventProgram}) at each sample of every
     * event of the set; closing the set detaches it (the program stays the caller's to close).
     *
     * @since 1.1
     */
    void attach(BpfObject program);

    @Override
    void close();
}
