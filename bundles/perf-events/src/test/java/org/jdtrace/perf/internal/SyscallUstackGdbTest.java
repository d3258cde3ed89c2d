package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.elf.SymbolTable;
import org.jdtrace.proc.Procfs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ustack() at the machine-wide syscall provider against gdb's backtrace at `catch syscall`: the
 * cfisys fixture (no frame pointers) makes getppid from three threads, each through a call chain
 * of its own, and from a SIGUSR1 handler, and clock_gettime(CLOCK_PROCESS_CPUTIME_ID) through the
 * vDSO, whose own syscall instruction makes the call. gdb records every entry (its pc, each frame's
 * ELF symbol and offset, keyed by the call's number and first argument: the thread's number); the
 * same fixture run under `syscall::getppid:entry,syscall::clock_gettime:entry /pid == P/ {
 * ustack(); }`, where the clause's ustack() makes the BPF program copy the user registers and the
 * top of the stack at the call (SyscallProgram's stack section) and the drain thread unwind that
 * by CFI. Frames are compared as module+offset from the object's lowest mapping (gdb's from its
 * pcs; ours from the function ustack() names, located in the same file's SymbolTable or, in the
 * vDSO, in this JVM's image of it, plus the printed offset), and by the function each is in: for
 * each call and thread, the set of stacks must be gdb's, frame for frame, through the signal
 * frame (__restore_rt, the handler's caller) and out of the vDSO. And proc:::exit, whose capture
 * program copies the exiting thread's registers and stack the same way (the user stack section),
 * against gdb at the entry of exit_group, where the thread entered the kernel for good.
 */
class SyscallUstackGdbTest {

    private static final Pattern KEY = Pattern.compile("^(\\w+) (\\d+)$");
    private static final Pattern FRAME = Pattern.compile("^\\s+([^`\\s]+)`(.+?)(?:\\+0x([0-9a-f]+))?$");

    private final KernelProvidersTest k = new KernelProvidersTest();

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() {
        k.tearDown();
    }

    @Test
    void ustackAtSyscallEntriesOfThreadsASignalHandlerTheVdsoAndAtProcExitIsGdbsBacktrace() throws Exception {
        String exe = PerfEventsTest.bin("cfisys");

        // gdb
        ProcessBuilder pb = new ProcessBuilder("gdb", "-nx", "-batch", "-x",
                Path.of("../provider-fasttrap/src/test/resources/gdb-malloc-stacks.py").toAbsolutePath().toString(), "--args", exe)
                .redirectErrorStream(true).redirectOutput(dir.resolve("gdb.log").toFile()).redirectInput(ProcessBuilder.Redirect.from(
                        Path.of("/dev/null").toFile()));
        pb.environment().put("BT_OUT", dir.toString());
        pb.environment().put("CATCH", "getppid clock_gettime exit_group");
        Process gdb = pb.start();
        try {
            assertTrue(gdb.waitFor(120, TimeUnit.SECONDS), "gdb did not finish");
        } finally {
            gdb.destroyForcibly();
        }
        List<String> maps = Files.readAllLines(dir.resolve("maps"));
        Map<String, Set<String>> expected = new TreeMap<>();
        int hits = 0;
        for (String line : Files.readAllLines(dir.resolve("stacks"))) {
            if (line.isBlank()) continue;
            hits++;
            String[] kf = line.split(": ", 2);
            List<String> frames = new ArrayList<>();
            for (String frame : kf[1].split(" \\| ")) {
                String[] f = frame.split(" ");
                long pc = Long.parseUnsignedLong(f[0], 16);
                frames.add(describe(maps, pc) + " in " + (f[1].equals("-") ? "-" : describe(maps, pc - Long.parseLong(f[2]))));
            }
            expected.computeIfAbsent(kf[0], x -> new TreeSet<>()).add(String.join(" < ", frames));
        }
        assertEquals(12, hits, Files.readString(dir.resolve("gdb.log")));

        // ours
        k.providers().forEach(k.fw::addProvider);
        Process p = new ProcessBuilder("sh", "-c", "read go; exec " + exe).start();
        k.started.add(p);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> k.run(out, "-q", "-n",
                "BEGIN { printf(\"go\\n\"); } "
                + "syscall::getppid:entry,syscall::clock_gettime:entry /pid == " + p.pid() + "/ { printf(\"%s %d\\n\", probefunc, arg0); ustack(); } "
                + "proc:::exit /pid == " + p.pid() + "/ { printf(\"exit_group 0\\n\"); ustack(); exit(0); }"));
        KernelProvidersTest.awaitLive(out, trace);
        p.getOutputStream().write('\n');
        p.getOutputStream().flush();
        // cfisys waits for its stdin to end after its calls: its maps stay readable until every
        // call's stack was walked and named
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (out.toString(StandardCharsets.UTF_8).lines().filter(l -> KEY.matcher(l).matches()).count() < hits - 1) {
            assertTrue(System.nanoTime() < deadline && !trace.isDone(), "calls seen: " + out);
            Thread.sleep(20);
        }
        List<String> ourMaps = Procfs.maps(p.pid()).stream().map(Object::toString).toList();
        p.getOutputStream().close();
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);

        Map<String, Map<String, Long>> functions = new HashMap<>();
        Map<String, Set<String>> got = new TreeMap<>();
        String key = null;
        List<String> frames = new ArrayList<>();
        int ours = 0;
        for (String l : (r[1] + "\n").lines().toList()) {
            Matcher km = KEY.matcher(l);
            if (km.matches() || l.isBlank() && key != null && !frames.isEmpty()) {
                if (key != null && !frames.isEmpty()) {
                    got.computeIfAbsent(key, x -> new TreeSet<>()).add(String.join(" < ", frames));
                    frames.clear();
                    key = null;
                }
                if (km.matches()) {
                    key = k.isa.abi().syscallNumberOf(km.group(1)) + " " + km.group(2);
                    ours++;
                }
                continue;
            }
            if (l.isBlank() || key == null) continue; // BEGIN's line
            Matcher m = FRAME.matcher(l);
            assertTrue(m.matches(), "frame line " + l);
            String module = m.group(1);
            long off = m.group(3) == null ? 0 : Long.parseLong(m.group(3), 16);
            String at;
            if (m.group(2).startsWith("0x")) {
                at = module + "+" + m.group(2) + " in -";
            } else {
                Long start = functions.computeIfAbsent(module, x -> functions(maps, x)).get(m.group(2));
                assertTrue(start != null, "no function " + m.group(2) + " in " + module);
                at = module + "+0x" + Long.toHexString(start + off) + " in " + module + "+0x" + Long.toHexString(start);
            }
            frames.add(at);
        }
        assertEquals(hits, ours, r[1]);
        // where gdb names no function (the signal frame's __restore_rt, its pc less one in none), the
        // address alone; where ustack() names none, a caller's return address just past the end of
        // the function gdb names by the pc less one (exit(), whose last instruction calls a noreturn
        // function): the address alone too, and counted
        int pastEnd = 0;
        Map<String, Set<String>> gdbsNames = new TreeMap<>();
        for (var e : got.entrySet()) {
            Set<String> s = new TreeSet<>();
            for (String stack : e.getValue()) {
                String[] fs = stack.split(" < ");
                List<String> ref = expected.getOrDefault(e.getKey(), Set.of()).stream()
                        .filter(x -> x.split(" < ").length == fs.length).findFirst().map(x -> List.of(x.split(" < "))).orElse(List.of());
                for (int i = 0; i < fs.length && i < ref.size(); i++) {
                    String addr = fs[i].replaceAll(" in .*$", "");
                    if (ref.get(i).endsWith(" in -")) fs[i] = addr + " in -";
                    if (i > 0 && fs[i].endsWith(" in -") && ref.get(i).startsWith(addr + " in ") && !ref.get(i).endsWith(" in -")) {
                        fs[i] = ref.get(i);
                        pastEnd++;
                    }
                }
                s.add(String.join(" < ", fs));
            }
            gdbsNames.put(e.getKey(), s);
        }
        assertEquals(expected, gdbsNames, "ours (raw: " + got + ", our maps " + ourMaps.size() + " lines)");
        assertTrue(expected.get("110 9").iterator().next().contains("in -"), "the handler's stack crosses a signal frame");
        assertTrue(expected.get("228 2").iterator().next().startsWith("[vdso]"), "clock_gettime's call is made in the vDSO");
        assertTrue(expected.get("231 0").iterator().next().split(" < ").length >= 5, "the exit's stack reaches _start");
        System.out.println("ustack vs gdb at syscall entries: " + ours + " calls, " + expected.size()
                + " threads and calls, every stack gdb's (" + pastEnd + " return addresses past their function's end unnamed; deepest " + expected.values().stream().flatMap(Set::stream)
                        .mapToInt(s -> s.split(" < ").length).max().orElse(0) + " frames)");
    }

    /** A pc as module+0xoffset from the object's lowest mapping, by the maps gdb saw. */
    private static String describe(List<String> maps, long pc) {
        for (String l : maps) {
            String[] f = l.trim().split("\\s+", 6);
            String[] se = f[0].split("-");
            if (f.length == 6 && pc >= Long.parseUnsignedLong(se[0], 16) && pc < Long.parseUnsignedLong(se[1], 16)) {
                long base = Long.MAX_VALUE;
                for (String o : maps) {
                    String[] g = o.trim().split("\\s+", 6);
                    if (g.length == 6 && g[5].equals(f[5])) base = Math.min(base, Long.parseUnsignedLong(g[0].split("-")[0], 16));
                }
                return f[5].substring(f[5].lastIndexOf('/') + 1) + "+0x" + Long.toHexString(pc - base);
            }
        }
        return "?0x" + Long.toHexString(pc);
    }

    /**
     * The functions of a module (by the name ustack() prints) as offsets from its lowest mapping:
     * from its file, or for [vdso] from this JVM's own image of it (the kernel maps the same one
     * into every process).
     */
    private static Map<String, Long> functions(List<String> maps, String module) {
        try (ElfFile elf = module.equals("[vdso]") ? vdso() : file(maps, module)) {
            SymbolTable t = SymbolTable.of(elf);
            Map<String, Long> out = new HashMap<>();
            long first = elf.segments().stream().filter(g -> g.type() == ElfSegment.PT_LOAD)
                    .mapToLong(g -> g.vaddr() - g.offset()).min().orElse(0);
            for (int i = 0; i < t.size(); i++) out.putIfAbsent(t.name(i), t.start(i) - first);
            return out;
        } catch (Exception e) {
            throw new AssertionError(module, e);
        }
    }

    private static ElfFile file(List<String> maps, String module) throws Exception {
        for (String l : maps) {
            String[] f = l.trim().split("\\s+", 6);
            if (f.length == 6 && f[5].endsWith("/" + module)) return ElfFile.open(Path.of(f[5]));
        }
        throw new AssertionError("no " + module + " in the maps");
    }

    private static ElfFile vdso() throws Exception {
        for (Procfs.Mapping m : Procfs.maps(Procfs.self())) {
            if (!m.path().equals("[vdso]")) continue;
            byte[] image = new byte[(int) (m.end() - m.start())];
            try (java.io.RandomAccessFile mem = new java.io.RandomAccessFile(Procfs.file(Procfs.self(), "mem").toFile(), "r")) {
                mem.seek(m.start());
                mem.readFully(image);
            }
            return ElfFile.of("[vdso]", image);
        }
        throw new AssertionError("no [vdso] in this JVM");
    }
}
