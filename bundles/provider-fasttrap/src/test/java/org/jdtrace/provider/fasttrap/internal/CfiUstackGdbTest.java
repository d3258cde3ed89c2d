package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.perf.internal.PerfEventsImpl;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ustack() at a pid probe against gdb's backtrace: Debian's sort (no frame pointers, like the libc
 * it calls) sorting the same file twice, once under gdb with a breakpoint on malloc's first byte,
 * once traced with pid$target:libc.so.6:malloc:entry. Every distinct stack, each frame written
 * as module+offset (the two runs load at different addresses) and the start of the function usym()
 * names it by (gdb's: the ELF symbol `info symbol` gives, from the symbol tables and libc6-dbg's
 * debug file), must be one gdb saw, and the two sets must be the same: the same frames, named by
 * the same functions (an alias may differ: __GI___libc_malloc is malloc), and a frame in no symbol
 * (sort is stripped) printed as sort`0xoffset.
 *
 * Twice: on the ptrace path (the stopped thread's stack read live) and on the kernel's uprobes,
 * where the probe's clause walks the user stack (Probe.userStack), so the BPF program copies
 * option ustackbytes of the stack at each hit and the drain thread unwinds that copy after the
 * event (sort may have returned from malloc, or exited, by then). gdb runs once for both.
 */
class CfiUstackGdbTest {

    private final Amd64Isa isa = new Amd64Isa();
    private final List<TargetProcess> targets = new ArrayList<>();
    private PidProvider provider;
    private PerfEventsImpl perf;

    /** gdb's stacks and the numbers file both runs sort (made once, by the first test). */
    private static Set<String> gdbStacks;
    private static Path work, nums;

    @AfterAll
    static void removeWork() throws java.io.IOException {
        if (work == null) return;
        try (var files = Files.walk(work)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    @AfterEach
    void cleanUp() {
        for (TargetProcess t : targets) t.close();
        if (provider != null) provider.deactivate();
        if (perf != null) perf.close();
    }

    @Test
    void ustackAtMallocInSortIsGdbsBacktrace() throws Exception {
        provider = new PidProvider(isa, 250_000, null);
        compareWithGdb(false);
    }

    @Test
    void ustackAtMallocInSortIsGdbsBacktraceOnUprobesFromTheStackCopiedAtTheHit() throws Exception {
        perf = new PerfEventsImpl(isa);
        provider = new PidProvider(isa, 250_000, perf);
        compareWithGdb(true);
    }

    private void compareWithGdb(boolean uprobes) throws Exception {
        Set<String> expected = gdbStacks();
        TestRegistry registry = new TestRegistry(provider);
        // ours
        TargetProcess t = provider.control().create(List.of("/usr/bin/sort", "-n", nums.toString()),
                org.jdtrace.proc.ProcessControl.Stdio.INHERIT);
        targets.add(t);
        provider.provide(ProbeDescription.parse("pid" + t.pid() + ":libc.so.6:malloc:entry"));
        // sort maps no code after its start: the maps of now are those of every hit
        List<String> maps = Files.readAllLines(Path.of("/proc/" + t.pid() + "/maps"));
        List<List<Long>> stacks = Collections.synchronizedList(new ArrayList<>());
        List<List<String>> names = Collections.synchronizedList(new ArrayList<>());
        TestRegistry.TestProbe probe = registry.probe("libc.so.6", "malloc", "entry");
        probe.userStack = true;
        registry.enable(probe, c -> {
            List<Long> pcs = new ArrayList<>();
            List<String> syms = new ArrayList<>();
            for (long pc : c.ustack(100)) {
                pcs.add(pc);
                syms.add(c.usym(pc));
            }
            stacks.add(pcs);
            names.add(syms);
        });
        t.go();
        assertEquals(0, t.awaitExit(120, TimeUnit.SECONDS));
        if (uprobes) provider.sync(); // the hits the drain thread has not handed over yet
        Maps ours = new Maps(maps);
        Set<String> got = new TreeSet<>();
        for (int i = 0; i < stacks.size(); i++) {
            List<Long> pcs = stacks.get(i);
            List<String> fns = new ArrayList<>();
            for (int k = 0; k < pcs.size(); k++) {
                String sym = names.get(i).get(k);
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("^([^`]+)`(.*?)(?:\\+0x([0-9a-f]+))?$").matcher(sym);
                assertTrue(m.matches(), sym);
                if (m.group(2).startsWith("0x")) {
                    // in no symbol: module`0xoffset from the module's lowest address, as gdb's maps give it
                    assertEquals(ours.describe(pcs.get(k)), m.group(1) + "+" + m.group(2), "unnamed frame " + sym);
                    fns.add("-");
                } else {
                    fns.add(ours.describe(pcs.get(k) - (m.group(3) == null ? 0 : Long.parseLong(m.group(3), 16))));
                }
            }
            got.add(ours.describe(pcs, fns));
        }
        Set<String> missing = new TreeSet<>(expected), extra = new TreeSet<>(got);
        missing.removeAll(got);
        extra.removeAll(expected);
        assertEquals(Set.of(), extra, "stacks gdb never saw (gdb's missing here: " + missing + ")");
        assertEquals(Set.of(), missing, "gdb's stacks not seen");
        assertTrue(stacks.size() > 100, "hits: " + stacks.size());
        System.out.println("ustack vs gdb at malloc in sort (" + (uprobes ? "uprobes" : "ptrace") + "): " + stacks.size() + " hits, " + got.size()
                + " distinct stacks, all gdb's; deepest " + stacks.stream().mapToInt(List::size).max().orElse(0) + " frames");
    }

    private static synchronized Set<String> gdbStacks() throws Exception {
        if (gdbStacks != null) return gdbStacks;
        work = Files.createTempDirectory("cfi-gdb");
        nums = work.resolve("nums.txt");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 300; i++) sb.append((i * 7919) % 1000).append('\n');
        Files.writeString(nums, sb);
        Path dir = work;
        Path script = dir.resolve("stacks.py");
        try (var in = CfiUstackGdbTest.class.getResourceAsStream("/gdb-malloc-stacks.py")) {
            Files.write(script, in.readAllBytes());
        }
        ProcessBuilder pb = new ProcessBuilder("gdb", "-nx", "-batch", "-x", script.toString(), "--args", "/usr/bin/sort",
                "-n", nums.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("gdb.log").toFile());
        pb.environment().put("BT_OUT", dir.toString());
        pb.environment().remove("LINES");
        pb.environment().remove("COLUMNS");
        Process gdb = pb.start();
        try {
            assertTrue(gdb.waitFor(180, TimeUnit.SECONDS), "gdb did not finish");
        } finally {
            gdb.destroyForcibly();
        }
        Maps gdbMaps = new Maps(Files.readAllLines(dir.resolve("maps")));
        Set<String> expected = new TreeSet<>();
        int named = 0;
        for (String line : Files.readAllLines(dir.resolve("stacks"))) {
            if (line.isBlank()) continue;
            List<Long> pcs = new ArrayList<>();
            List<String> fns = new ArrayList<>();
            for (String frame : line.split(" \\| ")) {
                String[] f = frame.split(" ");
                long pc = Long.parseUnsignedLong(f[0], 16);
                pcs.add(pc);
                fns.add(f[1].equals("-") ? "-" : gdbMaps.describe(pc - Long.parseLong(f[2])));
                if (!f[1].equals("-")) named++;
            }
            expected.add(gdbMaps.describe(pcs, fns));
        }
        assertTrue(named > 100, "gdb named frames by symbols");
        assertTrue(expected.size() > 5, "gdb saw " + expected);
        return gdbStacks = expected;
    }

    /** /proc/PID/maps: a pc as module+0xoffset from the object's lowest mapping. */
    private record Maps(List<String> lines) {
        String describe(List<Long> pcs, List<String> functions) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < pcs.size(); i++) {
                b.append(i == 0 ? "" : " < ").append(describe(pcs.get(i))).append(" in ").append(functions.get(i));
            }
            return b.toString();
        }

        String describe(long pc) {
            String name = null;
            long base = Long.MAX_VALUE;
            for (String l : lines) {
                String[] f = l.trim().split("\\s+", 6);
                String[] se = f[0].split("-");
                long s = Long.parseUnsignedLong(se[0], 16), e = Long.parseUnsignedLong(se[1], 16);
                if (f.length == 6 && pc >= s && pc < e) name = f[5];
            }
            if (name == null) return "?0x" + Long.toHexString(pc);
            for (String l : lines) {
                String[] f = l.trim().split("\\s+", 6);
                if (f.length == 6 && f[5].equals(name)) base = Math.min(base, Long.parseUnsignedLong(f[0].split("-")[0], 16));
            }
            return name.substring(name.lastIndexOf('/') + 1) + "+0x" + Long.toHexString(pc - base);
        }
    }
}
