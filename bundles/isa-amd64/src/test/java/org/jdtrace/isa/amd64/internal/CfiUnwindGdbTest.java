package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.unwind.CallFrameInfo;
import org.jdtrace.unwind.StackSnapshot;
import org.jdtrace.unwind.Unwinder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CFI unwinder against gdb: the cfistack fixture (no frame pointers; libc's qsort calling back
 * into the program; a signal handler) stopped at leaf() under gdb, whose registers, stack bytes
 * (a copy from rsp up, as a BPF or perf capture gives them) and vDSO are replayed through
 * Amd64Abi's DWARF numbering and the Unwinder: the pcs must be gdb's backtrace's, frame for
 * frame, through __restore_rt and libc down to _start. Once with .eh_frame, once with the
 * program's CFI in .debug_frame only. The walk cache (Modules.state): the same walk again is
 * gdb's, and with each stack word and each register changed in turn a caching unwinder that has
 * seen the original answers exactly what an unwinder without the cache answers.
 */
class CfiUnwindGdbTest {

    @TempDir
    Path dir;

    @Test
    void theWalkThroughLibcAndASignalFrameIsGdbsBacktrace() throws Exception {
        compare("cfistack");
    }

    @Test
    void debugFrameOnlyCodeUnwindsAsGdbDoes() throws Exception {
        compare("cfistack_debugframe");
    }

    private void compare(String fixture) throws Exception {
        Path exe = NativeCpu.harness().resolveSibling(fixture);
        Path script = dir.resolve("dump.py");
        try (var in = getClass().getResourceAsStream("/gdb-unwind-dump.py")) {
            Files.write(script, in.readAllBytes());
        }
        ProcessBuilder pb = new ProcessBuilder("gdb", "-nx", "-batch", "-x", script.toString(), exe.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("gdb.log").toFile());
        pb.environment().put("CFI_OUT", dir.toString());
        Process gdb = pb.start();
        try {
            assertTrue(gdb.waitFor(120, TimeUnit.SECONDS), "gdb did not finish");
        } finally {
            gdb.destroyForcibly();
        }
        List<Long> expected = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String l : Files.readAllLines(dir.resolve("bt"))) {
            String[] f = l.split(" ", 2);
            expected.add(Long.parseUnsignedLong(f[0], 16));
            names.add(f.length > 1 ? f[1] : "?");
        }
        assertTrue(names.contains("__restore_rt") && names.contains("main") && names.get(names.size() - 1).equals("_start"),
                "gdb's backtrace is the fixture's: " + names);

        Amd64Abi abi = new Amd64Abi();
        long[] raw = new long[Amd64Registers.SLOTS];
        Map<String, Integer> slot = Map.ofEntries(Map.entry("rax", Amd64Registers.RAX), Map.entry("rdx", Amd64Registers.RDX),
                Map.entry("rcx", Amd64Registers.RCX), Map.entry("rbx", Amd64Registers.RBX), Map.entry("rsi", Amd64Registers.RSI),
                Map.entry("rdi", Amd64Registers.RDI), Map.entry("rbp", Amd64Registers.RBP), Map.entry("rsp", Amd64Registers.RSP),
                Map.entry("r8", Amd64Registers.R8), Map.entry("r9", Amd64Registers.R9), Map.entry("r10", Amd64Registers.R10),
                Map.entry("r11", Amd64Registers.R11), Map.entry("r12", Amd64Registers.R12), Map.entry("r13", Amd64Registers.R13),
                Map.entry("r14", Amd64Registers.R14), Map.entry("r15", Amd64Registers.R15), Map.entry("rip", Amd64Registers.RIP));
        for (String l : Files.readAllLines(dir.resolve("regs"))) {
            String[] f = l.split(" ");
            raw[slot.get(f[0])] = Long.parseUnsignedLong(f[1], 16);
        }
        Amd64Registers regs = new Amd64Registers(raw);
        long[] dwarf = new long[abi.dwarfNumbering().count()];
        long known = abi.dwarfRegisters(regs, dwarf);

        byte[] stack = Files.readAllBytes(dir.resolve("stack"));
        Memory mem = new StackSnapshot(regs.sp(), stack, stack.length, null);
        Objects objects = new Objects(Files.readAllLines(dir.resolve("maps")), Files.readAllBytes(dir.resolve("vdso")));

        long[] pcs = new long[128];
        int n = new Unwinder(abi.dwarfNumbering()).walk(dwarf, known, mem, objects, pcs, pcs.length);
        List<Long> got = new ArrayList<>();
        for (int i = 0; i < n; i++) got.add(pcs[i]);
        assertEquals(hex(expected), hex(got), "gdb's frames " + names);

        // the walk cache: kept walks of the same modules (state()) answer as a walk without it
        Unwinder cached = new Unwinder(abi.dwarfNumbering()), plain = new Unwinder(abi.dwarfNumbering());
        Unwinder.Modules kept = new Unwinder.Modules() {
            final Object state = new Object();
            @Override public CallFrameInfo cfi(long pc) { return objects.cfi(pc); }
            @Override public long bias(long pc) { return objects.bias(pc); }
            @Override public Object state() { return state; }
        };
        for (int round = 0; round < 2; round++) {
            assertEquals(hex(expected), hex(walk(cached, dwarf, known, mem, kept)), "gdb's frames, walk " + round + " with the cache");
        }
        int changedWalks = 0;
        for (int at = 0; at + 8 <= Math.min(stack.length, 16384); at += 8) {
            byte[] changed = stack.clone();
            changed[at] ^= 0x10;
            changed[at + 3] ^= 0x01;
            StackSnapshot m = new StackSnapshot(regs.sp(), changed, changed.length, null);
            List<Long> want = walk(plain, dwarf, known, m, objects);
            assertEquals(hex(want), hex(walk(cached, dwarf, known, m, kept)), "stack word " + at + " changed");
            assertEquals(hex(expected), hex(walk(cached, dwarf, known, mem, kept)), "the original again after word " + at);
            if (!want.equals(expected)) changedWalks++;
        }
        assertTrue(changedWalks > 0, "some changed word changes the walk");
        for (int r = 0; r < dwarf.length; r++) {
            long[] other = dwarf.clone();
            other[r] += 0x40;
            List<Long> want = walk(plain, other, known, mem, objects);
            assertEquals(hex(want), hex(walk(cached, other, known, mem, kept)), "register " + r + " changed");
            assertEquals(hex(walk(plain, dwarf, known & ~(1L << r), mem, objects)),
                    hex(walk(cached, dwarf, known & ~(1L << r), mem, kept)), "register " + r + " unknown");
        }
    }

    private static List<Long> walk(Unwinder u, long[] dwarf, long known, Memory mem, Unwinder.Modules modules) {
        long[] pcs = new long[128];
        int n = u.walk(dwarf, known, mem, modules, pcs, pcs.length);
        List<Long> got = new ArrayList<>();
        for (int i = 0; i < n; i++) got.add(pcs[i]);
        return got;
    }

    private static List<String> hex(List<Long> pcs) {
        return pcs.stream().map(Long::toHexString).toList();
    }

    /** The objects of /proc/PID/maps with their CFI and load bias (and the vDSO from its bytes). */
    private static final class Objects implements Unwinder.Modules {
        record Obj(long start, long end, long bias, CallFrameInfo cfi) {}

        final List<Obj> objs = new ArrayList<>();

        Objects(List<String> maps, byte[] vdso) throws Exception {
            Map<String, long[]> ranges = new LinkedHashMap<>();
            long vdsoStart = 0, vdsoEnd = 0;
            for (String line : maps) {
                String[] f = line.trim().split("\\s+", 6);
                String[] se = f[0].split("-");
                long s = Long.parseUnsignedLong(se[0], 16), e = Long.parseUnsignedLong(se[1], 16);
                if (f.length == 6 && f[5].equals("[vdso]")) {
                    vdsoStart = s;
                    vdsoEnd = e;
                }
                if (f.length < 6 || !f[5].startsWith("/")) continue;
                long off = Long.parseUnsignedLong(f[2], 16);
                long[] r = ranges.computeIfAbsent(f[5], k -> new long[] {s, e, s - off});
                r[0] = Math.min(r[0], s);
                r[1] = Math.max(r[1], e);
            }
            for (Map.Entry<String, long[]> e : ranges.entrySet()) {
                ElfFile elf = ElfFile.open(Path.of(e.getKey()));
                long firstLoad = elf.segments().stream().filter(s -> s.type() == ElfSegment.PT_LOAD)
                        .mapToLong(s -> s.vaddr() - s.offset()).min().orElse(0);
                long bias = elf.type() == ElfFile.ET_EXEC ? 0 : e.getValue()[2] - firstLoad;
                objs.add(new Obj(e.getValue()[0], e.getValue()[1], bias, CallFrameInfo.of(elf)));
            }
            ElfFile v = ElfFile.of("[vdso]", vdso);
            objs.add(new Obj(vdsoStart, vdsoEnd, vdsoStart, CallFrameInfo.of(v)));
            objs.sort(Comparator.comparingLong(Obj::start));
        }

        private Obj at(long pc) {
            for (Obj o : objs) if (Long.compareUnsigned(pc, o.start) >= 0 && Long.compareUnsigned(pc, o.end) < 0) return o;
            return null;
        }

        @Override
        public CallFrameInfo cfi(long pc) {
            Obj o = at(pc);
            return o == null ? null : o.cfi;
        }

        @Override
        public long bias(long pc) {
            Obj o = at(pc);
            return o == null ? 0 : o.bias;
        }
    }

}
