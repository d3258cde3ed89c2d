package org.jdtrace.perf;

/**
 * What the drain thread calls for the records of an {@link EventSet}, on that thread only, one
 * record at a time, in each CPU's ring order.
 */
@org.osgi.annotation.versioning.ConsumerType
public interface RecordHandler {

    void sample(Sample s);

    /** A process named itself (PERF_RECORD_COMM: exec or prctl), when the events asked for comm records. */
    default void comm(int pid, int tid, String comm) {}

    /** The kernel lost {@code count} records of CPU {@code cpu}: its ring was full (DTrace's drops). */
    default void lost(int cpu, long count) {}

    /**
     * How long, at the most, this set's records may wait in their rings before a drain reads them
     * when fewer than a wake-up's worth came: the drain thread's poll times out after the least of
     * the open sets' waits. 20 ms unless a handler allows more (a drain round costs CPU; a record
     * that holds its process stopped until it is read allows no more).
     *
     * @since 1.7
     */
    default int maxWaitMillis() {
        return 20;
    }
}
