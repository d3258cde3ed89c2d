package org.jdtrace.provider.fasttrap.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.perf.internal.PerfEventsImpl;
import org.jdtrace.proc.ProcessControl.Evaltime;
import org.jdtrace.proc.TargetProcess;

/**
 * A pid provider on the kernel's uprobes with the test registry, and what a test starts with it
 * (processes, output files); close() ends and removes them all.
 */
final class UprobeTestBed implements AutoCloseable {

    final Amd64Isa isa = new Amd64Isa();
    final PerfEventsImpl perf = new PerfEventsImpl(isa);
    final PidProvider provider = new PidProvider(isa, 250_000, perf);
    final TestRegistry registry = new TestRegistry(provider);
    private final List<TargetProcess> targets = new ArrayList<>();
    private final List<Path> files = new ArrayList<>();

    /** A fresh output file, removed on close. */
    Path out() throws Exception {
        Path f = Files.createTempFile("uptest", ".out");
        files.add(f);
        return f;
    }

    /** {@code argv} created held at {@code at}, its standard output into {@code out}. */
    TargetProcess create(Path out, Evaltime at, String... argv) throws Exception {
        TargetProcess t = provider.control().create(List.of(argv), out, at);
        targets.add(t);
        return t;
    }

    long probesIn(String module) {
        return registry.probes.stream().filter(p -> p.module.equals(module)).count();
    }

    @Override
    public void close() throws Exception {
        for (TargetProcess t : targets) t.close();
        provider.deactivate();
        perf.close();
        for (Path f : files) Files.deleteIfExists(f);
    }
}
