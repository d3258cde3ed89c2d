package org.jdtrace.provider.fasttrap.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.perf.internal.PerfEventsImpl;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.ProbeDescription;

/**
 * A tracer to kill (UprobeKillTest): grabs process args[0], enables the entry, return and first
 * non-zero offset probes of its function args[1] on uprobes, and once each has fired prints
 * "tracing ADDR" (the function's address in the target) and waits to be killed.
 */
public final class UprobeTracerMain {

    public static void main(String[] args) throws Exception {
        Amd64Isa isa = new Amd64Isa();
        PidProvider provider = new PidProvider(isa, 250_000, new PerfEventsImpl(isa));
        TestRegistry registry = new TestRegistry(provider);
        int pid = Integer.parseInt(args[0]);
        TargetProcess t = provider.control().grab(pid);
        provider.provide(ProbeDescription.parse("pid" + pid + ":a.out:" + args[1] + ":"));
        TestRegistry.TestProbe entry = registry.probe("a.out", args[1], "entry");
        TestRegistry.TestProbe ret = registry.probe("a.out", args[1], "return");
        TestRegistry.TestProbe offset = registry.probes.stream()
                .filter(p -> p.name.matches("[0-9a-f]+") && !p.name.equals("0")).findFirst().orElseThrow();
        AtomicLong[] hits = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        List<TestRegistry.TestProbe> probes = List.of(entry, ret, offset);
        for (int i = 0; i < 3; i++) {
            AtomicLong h = hits[i];
            registry.enable(probes.get(i), c -> h.incrementAndGet());
        }
        t.go();
        while (hits[0].get() < 100 || hits[1].get() < 100 || hits[2].get() < 100) Thread.sleep(1);
        System.out.println("tracing " + ((PidProbe) entry.arg).functionStart());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
