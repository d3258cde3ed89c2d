/*
 * The machine-wide providers this bundle offers, registered only where the kernel lets this user
 * trace the whole machine (root, or perf_event_paranoid -1 with tracepoints readable): the
 * CpuSampler that profile-N fires through, and the syscall, proc and sched providers. Where it
 * does not, one warning line says how the kernel narrows tracing and nothing is registered: the
 * profile provider keeps its JVM timers and the syscall provider its ptrace path.
 *
 * Made by PerfEventsImpl's activation itself (not a component of its own: the registrations
 * must be in place when the bundle has started, before dtrace(1M) compiles anything).
 *
 * Hot swap: stopping this bundle unregisters every service here (close()); the framework then
 * retires the providers' probes (their enable()d events are closed by disable()), keeps the
 * enablings, and matches them again when the bundle starts and registers them anew. Whatever is
 * still open is closed by PerfEventsImpl's own deactivate.
 */
package org.jdtrace.perf.internal;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;

import org.jdtrace.isa.Isa;
import org.jdtrace.spi.CpuSampler;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class KernelProviders {

    private static final Logger LOG = LoggerFactory.getLogger(KernelProviders.class);
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();
    private final List<AutoCloseable> owned = new ArrayList<>();

    KernelProviders(PerfEventsImpl perf, Isa isa, BundleContext ctx, org.jdtrace.elf.ObjectFiles objects) {
        String narrowed = perf.narrowed();
        if (narrowed != null) {
            LOG.warn("kernel events: {}; profile-N samples the JVM and syscall traces only processes under dtrace's control", narrowed);
            return;
        }
        Comms comms = new Comms();
        UserSymbols symbols = new UserSymbols(objects, perf);
        registrations.add(ctx.registerService(CpuSampler.class, new ProfileSampler(perf, comms, symbols, isa.abi()), null));
        for (var p : TracepointProviders.all(perf, comms, symbols, isa.abi())) {
            Hashtable<String, Object> props = new Hashtable<>();
            props.put("provider.name", p.name());
            props.put("provider.scope", "machine");
            registrations.add(ctx.registerService(org.jdtrace.spi.Provider.class, p, props));
        }
    }

    void close() {
        for (ServiceRegistration<?> r : registrations) {
            try {
                r.unregister();
            } catch (IllegalStateException e) {
                // already gone with the bundle
            }
        }
        registrations.clear();
    }
}
