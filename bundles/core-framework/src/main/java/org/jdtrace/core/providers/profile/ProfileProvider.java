/*
 * The profile provider: profile:::profile-N and profile:::tick-N (see ProfileRate for N and
 * ProfileTimer for how they fire). Like dtrace's, it creates a fixed set of probes when
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

@Component(service = Provider.class, property = "provider.name=profile")
public final class ProfileProvider implements Provider {

    public static final String NAME = "profile";
    private static final String[] DEFAULTS = {
        "profile-97", "profile-199", "profile-499", "profile-997", "profile-1999", "profile-4001",
        "profile-4999", "tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000"
    };

    private volatile ProbeRegistry registry;
    private final Map<Probe, ProfileTimer> timers = new HashMap<>();

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
        ProfileTimer t = new ProfileTimer(probe, (ProfileRate) probe.providerArg());
        ProfileTimer old;
        synchronized (timers) {
            old = timers.put(probe, t);
        }
        if (old != null) {
            old.stop();
        }
        t.start();
    }

    @Override
    public void disable(Probe probe) {
        ProfileTimer t;
        synchronized (timers) {
            t = timers.remove(probe);
        }
        if (t != null) {
            t.stop();
        }
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
        Map<Probe, ProfileTimer> copy;
        synchronized (timers) {
            copy = new HashMap<>(timers);
            timers.clear();
        }
        copy.values().forEach(ProfileTimer::stop);
    }
}
