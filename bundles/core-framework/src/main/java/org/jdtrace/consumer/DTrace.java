package org.jdtrace.consumer;

/**
 * The framework as a service (the dtrace(7d) device plus libdtrace's dtrace_open): each
 * {@link #open()} gives an independent consumer with its own options, enablings and state.
 */
public interface DTrace {

    Consumer open();

    /** Version string printed by {@code dtrace -V}: {@code dtrace: Sun D 1.6.4}-style. */
    String version();
}
