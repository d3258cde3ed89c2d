/*
 * A provider for the framework's tests: provider name "test", probes made in attach() from a
 * list of "module:function:name" triples, more made on demand by provide() for descriptions
 * whose name starts with "demand", and per-module probes ("<module>::load") from
 * provideModule(). Fires on request from the test thread; records every callback.
 */
package org.jdtrace.core.testsession;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jdtrace.core.context.JvmProbeContext;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Module;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;

public final class TestProvider implements Provider {

    private final String name;
    private final List<String> initial;
    public final List<String> calls = new CopyOnWriteArrayList<>();
    public volatile ProbeRegistry registry;
    /** Run by enable() after it is recorded, on the enabling thread (a test's hook). */
    public volatile java.util.function.Consumer<Probe> onEnable = p -> { };

    public TestProvider(String name, String... probes) {
        this.name = name;
        this.initial = List.of(probes);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void attach(ProbeRegistry registry) {
        this.registry = registry;
        calls.add("attach");
        for (String p : initial) {
            String[] mfn = p.split(":", -1);
            registry.create(name, mfn[0], mfn[1], mfn[2], null);
        }
    }

    @Override
    public void detach() {
        calls.add("detach");
    }

    @Override
    public void provide(ProbeDescription desc) {
        calls.add("provide " + desc);
        if (desc.name().startsWith("demand") && !desc.name().contains("*")) {
            registry.create(name, "", "", desc.name(), null);
        }
    }

    @Override
    public void provideModule(Module module) {
        calls.add("module " + module.name());
        registry.create(name, module.name(), "", "load", null);
    }

    @Override
    public void enable(Probe probe) {
        calls.add("enable " + probe.name() + (probe.pidFilter() >= 0 ? " pid " + probe.pidFilter() : ""));
        onEnable.accept(probe);
    }

    @Override
    public void filterChanged(Probe probe) {
        calls.add("filter " + probe.name() + " " + probe.pidFilter());
    }

    @Override
    public void disable(Probe probe) {
        calls.add("disable " + probe.name());
    }

    @Override
    public void destroy(Probe probe) {
        calls.add("destroy " + probe.name());
    }

    @Override
    public ArgDesc argDesc(Probe probe, int index) {
        return index < 2 ? new ArgDesc(index, index == 0 ? "int" : "char *", null) : null;
    }

    /** Fires the probe with these names, if it exists, with arg0 = {@code a0}. */
    public boolean fire(String module, String function, String probeName, long a0) {
        Probe p = registry.lookup(name, module, function, probeName);
        if (p == null) {
            return false;
        }
        p.fire(JvmProbeContext.current().clear().arg(0, a0));
        return true;
    }
}
