package org.jdtrace.provider.fasttrap.internal.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.Instruction;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.provider.fasttrap.internal.sym.ProcessModules;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.junit.jupiter.api.Test;

/**
 * Hit counts against instruction counts obtained another way: ft_count's compute() and the
 * functions it calls, traced on every instruction by tracepoints (int3, emulation, out of line),
 * must count, instruction by instruction, what a plain PTRACE_SINGLESTEP of the same program
 * executes (no int3, nothing displaced: the CPU's own trap flag).
 */
class InstructionCountTest {

    private static final Set<String> FUNCTIONS = Set.of("compute", "fib", "sq", "inc");
    private static final String N = "300";

    @Test
    void hitsPerInstructionEqualSingleStepCounts() throws Exception {
        Map<String, Long> stepped = singleStepped(Fixtures.bin("ft_count"), N);
        Map<String, Long> traced = traced(Fixtures.bin("ft_count"), N);
        assertTrue(stepped.size() > 40 && stepped.values().stream().mapToLong(Long::longValue).sum() > 10_000,
                "instructions stepped: " + stepped.size());
        assertEquals(stepped, traced);
    }

    /** "function+offset" of {@code pc} for the functions counted, or null. */
    private record Ranges(Map<Long, String> starts, Map<String, Long> sizes) {
        static Ranges of(int pid) throws Exception {
            List<MappedObject> objs = ProcessModules.read(pid);
            try {
                TreeMap<Long, String> starts = new TreeMap<>();
                Map<String, Long> sizes = new java.util.HashMap<>();
                for (MappedObject o : objs) {
                    if (!o.module().equals("a.out")) continue;
                    for (ElfSymbol s : o.elf().functions()) {
                        if (!FUNCTIONS.contains(s.name())) continue;
                        starts.put(s.value() + o.bias(), s.name());
                        sizes.put(s.name(), s.size());
                    }
                }
                assertEquals(FUNCTIONS, Set.copyOf(starts.values()));
                return new Ranges(starts, sizes);
            } finally {
                ProcessModules.close(objs);
            }
        }

        String name(long pc) {
            Map.Entry<Long, String> e = ((TreeMap<Long, String>) starts).floorEntry(pc);
            if (e == null || pc - e.getKey() >= sizes.get(e.getValue())) return null;
            return e.getValue() + "+" + Long.toHexString(pc - e.getKey());
        }
    }

    /** Every instruction of FUNCTIONS traced by tracepoints: hits per function+offset. */
    private static Map<String, Long> traced(String bin, String arg) throws Exception {
        Path out = Files.createTempFile("ft", ".out");
        TracedProcess p = TracedProcess.create(List.of(bin, arg), Fixtures.ISA, 250_000, out);
        try {
            Ranges ranges = Ranges.of(p.pid());
            Map<String, Long> hits = new TreeMap<>();
            List<TracedProcess.Request> rq = Fixtures.everyInstruction(
                    Fixtures.functions(p.pid(), "a.out", FUNCTIONS::contains),
                    c -> hits.merge(ranges.name(c.regs().pc()), 1L, Long::sum)); // control thread only
            List<Long> pcs = new ArrayList<>();
            for (TracedProcess.Request r : rq) pcs.add(r.pc());
            assertEquals(pcs.size(), Set.copyOf(pcs).size());
            p.enable(rq);
            assertEquals(rq.size(), p.tracepointCount(), "every instruction of " + FUNCTIONS + " instrumented");
            p.go();
            assertEquals(0, p.awaitExit(120, TimeUnit.SECONDS));
            return hits;
        } finally {
            p.close();
            Files.deleteIfExists(out);
        }
    }

    /** The same program single-stepped from main (where it stops itself) to its exit. */
    private static Map<String, Long> singleStepped(String bin, String arg) throws Exception {
        Sys sys = Sys.current();
        List<String> env = new ArrayList<>();
        System.getenv().forEach((k, v) -> env.add(k + "=" + v));
        env.add("FT_STOP=1");
        int pid = sys.spawn(bin, List.of(bin, arg), env,
                List.of(Sys.FileAction.open("/dev/null", 1, Sys.O_WRONLY)));
        boolean done = false;
        try {
            int st = (int) sys.waitpid(pid, Sys.WUNTRACED);
            assertTrue(Sys.stopped(st) && Sys.stopSig(st) == Sys.SIGSTOP, "self-stop: " + Integer.toHexString(st));
            sys.ptrace(Sys.PTRACE_SEIZE, pid, 0, Sys.PTRACE_O_EXITKILL);
            Ranges ranges = null;
            Map<String, Long> counts = new TreeMap<>();
            org.jdtrace.isa.RegisterFile regs = Fixtures.ISA.newRegisterFile();
            for (;;) {
                long w = sys.waitpid(pid, Sys.__WALL);
                if (w == -1) continue;
                st = (int) w;
                if (!Sys.stopped(st)) {
                    done = true;
                    assertEquals(0, st, "exit status");
                    return counts;
                }
                if (ranges == null) ranges = Ranges.of(pid);
                int sig = Sys.event(st) == 0 && Sys.stopSig(st) != Sys.SIGTRAP ? Sys.stopSig(st) : 0;
                sys.getRegs(pid, regs.raw());
                String at = ranges.name(regs.pc()); // the instruction the next step executes
                if (at != null && sig == 0) counts.merge(at, 1L, Long::sum);
                sys.ptrace(Sys.PTRACE_SINGLESTEP, pid, 0, sig);
            }
        } finally {
            if (!done) {
                sys.kill(pid, Sys.SIGKILL);
                sys.waitpid(pid, Sys.__WALL);
            }
        }
    }
}
