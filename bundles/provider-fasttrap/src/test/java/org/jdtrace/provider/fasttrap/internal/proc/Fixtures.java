package org.jdtrace.provider.fasttrap.internal.proc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.provider.fasttrap.internal.sym.ProcessModules;

/** The C fixtures built by the fixtures module, and helpers to instrument their functions. */
final class Fixtures {

    static final Isa ISA = new Amd64Isa();

    private Fixtures() {}

    static String bin(String name) {
        Path p = Path.of("../../fixtures/target/bin", name).toAbsolutePath().normalize();
        if (!Files.isExecutable(p)) throw new IllegalStateException("fixture not built: " + p);
        return p.toString();
    }

    /** Output of {@code argv} run untraced. */
    static String untraced(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(false).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("timeout");
        }
        return new String(out);
    }

    record Function(String name, FunctionAnalysis analysis) {}

    /** Analysis of every function of {@code module} in {@code pid} that {@code filter} accepts. */
    static List<Function> functions(int pid, String module, java.util.function.Predicate<String> filter) throws Exception {
        List<MappedObject> objs = ProcessModules.read(pid);
        try {
            List<Function> out = new ArrayList<>();
            for (MappedObject o : objs) {
                if (!o.module().equals(module)) continue;
                java.util.Set<Long> seen = new java.util.HashSet<>();
                for (ElfSymbol s : o.elf().functions()) {
                    if (s.isIfunc() || !filter.test(s.name()) || !seen.add(s.value())) continue;
                    out.add(new Function(s.name(), ISA.analyze(o.elf().bytes(s), s.value() + o.bias())));
                }
            }
            return out;
        } finally {
            ProcessModules.close(objs);
        }
    }

    /** A request for every instruction of every instrumentable function. */
    static List<TracedProcess.Request> everyInstruction(List<Function> fns, TracepointHandler h) {
        List<TracedProcess.Request> rq = new ArrayList<>();
        for (Function f : fns) {
            if (!f.analysis().instrumentable()) continue;
            for (Instruction i : f.analysis().instructions()) {
                if (ISA.displacement(i) != Isa.Displacement.REFUSE) rq.add(new TracedProcess.Request(i.pc(), i, h));
            }
        }
        return rq;
    }
}
