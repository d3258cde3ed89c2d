/*
 * The profile provider: profile:::profile-N and profile:::tick-N (see ProfileRate for N and
 * ProfileTimer for how they fire). profile-N fires through the kernel's sampling clock on every
 * CPU, in whatever process runs there, while a CpuSampler service is present (the perf-events
 * bundle offers one where the kernel allows machine-wide sampling); without one it falls back to
 * ProfileTimer's JVM threads. When the sampler goes away mid-trace (its bundle stops) the
 * profile-N probes stop firing and stay enabled; when one comes back they fire through it again.
 *
 * tick-N fires through the sampler's clock on one CPU (CpuSampler.tick), so that, as in DTrace,
 * its pid, execname, arg0/arg1, ustack() and curpsinfo are those of whatever that CPU was running
 * (the idle task: pid 0). Because scripts use tick-N above all for time (exit after N seconds,
 * printa every second), it never stops firing: without a sampler, when the sampler refuses (the
 * kernel allows no machine-wide events, or it is not root) or when the sampler leaves mid-trace,
 * it fires from one ProfileTimer JVM thread (dtrace's own process, arg0 = arg1 = 0), and moves
 * back to the sampler when one comes. Like dtrace's, it creates a fixed set of probes when
 * attached (profile-97 ... profile-4999, tick-1 ... tick-5000) and any other valid rate on
 * demand through provide(), so `profile:::tick-97hz` or `tick-1sec` in an enabling makes the
 * probe. Probe names are kept as written: tick-1s and tick-1sec are distinct probes, as in
 * dtrace.
 */
package org.jdtrace.core.providers.profile;

import java.util.HashMap;
import java.util.Map;
import org.jdtrace.spi.Glob;
import org.jdtrace.core.probe.ProbePattern;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.jdtrace.spi.CpuSampler;
import org.jdtrace.spi.ProviderException;

@Component(service = Provider.class, property = "provider.name=profile")
public final class ProfileProvider implements Provider {

    public static final String NAME = "profile";
    private static final String[] DEFAULTS = {
        "profile-97", "profile-199", "profile-499", "profile-997", "profile-1999", "profile-4001",
        "profile-4999", "tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000"
    };

    private volatile ProbeRegistry registry;
    /** Enabled probes and what fires them now (a ProfileTimer, a sampler's handle, or null while waiting). Guarded by itself. */
    private final Map<Probe, AutoCloseable> timers = new HashMap<>();
    private CpuSampler sampler; // guarded by timers
    /** -x ustackbytes, passed to the sampler (CpuSampler.option); -1 until a consumer sets it. Guarded by timers. */
    private long ustackbytes = -1;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindSampler")
    void bindSampler(CpuSampler s) {
        synchronized (timers) {
            sampler = s;
            if (ustackbytes >= 0) s.option("ustackbytes", ustackbytes);
            restartProfiles();
        }
    }

    void unbindSampler(CpuSampler s) {
        synchronized (timers) {
            if (sampler != s) return;
            sampler = null;
            for (Map.Entry<Probe, AutoCloseable> e : timers.entrySet()) {
                close(e.getValue());
                // profile-N waits for a sampler to come back; tick-N goes on on a JVM timer
                e.setValue(rateOf(e.getKey()).kind() == ProfileRate.Kind.PROFILE ? null : start(e.getKey()));
            }
        }
    }

    /** Every enabled probe restarted on the current sampler. */
    private void restartProfiles() {
        assert Thread.holdsLock(timers);
        for (Map.Entry<Probe, AutoCloseable> e : timers.entrySet()) {
            close(e.getValue());
            try {
                e.setValue(start(e.getKey()));
            } catch (RuntimeException ex) {
                e.setValue(null);
                org.slf4j.LoggerFactory.getLogger(ProfileProvider.class).warn("{}: {}", e.getKey().name(), ex.getMessage());
            }
        }
    }

    private static ProfileRate rateOf(Probe p) {
        return (ProfileRate) p.providerArg();
    }

    /**
     * What fires {@code probe}: the sampler when there is one, else a JVM timer; tick-N also when
     * the sampler cannot or will not (see above).
     */
    private AutoCloseable start(Probe probe) {
        assert Thread.holdsLock(timers);
        ProfileRate rate = rateOf(probe);
        CpuSampler s = sampler;
        if (rate.kind() == ProfileRate.Kind.PROFILE && s != null) {
            return s.sample(probe, rate.intervalNanos());
        }
        if (s != null) {
            try {
                AutoCloseable c = s.tick(probe, rate.intervalNanos());
                if (c != null) return c;
            } catch (ProviderException e) {
                org.slf4j.LoggerFactory.getLogger(ProfileProvider.class).debug("{} on a JVM timer: {}", probe.name(), e.getMessage());
            }
        }
        ProfileTimer t = new ProfileTimer(probe, rate);
        t.start();
        return t;
    }

    /**
     * profile-N and tick-N on the kernel's sampler fire after the sample, from the ring: they
     * captured no user memory (copyin() of the sampled process is refused at compile time).
     */
    @Override
    public java.util.Set<Integer> capturedStrings(Probe probe) {
        synchronized (timers) {
            return sampler != null ? java.util.Set.of() : null;
        }
    }

    private static void close(AutoCloseable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new ProviderException(e.toString());
        }
    }

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return org.jdtrace.spi.ProviderAttributes.PROFILE;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void attach(ProbeRegistry registry) {
        this.registry = registry;
        for (String n : DEFAULTS) {
            create(n);
        }
    }

    @Override
    public void provide(ProbeDescription desc) {
        ProbePattern p = new ProbePattern(desc);
        String name = desc.name();
        if (name.isEmpty() || Glob.isGlob(name)) {
            return; // only an exact name says which rate to make
        }
        if (!p.matchesPart(ProbePattern.PROVIDER, NAME) || !p.matchesPart(ProbePattern.MODULE, "")
                || !p.matchesPart(ProbePattern.FUNCTION, "")) {
            return;
        }
        create(name);
    }

    private void create(String name) {
        ProbeRegistry r = registry;
        ProfileRate rate = ProfileRate.parse(name);
        if (r != null && rate != null && r.lookup(NAME, "", "", name) == null) {
            r.create(NAME, "", "", name, rate);
        }
    }

    @Override
    public void enable(Probe probe) {
        synchronized (timers) {
            close(timers.remove(probe));
            timers.put(probe, start(probe));
        }
    }

    @Override
    public void disable(Probe probe) {
        synchronized (timers) {
            close(timers.remove(probe));
        }
    }

    /** -x ustackbytes=N: the sampler's stack copy for ustack() (CpuSampler.option). */
    @Override
    public void option(String name, long value) {
        if (!name.equals("ustackbytes")) return;
        CpuSampler s;
        synchronized (timers) {
            ustackbytes = value;
            s = sampler;
        }
        if (s != null) s.option(name, value);
    }

    /** A sampled probe's pid filter changed: the sampler follows it (Probe.pidFilter). */
    @Override
    public void filterChanged(Probe probe) {
        CpuSampler s;
        synchronized (timers) {
            if (!timers.containsKey(probe)) return;
            s = sampler;
        }
        if (s != null) s.filterChanged(probe);
    }

    @Override
    public void sync() {
        CpuSampler s;
        synchronized (timers) {
            s = sampler;
        }
        if (s != null) s.sync();
    }

    @Override
    public void detach() {
        stopAll();
        registry = null;
    }

    @Deactivate
    void deactivate() {
        stopAll();
    }

    private void stopAll() {
        synchronized (timers) {
            timers.values().forEach(ProfileProvider::close);
            timers.clear();
        }
    }
}
