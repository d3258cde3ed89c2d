package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jdtrace.elf.ObjectFiles;
import org.jdtrace.proc.Procfs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ustack() at a syscall of processes gone before the drain reads their records: a program built
 * here with -O2 -fomit-frame-pointer calls write(2) through main, outer, middle and leaf and exits
 * at once; twenty of them run one after another under `syscall::write:entry /execname == ".."/ {
 * @[ustack()] = count(); }`. Their mappings come from UserSymbols' side-band records (fork, exec,
 * MMAP2), not from /proc, which is gone for most of them by then: every one of the twenty gives
 * the same stack, each frame of the program named as nm names it (the function, an offset inside
 * its size) in the call chain's order, down to _start. And profile-N over twenty runs of a
 * program that burns ~30 ms in spin, called by work from main: every one of them has samples in
 * spin, and each such sample's stack is spin < work < main.
 */
class GoneProcessUstackTest {

    private static final Pattern FRAME = Pattern.compile("^\\s+([^`\\s]+)`(\\w+)\\+0x([0-9a-f]+)$");

    private final KernelProvidersTest k = new KernelProvidersTest();

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() {
        k.tearDown();
    }

    /** The program that reads a byte of stdin, then writes through leaf, middle, outer and main, built as {@code name}. */
    private Path chain(String name) throws Exception {
        Path src = dir.resolve("gone.c");
        Files.writeString(src, """
                #include <unistd.h>
                volatile int sink;
                __attribute__((noinline)) int leaf(int n) { int r = (int) write(1, "x\\n", 2); sink += r; return r + n; }
                __attribute__((noinline)) int middle(int n) { int r = leaf(n + 1); sink += r; return r * 3; }
                __attribute__((noinline)) int outer(int n) { int r = middle(n + 2); sink += r; return r ^ 5; }
                int main(int argc, char **argv) { char c; (void) argv; (void) !read(0, &c, 1); return outer(argc) == 12345; }
                """);
        Path exe = dir.resolve(name);
        cmd("gcc", "-O2", "-fomit-frame-pointer", "-o", exe.toString(), src.toString());
        return exe;
    }

    @Test
    void ustackOfShortLivedProcessesIsNamedFromTheMappingsTheyHadAtTheCall() throws Exception {
        Path exe = chain("sbgone"), stop = dir.resolve("sbstop");
        Files.copy(exe, stop);

        k.providers().forEach(k.fw::addProvider); // their UserSymbols follow processes by side-band records
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> k.run(out, "-q", "-n",
                "BEGIN { printf(\"go\\n\"); } syscall::write:entry /execname == \"sbgone\"/ { @[ustack()] = count(); } "
                        + "syscall::write:entry /execname == \"sbstop\"/ { exit(0); }"));
        KernelProvidersTest.awaitLive(out, trace);
        int runs = 20;
        for (int i = 0; i < runs; i++) run(exe);
        run(stop);
        String[] r = trace.get(120, TimeUnit.SECONDS);
        assertEquals("0", r[0], r[2]);
        String stack = oneNamedStack(exe, r[1].substring(r[1].indexOf("go\n") + 3), runs);
        System.out.println("ustack of " + runs + " short-lived processes: " + stack);
    }

    /**
     * A process older than the tracing (as dtrace -c's, made and held before its probes are
     * enabled), waiting on its stdin, then let go to write and exit at once: gone before its
     * records are drained, it is named from the mappings read as the side-band started.
     */
    @Test
    void ustackOfAProcessOlderThanTheTracingAndGoneBeforeTheDrainIsNamed() throws Exception {
        Path exe = chain("sbolder"), stop = dir.resolve("sbstop");
        Files.copy(exe, stop);
        Process p = new ProcessBuilder(exe.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        k.started.add(p);
        long deadline = System.nanoTime() + 30_000_000_000L;
        // its libraries mapped: it waits in read(2)
        while (Procfs.maps(p.pid()).stream().noneMatch(m -> m.path().endsWith("/libc.so.6"))) {
            assertTrue(System.nanoTime() < deadline, "sbolder did not start");
            Thread.sleep(10);
        }
        k.providers().forEach(k.fw::addProvider);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> k.run(out, "-q", "-n",
                "BEGIN { printf(\"go\\n\"); } syscall::write:entry /pid == " + p.pid() + "/ { @[ustack()] = count(); } "
                        + "syscall::write:entry /execname == \"sbstop\"/ { exit(0); }"));
        KernelProvidersTest.awaitLive(out, trace);
        p.getOutputStream().close();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        run(stop);
        String[] r = trace.get(120, TimeUnit.SECONDS);
        assertEquals("0", r[0], r[2]);
        System.out.println("ustack of a process older than the tracing: " + oneNamedStack(exe, r[1].substring(r[1].indexOf("go\n") + 3), 1));
    }

    /**
     * The one stack of {@code output} (a printed @[ustack()] = count()), counted {@code runs}
     * times, whose frames in {@code exe} are leaf, middle, outer, main, _start as nm names them
     * (the function, an offset inside its size), called in libc.
     */
    private static String oneNamedStack(Path exe, String output, int runs) throws Exception {
        Map<String, Long> sizes = new HashMap<>();
        for (String l : cmd("nm", "-S", exe.toString()).lines().toList()) {
            String[] f = l.trim().split("\\s+");
            if (f.length == 4 && (f[2].equals("T") || f[2].equals("t"))) sizes.put(f[3], Long.parseLong(f[1], 16));
        }
        String module = exe.getFileName().toString();
        List<String> stacks = new ArrayList<>();
        List<String> frames = new ArrayList<>();
        for (String l : output.lines().toList()) {
            if (l.isBlank() || l.equals("x")) continue; // the program's own output (dtrace -c's)
            if (l.trim().matches("\\d+")) {
                stacks.add(String.join(" < ", frames) + " x" + l.trim());
                frames.clear();
            } else {
                frames.add(l.trim());
            }
        }
        assertEquals(1, stacks.size(), output);
        assertTrue(stacks.get(0).endsWith(" x" + runs), output);

        List<String> ours = new ArrayList<>();
        for (String f : stacks.get(0).replaceAll(" x\\d+$", "").split(" < ")) {
            Matcher m = FRAME.matcher("  " + f);
            assertTrue(m.matches(), "a named frame: " + f + " in " + output);
            if (!m.group(1).equals(module)) continue;
            Long size = sizes.get(m.group(2));
            assertTrue(size != null && Long.parseLong(m.group(3), 16) < size, f + " inside nm's " + m.group(2) + " (" + size + ")");
            ours.add(m.group(2));
        }
        assertEquals(List.of("leaf", "middle", "outer", "main", "_start"), ours, stacks.get(0));
        assertTrue(stacks.get(0).startsWith("libc.so.6`"), "the call is made in libc: " + stacks.get(0));
        return stacks.get(0);
    }

    @Test
    void profileUstackOfShortLivedProcessesIsNamedFromTheMappingsTheyHadAtTheSample() throws Exception {
        Path src = dir.resolve("burn.c");
        Files.writeString(src, """
                volatile unsigned long sink;
                __attribute__((noinline)) unsigned long spin(unsigned long n) { unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s += i * i ^ (s >> 3); sink = s; return s; }
                __attribute__((noinline)) unsigned long work(unsigned long n) { unsigned long r = spin(n); sink += r; return r + 1; }
                int main(void) { return work(40000000UL) == 7; }
                """);
        Path exe = dir.resolve("sbburn");
        cmd("gcc", "-O2", "-fomit-frame-pointer", "-o", exe.toString(), src.toString());
        ProfileSampler sampler = new ProfileSampler(k.perf, new Comms(), new UserSymbols(new ObjectFiles(), k.perf), k.isa.abi());
        Map<Long, Integer> inSpin = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
        int[] unnamed = {0};
        ProfileSamplerTest.CountingProbe probe = new ProfileSamplerTest.CountingProbe() {
            @Override
            public void fire(org.jdtrace.spi.ProbeContext ctx) {
                if (!ctx.execname().equals("sbburn") || ctx.arg(1) == 0) return;
                long[] st = ctx.ustack(10);
                List<String> names = new ArrayList<>();
                for (long pc : st) {
                    String n = ctx.usym(pc);
                    names.add(n == null ? "0x" + Long.toHexString(pc) : n.replaceAll("\\+0x[0-9a-f]+$", ""));
                }
                if (names.isEmpty() || names.get(0).startsWith("0x")) unnamed[0]++;
                if (names.isEmpty() || !names.get(0).equals("sbburn`spin")) return;
                if (names.size() < 3 || !names.subList(0, 3).equals(List.of("sbburn`spin", "sbburn`work", "sbburn`main"))) {
                    wrong.add(names.toString());
                }
                inSpin.merge(ctx.pid(), 1, Integer::sum);
            }
        };
        probe.filter = -1;
        List<Long> pids = new ArrayList<>();
        int runs = 20;
        try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
            for (int i = 0; i < runs; i++) {
                Process p = new ProcessBuilder(exe.toString()).start();
                k.started.add(p);
                pids.add(p.pid());
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            }
            Thread.sleep(200);
            k.perf.drain();
        }
        assertTrue(wrong.isEmpty(), "stacks in spin that are not spin < work < main: " + wrong);
        assertEquals(java.util.Set.copyOf(pids), inSpin.keySet(), "every run has named samples in spin: " + inSpin);
        System.out.println("profile of " + runs + " short-lived processes: samples in spin " + inSpin.values()
                + ", leaves unnamed " + unnamed[0]);
    }

    private static String cmd(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        try {
            String text = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", argv) + ": " + text);
            return text;
        } finally {
            p.destroyForcibly();
        }
    }

    private void run(Path exe) throws Exception {
        Process p = new ProcessBuilder(exe.toString()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        k.started.add(p);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    }
}
