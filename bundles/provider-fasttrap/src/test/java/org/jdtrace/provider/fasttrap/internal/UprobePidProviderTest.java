package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.perf.internal.PerfEventsImpl;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pid provider on kernel uprobes, on real processes: the same probes as on ptrace, fired on
 * the drain thread from what the kernel captured at each hit; the process runs untraced.
 */
class UprobePidProviderTest {

    private final Amd64Isa isa = new Amd64Isa();
    private final PerfEventsImpl perf = new PerfEventsImpl(isa);
    private final PidProvider provider = new PidProvider(isa, 250_000, perf);
    private final TestRegistry registry = new TestRegistry(provider);
    private final List<TargetProcess> targets = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        for (TargetProcess t : targets) t.close();
        provider.deactivate();
        perf.close();
    }

    static String bin(String name) {
        return Path.of("../../fixtures/target/bin", name).toAbsolutePath().normalize().toString();
    }

    static String tracerPid(long pid) throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (l.startsWith("TracerPid:")) return l.substring(10).strip();
        }
        return "?";
    }

    /** The arguments compute(n) of ft_count calls ops[i & 1] with: odd ones go to inc, even ones to sq. */
    static List<Long> calls(long n, boolean odd) {
        List<Long> out = new ArrayList<>();
        for (long i = 0; i < n; i++) if (i % 9 == 3 && (i & 1) == (odd ? 1 : 0)) out.add(i);
        return out;
    }

    @Test
    void entryReturnAndOffsetProbesSeeEveryCallWithItsRegistersAndTheProcessRunsUntraced() throws Exception {
        TargetProcess t = provider.control().create(List.of(bin("ft_count"), "1000"), org.jdtrace.proc.ProcessControl.Stdio.INHERIT);
        targets.add(t);
        String p = "pid" + t.pid();
        provider.provide(ProbeDescription.parse(p + ":a.out:main:entry"));
        provider.provide(ProbeDescription.parse(p + ":a.out:inc:entry"));
        provider.provide(ProbeDescription.parse(p + ":a.out:sq:return"));
        provider.provide(ProbeDescription.parse(p + ":a.out:sq:"));
        List<Long> incArgs = Collections.synchronizedList(new ArrayList<>());
        List<Long> sqRets = Collections.synchronizedList(new ArrayList<>());
        List<Long> retSites = Collections.synchronizedList(new ArrayList<>());
        StringBuffer firstWrong = new StringBuffer();
        AtomicLong mains = new AtomicLong(), offsets = new AtomicLong(), wrong = new AtomicLong();
        long t0 = System.nanoTime();
        registry.enable(registry.probe("a.out", "main", "entry"), c -> mains.incrementAndGet());
        registry.enable(registry.probe("a.out", "inc", "entry"), c -> {
            incArgs.add(c.arg(0));
            if (c.pid() != t.pid() || c.tid() != t.pid() || !c.execname().equals("ft_count") || c.timestamp() < t0) {
                if (wrong.getAndIncrement() == 0) {
                    firstWrong.append(c.pid() + " " + c.tid() + " " + c.execname() + " " + c.timestamp() + " < " + t0);
                }
            }
        });
        registry.enable(registry.probe("a.out", "sq", "return"), c -> {
            retSites.add(c.arg(0));
            sqRets.add(c.arg(1));
        });
        // the second instruction of sq: an offset probe
        TestRegistry.TestProbe second = registry.probes.stream()
                .filter(x -> x.function.equals("sq") && x.name.matches("[0-9a-f]+") && !x.name.equals("0")).findFirst().orElseThrow();
        registry.enable(second, c -> offsets.incrementAndGet());
        t.go();
        assertEquals("0", tracerPid(t.pid()), "no ptrace attachment while tracing");
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        provider.sync();
        assertEquals(1, mains.get(), "main's first call fires (-c)");
        assertEquals(calls(1000, true), incArgs);
        List<Long> squares = calls(1000, false).stream().map(x -> x * x).toList();
        assertEquals(squares, sqRets);
        long ret = ((PidProbe) registry.probe("a.out", "sq", "return").arg).sites().get(0).pc()
                - ((PidProbe) registry.probe("a.out", "sq", "return").arg).functionStart();
        assertTrue(retSites.stream().allMatch(x -> x == ret), "arg0 at return is the return site's offset " + ret);
        assertEquals(squares.size(), offsets.get());
        assertEquals(0, wrong.get(), firstWrong.toString());
        assertEquals(0, provider.control().uprobeDrops());
    }

    /**
     * Three consumers (three providers with their own perf events, as three dtrace runs) grab one
     * process at the same moment: each gets it (one waits while another holds it for its probes)
     * and each counts every call; none holds it once its probes are in.
     */
    @Test
    void threeConsumersGrabbingAtOnceEachCountEveryHit() throws Exception {
        Path out = Files.createTempFile("uprobe", ".out");
        ProcessHandle proc = orphan(out, "FT_STOP=1", bin("ft_count"), "1000");
        List<PerfEventsImpl> perfs = new ArrayList<>();
        List<PidProvider> providers = new ArrayList<>();
        try {
            awaitStopped(proc.pid());
            List<AtomicLong> counts = new ArrayList<>();
            List<Thread> grabs = new ArrayList<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 3; i++) {
                PerfEventsImpl pe = i == 0 ? perf : new PerfEventsImpl(isa);
                PidProvider pp = i == 0 ? provider : new PidProvider(isa, 250_000, pe);
                TestRegistry reg = i == 0 ? registry : new TestRegistry(pp);
                if (i > 0) {
                    perfs.add(pe);
                    providers.add(pp);
                }
                AtomicLong n = new AtomicLong();
                counts.add(n);
                grabs.add(Thread.ofPlatform().start(() -> {
                    try {
                        TargetProcess t = pp.control().grab((int) proc.pid());
                        pp.provide(ProbeDescription.parse("pid" + proc.pid() + ":a.out:inc:entry"));
                        reg.enable(reg.probe("a.out", "inc", "entry"), c -> n.incrementAndGet());
                        t.go();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : grabs) t.join(60_000);
            assertEquals(List.of(), failures);
            assertEquals("0", tracerPid(proc.pid()), "nobody holds it");
            awaitStopped(proc.pid()); // still stopped by its own SIGSTOP: grabbing and letting go kept it so
            new ProcessBuilder("kill", "-CONT", Long.toString(proc.pid())).start().waitFor();
            awaitGone(proc);
            assertEquals(untraced(bin("ft_count"), "1000"), Files.readString(out));
            provider.sync();
            for (PidProvider pp : providers) pp.sync();
            for (AtomicLong n : counts) assertEquals(calls(1000, true).size(), n.get());
        } finally {
            proc.destroyForcibly();
            for (PidProvider pp : providers) pp.deactivate();
            for (PerfEventsImpl pe : perfs) pe.close();
            Files.deleteIfExists(out);
        }
    }

    /**
     * {@code argv} started by a shell that exits at once, its output into {@code out}: not this
     * JVM's child, so no reaper of ours waits for it (as a process dtrace -p grabs).
     */
    static ProcessHandle orphan(Path out, String env, String... argv) throws Exception {
        String cmd = env + " " + String.join(" ", argv) + " > " + out + " 2>&1 & echo $!";
        Process sh = new ProcessBuilder("/bin/sh", "-c", cmd).start();
        long pid = Long.parseLong(new String(sh.getInputStream().readAllBytes()).strip());
        sh.waitFor();
        return ProcessHandle.of(pid).orElseThrow();
    }

    static String untraced(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).start();
        String s = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor());
        return s;
    }

    static void awaitGone(ProcessHandle p) throws Exception {
        for (int i = 0; i < 3000 && p.isAlive(); i++) Thread.sleep(10);
        assertTrue(!p.isAlive(), "process " + p.pid() + " still runs");
    }

    /**
     * pid*:libc.so.6:getppid:entry is a uprobe on libc for every process: processes started after
     * it was enabled are counted, each call; a /pid == N/ filter set in the kernel lets only N's
     * calls reach the ring.
     */
    @Test
    void aLibraryProbeForEveryProcessCountsProcessesStartedLaterAndFiltersInTheKernel() throws Exception {
        provider.provide(ProbeDescription.parse("pid*:libc.so.6:getppid:entry"));
        TestRegistry.TestProbe p = registry.probe("libc.so.6", "getppid", "entry");
        assertEquals("pid", p.provider);
        java.util.Map<Long, Long> calls = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.Map<Long, String> names = new java.util.concurrent.ConcurrentHashMap<>();
        registry.enable(p, c -> {
            calls.merge(c.pid(), 1L, Long::sum);
            names.put(c.pid(), c.execname());
        });
        Process a = new ProcessBuilder(bin("ft_sys"), "500").start();
        Process b = new ProcessBuilder(bin("ft_sys"), "300").start();
        assertEquals(0, a.waitFor());
        assertEquals(0, b.waitFor());
        provider.sync();
        assertEquals(500L, calls.get(a.pid()));
        assertEquals(300L, calls.get(b.pid()));
        assertEquals("ft_sys", names.get(a.pid()));

        // in the kernel: only the stopped one's calls come, though both call getppid
        Path out = Files.createTempFile("uprobe", ".out");
        try {
            ProcessHandle c = orphan(out, "FT_STOP=1", "/bin/sh", "-c", "'kill -STOP $$; exec " + bin("ft_sys") + " 200'");
            awaitStopped(c.pid());
            p.pidFilter = c.pid();
            provider.filterChanged(p);
            provider.sync(); // the shells' own calls, before the filter
            calls.clear();
            Process d = new ProcessBuilder(bin("ft_sys"), "400").start();
            new ProcessBuilder("kill", "-CONT", Long.toString(c.pid())).start().waitFor();
            assertEquals(0, d.waitFor());
            awaitGone(c);
            provider.sync();
            assertEquals(java.util.Map.of(c.pid(), 200L), calls);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    static void awaitStopped(long pid) throws Exception {
        for (int i = 0; i < 1000; i++) {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("T")) return;
            Thread.sleep(5);
        }
        throw new IllegalStateException("process " + pid + " never stopped");
    }
}
