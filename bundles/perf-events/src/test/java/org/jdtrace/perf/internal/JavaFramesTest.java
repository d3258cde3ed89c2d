package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import javax.tools.ToolProvider;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.spi.ProbeContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Java frames of another HotSpot JVM (this JDK) at profile-997 samples, with no perf map and no
 * -XX:+PreserveFramePointer: compiled frames are left by the frame size the JVM's code cache
 * gives (HotSpotVm through UserSymbols.View) and named from it, so Outer$Inner.spin's caller is
 * Outer.run and the walk goes on through the interpreter's and the call stub's frames into
 * libjvm.so; in an interpreting JVM (-Xint) jstack() names each interpreter frame by its method,
 * the same frames `jcmd PID Thread.print` lists for the thread.
 */
class JavaFramesTest {

    final Amd64Isa isa = new Amd64Isa();
    final PerfEventsImpl perf = new PerfEventsImpl(isa);
    Process jvm;

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() throws Exception {
        if (jvm != null) jvm.destroyForcibly().waitFor();
        perf.close();
    }

    static Path jdkBin() {
        return Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent();
    }

    /** Compiles Outer (Outer.run calls Outer$Inner.spin) and runs it with {@code flags}. */
    private Process outer(String... flags) throws Exception {
        Path src = dir.resolve("Outer.java");
        Files.copy(Path.of("../../fixtures/src/java/Outer.java"), src);
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", dir.toString(), src.toString()));
        List<String> cmd = new ArrayList<>(List.of(jdkBin().resolve("java").toString(), "-cp", dir.toString(),
                "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,Outer$Inner::spin", "-XX:CompileCommand=dontinline,Outer::run"));
        cmd.addAll(List.of(flags));
        cmd.add("Outer");
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** profile-997 samples of {@code jvm} as {@code frames} gives them, kept where {@code keep} says, until {@code want} or 60 s. */
    private List<List<String>> sample(Function<ProbeContext, List<String>> frames, java.util.function.Predicate<List<String>> keep, int want)
            throws Exception {
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
        List<List<String>> kept = Collections.synchronizedList(new ArrayList<>());
        ProfileSamplerTest.CountingProbe probe = new ProfileSamplerTest.CountingProbe() {
            @Override
            public void fire(ProbeContext ctx) {
                List<String> f = frames.apply(ctx);
                if (keep.test(f)) kept.add(f);
            }
        };
        probe.filter = jvm.pid();
        try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
            long until = System.nanoTime() + 60_000_000_000L;
            while (kept.size() < want && System.nanoTime() < until && jvm.isAlive()) {
                Thread.sleep(100);
                perf.drain();
            }
        }
        return kept;
    }

    @Test
    void withoutFramePointersCompiledFramesUnwindByTheirCodeCacheFrameSizes() throws Exception {
        jvm = outer("-XX:-PreserveFramePointer");
        Files.deleteIfExists(Path.of("/tmp/perf-" + jvm.pid() + ".map")); // names from the code cache alone
        // until both are compiled (an interpreted Outer.run is the interpreter's frame): the
        // JVM's list of its compiled code, which writes no perf map
        long deadline = System.nanoTime() + 60_000_000_000L;
        String codelist = "";
        while (!(codelist.contains("Outer.run") && codelist.contains("Outer$Inner.spin")) && System.nanoTime() < deadline) {
            Thread.sleep(300);
            Process jcmd = new ProcessBuilder(jdkBin().resolve("jcmd").toString(), Long.toString(jvm.pid()), "Compiler.codelist")
                    .redirectErrorStream(true).start();
            codelist = new String(jcmd.getInputStream().readAllBytes());
            jcmd.waitFor();
        }
        List<List<String>> inSpin = sample(ctx -> {
            List<String> f = new ArrayList<>();
            for (long pc : ctx.ustack(60)) f.add(String.valueOf(ctx.usym(pc)));
            return f;
        }, f -> !f.isEmpty() && f.get(0).startsWith("[jit]`Outer$Inner.spin+"), 100);
        assertTrue(inSpin.size() >= 100, "samples in compiled Outer$Inner.spin: " + inSpin.size());
        Map<String, Long> callers = new TreeMap<>();
        for (List<String> f : inSpin) callers.merge(f.size() > 1 ? f.get(1).replaceAll("\\+0x.*", "") : "-", 1L, Long::sum);
        long fromRun = callers.getOrDefault("[jit]`Outer.run", 0L);
        assertTrue(fromRun * 10 >= inSpin.size() * 9, fromRun + " of " + inSpin.size() + " callers are Outer.run: " + callers);
        long intoLibjvm = inSpin.stream().filter(f -> f.stream().anyMatch(x -> x.startsWith("libjvm.so`JavaCalls")
                || x.startsWith("libjvm.so`_ZN9JavaCalls11call_helper"))).count();
        assertTrue(intoLibjvm * 10 >= inSpin.size() * 9, intoLibjvm + " of " + inSpin.size() + " reach JavaCalls::call_helper: " + inSpin.get(0));
        // Outer.main is below Outer.run, above the call stub
        long throughMain = inSpin.stream().filter(f -> f.size() > 2 && f.get(2).matches("\\[jit\\]`(Outer.main|Interpreter)\\b.*")).count();
        assertTrue(throughMain * 10 >= inSpin.size() * 9, throughMain + " of " + inSpin.size() + " go on to Outer.main: " + inSpin.get(0));
    }

    @Test
    void jstackNamesInterpreterFramesByTheirMethodsAsJcmdThreadPrintLists() throws Exception {
        jvm = outer("-Xint");
        List<List<String>> main = sample(ctx -> {
            String[] f = ctx.jstack(60);
            return f == null ? List.of() : List.of(f);
        }, f -> f.stream().anyMatch(x -> x.equals("[interpreter]`Outer.main")), 60);
        // the outside reference: the JVM's own list of the main thread's Java frames
        Process jcmd = new ProcessBuilder(jdkBin().resolve("jcmd").toString(), Long.toString(jvm.pid()), "Thread.print")
                .redirectErrorStream(true).start();
        String dump = new String(jcmd.getInputStream().readAllBytes());
        jcmd.waitFor();
        String mainThread = dump.substring(dump.indexOf("\"main\""));
        mainThread = mainThread.substring(0, mainThread.indexOf("\n\n"));
        List<String> expected = new ArrayList<>();
        for (String line : mainThread.split("\n")) {
            String t = line.strip();
            if (t.startsWith("at ")) expected.add("[interpreter]`" + t.substring(3, t.indexOf('(')));
        }
        assertEquals(List.of("[interpreter]`Outer$Inner.spin", "[interpreter]`Outer.run", "[interpreter]`Outer.main"), expected, mainThread);
        assertTrue(main.size() >= 60, "samples through Outer.main: " + main.size());
        long same = main.stream().filter(f -> f.stream().filter(x -> x.startsWith("[interpreter]")).toList().equals(expected)).count();
        assertTrue(same * 10 >= main.size() * 9, same + " of " + main.size() + " list Thread.print's frames " + expected + ": " + main.get(0));
        // below the Java frames: the call stub and libjvm.so, named as ustack() names them
        assertTrue(main.stream().allMatch(f -> f.stream().anyMatch(x -> x.startsWith("libjvm.so`"))), main.get(0).toString());
    }

    /**
     * A perf map naming code freed since (a method unloaded): an entry the JVM's code cache has no
     * live blob for names nothing, while the map's entries for live code keep their names.
     */
    @Test
    void aPerfMapEntryForCodeNoLongerInTheCodeCacheNamesNothing() throws Exception {
        jvm = outer("-XX:-PreserveFramePointer");
        Path map = Path.of("/tmp/perf-" + jvm.pid() + ".map");
        try {
            long spin = 0;
            long until = System.nanoTime() + 60_000_000_000L;
            while (spin == 0 && System.nanoTime() < until) {
                Thread.sleep(500);
                new ProcessBuilder(jdkBin().resolve("jcmd").toString(), Long.toString(jvm.pid()), "Compiler.perfmap")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                if (!Files.exists(map)) continue;
                for (String line : Files.readAllLines(map)) {
                    if (line.endsWith(" long Outer$Inner.spin(long)")) spin = Long.parseUnsignedLong(line.substring(2, line.indexOf(' ')), 16);
                }
            }
            assertTrue(spin != 0, "jcmd named Outer$Inner.spin");
            // the reserved, uncommitted part of the code cache after spin's committed mapping:
            // no code can live there
            long gone = 0;
            List<String> maps = Files.readAllLines(Path.of("/proc/" + jvm.pid() + "/maps"));
            for (int i = 0; i + 1 < maps.size(); i++) {
                String[] f = maps.get(i).split("\\s+"), g = maps.get(i + 1).split("\\s+");
                long[] r = range(f[0]), next = range(g[0]);
                if (spin >= r[0] && spin < r[1] && next[0] == r[1] && g[1].equals("---p") && g.length == 5) gone = next[0] + 0x100;
            }
            assertTrue(gone != 0, "an uncommitted part of the code cache after 0x" + Long.toHexString(spin) + ": " + maps);
            Files.writeString(map, Files.readString(map) + "0x" + Long.toHexString(gone) + " 0x200 void Gone.method()\n");
            assertEquals("Gone.method+0x10", new org.jdtrace.proc.PerfMap((int) jvm.pid()).describe(gone + 0x10), "the map names it");
            UserSymbols symbols = new UserSymbols();
            assertEquals(null, symbols.lookup((int) jvm.pid(), gone + 0x10), "code no longer in the code cache is unnamed");
            // live code keeps its name (an entry for code freed since jcmd wrote it may be unnamed)
            Map<String, Integer> named = new TreeMap<>();
            for (String line : Files.readAllLines(map)) {
                if (!line.contains(" Outer")) continue;
                String got = symbols.lookup((int) jvm.pid(), Long.parseUnsignedLong(line.substring(2, line.indexOf(' ')), 16) + 0x10);
                named.merge(String.valueOf(got), 1, Integer::sum);
            }
            assertTrue(named.getOrDefault("[jit]`Outer$Inner.spin+0x10", 0) > 0 && named.getOrDefault("[jit]`Outer.run+0x10", 0) > 0,
                    "the map's Outer entries as named: " + named);
        } finally {
            Files.deleteIfExists(map);
        }
    }

    private static long[] range(String field) {
        String[] se = field.split("-");
        return new long[] {Long.parseUnsignedLong(se[0], 16), Long.parseUnsignedLong(se[1], 16)};
    }
}
