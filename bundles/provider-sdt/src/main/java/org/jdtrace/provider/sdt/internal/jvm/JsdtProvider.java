/*
 * The provider of Java static probes (illumos's sdt provider for the probe sites of loaded
 * modules; JSDT's role in the JDK): it binds to the API's StaticProbeTable and shows every
 * declared static provider's probes, as provider:bundle::name, while the declaring bundle is
 * started (STARTING or ACTIVE; a class outside any bundle counts as always started; an unloaded
 * owner class never). The registered spi Provider is named "jsdt"; the probes carry the names
 * the bundles declared (myapp, osgi), each probe's providerArg its StaticProbe.
 *
 * Probes appear when the owner bundle starts (a BundleTracker over STARTING|ACTIVE), when a
 * provider or probe is declared (the table's listener, on the declaring thread), and when the
 * framework attaches this provider; they retire through the framework's retire path when the
 * bundle stops (the tracker), when it is unresolved or uninstalled (the framework's own module
 * unload finds them by module name), and when provider-sdt stops (the framework retires every
 * probe of a provider that goes). Enablings are kept by the framework and match again when the
 * probes are created anew.
 *
 * Arming: enable(probe) arms the StaticProbe with an ArmedProbe for that framework probe;
 * disable disarms it only if it is still armed for that probe. Both run under the framework
 * lock and take no lock of ours.
 *
 * Locking: `lock` serialises the syncs of providers (declaration, bundle events) so the check of
 * the bundle's state and the create/retire that follows are not interleaved with another sync;
 * it is taken before the framework lock (registry calls), never inside a framework callback.
 * attach() runs inside the framework lock and so syncs without `lock` (create and retire are
 * idempotent). Failures: a provider that cannot be shown (its probe names are another's) is one
 * warning line; the others go on.
 */
package org.jdtrace.provider.sdt.internal.jvm;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.sdt.ArgType;
import org.jdtrace.sdt.StaticProbe;
import org.jdtrace.sdt.StaticProbeTable;
import org.jdtrace.sdt.StaticProvider;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.util.tracker.BundleTracker;
import org.osgi.util.tracker.BundleTrackerCustomizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Component(service = Provider.class, property = "provider.name=" + JsdtProvider.NAME)
public final class JsdtProvider implements Provider, StaticProbeTable.Listener {

    static final String NAME = "jsdt";
    /** The module of probes declared by a class outside any bundle. */
    static final String NO_BUNDLE = "java";

    private static final Logger LOG = LoggerFactory.getLogger(JsdtProvider.class);
    private static final int STARTED = Bundle.STARTING | Bundle.ACTIVE;

    private final Object lock = new Object();
    private final ThreadLocal<JavaContext> contexts = new ThreadLocal<>();
    private final StaticProbeTable.Binding binding;
    private final BundleTracker<Bundle> tracker;
    private volatile ProbeRegistry registry;

    /** {@code context} null: no OSGi (tests, benchmarks), every owner class counts as started. */
    @Activate
    public JsdtProvider(BundleContext context) {
        binding = StaticProbeTable.bind(this);
        if (context == null) {
            tracker = null;
            return;
        }
        tracker = new BundleTracker<>(context, STARTED, new BundleTrackerCustomizer<Bundle>() {
            @Override
            public Bundle addingBundle(Bundle bundle, BundleEvent event) {
                syncBundle(bundle);
                return bundle;
            }

            @Override
            public void modifiedBundle(Bundle bundle, BundleEvent event, Bundle object) {}

            @Override
            public void removedBundle(Bundle bundle, BundleEvent event, Bundle object) {
                syncBundle(bundle);
            }
        });
        tracker.open();
    }

    @Deactivate
    public void deactivate() {
        if (tracker != null) {
            tracker.close();
        }
        binding.close();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void attach(ProbeRegistry r) {
        if (r.threadContext() == null) {
            throw new IllegalStateException("the framework gives no Java thread context");
        }
        registry = r;
        for (StaticProvider p : binding.providers()) {
            sync(p);
        }
    }

    @Override
    public void detach() {
        registry = null;
    }

    /** The table's listener: a provider was declared or given a probe. */
    @Override
    public void changed(StaticProvider provider) {
        synchronized (lock) {
            sync(provider);
        }
    }

    private void syncBundle(Bundle bundle) {
        synchronized (lock) {
            for (StaticProvider p : binding.providers()) {
                Class<?> owner = p.owner();
                if (owner != null && bundleOf(owner) == bundle) {
                    sync(p);
                }
            }
        }
    }

    /** The bundle of {@code owner}, null outside any bundle or without OSGi. */
    private Bundle bundleOf(Class<?> owner) {
        return tracker == null ? null : FrameworkUtil.getBundle(owner);
    }

    /** Creates the probes of {@code p} if its bundle is started, else retires them. */
    private void sync(StaticProvider p) {
        ProbeRegistry r = registry;
        if (r == null) {
            return;
        }
        Class<?> owner = p.owner();
        Bundle b = owner == null ? null : bundleOf(owner);
        boolean started = owner != null && (b == null || (b.getState() & STARTED) != 0);
        if (!started) {
            List<Probe> mine = new ArrayList<>();
            for (Probe q : r.probes(p.name())) {
                if (q.providerArg() instanceof StaticProbe s && s.provider() == p) {
                    mine.add(q);
                }
            }
            if (!mine.isEmpty()) {
                r.retire(mine);
            }
            return;
        }
        String module = b == null ? NO_BUNDLE : b.getSymbolicName();
        for (StaticProbe s : p.probes()) {
            try {
                Probe q = r.create(p.name(), module, "", s.name(), s);
                if (q.providerArg() != s) {
                    LOG.warn("static probe {}:{}::{} is declared twice; only the first is traced", p.name(), module, s.name());
                }
            } catch (RuntimeException e) {
                LOG.warn("static probe {}:{}::{} cannot be shown: {}", p.name(), module, s.name(), e.getMessage());
            }
        }
    }

    @Override
    public void enable(Probe probe) {
        ProbeRegistry r = registry;
        if (probe.providerArg() instanceof StaticProbe s && r != null) {
            binding.arm(s, new ArmedProbe(probe, s.args(), contexts, r));
        }
    }

    @Override
    public void disable(Probe probe) {
        if (probe.providerArg() instanceof StaticProbe s
                && binding.sink(s) instanceof ArmedProbe a && a.probe() == probe) {
            binding.disarm(s, a);
        }
    }

    @Override
    public ArgDesc argDesc(Probe probe, int index) {
        if (probe.providerArg() instanceof StaticProbe s && index >= 0 && index < s.args().size()) {
            ArgType t = s.args().get(index);
            // a Java String is a D string in args[] (argN stays the handle copyinstr() reads)
            return new ArgDesc(index, t == ArgType.STRING ? "string" : t.cType(), null);
        }
        return null;
    }
}
