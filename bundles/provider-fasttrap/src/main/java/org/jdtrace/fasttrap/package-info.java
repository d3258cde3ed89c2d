/**
 * Fasttrap's process-control and tracepoint service (the kernel side of fasttrap that illumos
 * shares between the pid provider and the USDT meta provider): the processes under jdtrace's
 * control, their mapped objects, shared int3 tracepoints with a reusable probe context, and the
 * life events (followed, objects mapped and unmapped, defunct, released) a provider of
 * per-process probes needs. Registered by provider-fasttrap's pid provider.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package org.jdtrace.fasttrap;
