/**
 * The kernel's perf events and BPF, offered to providers as the {@link org.jdtrace.perf.PerfEvents}
 * service: per-CPU events with ring buffers the service drains, tracepoints by name, BPF maps and
 * tracepoint programs, uprobes with capture; everything opened through it is closed when the caller closes it, and at the
 * latest when the bundle stops.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package org.jdtrace.perf;
