package org.jdtrace.bench.core;

import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;

/**
 * The provider a bundle would register, for the benchmarks: {@code bench:jmh:loop:NAME} for each
 * name it is given, fired by the benchmark thread; enabling arms nothing.
 */
public final class BenchProvider implements Provider {

    private final String[] names;
    private final Probe[] probes;

    public BenchProvider(String... names) {
        this.names = names.clone();
        this.probes = new Probe[names.length];
    }

    /** The probe of the {@code i}-th name, once attached. */
    public Probe probe(int i) {
        return probes[i];
    }

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public void attach(ProbeRegistry registry) {
        for (int i = 0; i < names.length; i++) {
            probes[i] = registry.create("bench", "jmh", "loop", names[i], null);
        }
    }

    @Override
    public void enable(Probe probe) {}

    @Override
    public void disable(Probe probe) {}
}
