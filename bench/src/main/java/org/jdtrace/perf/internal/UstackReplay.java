/*
 * UstackReplay: the per-sample CPU of profile-N's @[ustack()] key after the event (issue 21's
 * drain-thread cost inside ProbeImpl.fire: SampleContext.ustack's CFI walk over UserSymbols.View
 * and HotSpotVm, then SymbolCache.frames), timed by the thread's CPU time on real samples so a
 * machine shared with other work does not blur it. It records a whole-machine profile-997 (the
 * production sampler, ProfileSampler, with its user registers and 8 KB stack copies) for a few
 * seconds while two cfiprof fixtures keep both CPUs busy, so the samples are theirs, this JVM's
 * own (JIT and interpreter frames: HotSpotVm) and the rest of the machine's, as in
 * bench/profile-vs-perf.sh; then it replays every recorded sample through one SampleContext and
 * one SymbolCache (each a drain thread's, over a UserSymbols that reads /proc: no side-band) 10
 * rounds to warm up and 30 measured (the samples of processes that lived to the end of the
 * recording: the rest would be read from a /proc that no longer has them), and prints the minimum and median CPU ns a sample. The
 * processes are left running until the replay ends, so /proc reads (JVM code cache, maps) see
 * what they saw. -Dpaced=true replays each round at the pace the samples were taken (a round
 * lasts the recording's seconds: caches that expire by the clock, HotSpotVm's, age as in a run;
 * CPU spent sleeping is not counted), -Dcomm=NAME keeps only the samples of processes so named
 * (-Dcomm=java: HotSpot JVMs' stacks), -Dcheck=true first compares every sample's frames as each
 * DIR makes them with the first DIR's (a JVM's own may differ: its code cache moves on; with
 * -Dcheckjava=true the first two such are printed too), -Dwarm=N -Drounds=N set the rounds. Run it with the launcher's JVM flags (C1 only, jvm.options), as the drain thread
 * runs:
 *
 *   java @launcher/target/dist/jvm.options -cp bench/target/benchmarks.jar \
 *        org.jdtrace.perf.internal.UstackReplay [seconds=4] [DIR...]
 *
 * With worktree DIRs, an A/B on the same samples: each DIR's classes of the modules timed
 * (core-framework, isa-amd64, perf-events, libdtrace target/classes, ahead of this jar) in a class
 * loader of its own, the samples recorded once with the first, the rounds interleaved.
 */
package org.jdtrace.perf.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.libdtrace.rt.SymbolCache;
import org.jdtrace.perf.Sample;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

public final class UstackReplay {

    private static final int MAX = 40_000, FRAMES = 100;
    /** Rounds, and whether a round keeps the samples' own pace (-Dpaced=true: a drain's caches age as in a run). */
    private static final int WARM = Integer.getInteger("warm", 10), ROUNDS = Integer.getInteger("rounds", 30);
    private static final boolean PACED = Boolean.getBoolean("paced");
    private static final String[] MODULES = {"core-framework", "isa-amd64", "perf-events", "libdtrace"};

    private UstackReplay() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        List<String> dirs = args.length > 1 ? List.of(args).subList(1, args.length) : List.of("");
        java.net.URL self = UstackReplay.class.getProtectionDomain().getCodeSource().getLocation();
        List<Class<?>> sides = new ArrayList<>();
        for (String d : dirs) {
            if (d.isEmpty()) {
                sides.add(UstackReplay.class);
                continue;
            }
            List<java.net.URL> urls = new ArrayList<>();
            for (String m : MODULES) urls.add(Path.of(d, "bundles", m, "target", "classes").toUri().toURL());
            urls.add(self);
            for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
                urls.add(Path.of(e).toUri().toURL());
            }
            ClassLoader l = new java.net.URLClassLoader(d, urls.toArray(java.net.URL[]::new), ClassLoader.getPlatformClassLoader());
            sides.add(l.loadClass(UstackReplay.class.getName()));
        }
        Path fixture = root().resolve("fixtures/target/bin/cfiprof");
        List<Process> busy = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) busy.add(new ProcessBuilder(fixture.toString(), "600").start());
            Thread.sleep(500);
            @SuppressWarnings("unchecked")
            List<Object[]> samples = (List<Object[]>) sides.get(0).getMethod("record", int.class).invoke(null, seconds);
            if (Boolean.getBoolean("check")) {
                // every sample's frames, each side's third round (its caches warm), against the first side's
                List<List<String>> want = null;
                for (int k = 0; k < sides.size(); k++) {
                    @SuppressWarnings("unchecked")
                    List<List<String>> got = (List<List<String>>) sides.get(k).getMethod("frames", List.class).invoke(null, samples);
                    if (want == null) {
                        want = got;
                        continue;
                    }
                    int differ = 0, differJava = 0;
                    for (int i = 0; i < got.size(); i++) {
                        if (got.get(i).equals(want.get(i))) continue;
                        if ("java".equals(comm((Integer) samples.get(i)[0]))) {
                            if (differJava++ < 2 && Boolean.getBoolean("checkjava")) {
                                System.out.println("differs (pid " + samples.get(i)[0] + ", this JVM " + ProcessHandle.current().pid() + "): "
                                        + want.get(i) + " / " + got.get(i));
                            }
                        } else if (differ++ < 3) {
                            System.out.println("differs: " + want.get(i) + " / " + got.get(i));
                        }
                    }
                    System.out.printf("%s: %d of %d samples' stacks differ from %s's (and %d of a JVM's)%n", dirs.get(k), differ,
                            got.size(), dirs.get(0), differJava);
                }
            }
            List<java.util.function.LongSupplier> rounds = new ArrayList<>();
            for (Class<?> c : sides) rounds.add((java.util.function.LongSupplier) c.getMethod("replayer", List.class).invoke(null, samples));
            for (int i = 0; i < WARM; i++) {
                for (var r : rounds) r.getAsLong();
            }
            double[][] ns = new double[rounds.size()][ROUNDS];
            for (int i = 0; i < ROUNDS; i++) {
                for (int k = 0; k < rounds.size(); k++) ns[k][i] = rounds.get(k).getAsLong() / (double) samples.size();
            }
            for (int k = 0; k < rounds.size(); k++) {
                Arrays.sort(ns[k]);
                System.out.printf("%d samples: CPU ns a sample: min %.0f  median %.0f  %s%n", samples.size(), ns[k][0],
                        ns[k][ROUNDS / 2], dirs.get(k));
            }
        } finally {
            for (Process p : busy) p.destroyForcibly().waitFor();
        }
    }

    /**
     * A whole-machine profile-997 for {@code seconds}: each sample with a user stack copy as
     * {pid, tid, time, ip, user, regs, regs count, stack bytes}.
     */
    public static List<Object[]> record(int seconds) throws Exception {
        Amd64Isa isa = new Amd64Isa();
        PerfEventsImpl perf = new PerfEventsImpl(isa);
        List<Object[]> live = new ArrayList<>();
        boolean[] recording = {true};
        try {
            UserSymbols symbols = new UserSymbols(new org.jdtrace.elf.ObjectFiles(), perf);
            ProfileSampler sampler = new ProfileSampler(perf, new Comms(), symbols, isa.abi());
            Probe probe = new Probe() {
                @Override public int id() { return 1; }
                @Override public String provider() { return "profile"; }
                @Override public String module() { return ""; }
                @Override public String function() { return ""; }
                @Override public String name() { return "profile-997"; }
                @Override public Object providerArg() { return null; }
                @Override public boolean isEnabled() { return true; }
                @Override public long pidFilter() { return -1; }

                @Override
                public void fire(ProbeContext ctx) {
                    Sample s = ((SampleContext) ctx).s;
                    synchronized (live) {
                        if (recording[0] && live.size() < MAX && s.userStackSize > 0) {
                            live.add(new Object[] {s.pid, s.tid, s.time, s.ip, s.user, s.userRegs.clone(), s.userRegsCount,
                                java.lang.foreign.MemorySegment.ofArray(s.userStack.asSlice(s.userStackOffset, s.userStackSize)
                                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))});
                        }
                    }
                }
            };
            try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                while (System.nanoTime() < end) {
                    Thread.sleep(100);
                    perf.drain();
                }
                perf.drain();
            }
            synchronized (live) {
                recording[0] = false;
                // the samples of processes alive to the end: a replay reads /proc (no side-band)
                String comm = System.getProperty("comm");
                return live.stream().filter(r -> Files.exists(Path.of("/proc/" + r[0])))
                        .filter(r -> comm == null || comm.equals(comm((Integer) r[0]))).toList();
            }
        } finally {
            perf.close();
        }
    }

    /** Each sample's @[ustack()] frames in the third of three rounds (-Dcheck=true). */
    public static List<List<String>> frames(List<Object[]> samples) {
        Amd64Isa isa = new Amd64Isa();
        PerfEventsImpl perf = new PerfEventsImpl(isa);
        SampleContext ctx = new SampleContext(perf, new Comms(), new UserSymbols(new org.jdtrace.elf.ObjectFiles(), null), isa.abi());
        SymbolCache cache = new SymbolCache();
        Sample s = new Sample();
        List<List<String>> out = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            out.clear();
            for (Object[] r : samples) {
                fill(s, r);
                ctx.profile(s);
                out.add(cache.frames(ctx.pid(), ctx.ustack(FRAMES), ctx::usym).frames());
            }
        }
        return out;
    }

    private static void fill(Sample s, Object[] r) {
        s.pid = (Integer) r[0];
        s.tid = (Integer) r[1];
        s.time = (Long) r[2];
        s.ip = (Long) r[3];
        s.user = (Boolean) r[4];
        long[] regs = (long[]) r[5];
        System.arraycopy(regs, 0, s.userRegs, 0, regs.length);
        s.userRegsCount = (Integer) r[6];
        s.userStack = (java.lang.foreign.MemorySegment) r[7]; // the copy, kept as the ring's record is read
        s.userStackOffset = 0;
        s.userStackSize = (int) s.userStack.byteSize();
        s.userDepth = 0;
    }

    /** One round over {@code samples} as a drain thread makes @[ustack()]'s key: answers its CPU ns. */
    public static java.util.function.LongSupplier replayer(List<Object[]> samples) {
        Amd64Isa isa = new Amd64Isa();
        PerfEventsImpl perf = new PerfEventsImpl(isa);
        UserSymbols symbols = new UserSymbols(new org.jdtrace.elf.ObjectFiles(), null);
        SampleContext ctx = new SampleContext(perf, new Comms(), symbols, isa.abi());
        SymbolCache cache = new SymbolCache();
        Sample s = new Sample();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long first = samples.isEmpty() ? 0 : (Long) samples.get(0)[2];
        return () -> {
            long t0 = threads.getCurrentThreadCpuTime(), start = System.nanoTime(), slept = 0;
            for (Object[] r : samples) {
                if (PACED) {
                    long ahead = ((Long) r[2] - first) - (System.nanoTime() - start);
                    if (ahead > 5_000_000L) {
                        long c = threads.getCurrentThreadCpuTime();
                        try {
                            Thread.sleep(ahead / 1_000_000L);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        slept += threads.getCurrentThreadCpuTime() - c;
                    }
                }
                fill(s, r);
                ctx.profile(s);
                long[] pcs = ctx.ustack(FRAMES);
                cache.frames(ctx.pid(), pcs, ctx::usym);
            }
            return threads.getCurrentThreadCpuTime() - t0 - slept;
        };
    }

    private static String comm(int pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/comm")).trim();
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static Path root() {
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isExecutable(d.resolve("fixtures/target/bin/cfiprof"))) return d;
        }
        throw new IllegalStateException("fixtures/target/bin/cfiprof not built (run the fixtures module)");
    }
}
