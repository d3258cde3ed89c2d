package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * profile-N's in-kernel pid filter on the real kernel: with Probe.pidFilter set, the samples of
 * every other process are dropped by the events' BPF program and never reach the JVM; a
 * filterChanged to -1 lets every process's samples through again. tick-N on the real kernel: one
 * firing a period on the tick CPU, in the process that runs there or in the idle task.
 */
class ProfileSamplerTest {

    final Amd64Isa isa = new Amd64Isa();
    final PerfEventsImpl perf = new PerfEventsImpl(isa);
    Process a, b;

    @AfterEach
    void tearDown() {
        for (Process p : new Process[] {a, b}) if (p != null) p.destroyForcibly();
        perf.close();
    }

    /** A probe as the framework hands it to the sampler, counting the pids of its firings. */
    static class CountingProbe implements Probe {
        volatile long filter;
        final Map<Long, Integer> pids = new ConcurrentHashMap<>();

        @Override public int id() { return 1; }
        @Override public String provider() { return "profile"; }
        @Override public String module() { return ""; }
        @Override public String function() { return ""; }
        @Override public String name() { return "profile-997"; }
        @Override public Object providerArg() { return null; }
        @Override public boolean isEnabled() { return true; }
        @Override public long pidFilter() { return filter; }
        @Override public void fire(ProbeContext ctx) { pids.merge(ctx.pid(), 1, Integer::sum); }
    }

    @Test
    void aFilteredProfileProbeGetsOnlyThatProcesssSamples() throws Exception {
        a = new ProcessBuilder(PerfEventsTest.bin("ft_burn"), "6").start();
        b = new ProcessBuilder(PerfEventsTest.bin("ft_burn"), "6").start();
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
        CountingProbe probe = new CountingProbe();
        probe.filter = a.pid();
        try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
            Thread.sleep(1500);
            perf.drain();
            assertEquals(java.util.Set.of(a.pid()), probe.pids.keySet(), "only A's samples: " + probe.pids);
            assertTrue(probe.pids.get(a.pid()) > 20, "A sampled: " + probe.pids);

            probe.filter = -1;
            sampler.filterChanged(probe);
            Thread.sleep(1500);
            perf.drain();
            assertTrue(probe.pids.getOrDefault(b.pid(), 0) > 5, "unfiltered, B's samples arrive: " + probe.pids);
            assertTrue(probe.pids.size() > 2, "and the rest of the machine's (idle, pid 0): " + probe.pids);
        }
    }

    @Test
    void samplesGiveTheParentAtTheEventForAProcessGoneSince() throws Exception {
        a = new ProcessBuilder("sh", "-c", "read x; " + PerfEventsTest.bin("ft_burn") + " 1; read y").start();
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
        Map<Long, Integer> ppids = new ConcurrentHashMap<>();
        CountingProbe probe = new CountingProbe() {
            @Override
            public void fire(ProbeContext ctx) {
                if (!"ft_burn".equals(ctx.execname())) return;
                // hold the drain thread until the sampled process is gone: every sample of it
                // still in the rings is read after its end
                for (int i = 0; i < 300 && ProcessHandle.of(ctx.pid()).isPresent(); i++) {
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                ppids.merge(ctx.ppid(), 1, Integer::sum);
            }
        };
        probe.filter = -1;
        try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
            a.getOutputStream().write('\n');
            a.getOutputStream().flush();
            for (int i = 0; i < 500 && ppids.isEmpty(); i++) Thread.sleep(10);
            Thread.sleep(500);
            perf.drain();
        }
        assertTrue(ppids.getOrDefault(a.pid(), 0) > 2, "samples read after the process ended: " + ppids);
        assertEquals(java.util.Set.of(a.pid()), ppids.keySet(), "each names the parent it had: " + ppids);
    }

    /**
     * ustack() of profile-N unwinds the copied stack by CFI: cfiprof's leaves keep no frame, yet
     * (almost) every sample of spin() names its caller, hot() about three times as often as
     * warm() (the fixture's proportions; bench/cfi-profile.sh holds it to perf's within 5 points). With -x ustackbytes=0 the frame-pointer chain
     * loses them, which is what the unwinding is for.
     */
    @Test
    void profileUstackNamesTheCallersOfFramelessLeaves() throws Exception {
        Map<String, Integer> withCopy = callersOfSpin(8192);
        int hot = withCopy.getOrDefault("hot", 0), warm = withCopy.getOrDefault("warm", 0);
        int all = withCopy.values().stream().mapToInt(Integer::intValue).sum();
        assertTrue(all >= 200, "spin sampled: " + withCopy);
        assertTrue(hot + warm >= all * 0.95, "spin's caller named: " + withCopy);
        double share = 100.0 * hot / (hot + warm);
        assertTrue(share > 62 && share < 88, "hot's share of spin is about 75%: " + share + " " + withCopy);

        Map<String, Integer> without = callersOfSpin(0);
        assertTrue(without.getOrDefault("hot", 0) + without.getOrDefault("warm", 0) < without.values().stream()
                .mapToInt(Integer::intValue).sum() / 2, "frame pointers lose spin's caller: " + without);
    }

    /**
     * Profiles cfiprof until spin has 200 samples (at most 60 s: the machine may be busy); counts
     * the function of ustack()[1] where ustack()[0] is in spin.
     */
    private Map<String, Integer> callersOfSpin(int stackBytes) throws Exception {
        a = new ProcessBuilder(PerfEventsTest.bin("cfiprof"), "60").start();
        UserSymbols symbols = new UserSymbols();
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), symbols, isa.abi());
        sampler.option("ustackbytes", stackBytes);
        Map<String, Integer> callers = new ConcurrentHashMap<>();
        CountingProbe probe = new CountingProbe() {
            @Override
            public void fire(ProbeContext ctx) {
                long[] st = ctx.ustack(10);
                String leaf = st.length > 0 ? ctx.usym(st[0]) : null;
                if (leaf == null || !leaf.startsWith("cfiprof`spin")) return;
                String caller = st.length > 1 ? ctx.usym(st[1]) : null;
                String fn = caller == null ? "?" : caller.replaceAll("^.*`", "").replaceAll("\\+0x[0-9a-f]+$", "");
                callers.merge(fn, 1, Integer::sum);
            }
        };
        probe.filter = a.pid();
        try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (a.isAlive() && System.nanoTime() < deadline
                    && callers.values().stream().mapToInt(Integer::intValue).sum() < 200) {
                Thread.sleep(200);
                perf.drain();
            }
        } finally {
            a.destroyForcibly().waitFor();
        }
        return callers;
    }

    /**
     * Java frames in another HotSpot JVM: a Spin program (outer() calls inner(), not inlined) on
     * this JDK with -XX:+PreserveFramePointer, its perf map written by `jcmd PID Compiler.perfmap`
     * (no agent) and written again as code is compiled: the samples in inner() name it from the
     * map, then its caller outer(), and unwind on through the interpreter's frames (by frame
     * pointers) into libjvm.so (by its CFI).
     */
    @Test
    void profileUstackNamesJitFramesOfAnotherJvmAndUnwindsIntoLibjvm(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path bin = java.nio.file.Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent();
        java.nio.file.Path src = dir.resolve("Spin.java");
        java.nio.file.Files.writeString(src, """
                public class Spin {
                    static volatile long sink;
                    static long inner(long n) { long x = 0; for (long i = 0; i < n; i++) x += i * 31 ^ (x >>> 3); return x; }
                    static void outer() { sink += inner(100000); }
                    public static void main(String[] a) { long end = System.nanoTime() + 60_000_000_000L; while (System.nanoTime() < end) outer(); }
                }
                """);
        a = new ProcessBuilder(bin.resolve("java").toString(), "-XX:+PreserveFramePointer", "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=dontinline,Spin::inner", src.toString()).start();
        java.nio.file.Path map = java.nio.file.Path.of("/tmp/perf-" + a.pid() + ".map");
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                Thread.sleep(1000);
                new ProcessBuilder(bin.resolve("jcmd").toString(), Long.toString(a.pid()), "Compiler.perfmap")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                if (java.nio.file.Files.exists(map) && java.nio.file.Files.readString(map).contains("Spin.outer")) break;
            }
            assertTrue(java.nio.file.Files.readString(map).contains("Spin.inner"), "jcmd wrote the perf map");
            ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
            java.util.List<java.util.List<String>> inInner = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            CountingProbe probe = new CountingProbe() {
                @Override
                public void fire(ProbeContext ctx) {
                    java.util.List<String> frames = new java.util.ArrayList<>();
                    for (long pc : ctx.ustack(40)) frames.add(String.valueOf(ctx.usym(pc)));
                    if (!frames.isEmpty() && frames.get(0).startsWith("[jit]`Spin.inner")) inInner.add(frames);
                }
            };
            probe.filter = a.pid();
            try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
                long until = System.nanoTime() + 30_000_000_000L;
                while (inInner.size() < 100 && System.nanoTime() < until) {
                    // code compiled since the last map (C2 replacing C1) is named once jcmd writes it again
                    new ProcessBuilder(bin.resolve("jcmd").toString(), Long.toString(a.pid()), "Compiler.perfmap")
                            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                    Thread.sleep(200);
                    perf.drain();
                }
            }
            assertTrue(inInner.size() >= 100, "samples in Spin.inner: " + inInner.size());
            long callerNamed = inInner.stream().filter(f -> f.size() > 1 && f.get(1).startsWith("[jit]`Spin.outer")).count();
            long intoLibjvm = inInner.stream().filter(f -> f.stream().anyMatch(x -> x.startsWith("libjvm.so`"))).count();
            java.util.Map<String, Long> callers = new java.util.TreeMap<>();
            for (java.util.List<String> f : inInner) callers.merge(f.size() > 1 ? f.get(1).replaceAll("\\+0x.*", "") : "-", 1L, Long::sum);
            // a caller in code compiled since jcmd last wrote the map (C2 replacing C1 under load) has
            // no name yet ("null"): such samples are left out, but never most of them; a caller
            // named is outer()
            long unnamed = callers.getOrDefault("null", 0L);
            assertTrue(unnamed * 2 < inInner.size(), unnamed + " of " + inInner.size() + " callers unnamed: " + callers);
            assertTrue(callerNamed >= (inInner.size() - unnamed) * 0.9, callerNamed + " of " + inInner.size() + " name outer(): " + callers + " " + inInner.get(0));
            assertTrue(intoLibjvm >= inInner.size() * 0.9, intoLibjvm + " of " + inInner.size() + " reach libjvm.so: " + inInner.get(0));
        } finally {
            a.destroyForcibly().waitFor();
            java.nio.file.Files.deleteIfExists(map);
        }
    }

    /** One tick firing as the probe saw it. */
    record Firing(long pid, long arg0, long arg1, int cpu, long time) {}

    static class TickProbe extends CountingProbe {
        final java.util.List<Firing> firings = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

        @Override public String name() { return "tick-100"; }
        @Override public void fire(ProbeContext ctx) {
            firings.add(new Firing(ctx.pid(), ctx.arg(0), ctx.arg(1), ctx.cpu(), ctx.timestamp()));
        }

        java.util.List<Firing> since(int from) {
            synchronized (firings) {
                return java.util.List.copyOf(firings.subList(from, firings.size()));
            }
        }
    }

    @Test
    void aTickFiresOnceAPeriodInWhatRunsOnItsCpu() throws Exception {
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
        int cpu = sampler.tickCpu();
        a = new ProcessBuilder("taskset", "-c", Integer.toString(cpu), PerfEventsTest.bin("ft_burn"), "3").start();
        Thread.sleep(100);
        TickProbe probe = new TickProbe();
        probe.filter = -1;
        try (AutoCloseable h = sampler.tick(probe, 10_000_000L)) {
            Thread.sleep(200);
            long from = System.nanoTime(), to = from + 1_000_000_000L; // the firings' clock (CLOCK_MONOTONIC)
            Thread.sleep(1000 + Tick.GRACE_NANOS / 1_000_000 + 50); // the window's periods all fired (a sample's drain may wait)
            List<Firing> busy = probe.since(0).stream().filter(f -> f.time() >= from && f.time() < to).toList();
            // one firing a period: about 100 a second
            assertTrue(busy.size() >= 85 && busy.size() <= 105, "firings in 1 s of tick-100: " + busy.size());
            for (int i = 0; i < busy.size(); i++) {
                Firing f = busy.get(i);
                assertEquals(cpu, f.cpu(), "every firing on the tick CPU: " + f);
                assertTrue((f.arg0() != 0) != (f.arg1() != 0), "a kernel pc or a user pc, never both nor neither: " + f);
                if (i > 0) {
                    long gap = f.time() - busy.get(i - 1).time();
                    assertTrue(gap > 5_000_000L, "one firing a period (" + gap + " ns after the last): " + busy);
                }
            }
            long mine = busy.stream().filter(f -> f.pid() == a.pid()).count();
            assertTrue(mine > busy.size() / 3, "the process pinned on the tick CPU is what the ticks find: " + mine + "/" + busy.size());
            assertTrue(busy.stream().filter(f -> f.pid() == a.pid()).anyMatch(f -> f.arg1() != 0 && f.arg0() == 0),
                    "in user mode, a user pc in arg1: " + busy);
        }
    }

    /**
     * Tick alone, as on a CPU whose clock never fires (halted): the watchdog fires every period as
     * the idle task, whose pc is looked up once, at the first such firing.
     */
    @Test
    void aPeriodWithoutASampleFiresAsTheIdleTask() throws Exception {
        TickProbe probe = new TickProbe();
        long interval = 20_000_000L, idlePc = 0xffffffff81000000L;
        java.util.concurrent.atomic.AtomicInteger lookups = new java.util.concurrent.atomic.AtomicInteger();
        try (Tick t = new Tick(probe, interval, interval, 1, () -> {
            lookups.incrementAndGet();
            return idlePc;
        }, new SampleContext(perf, new Comms(), new UserSymbols(), isa.abi()),
                new SampleContext(perf, new Comms(), new UserSymbols(), isa.abi()))) {
            assertEquals(0, lookups.get(), "no lookup when the tick is made");
            t.start();
            long t0 = System.nanoTime();
            Thread.sleep(500 + Tick.GRACE_NANOS / 1_000_000); // 25 periods, each fired GRACE_NANOS after its end
            List<Firing> l = probe.since(0);
            assertTrue(l.size() >= 20 && l.size() <= 26, "one firing every 20 ms: " + l.size());
            for (int i = 0; i < l.size(); i++) {
                Firing f = l.get(i);
                assertEquals(new Firing(0, idlePc, 0, 1, f.time()), f, "the idle task of the tick CPU");
                assertEquals(interval, f.time() - (i == 0 ? l.get(0).time() - interval : l.get(i - 1).time()), "each a period after the last");
            }
            assertTrue(l.get(0).time() - t0 < interval, "the first a period after the start");

            // a sample of a period the watchdog fired already is that period's, not a new one
            long last = l.get(l.size() - 1).time();
            long next = last + interval;
            while (probe.firings.size() == l.size()) Thread.sleep(1);
            assertFalse(t.admit(next + 100_000), "a late sample of a period fired as idle");
            assertTrue(t.admit(next + interval), "the next period's sample fires");
            // a sample three periods on: the two periods before it fire first, as idle
            int before = probe.firings.size();
            long later = next + 4 * interval;
            assertTrue(t.admit(later), "the later sample fires");
            List<Firing> caught = probe.since(before);
            assertTrue(caught.size() >= 2, "the skipped periods fired: " + caught);
            assertEquals(later - interval, caught.get(caught.size() - 1).time(), "the last period before it: " + caught);
            for (Firing f : caught) assertEquals(idlePc, f.arg0(), "the drain's idle firings too: " + caught);
            assertEquals(1, lookups.get(), "one lookup for all idle firings");
        }
    }

    /**
     * The watchdog's firing and the draining thread's never run at once, as one CPU's ticks never
     * do: a clause that calls exit() is the last to run (tick-2000usec printed twice without this).
     */
    @Test
    void theWatchdogsFiringAndTheDrainsRunOneAfterTheOther() throws Exception {
        List<long[]> spans = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger entered = new java.util.concurrent.atomic.AtomicInteger();
        TickProbe probe = new TickProbe() {
            @Override public void fire(ProbeContext ctx) {
                entered.incrementAndGet();
                long start = System.nanoTime();
                try {
                    Thread.sleep(150); // a long clause: the other thread's firing comes meanwhile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                spans.add(new long[] {start, System.nanoTime()});
                super.fire(ctx);
            }
        };
        long interval = 20_000_000L;
        SampleContext drain = new SampleContext(perf, new Comms(), new UserSymbols(), isa.abi());
        try (Tick t = new Tick(probe, interval, interval, 1, () -> 0, new SampleContext(perf, new Comms(), new UserSymbols(), isa.abi()),
                new SampleContext(perf, new Comms(), new UserSymbols(), isa.abi()))) {
            t.start();
            while (entered.get() == 0) Thread.sleep(1);
            Thread.sleep(20); // the watchdog is inside its firing now
            org.jdtrace.perf.Sample s = new org.jdtrace.perf.Sample();
            s.cpu = 1;
            s.time = System.nanoTime();
            t.fire(drain.profile(s)); // as the draining thread fires an admitted sample
            Thread.sleep(200);
        }
        List<long[]> l;
        synchronized (spans) {
            l = new java.util.ArrayList<>(spans);
        }
        l.sort(java.util.Comparator.comparingLong(a -> a[0]));
        assertTrue(l.size() >= 2, "both threads fired: " + l.size());
        for (int i = 1; i < l.size(); i++) {
            assertTrue(l.get(i)[0] >= l.get(i - 1)[1], "firing " + i + " began " + (l.get(i - 1)[1] - l.get(i)[0]) / 1_000_000
                    + " ms before the one before it ended");
        }
    }

    @Test
    void aTickLongerThanTheKernelsLongestPeriodFiresOnceAnInterval() throws Exception {
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
        TickProbe probe = new TickProbe();
        probe.filter = -1;
        long interval = ProfileSampler.MAX_PERIOD + ProfileSampler.MAX_PERIOD / 4; // two periods of the kernel's
        try (AutoCloseable h = sampler.tick(probe, interval)) {
            long t0 = System.nanoTime();
            Thread.sleep(interval / 2_000_000);
            perf.drain();
            assertEquals(0, probe.firings.size(), "none in the first half interval: " + probe.firings);
            while (probe.firings.isEmpty() && System.nanoTime() - t0 < 3 * interval) Thread.sleep(10);
            assertEquals(1, probe.firings.size(), "one by the end of the interval: " + probe.firings);
            long at = probe.firings.get(0).time() - t0;
            assertTrue(at > interval - interval / 10 && at < interval + interval / 10, "at the interval's end: " + at + " ns");
        }
    }
}
