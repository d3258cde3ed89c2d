/*
 * The table of every declared static provider: the one piece of static state of the Java probe
 * API, as illumos's kernel keeps the SDT probe sites of every loaded module for the sdt provider
 * to find. Providers enter it when declared (usually from a static initialiser, with no
 * BundleContext at hand, hence static) and leave it when their owner class is unloaded (the
 * owner is a weak reference: a provider whose owner is gone is pruned at the next declaration or
 * listing), so the table keeps no uninstalled bundle's class loader alive.
 *
 * One provider implementation binds at a time (provider-sdt's jvm part): it gets the providers
 * declared so far and a call for each one declared or changed later, on the declaring thread,
 * and it alone may arm and disarm probes (StaticProbe's sink). Unbinding disarms every probe:
 * with no provider bound every probe costs one volatile read and fires into nothing.
 *
 * Locking: LOCK guards the provider list; listeners are called without it. arm/disarm are
 * lock-free (a volatile write; the caller serialises them per probe, the framework calls its
 * enable/disable under its own lock).
 */
package org.jdtrace.sdt;

import java.util.ArrayList;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/** For the provider implementation only: the declared providers and the arming of their probes. */
@ProviderType
public final class StaticProbeTable {

    private static final Object LOCK = new Object();
    private static final List<StaticProvider> PROVIDERS = new ArrayList<>();
    private static volatile Binding bound;

    private StaticProbeTable() {}

    /** Told of each provider declared, or given a probe, after {@link #bind}. */
    @ConsumerType
    public interface Listener {
        void changed(StaticProvider provider);
    }

    static StaticProvider define(Class<?> owner, String name) {
        StaticProvider p;
        synchronized (LOCK) {
            PROVIDERS.removeIf(q -> q.owner() == null);
            for (StaticProvider q : PROVIDERS) {
                if (q.owner() == owner && q.name().equals(name)) {
                    return q;
                }
            }
            p = new StaticProvider(owner, name);
            PROVIDERS.add(p);
        }
        changed(p);
        return p;
    }

    static void changed(StaticProvider p) {
        Binding b = bound;
        if (b != null) {
            b.listener.changed(p);
        }
    }

    /**
     * Binds the provider implementation; throws IllegalStateException when one is bound already.
     * {@code listener} is called for providers declared from now on; {@link Binding#providers()}
     * gives those declared before.
     */
    public static Binding bind(Listener listener) {
        synchronized (LOCK) {
            if (bound != null) {
                throw new IllegalStateException("a static probe provider is bound already");
            }
            Binding b = new Binding(listener);
            bound = b;
            return b;
        }
    }

    /** The bound implementation's handle on the table. */
    public static final class Binding implements AutoCloseable {

        private final Listener listener;

        private Binding(Listener listener) {
            this.listener = listener;
        }

        /** Every declared provider whose owner class is still loaded. */
        public List<StaticProvider> providers() {
            synchronized (LOCK) {
                PROVIDERS.removeIf(q -> q.owner() == null);
                return List.copyOf(PROVIDERS);
            }
        }

        /** Arms {@code probe}: its firings go to {@code sink}. False (nothing armed) once unbound. */
        public boolean arm(StaticProbe probe, StaticProbe.Sink sink) {
            if (bound != this) {
                return false;
            }
            probe.sink = sink;
            return true;
        }

        /** Disarms {@code probe} if it is armed with {@code sink} (so a stale disable is harmless). */
        public void disarm(StaticProbe probe, StaticProbe.Sink sink) {
            if (probe.sink == sink) {
                probe.sink = null;
            }
        }

        /** The sink {@code probe} is armed with, or null. */
        public StaticProbe.Sink sink(StaticProbe probe) {
            return probe.sink;
        }

        /** Unbinds: every probe is disarmed, another implementation may bind. */
        @Override
        public void close() {
            synchronized (LOCK) {
                if (bound != this) {
                    return;
                }
                bound = null;
                for (StaticProvider p : PROVIDERS) {
                    for (StaticProbe q : p.probes()) {
                        q.sink = null;
                    }
                }
            }
        }
    }
}
