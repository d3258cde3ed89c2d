package org.jdtrace.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HotSpotVm on another JVM of this JDK (run without -XX:+PreserveFramePointer): the code cache read
 * through vmStructs names every blob as the JVM's own perf map (`jcmd PID Compiler.perfmap`)
 * names it, finds the interpreter where the map puts it, and gives each compiled method of the
 * hot chain the frame size its prologue sets up (objdump of the code bytes: `sub $N,%rsp` plus
 * the return address and, where pushed, rbp). Bad input: a process that is no JVM, addresses in
 * no blob, a Method* that is none, an interpreter frame whose slot cannot be read: no answer,
 * nothing thrown.
 */
class HotSpotVmTest {

    @TempDir
    Path dir;

    private Process jvm;

    @AfterEach
    void stop() throws Exception {
        if (jvm != null) {
            jvm.destroyForcibly().waitFor();
            Files.deleteIfExists(Path.of("/tmp/perf-" + jvm.pid() + ".map"));
        }
    }

    static Path jdkBin() {
        return Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent();
    }

    /** Starts Outer (Outer.run calls Outer$Inner.spin, not inlined) and waits for jcmd's map to name both. */
    static Process startOuter(Path dir, String... jvmFlags) throws Exception {
        Path src = dir.resolve("Outer.java");
        Files.copy(Path.of("../../fixtures/src/java/Outer.java"), src);
        List<String> cmd = new ArrayList<>(List.of(jdkBin().resolve("java").toString(), "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=dontinline,Outer$Inner::spin"));
        cmd.addAll(List.of(jvmFlags));
        cmd.add(src.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Path map = Path.of("/tmp/perf-" + p.pid() + ".map");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            Thread.sleep(500);
            perfmap(p.pid());
            if (Files.exists(map)) {
                String m = Files.readString(map);
                if (m.contains("Outer$Inner.spin") && m.contains("Outer.run")) return p;
            }
        }
        p.destroyForcibly().waitFor();
        throw new AssertionError("jcmd never named Outer.run and Outer$Inner.spin");
    }

    /** `jcmd PID Compiler.perfmap`: the JVM writes /tmp/perf-PID.map. */
    static void perfmap(long pid) throws Exception {
        new ProcessBuilder(jdkBin().resolve("jcmd").toString(), Long.toString(pid), "Compiler.perfmap")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    }

    @Test
    void codeCacheNamesBlobsAsThePerfMapAndFramesAsThePrologueBuildsThem() throws Exception {
        jvm = startOuter(dir, "-XX:-PreserveFramePointer");
        int pid = (int) jvm.pid();
        perfmap(pid);
        List<String> lines = Files.readAllLines(Path.of("/tmp/perf-" + pid + ".map"));
        try (HotSpotVm vm = HotSpotVm.of(pid)) {
            assertNotNull(vm, "vmStructs of " + pid);
            int same = 0, hot = 0, interpreter = 0;
            List<String> differ = new ArrayList<>();
            for (String line : lines) {
                String[] f = line.split(" ", 3);
                long start = Long.parseUnsignedLong(f[0].substring(2), 16), size = Long.parseUnsignedLong(f[1].substring(2), 16);
                String expected = PerfMap.javaName(f[2]);
                String got = vm.describe(start + 1);
                if ((expected + "+0x1").equals(got)) same++;
                else differ.add(line + " => " + got);
                if (expected.equals("Interpreter")) {
                    interpreter++;
                    assertTrue(vm.isInterpreter(start) && vm.isInterpreter(start + size - 1) && !vm.isInterpreter(start + size));
                    assertEquals(-8, vm.codeFrame(start + 16), "the interpreter's sender sp is at fp - 8");
                }
                if (expected.startsWith("Outer")) {
                    // the frame past the prologue: as the code's own prologue builds it
                    assertEquals(prologueFrame(pid, start), vm.codeFrame(start + size - 1), line);
                    hot++;
                }
            }
            assertEquals(1, interpreter, "one interpreter");
            assertTrue(hot >= 2, "Outer's methods compiled: " + hot);
            // a blob freed between jcmd's write and this read may differ; never more than a few
            assertTrue(same >= lines.size() * 0.95, same + " of " + lines.size() + " named alike; differ: " + differ);

            // bad input: no blob, no method, an unreadable interpreter slot
            assertNull(vm.describe(0x1000));
            assertEquals(0, vm.codeFrame(0x1000));
            assertNull(vm.methodName(0x1000));
            assertNull(vm.methodName(0x7));
            Memory unreadable = new Memory() {
                @Override public void read(long addr, byte[] buf, int off, int len) throws IsaException {
                    throw new IsaException("unreadable", addr);
                }
                @Override public void write(long addr, byte[] buf, int off, int len) throws IsaException {
                    throw new IsaException("read-only", addr);
                }
            };
            assertNull(vm.interpretedMethod(0x7fff0000L, unreadable));
            assertNull(vm.interpretedMethod(0, unreadable));
        }
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            assertNull(HotSpotVm.of((int) sleep.pid()), "sleep is no JVM");
        } finally {
            sleep.destroyForcibly().waitFor();
        }
        assertNull(HotSpotVm.of(Integer.MAX_VALUE), "no such process");
    }

    /** Spin.hot, loaded by a loader of its own; Unload compiles it, then lets the loader go (class and code unloaded). */
    private static final String SPIN = """
            public class Spin {
                public static long hot(long n) {
                    long s = 0;
                    for (long i = 0; i < n; i++) s += i * 31 ^ (s >>> 3);
                    return s;
                }
            }
            """;
    private static final String UNLOAD = """
            import java.io.*;
            import java.lang.ref.WeakReference;
            import java.lang.reflect.Method;
            import java.net.*;
            import java.nio.file.Path;

            public class Unload {
                public static void main(String[] args) throws Exception {
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
                    WeakReference<ClassLoader> loader = run(Path.of(args[0]).toUri().toURL());
                    System.out.println("compiled");
                    in.readLine();
                    while (loader.get() != null) {
                        System.gc();
                        Thread.sleep(10);
                    }
                    System.gc();
                    System.out.println("unloaded");
                    in.readLine();
                }

                static WeakReference<ClassLoader> run(URL dir) throws Exception {
                    URLClassLoader l = new URLClassLoader(new URL[] {dir}, null);
                    Method m = l.loadClass("Spin").getMethod("hot", long.class);
                    long s = 0;
                    for (int i = 0; i < 20_000; i++) s += (long) m.invoke(null, 1000L);
                    if (s == 42) System.out.println(s);
                    return new WeakReference<>(l);
                }
            }
            """;

    /**
     * Blobs cached, then one freed (its class unloaded by a full GC, gone from the perf map): once
     * the cache's second is up, the freed blob's pcs and every other blob cached with it answer as
     * a HotSpotVm made afresh, never with the freed method's name.
     */
    @Test
    void aFreedBlobIsNotAnsweredStaleOnceItsSecondIsUp() throws Exception {
        Path spinDir = Files.createDirectories(dir.resolve("spin"));
        Files.writeString(spinDir.resolve("Spin.java"), SPIN);
        Files.writeString(dir.resolve("Unload.java"), UNLOAD);
        Process javac = new ProcessBuilder(jdkBin().resolve("javac").toString(), "-d", dir.toString(), dir.resolve("Unload.java").toString(),
                spinDir.resolve("Spin.java").toString()).inheritIO().start();
        assertEquals(0, javac.waitFor());
        Files.move(dir.resolve("Spin.class"), spinDir.resolve("Spin.class"));
        jvm = new ProcessBuilder(jdkBin().resolve("java").toString(), "-XX:+UseSerialGC", "-cp", dir.toString(), "Unload",
                spinDir.toString()).redirectErrorStream(true).start();
        int pid = (int) jvm.pid();
        java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(jvm.getInputStream()));
        assertEquals("compiled", out.readLine());
        perfmap(pid);
        List<Long> spin = new ArrayList<>(), others = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/tmp/perf-" + pid + ".map"))) {
            long start = Long.parseUnsignedLong(line.split(" ", 2)[0].substring(2), 16);
            (line.contains("Spin.hot") ? spin : others).add(start);
        }
        assertTrue(!spin.isEmpty() && others.size() > 10, spin + " " + others.size());
        try (HotSpotVm vm = HotSpotVm.of(pid); HotSpotVm fresh = HotSpotVm.of(pid)) {
            assertNotNull(vm);
            assertNotNull(fresh);
            long t0 = System.nanoTime();
            for (long o : others) vm.describe(o + 1);
            for (long s : spin) {
                assertEquals("Spin.hot+0x1", vm.describe(s + 1));
                assertTrue(vm.codeFrame(s + 1) > 0);
            }
            jvm.getOutputStream().write('\n');
            jvm.getOutputStream().flush();
            assertEquals("unloaded", out.readLine());
            sleepUntil(t0 + 1_050_000_000L);
            for (long o : others) {
                assertEquals(fresh.describe(o + 1), vm.describe(o + 1));
                assertEquals(fresh.codeFrame(o + 1), vm.codeFrame(o + 1));
            }
            for (long s : spin) {
                String got = vm.describe(s + 1);
                assertTrue(got == null || !got.startsWith("Spin.hot"), got);
                assertEquals(fresh.describe(s + 1), got);
                assertEquals(fresh.codeFrame(s + 1), vm.codeFrame(s + 1));
            }
            perfmap(pid);
            assertTrue(!Files.readString(Path.of("/tmp/perf-" + pid + ".map")).contains("Spin.hot"), "Spin.hot's code freed");
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
    }

    /** A blob over [block, end) for the index (a header's other fields do not matter to it). */
    private static HotSpotVm.Blob blob(long block, long end) {
        return new HotSpotVm.Blob(new HotSpotVm.Header(block, block + 16, end, 0, block + 64, 0, -1, 0, 0), "b", 0);
    }

    /**
     * The blob index: every pc of a live blob finds it, before and after merges; a blob added over
     * others drops them (found instead of them); a dropped one is found no more, and merges leave
     * it out.
     */
    @Test
    void theBlobIndexFindsLiveBlobsOnly() {
        HotSpotVm.Index index = HotSpotVm.Index.EMPTY;
        List<HotSpotVm.Blob> blobs = new ArrayList<>();
        java.util.Random r = new java.util.Random(7);
        // 300 blobs of 0x100 bytes with gaps, added in no order (several merges)
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i < 300; i++) starts.add(0x7f0000000000L + i * 0x200L);
        java.util.Collections.shuffle(starts, r);
        for (long start : starts) {
            HotSpotVm.Blob b = blob(start, start + 0x100);
            blobs.add(b);
            index = index.with(b);
        }
        for (HotSpotVm.Blob b : blobs) {
            assertEquals(b, index.find(b.h.block()));
            assertEquals(b, index.find(b.h.end() - 1));
            assertNull(index.find(b.h.end()), "a gap");
        }
        // one blob over the second half of one and all of the next: both dropped, it found instead
        long at = 0x7f0000000000L + 10 * 0x200L;
        HotSpotVm.Blob first = index.find(at), second = index.find(at + 0x200);
        HotSpotVm.Blob over = blob(at + 0x80, at + 0x300);
        index = index.with(over);
        assertTrue(first.dropped && second.dropped);
        assertNull(index.find(at), "the dropped blob's first half is in no live blob");
        assertEquals(over, index.find(at + 0x80));
        assertEquals(over, index.find(at + 0x2ff));
        // a blob dropped as stale: no answer, before and after a merge
        HotSpotVm.Blob stale = index.find(at + 0x1000);
        stale.dropped = true;
        assertNull(index.find(stale.h.block()));
        for (int i = 0; i < HotSpotVm.Index.ADDED; i++) {
            long start = 0x7f0001000000L + i * 0x200L;
            index = index.with(blob(start, start + 0x100));
        }
        assertNull(index.find(stale.h.block()));
        assertEquals(over, index.find(at + 0x100));
        assertEquals(300 - 3 + 1 + HotSpotVm.Index.ADDED, index.size(), "the dropped left out at the merge");
    }

    private static final Pattern SUB = Pattern.compile("\\bsub\\s+\\$0x([0-9a-f]+),%rsp");

    /**
     * The frame size a compiled method's prologue builds, from objdump's reading of its first
     * bytes: `sub $N,%rsp`, plus the return address, plus rbp when it is pushed before the sub.
     */
    private int prologueFrame(int pid, long start) throws Exception {
        byte[] code = new byte[0x80];
        try (RandomAccessFile mem = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
            mem.seek(start);
            mem.readFully(code);
        }
        Path bin = dir.resolve("code-" + Long.toHexString(start) + ".bin");
        // code made not entrant starts with a jump written over its first instruction (the 7-byte
        // stack bang, mov %eax,-N(%rsp)): read the prologue after it
        int skip = code[0] == (byte) 0xe9 ? 7 : 0;
        Files.write(bin, java.util.Arrays.copyOfRange(code, skip, code.length));
        Process od = new ProcessBuilder("objdump", "-D", "-b", "binary", "-mi386:x86-64", bin.toString()).redirectErrorStream(true).start();
        String text = new String(od.getInputStream().readAllBytes());
        od.waitFor();
        Matcher m = SUB.matcher(text);
        assertTrue(m.find(), "a prologue's sub in " + text);
        boolean pushed = text.substring(0, m.start()).contains("push   %rbp");
        return Integer.parseInt(m.group(1), 16) + 8 + (pushed ? 8 : 0);
    }
}
