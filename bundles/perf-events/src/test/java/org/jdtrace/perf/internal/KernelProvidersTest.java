package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import org.jdtrace.libdtrace.cmd.DTraceCommandImpl;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.core.providers.profile.ProfileProvider;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.spi.Provider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The machine-wide providers under the real framework and D runtime (dtrace(1M)'s command on
 * them, as the launcher runs it): bad input refused in dtrace's words, and the hot swap of a
 * bundle stop: removing the providers mid-trace closes every perf event and BPF object of this
 * JVM (counted in /proc/self/fd and fdinfo) and keeps the enabling, which fires again when they
 * come back.
 */
class KernelProvidersTest {

    final Amd64Isa isa = new Amd64Isa();
    final PerfEventsImpl perf = new PerfEventsImpl(isa);
    final DTraceFramework fw = new DTraceFramework();
    final DTraceService dtrace;
    final List<Process> started = new ArrayList<>();

    KernelProvidersTest() {
        fw.addProvider(new DTraceProvider());
        fw.addProvider(new ProfileProvider());
        dtrace = new DTraceService(fw, new DSessionFactoryImpl());
    }

    @AfterEach
    void tearDown() {
        started.forEach(Process::destroyForcibly);
        fw.deactivate();
        perf.close();
    }

    List<Provider> providers() {
        return TracepointProviders.all(perf, new Comms(), new UserSymbols(new org.jdtrace.elf.ObjectFiles(), perf), isa.abi());
    }

    /** dtrace(1M) on the framework: {exit status, stdout, stderr}. */
    String[] run(String... argv) {
        return run(new ByteArrayOutputStream(), argv);
    }

    /** As above, with stdout going to {@code out} as dtrace writes it. */
    String[] run(ByteArrayOutputStream out, String... argv) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = new DTraceCommandImpl(dtrace).run(List.of(argv), new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), () -> false);
        return new String[] {Integer.toString(rc), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    /** This JVM's perf event, BPF program and BPF map descriptors, by kind (from /proc/self/fd and fdinfo). */
    static Map<String, Integer> kernelFds() throws Exception {
        Map<String, Integer> n = new TreeMap<>(Map.of("perf_event", 0, "bpf-prog", 0, "bpf-map", 0));
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path f : s.toList()) {
                String link;
                try {
                    link = Files.readSymbolicLink(f).toString();
                } catch (Exception e) {
                    continue;
                }
                for (String k : n.keySet()) {
                    if (link.contains(k)) n.merge(k, 1, Integer::sum);
                }
                if (link.contains("bpf-prog")) {
                    String info = Files.readString(Path.of("/proc/self/fdinfo/" + f.getFileName()));
                    assertTrue(info.contains("prog_type:\t5") || info.contains("prog_type:\t7"), "our programs are tracepoint or perf-event programs: " + info);
                }
            }
        }
        return n;
    }

    /**
     * vtimestamp is the thread's time on CPU at the event: ft_vtime spins 100 ms of its own CPU
     * time between its first two marks and sleeps 100 ms between the next two, and prints its
     * thread CPU clock (CLOCK_THREAD_CPUTIME_ID) at each mark, right before the getppid() the
     * syscall probe fires at: the reference. off-cpu fires as it goes to sleep and on-cpu as it
     * comes back, both within the sleep's marks.
     */
    @Test
    void vtimestampIsTheThreadsTimeOnCpuAtTheEvent() throws Exception {
        providers().forEach(fw::addProvider);
        Process p = new ProcessBuilder("sh", "-c", "read go; exec " + PerfEventsTest.bin("ft_vtime") + " 2").start();
        started.add(p);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> run(out, "-q", "-n",
                "BEGIN { printf(\"go\\n\"); } "
                + "syscall::getppid:entry /pid == " + p.pid() + "/ { printf(\"sys %d\\n\", vtimestamp); } "
                + "sched:::off-cpu /pid == " + p.pid() + "/ { printf(\"off %d\\n\", vtimestamp); } "
                + "sched:::on-cpu /pid == " + p.pid() + "/ { printf(\"on %d\\n\", vtimestamp); } "
                + "proc:::exit /pid == " + p.pid() + "/ { exit(0); }"));
        awaitLive(out, trace);
        p.getOutputStream().write('\n');
        p.getOutputStream().close();
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        List<Long> marks = new ArrayList<>(), sys = new ArrayList<>(), off = new ArrayList<>(), on = new ArrayList<>();
        for (String line : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("mark ")) marks.add(Long.parseLong(line.split(" ")[2]));
        }
        for (String line : r[1].split("\n")) {
            String[] w = line.split(" ");
            if (w.length != 2) continue;
            (w[0].equals("sys") ? sys : w[0].equals("off") ? off : on).add(Long.parseLong(w[1]));
        }
        assertEquals(6, marks.size(), "marks " + marks + " dtrace: " + r[1] + r[2]);
        assertEquals(6, sys.size(), r[1]);
        long tick = 10_000_000; // the scheduler's accounting of a running thread lags up to a tick
        for (int i = 0; i < 6; i++) {
            assertTrue(Math.abs(sys.get(i) - marks.get(i)) < tick, "mark " + i + ": " + sys + " vs " + marks);
        }
        for (int round = 0; round < 2; round++) {
            long spin = sys.get(3 * round + 1) - sys.get(3 * round), sleep = sys.get(3 * round + 2) - sys.get(3 * round + 1);
            assertTrue(Math.abs(spin - 100_000_000) < tick, "a 100 ms spin is " + spin + " ns on CPU");
            assertTrue(sleep < tick, "a 100 ms sleep is " + sleep + " ns on CPU");
            long lo = marks.get(3 * round + 1), hi = marks.get(3 * round + 2);
            assertTrue(off.stream().anyMatch(v -> v >= lo && v <= hi), "off-cpu into the sleep: " + off + " in " + lo + ".." + hi);
            assertTrue(on.stream().anyMatch(v -> v >= lo && v <= hi), "on-cpu out of it: " + on + " in " + lo + ".." + hi);
        }
    }

    /**
     * proc:::exec-success of 200 short-lived /bin/echo runs, each gone long before its record is
     * read: execname, curpsinfo's psargs, uid, gid and ppid are what the event saw (the shell's
     * own command line is the reference), never `<unknown>` or an empty string.
     */
    @Test
    void execSuccessSeesEachShortLivedProcessAsItWasAtTheEvent() throws Exception {
        providers().forEach(fw::addProvider);
        Process sh = new ProcessBuilder("sh", "-c",
                "read go; i=1; while [ $i -le 200 ]; do /bin/echo e$i > /dev/null; i=$((i+1)); done").start();
        started.add(sh);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> run(out, "-q", "-n",
                "BEGIN { printf(\"go\\n\"); } proc:::exec-success /ppid == " + sh.pid() + "/ { printf(\"%s [%s] %d %d %d\\n\", execname, "
                + "curpsinfo->pr_psargs, curpsinfo->pr_uid, curpsinfo->pr_gid, curpsinfo->pr_ppid); } "
                + "proc:::exit /pid == " + sh.pid() + "/ { exit(0); }"));
        awaitLive(out, trace);
        sh.getOutputStream().write('\n');
        sh.getOutputStream().close();
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        String status = Files.readString(Path.of("/proc/self/status"));
        String uid = status.lines().filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow().split("\\s+")[1];
        String gid = status.lines().filter(l -> l.startsWith("Gid:")).findFirst().orElseThrow().split("\\s+")[1];
        List<String> want = new ArrayList<>();
        for (int i = 1; i <= 200; i++) want.add("echo [/bin/echo e" + i + "] " + uid + " " + gid + " " + sh.pid());
        assertEquals(want, List.of(r[1].replaceFirst("^go\n", "").strip().split("\n")));
    }

    /** Waits for a trace's BEGIN line (its enablings are live right after it). */
    static void awaitLive(ByteArrayOutputStream out, CompletableFuture<String[]> trace) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!out.toString(StandardCharsets.UTF_8).startsWith("go\n")) {
            if (trace.isDone()) throw new AssertionError("the trace ended: " + String.join("\n", trace.get()));
            assertTrue(System.nanoTime() < deadline, "no BEGIN within a minute");
            Thread.sleep(10);
        }
        Thread.sleep(100);
    }

    /**
     * dtrace -lv prints what each kernel provider declares (ProviderAttributes' table, the
     * Dynamic Tracing Guide's): for a probe of module vmlinux the description's minimum is the
     * module's Private/Private/Unknown; the arguments are the provider's own row.
     */
    @Test
    void listVerbosePrintsEachKernelProvidersDeclaredAttributes() {
        providers().forEach(fw::addProvider);
        for (var e : Map.of("proc:::exec-success", org.jdtrace.spi.ProviderAttributes.PROC,
                "sched:::on-cpu", org.jdtrace.spi.ProviderAttributes.SCHED,
                "syscall::read:entry", org.jdtrace.spi.ProviderAttributes.SYSCALL).entrySet()) {
            String[] r = run("-lv", "-n", e.getKey());
            assertEquals("0", r[0], r[2]);
            var desc = e.getValue().provider().min(e.getValue().module()).min(e.getValue().function()).min(e.getValue().name());
            var args = e.getValue().args();
            assertTrue(r[1].contains("\n\tProbe Description Attributes\n" + attrs(desc.toString())
                    + "\n\tArgument Attributes\n" + attrs(args.toString())), e.getKey() + ":\n" + r[1]);
        }
    }

    private static String attrs(String a) {
        String[] w = a.split("/");
        return "\t\tIdentifier Names: " + w[0] + "\n\t\tData Semantics:   " + w[1] + "\n\t\tDependency Class: " + w[2] + "\n";
    }

    @Test
    void aProbeTheKernelLacksMatchesNothingAndBadRatesAreRefused() {
        providers().forEach(fw::addProvider);
        String[] r = run("-n", "sched:::enqueue");
        assertEquals("1", r[0]);
        assertEquals("dtrace: invalid probe specifier sched:::enqueue: probe description sched:::enqueue does not match any probes\n", r[2]);
        r = run("-l", "-n", "syscall::openat:entry");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("syscall           vmlinux                            openat entry"), r[1]);
    }

    @Test
    void stoppingTheProvidersMidTraceClosesEveryEventAndStartingThemFiresAgain() throws Exception {
        Map<String, Integer> baseline = kernelFds();
        Process p = new ProcessBuilder(PerfEventsTest.bin("ft_sys"), "100000", "loop").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(p);
        List<Provider> first = providers();
        first.forEach(fw::addProvider);
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> run("-q", "-n",
                // timestamp is the event's own time (CLOCK_MONOTONIC, System.nanoTime's clock)
                "syscall::getppid:entry /pid == " + p.pid() + "/ { printf(\"hit %d\\n\", timestamp); } "
                + "sched:::on-cpu /pid == " + p.pid() + "/ { printf(\"on %d\\n\", timestamp); } tick-5s { exit(0); }"));
        Thread.sleep(1500);
        Map<String, Integer> tracing = kernelFds();
        assertTrue(tracing.get("bpf-prog") >= baseline.get("bpf-prog") + 2 && tracing.get("perf_event") > baseline.get("perf_event"),
                "while tracing: " + tracing + " baseline " + baseline);

        first.forEach(fw::removeProvider); // what the bundle stop's unregistration does
        long stopped = System.nanoTime();
        assertEquals(baseline, kernelFds(), "every perf event and BPF object closed with the providers gone");
        Thread.sleep(1000);
        long restarted = System.nanoTime();
        providers().forEach(fw::addProvider);

        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        long before = 0, gap = 0, after = 0;
        for (String line : r[1].split("\n")) {
            if (!line.startsWith("hit ")) continue;
            long t = Long.parseLong(line.substring(4));
            if (t < stopped) before++;
            else if (t < restarted) gap++;
            else after++;
        }
        assertTrue(before > 10 && after > 10, "hits before " + before + ", after " + after + "\n" + r[1] + r[2]);
        assertTrue(gap <= 2, "nothing fires while the providers are gone: " + gap);
        assertTrue(r[1].contains("on "), "sched fired for the process too");
        Thread.sleep(100);
        assertEquals(baseline, kernelFds(), "nothing left when the trace ends");
    }

    /**
     * An aggregation the syscall program keeps in the kernel keeps every count across a stop and
     * start of the providers mid-trace: what its map counted before the stop is folded in as the
     * map goes, and the map made after the restart, while the consumer is live, counts from its
     * making (no go-live baseline then). ft_sys under a name of its own (its execname) makes its
     * 300 getppid()s once before the stop and once after the restart, each process run to its end
     * while the kernel side is up: exactly 600 counted, whatever the machine's load.
     */
    @Test
    void aKernelAggregationKeepsEveryCountAcrossAStopAndStartOfTheProviders() throws Exception {
        countsAcrossAStopAndStart();
    }

    /**
     * The same on the JVM path (kernelclauses=off): the records still in the ring when the
     * providers stop are delivered first (the framework syncs a provider before its probes retire).
     */
    @Test
    void everyRecordIsDeliveredAcrossAStopAndStartOfTheProviders() throws Exception {
        countsAcrossAStopAndStart("-x", "kernelclauses=off");
    }

    private void countsAcrossAStopAndStart(String... options) throws Exception {
        Path dir = Files.createTempDirectory("jdtrace-agg");
        String name = "ftagg" + ProcessHandle.current().pid();
        Path bin = dir.resolve(name.substring(0, Math.min(15, name.length())));
        Files.copy(Path.of(PerfEventsTest.bin("ft_sys")), bin);
        bin.toFile().setExecutable(true);
        String comm = bin.getFileName().toString();
        try {
            List<Provider> first = providers();
            first.forEach(fw::addProvider);
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            java.util.concurrent.atomic.AtomicBoolean interrupt = new java.util.concurrent.atomic.AtomicBoolean();
            // a tick fires only once the consumer is live (past the go-live sync, its baseline);
            // the trace ends as at a Ctrl-C once both processes are done
            List<String> argv = new java.util.ArrayList<>(List.of(options));
            argv.addAll(List.of("-q", "-n", "tick-10ms /!live/ { live = 1; printf(\"live\\n\"); } tick-60s { exit(3); } "
                    + "syscall::getppid:entry /execname == \"" + comm + "\"/ { @ = count(); } END { printa(\"hits %@d\\n\", @); }"));
            CompletableFuture<Integer> trace = CompletableFuture.supplyAsync(() -> new DTraceCommandImpl(dtrace).run(argv,
                    new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), interrupt::get));
            for (int i = 0; i < 1200 && !out.toString(StandardCharsets.UTF_8).contains("live"); i++) Thread.sleep(50);
            assertEquals(0, new ProcessBuilder(bin.toString(), "300").redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor());
            first.forEach(fw::removeProvider); // what the bundle stop's unregistration does
            providers().forEach(fw::addProvider);
            assertEquals(0, new ProcessBuilder(bin.toString(), "300").redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor());
            interrupt.set(true);
            assertEquals(0, trace.get(), out + "" + err);
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("hits 600\n"),
                    "every call counted, before the stop and after the restart: " + out + err);
        } finally {
            removeDir(dir);
        }
    }

    /**
     * dtrace -q -n {@code program} after a BEGIN that prints "ready" (and a tick-60s that ends a
     * run that never finishes, with status 3), on a thread of its own; returns once the ready
     * line is out, when every probe is enabled: processes waiting in "read x" may go then.
     */
    CompletableFuture<String[]> traceWhenReady(String program) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> run(out, "-q", "-n",
                "BEGIN { printf(\"ready\\n\"); } tick-60s { exit(3); } " + program));
        for (int i = 0; i < 600 && !out.toString(StandardCharsets.UTF_8).contains("ready"); i++) Thread.sleep(50);
        return trace;
    }

    /**
     * traceWhenReady({@code program} and an exit at {@code p}'s exit_group), then lets the waiting
     * process {@code p} go; {exit status, stdout, stderr} once both ended, dtrace's status 0.
     */
    String[] traceRun(Process p, String program) throws Exception {
        CompletableFuture<String[]> trace = traceWhenReady(program + " syscall::exit_group:entry /pid == " + p.pid() + "/ { exit(0); }");
        p.getOutputStream().write('\n');
        p.getOutputStream().flush();
        assertEquals(0, p.waitFor());
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        return r;
    }

    /** Removes a test's flat temporary directory and its files. */
    static void removeDir(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            for (Path f : s.toList()) Files.delete(f);
        }
        Files.delete(dir);
    }

    /** A process that waits for a line on stdin, then runs {@code ft_sys n} (same pid: exec). */
    Process waitingSys(int n) throws Exception {
        return waitingShell("exec " + PerfEventsTest.bin("ft_sys") + " " + n);
    }

    /** sh -c "read x; SCRIPT", its output discarded: waits for a line on stdin, then runs the script. */
    Process waitingShell(String script) throws IOException {
        Process p = new ProcessBuilder("sh", "-c", "read x; " + script)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        started.add(p);
        return p;
    }

    /**
     * Runs {@code script} (after dtrace {@code options}) while two processes make N getppid calls
     * each; returns {dtrace's output, the records the syscall rings delivered to the JVM, its stderr}.
     */
    Object[] countWhileTwoRun(int n, List<String> options, java.util.function.BiFunction<Long, Long, String> script)
            throws Exception {
        List<Provider> ps = providers();
        ps.forEach(fw::addProvider);
        KernelSyscallProvider sys = ps.stream().filter(p -> p instanceof KernelSyscallProvider)
                .map(p -> (KernelSyscallProvider) p).findFirst().orElseThrow();
        Process a = waitingSys(n), b = waitingSys(n);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> argv = new ArrayList<>(options);
        argv.addAll(List.of("-q", "-n", "BEGIN { printf(\"ready\\n\"); } tick-60s { exit(3); } " + script.apply(a.pid(), b.pid())));
        CompletableFuture<String[]> trace = CompletableFuture.supplyAsync(() -> run(out, argv.toArray(String[]::new)));
        // BEGIN fires once every probe is enabled; its line is printed at the next drain
        for (int i = 0; i < 600 && !out.toString(StandardCharsets.UTF_8).contains("ready"); i++) Thread.sleep(50);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("ready"), "tracing started");
        long before = sys.delivered;
        for (Process p : List.of(a, b)) {
            p.getOutputStream().write('\n');
            p.getOutputStream().flush();
        }
        assertEquals(0, a.waitFor());
        assertEquals(0, b.waitFor());
        String[] r = trace.get();
        ps.forEach(fw::removeProvider);
        assertEquals("0", r[0], r[2]);
        return new Object[] {r[1].replace("ready\n", ""), sys.delivered - before, r[2]};
    }

    /**
     * {@code program} run with dtrace options {@code off}, then {@code on}, while two processes
     * make {@code n} getppid calls each (ended at the first one's exit_group): {output off, output
     * on, records delivered off, records delivered on}.
     */
    Object[] bothWays(int n, List<String> off, List<String> on, java.util.function.BiFunction<Long, Long, String> program)
            throws Exception {
        java.util.function.BiFunction<Long, Long, String> p = (a, b) -> program.apply(a, b)
                + " syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        Object[] x = countWhileTwoRun(n, off, p);
        Object[] y = countWhileTwoRun(n, on, p);
        return new Object[] {x[0], y[0], x[1], y[1]};
    }

    @Test
    void aPidPredicateFiltersInTheKernelAndTheResultsStayTheSame() throws Exception {
        int n = 5000; // 400 KB of records a process: no drop even when the drain thread is starved
        // (the pid filter alone: no clause runs in the kernel, KernelClausesTest has those)
        List<String> off = List.of("-x", "kernelclauses=off");
        // pid == A: B's calls are dropped by the BPF program; A's are all counted
        Object[] r = countWhileTwoRun(n, off, (a, b) -> "syscall::getppid:entry /pid == " + a + "/ { @ = count(); } "
                + "syscall::exit_group:entry /" + a + " == pid && 1/ { exit(0); } "
                + "END { printa(\"%@d\\n\", @); }");
        assertEquals(Integer.toString(n), ((String) r[0]).strip(), "every call of A counted");
        long filtered = (Long) r[1];
        assertTrue(filtered >= n && filtered < n + 20, "only A's calls reach the JVM: " + filtered);

        // the same count with a predicate the compiler cannot reduce to one pid: both processes'
        // calls reach the JVM, and the predicate keeps the result the same
        r = countWhileTwoRun(n, off, (a, b) -> "syscall::getppid:entry /pid == " + a + " || pid == -1/ { @ = count(); } "
                + "syscall::exit_group:entry /pid == " + a + " || pid == " + b + "/ { done++; } "
                + "syscall::exit_group:entry /done == 2/ { exit(0); } "
                + "END { printa(\"%@d\\n\", @); }");
        assertEquals(Integer.toString(n), ((String) r[0]).strip());
        // (a few may be dropped at this rate on a loaded machine, never half of B's)
        assertTrue((Long) r[1] > 3L * n / 2, "without the filter both processes' calls arrive: " + r[1]);
    }

    @Test
    void recordsOfDifferentCpusPrintInEventOrder() throws Exception {
        providers().forEach(fw::addProvider);
        // two processes pinned to CPUs 0 and 1, each a getppid every 5 ms: every drain holds
        // records of both rings, which print merged by their time
        List<Process> ps = new ArrayList<>();
        for (int cpu = 0; cpu < 2; cpu++) {
            Process p = new ProcessBuilder("taskset", "-c", Integer.toString(cpu % perf.cpus()), "sh", "-c",
                    "read x; exec " + PerfEventsTest.bin("ft_sys") + " 150 loop")
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
            started.add(p);
            ps.add(p);
        }
        long a = ps.get(0).pid(), b = ps.get(1).pid();
        CompletableFuture<String[]> trace = traceWhenReady(
                "syscall::getppid:entry /pid == " + a + " || pid == " + b + "/ { printf(\"%d %d\\n\", cpu, timestamp); } "
                + "syscall::exit_group:entry /pid == " + a + " || pid == " + b + "/ { done++; } "
                + "syscall::exit_group:entry /done == 2/ { exit(0); }");
        for (Process p : ps) {
            p.getOutputStream().write('\n');
            p.getOutputStream().flush();
        }
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        long last = 0;
        int lines = 0, switches = 0, prevCpu = -1;
        java.util.Set<Integer> cpus = new java.util.HashSet<>();
        for (String line : r[1].split("\n")) {
            if (line.equals("ready") || line.isEmpty()) continue;
            String[] f = line.split(" ");
            int cpu = Integer.parseInt(f[0]);
            long t = Long.parseLong(f[1]);
            assertTrue(t >= last, "line " + lines + " is older than the one before it:\n" + r[1]);
            if (prevCpu >= 0 && cpu != prevCpu) switches++;
            prevCpu = cpu;
            cpus.add(cpu);
            last = t;
            lines++;
        }
        assertTrue(lines >= 600, lines + " lines\n" + r[2]);
        if (perf.cpus() > 1) {
            assertEquals(2, cpus.size(), "both CPUs' rings: " + cpus);
            assertTrue(switches > 20, "the CPUs' records interleave: " + switches);
        }
    }

    @Test
    void raiseSignalsTheThreadThatFiredAndStopStopsItsProcess() throws Exception {
        providers().forEach(fw::addProvider);
        // raise(): a worker thread's getppid returns; the signal must reach that thread (the main
        // thread waits in pthread_join, where a process-directed signal would go)
        Process p = new ProcessBuilder(PerfEventsTest.bin("ft_raise"), "20").redirectErrorStream(true).start();
        started.add(p);
        String[] r = run("-q", "-w", "-n", "BEGIN { sent = 0; } syscall::getppid:return /pid == " + p.pid() + " && !sent/ "
                + "{ sent = 1; raise(SIGUSR1); printf(\"raised %d\\n\", tid); } "
                + "proc:::exit /pid == " + p.pid() + "/ { exit(0); } tick-30s { exit(3); }");
        assertEquals("0", r[0], r[1] + r[2]);
        assertEquals(0, p.waitFor(), "the handler ran");
        String seen = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        String[] f = seen.split(" "); // main M worker W handled-by H
        assertEquals(f[3], f[5], "handled in the worker: " + seen);
        assertEquals("raised " + f[3], r[1].strip(), "the firing thread is the worker: " + seen);
        assertEquals("", r[2]);

        // without -w: refused at compile time
        r = run("-q", "-n", "syscall::getppid:return { raise(SIGUSR1); }");
        assertEquals("1", r[0], r[2]);

        // stop(): the whole process stops (state T) until it is continued
        Process q = new ProcessBuilder(PerfEventsTest.bin("ft_sys"), "100000", "loop").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(q);
        r = run("-q", "-w", "-n", "syscall::getppid:return /pid == " + q.pid() + "/ { stop(); exit(0); } tick-30s { exit(3); }");
        assertEquals("0", r[0], r[1] + r[2]);
        String state = "";
        for (int i = 0; i < 100 && !(state = procState(q.pid())).equals("T"); i++) Thread.sleep(50);
        assertEquals("T", state, "stopped");
        Thread.sleep(300);
        assertEquals("T", procState(q.pid()), "and stays stopped");
        q.destroyForcibly().waitFor();
    }

    /** The state letter of /proc/PID/stat (after the parenthesised comm). */
    static String procState(long pid) throws Exception {
        String st = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return st.substring(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3);
    }

    @Test
    void aReadTheKernelCannotCaptureAtTheEventIsRefusedAtCompileTime() {
        providers().forEach(fw::addProvider);
        // captured at the event: the string arguments of a call's entry, proc:::exec's path;
        // D's own storage (alloca) is no read of the process
        for (String ok : List.of("syscall::openat:entry { printf(\"%s\", copyinstr(arg1)); }",
                "syscall::openat:entry { trace(copyinstr(args[1], 64)); }",
                "syscall::execve:entry { trace(copyinstr((uintptr_t) arg0)); }",
                "syscall::stat:entry { trace(copyinstr(arg0)); }",
                "syscall::rename:entry { trace(copyinstr(arg0)); trace(copyinstr(arg1)); }",
                "syscall::mount:entry { trace(copyinstr(arg2)); }",
                "proc:::exec { trace(copyinstr(arg0)); }",
                "syscall::read:entry { this->p = (char *) alloca(8); this->p[0] = 'a'; trace(this->p[0]); }",
                "BEGIN { trace(copyinstr(0)); }")) {
            String[] r = run("-e", "-n", ok);
            assertEquals("0", r[0], ok + ": " + r[2]);
        }
        // refused, one line naming the expression and the probe
        String[][] bad = {
            {"syscall::close:entry { self->p = arg0; } syscall::close:return /self->p/ { trace(copyinstr(self->p)); }",
                "copyinstr(self->p) reads what syscall:vmlinux:close:return cannot capture at the event "
                + "(it fires after the event and captures no user memory)"},
            {"syscall::openat:return { trace(copyinstr(arg0)); }",
                "copyinstr(arg0) reads what syscall:vmlinux:openat:return cannot capture at the event "
                + "(it fires after the event and captures only the strings its call's entry passed)"},
            {"syscall::openat:entry { trace(copyinstr(arg0)); }",
                "copyinstr(arg0) reads what syscall:vmlinux:openat:entry cannot capture at the event "
                + "(it fires after the event and captures only copyinstr(arg1))"},
            // a buffer is no string (the syscall table's string arguments are paths and names)
            {"syscall::write:entry { trace(copyinstr(arg1)); }",
                "copyinstr(arg1) reads what syscall:vmlinux:write:entry cannot capture at the event "
                + "(it fires after the event and captures no user memory)"},
            {"syscall::read:entry { trace(copyinstr(arg1)); }",
                "copyinstr(arg1) reads what syscall:vmlinux:read:entry cannot capture at the event "
                + "(it fires after the event and captures no user memory)"},
            {"syscall::mount:entry { trace(copyinstr(arg3)); }",
                "copyinstr(arg3) reads what syscall:vmlinux:mount:entry cannot capture at the event "
                + "(it fires after the event and captures only copyinstr(arg0), copyinstr(arg1), copyinstr(arg2))"},
            {"syscall::read:entry { trace(*(int *) arg1); }",
                "reads the process's memory, which syscall:vmlinux:read:entry cannot capture at the event"},
            {"syscall::read:entry { trace(((int *) arg1)[2]); }", "syscall:vmlinux:read:entry cannot capture"},
            {"syscall::read:entry { trace(*(int *) copyin(arg1, 4)); }",
                "copyin(arg1, 4) reads the process's memory, which syscall:vmlinux:read:entry cannot capture"},
            {"syscall::read:return { copyoutstr(\"x\", arg1, 2); }",
                "copyoutstr(\"x\", arg1, 2) writes the process's memory, which syscall:vmlinux:read:return cannot capture"},
            {"sched:::on-cpu { trace(copyinstr(uregs[0])); }",
                "copyinstr(uregs[0]) reads what sched:vmlinux::on-cpu cannot capture at the event"},
        };
        for (String[] b : bad) {
            String[] r = run("-w", "-e", "-n", b[0]);
            assertEquals("1", r[0], b[0]);
            assertTrue(r[2].startsWith("dtrace: ") && r[2].contains(b[1]) && r[2].strip().lines().count() == 1,
                    b[0] + ":\n" + r[2]);
        }
    }

    @Test
    void theSyscallTablesStringArgumentsAreCharPointersOfTheKernelsFormats() throws Exception {
        // the kernel's own description (tracefs sys_enter_<call>: `const char *` fields) as the
        // outside reference: every string argument of the table is one there; the table leaves
        // out the buffers among them
        org.jdtrace.isa.Abi abi = isa.abi();
        int checked = 0;
        for (String call : abi.syscallNames().values()) {
            org.jdtrace.perf.KernelTracepoint tp;
            try {
                tp = perf.tracepoint("syscalls", "sys_enter_" + call);
            } catch (org.jdtrace.perf.PerfException e) {
                continue; // a call with no tracepoint of its name (stat is sys_enter_newstat)
            }
            java.util.Set<Integer> charPointers = new java.util.TreeSet<>();
            tp.types().forEach((field, type) -> {
                String t = type.replace(" ", "");
                if (t.equals("constchar*") || t.equals("char*")) charPointers.add((tp.offset(field) - 16) / 8);
            });
            assertTrue(charPointers.containsAll(abi.syscallStringArguments(call)),
                    call + ": " + abi.syscallStringArguments(call) + " not all in " + charPointers);
            checked += abi.syscallStringArguments(call).isEmpty() ? 0 : 1;
        }
        assertTrue(checked > 60, "calls with strings checked: " + checked);
        for (String buffer : List.of("read", "write", "pread64", "pwrite64", "getcwd", "getrandom", "syslog", "sethostname")) {
            assertEquals(java.util.Set.of(), abi.syscallStringArguments(buffer), buffer);
        }
        assertEquals(java.util.Set.of(1), abi.syscallStringArguments("readlinkat")); // its buf is an output
        assertEquals(java.util.Set.of(0), abi.syscallStringArguments("execve")); // argv is no string
    }

    @Test
    void theSyscallTablesPathsAreCapturedAndABufferIsNot() throws Exception {
        providers().forEach(fw::addProvider);
        // stat (whose tracepoint is sys_enter_newstat) and rename's two paths, then a write
        Process py = waitingShell("exec python3 -c \"import ctypes, os; l = ctypes.CDLL(None); b = ctypes.create_string_buffer(256); "
                + "l.syscall(4, b'/nonexistent-jdtrace-stat', b); l.syscall(82, b'/nonexistent-jdtrace-a', b'/nonexistent-jdtrace-b'); "
                + "fd = os.open('/dev/null', os.O_WRONLY); os.write(fd, b'not-a-string' * 3)\"");
        String[] r = traceRun(py, "syscall::stat:entry /pid == " + py.pid() + "/ { printf(\"stat %s\\n\", copyinstr(arg0)); } "
                + "syscall::rename:entry /pid == " + py.pid() + "/ { printf(\"rename %s %s\\n\", copyinstr(arg0), copyinstr(arg1)); } "
                + "syscall::write:entry /pid == " + py.pid() + " && arg2 == 36/ { printf(\"write %d\\n\", arg2); }");
        assertTrue(r[1].contains("stat /nonexistent-jdtrace-stat\nrename /nonexistent-jdtrace-a /nonexistent-jdtrace-b\nwrite 36\n"), r[1]);
        assertEquals("", r[2].strip(), r[2]);
    }

    @Test
    void aPathNotResidentAtEntryIsReadAtTheCallsReturnFor200Of200Processes() throws Exception {
        providers().forEach(fw::addProvider);
        Path dir = Files.createTempDirectory("jdtrace-coldpath");
        try {
            // each ft_coldpath opens the path its file holds, from a mapping it never touched:
            // the page is not in its page tables at openat's entry (bpftrace's str() reads "" there)
            int n = 200;
            for (int i = 0; i < n; i++) {
                Files.write(dir.resolve("path" + i), (dir + "/new-" + i + "\0").getBytes(StandardCharsets.UTF_8));
            }
            Process sh = waitingShell("for i in $(seq 0 " + (n - 1) + "); do " + PerfEventsTest.bin("ft_coldpath")
                    + " " + dir + "/path$i || exit 1; done");
            String[] r = traceRun(sh, "syscall::openat:entry /ppid == " + sh.pid() + "/ { printf(\"%d %s\\n\", pid, copyinstr(arg1)); }");
            Map<String, String> byPath = new TreeMap<>();
            for (String line : r[1].lines().toList()) {
                String[] f = line.split(" ", 2);
                if (f.length == 2 && f[1].startsWith(dir + "/new-")) {
                    assertEquals(null, byPath.put(f[1], f[0]), "one open of " + f[1] + ":\n" + r[1]);
                }
            }
            assertEquals(n, byPath.size(), r[1] + r[2]);
            assertEquals(n, new java.util.HashSet<>(byPath.values()).size(), "each by its own process");
            for (int i = 0; i < n; i++) assertTrue(Files.exists(Path.of(dir + "/new-" + i)), "opened: new-" + i);
            // the loader's paths, in pages as cold, are read at the return as well: no fault at all
            assertTrue(!r[2].contains("invalid address"), r[2]);
        } finally {
            removeDir(dir);
        }
    }

    /**
     * An entry whose path was not resident (deferred to the call's return) and whose clause walks
     * the user stack: the record sent at the return carries the string and the user registers and
     * stack copied there (SyscallProgram's stack section on the deferred path): uregs[R_PC] is the
     * instruction after openat's syscall in libc, the first frame ustack() prints.
     */
    @Test
    void aDeferredEntryCarriesItsStringAndTheUserStack() throws Exception {
        providers().forEach(fw::addProvider);
        Path dir = Files.createTempDirectory("jdtrace-coldstack");
        try {
            int n = 20;
            for (int i = 0; i < n; i++) {
                Files.write(dir.resolve("path" + i), (dir + "/new-" + i + "\0").getBytes(StandardCharsets.UTF_8));
            }
            Process sh = waitingShell("for i in $(seq 0 " + (n - 1) + "); do " + PerfEventsTest.bin("ft_coldpath")
                    + " " + dir + "/path$i || exit 1; done");
            String[] r = traceRun(sh, "syscall::openat:entry /ppid == " + sh.pid() + "/ { printf(\"@ %s %x %d\\n\", "
                    + "copyinstr(arg1), uregs[" + isa.abi().uregNumber("R_PC") + "], ustackdepth); ustack(1); }");
            java.util.Set<String> seen = new java.util.TreeSet<>();
            List<String> lines = r[1].lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                String[] f = lines.get(i).split(" ");
                if (f.length != 4 || !f[0].equals("@") || !f[1].startsWith(dir + "/new-")) continue;
                assertTrue(seen.add(f[1]), "once: " + f[1]);
                long pc = Long.parseUnsignedLong(f[2], 16);
                assertTrue(pc != 0 && Integer.parseInt(f[3]) >= 1, lines.get(i));
                // ustack(1): the pc, named if the process was still there when it was read, else in hex
                String frame = lines.get(i + 2).strip();
                assertTrue(frame.equals("0x" + f[2]) || frame.startsWith("libc.so.6`"), frame + " for pc " + f[2]);
            }
            assertEquals(n, seen.size(), r[1] + r[2]);
            assertTrue(!r[2].contains("error"), r[2]);
        } finally {
            removeDir(dir);
        }
    }

    @Test
    void aPointerSavedAtEntryIsReadAtTheReturnOfTheSameCall() throws Exception {
        providers().forEach(fw::addProvider);
        Path dir = Files.createTempDirectory("jdtrace-savedpath");
        try {
            int n = 20;
            for (int i = 0; i < n; i++) {
                Files.write(dir.resolve("path" + i), (dir + "/saved-" + i + "\0").getBytes(StandardCharsets.UTF_8));
            }
            Process sh = waitingShell("for i in $(seq 0 " + (n - 1) + "); do " + PerfEventsTest.bin("ft_coldpath")
                    + " " + dir + "/path$i || exit 1; done");
            String[] r = traceRun(sh, "syscall::openat:entry /ppid == " + sh.pid() + "/ { self->p = arg1; } "
                    + "syscall::openat:return /self->p/ { printf(\"%d %d %s\\n\", pid, arg0 >= 0, copyinstr(self->p)); self->p = 0; }");
            java.util.Set<String> seen = new java.util.TreeSet<>();
            for (String line : r[1].lines().toList()) {
                String[] f = line.split(" ", 3);
                if (f.length == 3 && f[2].startsWith(dir + "/saved-")) {
                    assertEquals("1", f[1], line);
                    assertTrue(seen.add(f[2]), "once: " + line);
                }
            }
            assertEquals(n, seen.size(), r[1] + r[2]);
            assertTrue(!r[2].contains("invalid address"), r[2]);
        } finally {
            removeDir(dir);
        }
    }

    @Test
    void aStringArgumentTheKernelCannotReadAtTheEventFaultsInsteadOfPrintingEmpty() throws Exception {
        providers().forEach(fw::addProvider);
        // openat(AT_FDCWD, (char *) 1, 0) then openat(AT_FDCWD, "/nonexistent-jdtrace", 0)
        Process py = waitingShell("exec python3 -c \"import ctypes; l = ctypes.CDLL(None); "
                + "l.syscall(257, -100, ctypes.c_void_p(1), 0); l.syscall(257, -100, b'/nonexistent-jdtrace', 0)\"");
        String[] r = traceRun(py, "syscall::openat:entry /pid == " + py.pid() + "/ { printf(\"%s\\n\", copyinstr(arg1)); }");
        assertTrue(r[1].contains("\n/nonexistent-jdtrace\n") && !r[1].contains("\n\n/nonexistent"), r[1]);
        // (a bad address faults at the call's return too, where its read is tried again)
        assertTrue(r[2].matches("(?s)(.*\n)?dtrace: error in dt_clause_\\d+ for probe ID \\d+ \\(syscall:vmlinux:openat:entry\\):"
                + " invalid address \\(0x1\\) at BPF pc \\d+\n.*"), r[2]);
    }

    @Test
    void ppidIsTheParentAtTheEventForProcessesGoneBeforeTheRecordIsRead() throws Exception {
        providers().forEach(fw::addProvider);
        Process sh = waitingShell("for i in 1 2 3 4 5; do /bin/true; done");
        long p = sh.pid();
        CompletableFuture<String[]> trace = traceWhenReady(
                "syscall::exit_group:entry /ppid == " + p + "/ { printf(\"sys %d %d\\n\", ppid, curpsinfo->pr_ppid); } "
                + "proc:::exit /ppid == " + p + "/ { printf(\"exit %d\\n\", ppid); } "
                + "proc:::exit /pid == " + p + "/ { exit(0); }");
        sh.getOutputStream().write('\n');
        sh.getOutputStream().flush();
        assertEquals(0, sh.waitFor());
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        List<String> lines = new ArrayList<>(List.of(r[1].split("\n")));
        lines.remove("ready");
        java.util.Collections.sort(lines);
        List<String> want = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            want.add("exit " + p);
            want.add("sys " + p + " " + p);
        }
        java.util.Collections.sort(want);
        assertEquals(want, lines, "five children of " + p + ", each gone before its records were read\n" + r[1] + r[2]);
    }

    @Test
    void procProbesWithACaptureProgramFilterThePidInTheKernel() throws Exception {
        List<Provider> ps = providers();
        ps.forEach(fw::addProvider);
        TracepointProvider proc = ps.stream().filter(p -> p instanceof TracepointProvider && p.name().equals("proc"))
                .map(p -> (TracepointProvider) p).findFirst().orElseThrow();
        for (boolean filtered : new boolean[] {true, false}) {
            // A waits, then exits; B runs 40 short processes first
            Process a = waitingShell("exit 0");
            Process b = waitingShell("for i in $(seq 40); do /bin/true; done");
            String pred = filtered ? "pid == " + a.pid() : "pid == " + a.pid() + " || pid == -1";
            CompletableFuture<String[]> trace = traceWhenReady(
                    "proc:::exit /" + pred + "/ { printf(\"exit %d\\n\", pid); exit(0); }");
            long before = proc.delivered;
            b.getOutputStream().write('\n');
            b.getOutputStream().flush();
            assertEquals(0, b.waitFor());
            Thread.sleep(100);
            a.getOutputStream().write('\n');
            a.getOutputStream().flush();
            String[] r = trace.get();
            assertEquals("0", r[0], r[2]);
            assertEquals("ready\nexit " + a.pid(), r[1].strip());
            long delivered = proc.delivered - before;
            if (filtered) assertTrue(delivered <= 2, "only A's exit reaches the JVM: " + delivered);
            else assertTrue(delivered > 40, "without the filter every exit arrives: " + delivered);
        }
    }

    @Test
    void procExecCapturesThePathAndProcExitGivesTheReason() throws Exception {
        providers().forEach(fw::addProvider);
        Path dir = Files.createTempDirectory("jdtrace-core");
        try {
            // A runs /bin/true through a link of this run's own (a child's exec, a path no other
            // process execs), then exits 3; B is killed; C dumps core (in dir)
            Path truePath = Files.createSymbolicLink(dir.resolve("true"), Path.of("/bin/true"));
            String[] scripts = {"read x; " + truePath + "; exit 3", "read x; kill -KILL $$",
                "cd " + dir + "; ulimit -c unlimited; read x; kill -QUIT $$"};
            List<Process> ps = new ArrayList<>();
            for (String sc : scripts) {
                Process p = new ProcessBuilder("sh", "-c", sc).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectErrorStream(true).start();
                started.add(p);
                ps.add(p);
            }
            long a = ps.get(0).pid(), b = ps.get(1).pid(), c = ps.get(2).pid();
            String mine = "pid == " + a + " || pid == " + b + " || pid == " + c;
            CompletableFuture<String[]> trace = traceWhenReady(
                    // (the child is gone by the time the record is read: its ppid is no longer known)
                    "proc:::exec /execname == \"sh\" && copyinstr(arg0) == \"" + truePath + "\"/ { printf(\"exec %s\\n\", copyinstr(arg0)); } "
                    + "proc:::exit /" + mine + "/ { printf(\"exit %d %d\\n\", pid, arg0); n++; } "
                    + "proc:::exit /n == 3/ { exit(0); }");
            for (Process p : ps) {
                p.getOutputStream().write('\n');
                p.getOutputStream().flush();
            }
            assertEquals(3, ps.get(0).waitFor());
            String[] r = trace.get();
            assertEquals("0", r[0], r[2]);
            // in event order: B's and C's ends may come before A's child's exec
            List<String> lines = new ArrayList<>(List.of(r[1].split("\n")));
            java.util.Collections.sort(lines);
            List<String> want = new ArrayList<>(List.of("ready", "exec " + truePath,
                    "exit " + a + " 1", "exit " + b + " 2", "exit " + c + " 3"));
            java.util.Collections.sort(want);
            assertEquals(want, lines, "the path; CLD_EXITED, CLD_KILLED, CLD_DUMPED\n" + r[1] + r[2]);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.delete(f);
            }
            Files.delete(dir);
        }
    }

    @Test
    void procArgsArePsinfoAndLwpsinfoOfTheProcessTheyNameNotTheFiringOne() throws Exception {
        providers().forEach(fw::addProvider);
        String[] l = run("-lv", "-n", "proc:::create", "-n", "proc:::signal-send");
        assertEquals("0", l[0], l[2]);
        assertTrue(l[1].contains("\t\targs[0]: psinfo_t *\n"), l[1]);
        assertTrue(l[1].contains("\t\targs[0]: lwpsinfo_t *\n\t\targs[1]: psinfo_t *\n\t\targs[2]: int\n"), l[1]);
        // the shell forks a subshell (named sh until it would exec), prints its pid and sends it SIGTERM
        Process sh = new ProcessBuilder("sh", "-c", "read x; ( sleep 1; true ) & echo $!; kill -TERM $!; wait")
                .redirectErrorStream(true).start();
        started.add(sh);
        long p = sh.pid();
        CompletableFuture<String[]> trace = traceWhenReady(
                "proc:::create /pid == " + p + "/ { printf(\"create %d %d %s\\n\", args[0]->pr_pid, args[0]->pr_ppid, args[0]->pr_fname); } "
                + "proc:::signal-send /pid == " + p + " && args[2] == 15/ { printf(\"send %d %d %d %s %s\\n\", "
                + "args[0]->pr_lwpid, args[1]->pr_pid, args[2], args[0]->pr_name, args[1]->pr_fname); exit(0); }");
        sh.getOutputStream().write('\n');
        sh.getOutputStream().flush();
        long child = Long.parseLong(new String(sh.getInputStream().readNBytes(32), StandardCharsets.UTF_8).strip().split("\n")[0]);
        sh.waitFor();
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        assertEquals("ready\ncreate " + child + " " + p + " sh\nsend " + child + " " + child + " 15 sh sh", r[1].strip(),
                "the child's pid, its parent, its name; the target thread, its process, the signal\n" + r[2]);
    }

    @Test
    void ppidIsTheParentAtTheEventAtProbesReadingTheTracepointsOwnRecords() throws Exception {
        providers().forEach(fw::addProvider);
        Process sh = waitingShell("for i in 1 2 3 4 5; do /bin/true; done");
        long p = sh.pid();
        // lwp-exit reads sched_process_exit's own record (no capture program): each child is gone
        // before its record is read, so /proc could no longer name its parent
        CompletableFuture<String[]> trace = traceWhenReady(
                "proc:::lwp-exit /ppid == " + p + "/ { printf(\"lwp-exit %d %d\\n\", ppid, curpsinfo->pr_ppid); } "
                + "proc:::lwp-exit /pid == " + p + "/ { exit(0); }");
        sh.getOutputStream().write('\n');
        sh.getOutputStream().flush();
        assertEquals(0, sh.waitFor());
        String[] r = trace.get();
        assertEquals("0", r[0], r[2]);
        String line = "lwp-exit " + p + " " + p + "\n";
        assertEquals("ready\n" + line.repeat(5), r[1].strip() + "\n", "five children of " + p + ", each gone before its record was read\n" + r[2]);
    }
}
