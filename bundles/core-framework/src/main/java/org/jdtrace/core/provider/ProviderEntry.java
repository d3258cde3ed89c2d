/*
 * One registered provider as the framework sees it (dtrace_provider_t), and the ProbeRegistry
 * it gets in attach(): creation and lookup through it are tagged with the provider, so probes
 * are owned by the provider that made them and retire with it.
 */
package org.jdtrace.core.provider;

import java.util.List;
import org.jdtrace.core.context.JvmProbeContext;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;

final class ProviderEntry implements ProbeRegistry {

    private final DTraceFramework framework;
    private final Provider provider;
    private volatile boolean detached;

    ProviderEntry(DTraceFramework framework, Provider provider) {
        this.framework = framework;
        this.provider = provider;
    }

    Provider provider() {
        return provider;
    }

    boolean isDetached() {
        return detached;
    }

    void detached() {
        detached = true;
    }

    @Override
    public Probe create(String provider, String module, String function, String name, Object providerArg) {
        return framework.create(this, provider, module, function, name, providerArg);
    }

    @Override
    public void alias(Probe probe, String function) {
        framework.alias(this, probe, function);
    }

    @Override
    public ProbeContext threadContext() {
        return JvmProbeContext.current();
    }

    @Override
    public void aliasName(Probe probe, String name) {
        framework.aliasName(this, probe, name);
    }

    @Override
    public Probe lookup(String provider, String module, String function, String name) {
        return framework.lookup(provider, module, function, name);
    }

    @Override
    public List<Probe> probes(String provider) {
        return framework.probes(this, provider);
    }

    @Override
    public void retire(String provider) {
        framework.retire(this, probes(provider));
    }

    @Override
    public void retire(List<Probe> probes) {
        framework.retire(this, probes);
    }

    @Override
    public void lost(int cpu, long count) {
        framework.lost(this, cpu, count);
    }
}
