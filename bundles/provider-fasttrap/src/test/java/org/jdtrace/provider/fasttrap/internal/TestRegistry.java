package org.jdtrace.provider.fasttrap.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;

/**
 * The framework's side of the provider SPI, reduced to what these tests observe (the real one
 * is core's DTraceFramework, not on this branch yet): probes by name, and enabling a probe
 * means calling a Java consumer on each firing.
 */
final class TestRegistry implements ProbeRegistry {

    final class TestProbe implements Probe {
        final int id;
        final String provider, module, function, name;
        final Object arg;
        volatile Consumer<ProbeContext> ecb;
        /** Probe.pidFilter: -1, or the one pid every ECB of the probe wants. */
        volatile long pidFilter = -1;
        /** Probe.userStack: set by a test whose body walks the user stack. */
        volatile boolean userStack;
        /** Probe.procDestructive: set by a test whose body acts on the process (stop, raise, copyout). */
        volatile boolean procDestructive;
        /** Probe.userStrings: the arguments a test's body reads with copyinstr. */
        volatile java.util.Set<Integer> userStrings = java.util.Set.of();

        TestProbe(int id, String provider, String module, String function, String name, Object arg) {
            this.id = id;
            this.provider = provider;
            this.module = module;
            this.function = function;
            this.name = name;
            this.arg = arg;
        }

        @Override public int id() { return id; }
        @Override public String provider() { return provider; }
        @Override public String module() { return module; }
        @Override public String function() { return function; }
        @Override public String name() { return name; }
        @Override public Object providerArg() { return arg; }
        @Override public boolean isEnabled() { return ecb != null; }
        @Override public long pidFilter() { return pidFilter; }
        @Override public boolean userStack() { return userStack; }
        @Override public boolean procDestructive() { return procDestructive; }
        @Override public java.util.Set<Integer> userStrings() { return userStrings; }

        @Override
        public void fire(ProbeContext ctx) {
            Consumer<ProbeContext> c = ecb;
            if (c != null) c.accept(ctx);
        }
    }

    private final Provider provider;
    final List<TestProbe> probes = new CopyOnWriteArrayList<>();
    private final Map<String, TestProbe> byName = new ConcurrentHashMap<>();

    TestRegistry(Provider provider) {
        this.provider = provider;
        provider.attach(this);
    }

    private record Retained(java.util.function.Predicate<TestProbe> wants, Consumer<ProbeContext> ecb) {}

    private final List<Retained> retained = new CopyOnWriteArrayList<>();

    /** A retained enabling: every probe created from now on that it wants is enabled at once. */
    void retain(java.util.function.Predicate<TestProbe> wants, Consumer<ProbeContext> ecb) {
        retained.add(new Retained(wants, ecb));
    }

    @Override
    public synchronized Probe create(String prov, String module, String function, String name, Object arg) {
        String key = prov + ":" + module + ":" + function + ":" + name;
        TestProbe existing = byName.get(key);
        if (existing != null) return existing;
        TestProbe p = new TestProbe(probes.size() + 1, prov, module, function, name, arg);
        probes.add(p);
        byName.put(key, p);
        for (Retained r : retained) {
            if (r.wants.test(p)) {
                enable(p, r.ecb);
                break;
            }
        }
        return p;
    }

    @Override
    public Probe lookup(String prov, String module, String function, String name) {
        return byName.get(prov + ":" + module + ":" + function + ":" + name);
    }

    @Override
    public List<Probe> probes(String prov) {
        return new ArrayList<>(probes.stream().filter(p -> p.provider.equals(prov)).toList());
    }

    void enable(TestProbe p, Consumer<ProbeContext> ecb) {
        p.ecb = ecb;
        provider.enable(p);
    }

    @Override
    public synchronized void retire(String prov) {
        retire(probes(prov));
    }

    @Override
    public synchronized void retire(List<Probe> list) {
        for (Probe p : list) {
            TestProbe t = (TestProbe) p;
            if (t.ecb != null) {
                provider.disable(t);
                t.ecb = null;
            }
            provider.destroy(t);
            probes.remove(t);
            byName.remove(t.provider + ":" + t.module + ":" + t.function + ":" + t.name);
        }
    }

    /** Firings the provider reported lost (ProbeRegistry.lost), over all CPUs. */
    final java.util.concurrent.atomic.AtomicLong lost = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public void lost(int cpu, long count) {
        lost.addAndGet(count);
    }

    TestProbe probe(String module, String function, String name) {
        return probes.stream().filter(p -> p.module.equals(module) && p.function.equals(function) && p.name.equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no probe " + module + ":" + function + ":" + name));
    }
}
