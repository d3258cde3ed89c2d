package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.SymbolTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ustack() at a USDT probe of Debian's python3.11 (no frame pointers) against gdb's backtrace at
 * the same probe (`break -probe-stap python:function__return`, which fires at the return of
 * every Python function the interpreter did not inline: 1,100 hits here, from startup's imports
 * to a sort whose key function is called from C): the same script run twice, under gdb and under
 * `dtrace -n 'python$target:::function-return { @[ustack()] = count(); }'` on the kernel's
 * uprobes, where the clause's ustack() makes each hit copy the stack in BPF and the drain thread
 * unwind it by CFI. Frames are compared as module+offset from the object's lowest mapping (python3.11
 * is not PIE): gdb's pc less that mapping; ours the file address of the function ustack() names
 * it by (from the same SymbolTable) plus the printed offset, less the lowest PT_LOAD page, or the
 * printed module`0xoffset of a frame in no function. Every distinct
 * stack of ours must be one gdb saw. (Not every hit reaches the JVM: startup's burst of records,
 * each with its stack copy, overflows the ring while the drain thread is cold, and the kernel
 * reports that loss only with a later record, which a finished burst never sends.)
 */
class PythonUstackGdbTest {

    private static final String PYTHON = "/usr/bin/python3.11";
    private static final Pattern FRAME = Pattern.compile("^\\s+([^`\\s]+)`(.+?)(?:\\+0x([0-9a-f]+))?$");

    private final Platform platform = new Platform(true);

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() {
        platform.close();
    }

    @Test
    void ustackAtFunctionEntryIsGdbsBacktrace() throws Exception {
        Path script = dir.resolve("sorter.py");
        Files.writeString(script, "def key(x):\n    return -x\n\nfor i in range(40):\n    sorted(range(6), key=key)\n");
        List<String> argv = List.of(PYTHON, "-S", "-E", script.toString());

        // gdb
        ProcessBuilder pb = new ProcessBuilder("gdb", "-nx", "-batch", "-x",
                Path.of("../provider-fasttrap/src/test/resources/gdb-malloc-stacks.py").toAbsolutePath().toString(), "--args")
                .redirectErrorStream(true).redirectOutput(dir.resolve("gdb.log").toFile());
        pb.command().addAll(argv);
        pb.environment().put("BT_OUT", dir.toString());
        pb.environment().put("BREAK", "-probe-stap python:function__return");
        Process gdb = pb.start();
        try {
            assertTrue(gdb.waitFor(180, TimeUnit.SECONDS), "gdb did not finish");
        } finally {
            gdb.destroyForcibly();
        }
        List<String> maps = Files.readAllLines(dir.resolve("maps"));
        Set<String> expected = new TreeSet<>();
        int hits = 0;
        for (String line : Files.readAllLines(dir.resolve("stacks"))) {
            if (line.isBlank()) continue;
            hits++;
            List<String> frames = new ArrayList<>();
            for (String frame : line.split(" \\| ")) frames.add(describe(maps, Long.parseUnsignedLong(frame.split(" ")[0], 16)));
            expected.add(String.join(" < ", frames));
        }
        assertTrue(hits >= 200, "gdb's hits: " + hits + " " + Files.readString(dir.resolve("gdb.log")));

        // ours
        Platform.Run r = platform.run("-q", "-n", "python$target:::function-return { @[ustack()] = count(); }",
                "-c", String.join(" ", argv));
        assertEquals(0, r.await(), r.toString());
        Map<String, Map<String, Long>> functions = new HashMap<>();
        Set<String> got = new TreeSet<>();
        List<String> frames = new ArrayList<>();
        long ours = 0;
        for (String l : r.out().lines().toList()) {
            if (l.isBlank()) continue;
            if (l.strip().matches("\\d+")) {
                got.add(String.join(" < ", frames));
                ours += Long.parseLong(l.strip());
                frames.clear();
                continue;
            }
            Matcher m = FRAME.matcher(l);
            assertTrue(m.matches(), "frame line " + l);
            String module = m.group(1);
            long off = m.group(3) == null ? 0 : Long.parseLong(m.group(3), 16);
            long addr;
            if (m.group(2).startsWith("0x")) {
                addr = Long.parseLong(m.group(2).substring(2), 16);
            } else {
                Map<String, Long> byName = functions.computeIfAbsent(module, k -> functions(maps, k));
                Long start = byName.get(m.group(2));
                assertTrue(start != null, "no function " + m.group(2) + " in " + module);
                addr = start + off;
            }
            frames.add(module + "+0x" + Long.toHexString(addr));
        }
        // the burst of python's startup (1,100 hits in some 50 ms, 12 KB each) fills the ring
        // (4 MB a CPU) before the drain thread, cold, catches up: the hits seen are a part
        assertTrue(ours >= 200 && ours <= hits, "hits: gdb's " + hits + ", ours " + ours + "; " + r.err());
        Set<String> missing = new TreeSet<>(expected), extra = new TreeSet<>(got);
        missing.removeAll(got);
        extra.removeAll(expected);
        assertEquals(Set.of(), extra, "stacks gdb never saw (gdb's missing here: " + missing + ")");
        assertTrue(got.size() >= 10, "distinct stacks: " + got);
        System.out.println("ustack vs gdb at python:function__return: " + ours + " of gdb's " + hits + " hits, "
                + got.size() + " of gdb's " + expected.size() + " distinct stacks, every one gdb's");
    }

    /** A pc as module+0xaddress from the object's lowest mapping, by the maps gdb saw. */
    private static String describe(List<String> maps, long pc) {
        for (String l : maps) {
            String[] f = l.trim().split("\\s+", 6);
            String[] se = f[0].split("-");
            if (f.length == 6 && pc >= Long.parseUnsignedLong(se[0], 16) && pc < Long.parseUnsignedLong(se[1], 16)) {
                return f[5].substring(f[5].lastIndexOf('/') + 1) + "+0x" + Long.toHexString(pc - base(maps, f[5]));
            }
        }
        return "?0x" + Long.toHexString(pc);
    }

    private static long base(List<String> maps, String path) {
        long base = Long.MAX_VALUE;
        for (String l : maps) {
            String[] f = l.trim().split("\\s+", 6);
            if (f.length == 6 && f[5].equals(path)) base = Math.min(base, Long.parseUnsignedLong(f[0].split("-")[0], 16));
        }
        return base;
    }

    /** The functions of the module named {@code module} in the maps, by the name ustack() prints, as offsets from its lowest mapping. */
    private static Map<String, Long> functions(List<String> maps, String module) {
        for (String l : maps) {
            String[] f = l.trim().split("\\s+", 6);
            if (f.length == 6 && f[5].endsWith("/" + module)) {
                try (ElfFile elf = ElfFile.open(Path.of(f[5]))) {
                    SymbolTable t = SymbolTable.of(elf);
                    Map<String, Long> out = new HashMap<>();
                    long first = elf.segments().stream().filter(g -> g.type() == org.jdtrace.elf.ElfSegment.PT_LOAD)
                            .mapToLong(g -> g.vaddr() - g.offset()).min().orElse(0);
                    for (int i = 0; i < t.size(); i++) out.putIfAbsent(t.name(i), t.start(i) - first);
                    return out;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        }
        throw new AssertionError("no " + module + " in the maps");
    }
}
