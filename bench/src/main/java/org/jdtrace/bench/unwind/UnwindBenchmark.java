package org.jdtrace.bench.unwind;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.isa.Abi;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.unwind.CallFrameInfo;
import org.jdtrace.unwind.StackSnapshot;
import org.jdtrace.unwind.Unwinder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The CFI unwinder's speed on a real 20-frame stack: the cfideep fixture (no frame pointers; a
 * std::thread through libc's clone3 and start_thread and libstdc++'s thread routine, ten
 * recursive frames, pthread_once, qsort's msort, a comparator) stopped at leaf() under gdb, whose
 * registers and stack copy (as a BPF or perf capture gives them) are walked by Unwinder with the
 * objects' CallFrameInfo, as profile-N's ustack() does for each sample, with the unwinder's row
 * cache warm (walk) and emptied before each walk (walkCold). Setup checks the walk is gdb's
 * backtrace. Target (issue 21): at most 2 us per 20-frame walk. On a loaded machine time it by
 * CPU instead: java -cp bench/target/benchmarks.jar org.jdtrace.bench.FiringCpuTime unwind unwindcold
 * Run: java -jar bench/target/benchmarks.jar UnwindBenchmark
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UnwindBenchmark {

    private Unwinder unwinder;
    private long[] regs;
    private long known;
    private StackSnapshot stack;
    private Objects objects;
    private final long[] pcs = new long[64];

    @Setup
    public void setup() throws Exception {
        Path root = root();
        Path dir = Files.createTempDirectory("unwind-bench");
        ProcessBuilder pb = new ProcessBuilder("gdb", "-nx", "-batch", "-x",
                root.resolve("bundles/isa-amd64/src/test/resources/gdb-unwind-dump.py").toString(),
                root.resolve("fixtures/target/bin/cfideep").toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("gdb.log").toFile());
        pb.environment().put("CFI_OUT", dir.toString());
        Process gdb = pb.start();
        if (!gdb.waitFor(120, TimeUnit.SECONDS)) throw new IllegalStateException("gdb did not finish");
        Abi abi = new Amd64Isa().abi();
        String[] order = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13",
            "r14", "r15", "rip"};
        Map<String, Long> byName = new LinkedHashMap<>();
        for (String l : Files.readAllLines(dir.resolve("regs"))) {
            String[] f = l.split(" ");
            byName.put(f[0], Long.parseUnsignedLong(f[1], 16));
        }
        regs = new long[abi.dwarfNumbering().count()];
        for (int i = 0; i < order.length; i++) regs[i] = byName.get(order[i]); // DWARF order, psABI 3.36
        known = (1L << order.length) - 1;
        byte[] bytes = Files.readAllBytes(dir.resolve("stack"));
        stack = new StackSnapshot(regs[7], bytes, bytes.length, null);
        objects = new Objects(Files.readAllLines(dir.resolve("maps")), Files.readAllBytes(dir.resolve("vdso")));
        unwinder = new Unwinder(abi.dwarfNumbering());
        List<Long> gdbPcs = new ArrayList<>();
        for (String l : Files.readAllLines(dir.resolve("bt"))) gdbPcs.add(Long.parseUnsignedLong(l.split(" ")[0], 16));
        int n = walk();
        List<Long> ours = new ArrayList<>();
        for (int i = 0; i < n; i++) ours.add(pcs[i]);
        if (!ours.equals(gdbPcs)) throw new IllegalStateException("the walk is not gdb's: " + ours + " vs " + gdbPcs);
        System.out.printf("%n[unwind] cfideep: %d frames, gdb's backtrace%n", n);
    }

    /** A walk as a profile's later samples make it: the rows of these pcs are in the unwinder's cache. */
    @Benchmark
    public int walk() {
        return unwinder.walk(regs, known, stack, objects, pcs, pcs.length);
    }

    /** A walk with an empty row cache: every frame's FDE is found and run from its start. */
    @Benchmark
    public int walkCold() {
        unwinder.clearCache();
        return unwinder.walk(regs, known, stack, objects, pcs, pcs.length);
    }

    private static Path root() {
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isExecutable(d.resolve("fixtures/target/bin/cfideep"))) return d;
        }
        throw new IllegalStateException("fixtures/target/bin/cfideep not built (run the fixtures module)");
    }

    /** The objects of /proc/PID/maps with their CFI and load bias, sorted; the vDSO from its bytes. */
    static final class Objects implements Unwinder.Modules {
        private final long[] start, end, bias;
        private final CallFrameInfo[] cfi;

        Objects(List<String> maps, byte[] vdso) throws Exception {
            Map<String, long[]> ranges = new LinkedHashMap<>();
            for (String line : maps) {
                String[] f = line.trim().split("\\s+", 6);
                if (f.length < 6 || !(f[5].startsWith("/") || f[5].equals("[vdso]"))) continue;
                String[] se = f[0].split("-");
                long s = Long.parseUnsignedLong(se[0], 16), e = Long.parseUnsignedLong(se[1], 16);
                long off = Long.parseUnsignedLong(f[2], 16);
                long[] r = ranges.computeIfAbsent(f[5], k -> new long[] {s, e, s - off});
                r[0] = Math.min(r[0], s);
                r[1] = Math.max(r[1], e);
            }
            int n = ranges.size(), i = 0;
            start = new long[n];
            end = new long[n];
            bias = new long[n];
            cfi = new CallFrameInfo[n];
            for (Map.Entry<String, long[]> e : ranges.entrySet()) {
                ElfFile elf = e.getKey().equals("[vdso]") ? ElfFile.of("[vdso]", vdso) : ElfFile.open(Path.of(e.getKey()));
                long firstLoad = elf.segments().stream().filter(s -> s.type() == ElfSegment.PT_LOAD)
                        .mapToLong(s -> s.vaddr() - s.offset()).min().orElse(0);
                start[i] = e.getValue()[0];
                end[i] = e.getValue()[1];
                bias[i] = elf.type() == ElfFile.ET_EXEC ? 0 : e.getValue()[2] - firstLoad;
                cfi[i++] = CallFrameInfo.of(elf);
            }
        }

        private int at(long pc) {
            for (int i = 0; i < start.length; i++) if (pc >= start[i] && pc < end[i]) return i;
            return -1;
        }

        @Override
        public CallFrameInfo cfi(long pc) {
            int i = at(pc);
            return i < 0 ? null : cfi[i];
        }

        @Override
        public long bias(long pc) {
            int i = at(pc);
            return i < 0 ? 0 : bias[i];
        }
    }
}
