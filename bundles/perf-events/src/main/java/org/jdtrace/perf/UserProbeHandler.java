package org.jdtrace.perf;

/** What the drain thread calls for each {@link UserProbes} record, one at a time. @since 1.4 */
@org.osgi.annotation.versioning.ConsumerType
public interface UserProbeHandler {

    void hit(UserHit hit);

    /** The kernel lost {@code count} records of CPU {@code cpu}: its ring was full (DTrace's drops). */
    default void lost(int cpu, long count) {}
}
