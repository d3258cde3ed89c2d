package org.jdtrace.provider.fasttrap.internal.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.Instruction;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Tracepoints on real processes: every instruction traced, output unchanged, exact counts. */
class TracepointTest {

    private final List<TracedProcess> traced = new ArrayList<>();
    private final List<Path> files = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (TracedProcess p : traced) p.close();
        for (Path f : files) Files.deleteIfExists(f);
    }

    private Path tmp() throws Exception {
        Path f = Files.createTempFile("ft", ".out");
        files.add(f);
        return f;
    }

    private TracedProcess create(Path out, String... argv) {
        TracedProcess p = TracedProcess.create(List.of(argv), Fixtures.ISA, 250_000, out);
        traced.add(p);
        return p;
    }

    private static int run(TracedProcess p) throws Exception {
        p.go();
        int st = p.awaitExit(120, TimeUnit.SECONDS);
        assertTrue(st != -1, "timeout");
        return st;
    }

    @Test
    void everyInstructionOfEveryFunctionKeepsOutputIdentical() throws Exception {
        String bin = Fixtures.bin("ft_mix");
        String expected = Fixtures.untraced(bin, "6");
        Path out = tmp();
        TracedProcess p = create(out, bin, "6");
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", n -> true);
        AtomicLong hits = new AtomicLong();
        List<TracedProcess.Request> rq = Fixtures.everyInstruction(fns, c -> hits.incrementAndGet());
        assertTrue(rq.size() > 150, "instructions: " + rq.size());
        assertTrue(fns.stream().anyMatch(f -> f.name().equals("classify") && f.analysis().instrumentable()));
        p.enable(rq);
        assertEquals(rq.stream().map(TracedProcess.Request::pc).distinct().count(), p.tracepointCount());
        int st = run(p);
        assertEquals(0, st, "wait status");
        assertEquals(expected, Files.readString(out));
        assertTrue(hits.get() > 10_000, "hits " + hits.get());
    }

    /**
     * whileHeld (the rtld handler's way): work on another thread enables tracepoints far from
     * every scratch region while the hit thread is held, so the control thread must map a new
     * region through that very thread meanwhile; the program then runs on unharmed.
     */
    @Test
    void workWhileHeldCanMapScratchThroughTheHeldThread() throws Exception {
        String bin = Fixtures.bin("ft_mix");
        String expected = Fixtures.untraced(bin, "3");
        Path out = tmp();
        TracedProcess p = create(out, bin, "3");
        List<TracedProcess.Request> main = Fixtures.everyInstruction(Fixtures.functions(p.pid(), "a.out", "main"::equals), c -> { });
        AtomicLong exits = new AtomicLong();
        List<TracedProcess.Request> exit = Fixtures.everyInstruction(Fixtures.functions(p.pid(), "libc.so.6", "exit"::equals),
                c -> exits.incrementAndGet());
        assertTrue(!main.isEmpty() && exit.size() > 3);
        java.util.concurrent.ExecutorService worker = java.util.concurrent.Executors.newSingleThreadExecutor();
        List<Object> held = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            p.enable(List.of(new TracedProcess.Request(main.get(0).pc(), main.get(0).insn(), hit -> {
                if (!held.isEmpty()) return;
                held.add(hit.process().whileHeld(hit, () -> {
                    try {
                        p.enable(exit);
                    } catch (TracepointException e) {
                        held.add(e);
                    }
                }, worker, 20, TimeUnit.SECONDS));
            })));
            assertEquals(0, run(p), "wait status");
        } finally {
            worker.shutdown();
        }
        assertEquals(List.of(true), held, "the work finished while the thread was held");
        assertEquals(expected, Files.readString(out));
        assertTrue(exits.get() >= 3, "hits in libc's exit: " + exits.get());
    }

    @Test
    void eightThreadsGiveExactCounts() throws Exception {
        String bin = Fixtures.bin("ft_threads");
        Path out = tmp();
        TracedProcess p = create(out, bin, "2000");
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", "tick"::equals);
        assertEquals(1, fns.size());
        List<Instruction> insns = fns.get(0).analysis().instructions();
        assertTrue(insns.stream().noneMatch(i -> i.kind() == Instruction.Kind.JCC || i.kind() == Instruction.Kind.JMP_REL),
                "tick is straight-line code: every instruction runs once a call");
        Map<Long, AtomicLong> perPc = new ConcurrentHashMap<>();
        p.enable(Fixtures.everyInstruction(fns, c -> perPc.computeIfAbsent(c.regs().pc(), k -> new AtomicLong()).incrementAndGet()));
        assertEquals(0, run(p));
        assertEquals("16000\n", Files.readString(out));
        assertEquals(insns.size(), perPc.size());
        for (Instruction i : insns) assertEquals(16_000, perPc.get(i.pc()).get(), "at +" + (i.pc() - insns.get(0).pc()));
    }

    @Test
    void signalHandlerTracedOnEveryInstructionKeepsRunning() throws Exception {
        String bin = Fixtures.bin("ft_alarm");
        Path out = tmp();
        TracedProcess p = create(out, bin, "300");
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", n -> n.equals("on_alarm") || n.equals("main"));
        AtomicLong entries = new AtomicLong();
        long entry = fns.stream().filter(f -> f.name().equals("on_alarm")).findFirst().orElseThrow().analysis().start();
        p.enable(Fixtures.everyInstruction(fns, c -> {
            if (c.regs().pc() == entry) entries.incrementAndGet();
        }));
        assertEquals(0, run(p));
        String done = Files.readString(out);
        assertTrue(done.matches("done \\d+\n") && Integer.parseInt(done.trim().substring(5)) >= 300, done);
        assertTrue(entries.get() >= 300, "handler entries " + entries.get());
    }

    @Test
    void programsOwnInt3StillRaisesSigtrap() throws Exception {
        String bin = Fixtures.bin("ft_int3");
        Path out = tmp();
        TracedProcess p = create(out, bin);
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", n -> n.equals("marker") || n.equals("main"));
        long marker = fns.stream().filter(f -> f.name().equals("marker")).findFirst().orElseThrow().analysis().start();
        AtomicLong hits = new AtomicLong(), markerHits = new AtomicLong();
        p.enable(Fixtures.everyInstruction(fns, c -> {
            hits.incrementAndGet();
            if (c.regs().pc() == marker) markerHits.incrementAndGet();
        }));
        assertEquals(0, run(p));
        assertEquals("traps=2 v=44\n", Files.readString(out));
        assertEquals(2, markerHits.get());
        assertTrue(hits.get() >= 4, "hits " + hits.get());
    }

    @Test
    void forkedChildCarriesNoTracepointsAndExecDefuncts() throws Exception {
        String bin = Fixtures.bin("ft_fork");
        String expected = Fixtures.untraced(bin, "50");
        Path out = tmp();
        TracedProcess p = create(out, bin, "50");
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", "work"::equals);
        long entry = fns.get(0).analysis().start();
        AtomicLong hits = new AtomicLong();
        p.enable(Fixtures.everyInstruction(fns, c -> {
            if (c.regs().pc() == entry) hits.incrementAndGet();
        }));
        assertEquals(0, run(p));
        assertEquals(expected, Files.readString(out));
        assertEquals(100, hits.get(), "the parent's calls only");
    }

    @Test
    void disableRemovesTheInt3AndReleaseLeavesNoTrace() throws Exception {
        String bin = Fixtures.bin("ft_threads");
        Path out = tmp();
        TracedProcess p = create(out, bin, "100");
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", "tick"::equals);
        long entry = fns.get(0).analysis().start();
        TracepointHandler h = c -> { };
        p.enable(Fixtures.everyInstruction(fns, h));
        byte[] b = new byte[1];
        p.memory().read(entry, b, 0, 1);
        assertEquals((byte) 0xcc, b[0]);
        for (Instruction i : fns.get(0).analysis().instructions()) p.disable(i.pc(), h);
        assertEquals(0, p.tracepointCount());
        p.memory().read(entry, b, 0, 1);
        assertEquals(fns.get(0).analysis().instructions().get(0).bytes()[0], b[0]);
        assertFalse(p.state() == TracedProcess.State.EXITED);
        assertEquals(0, run(p));
        assertEquals("800\n", Files.readString(out));
        assertTrue(Sys.exited(0));
    }

    /**
     * posix_spawn in a loop, every a.out instruction traced, released while the parent sleeps
     * in the kernel waiting for its vfork child (which we follow): the release neither waits
     * for the parent to stop (it cannot) nor leaves an int3 behind; the program finishes right.
     */
    @Test
    void releaseWhileTheParentWaitsForItsVforkChild() throws Exception {
        String bin = Fixtures.bin("ft_spawn");
        Path out = tmp();
        TracedProcess p = create(out, bin, "400");
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", n -> true);
        AtomicLong hits = new AtomicLong();
        p.enable(Fixtures.everyInstruction(fns, c -> hits.incrementAndGet()));
        p.go();
        Path stat = Path.of("/proc/" + p.pid() + "/stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && (hits.get() < 500 || !Files.readString(stat).contains(") D "))) {
            Thread.onSpinWait();
        }
        assertTrue(Files.readString(stat).contains(") D ") || hits.get() >= 500, "the parent was seen in vfork wait");
        p.release();
        assertEquals(TracedProcess.State.RELEASED, p.state());
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Files.exists(stat) && !Files.readString(stat).contains(") Z ") && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        String status = Files.readString(Path.of("/proc/" + p.pid() + "/status"));
        assertTrue(status.contains("TracerPid:\t0\n") || status.contains("State:\tZ"), status);
        assertEquals("400\n", Files.readString(out), "every spawn waited for, no SIGTRAP");
    }

    /**
     * Tracepoints enabled while the program runs and forks children that share its memory:
     * mapping the scratch space needs a thread stopped in user space, never one at a vfork
     * event (resuming it there for the injected mmap would block it on a child nobody serves)
     * nor one blocked in vfork (it cannot stop until its child execs). Both used to hang.
     */
    @Test
    void enableWhileTheProgramVforks() throws Exception {
        for (String spin : List.of("0", "0", "0", "60000000")) {
            String bin = Fixtures.bin("ft_spawn");
            Path out = tmp();
            // posix_spawn in a loop, or vfork children that spin ~50 ms before exec
            String n = spin.equals("0") ? "2000" : "40";
            TracedProcess p = create(out, bin, n, spin);
            List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", "main"::equals);
            p.go();
            Thread.sleep(spin.equals("0") ? 50 : 200);
            AtomicLong hits = new AtomicLong();
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                    () -> p.enable(Fixtures.everyInstruction(fns, c -> hits.incrementAndGet())));
            assertTrue(p.awaitExit(120, TimeUnit.SECONDS) != -1, "timeout");
            assertEquals(n + "\n", Files.readString(out));
            assertTrue(hits.get() > 0, "traced after the enabling");
        }
    }

    @Test
    void grabbedProcessRunsOnUntouchedAfterRelease() throws Exception {
        Path out = tmp();
        Process starter = new ProcessBuilder("/bin/sh", "-c",
                Fixtures.bin("ft_spin") + " > '" + out + "' 2>&1 </dev/null & echo $!").start();
        int pid = Integer.parseInt(new String(starter.getInputStream().readAllBytes()).trim());
        starter.waitFor();
        try {
            Thread.sleep(100);
            String mapsBefore = Files.readString(Path.of("/proc/" + pid + "/maps"));
            TracedProcess p = TracedProcess.grab(pid, Fixtures.ISA, 250_000);
            traced.add(p);
            List<Fixtures.Function> fns = Fixtures.functions(pid, "a.out", n -> n.equals("work") || n.equals("main"));
            AtomicLong hits = new AtomicLong();
            p.enable(Fixtures.everyInstruction(fns, c -> hits.incrementAndGet()));
            p.go();
            Thread.sleep(400);
            assertTrue(Files.readString(Path.of("/proc/" + pid + "/maps")).contains("rwxp"), "scratch mapped");
            p.release();
            assertTrue(hits.get() > 1000, "hits " + hits.get());
            long entry = fns.stream().filter(f -> f.name().equals("work")).findFirst().orElseThrow().analysis().start();
            byte[] b = new byte[1];
            ProcessMemory m = new ProcessMemory(pid);
            for (Fixtures.Function f : fns) {
                for (Instruction i : f.analysis().instructions()) {
                    m.read(i.pc(), b, 0, 1);
                    assertEquals(i.bytes()[0], b[0], "byte restored at 0x" + Long.toHexString(i.pc()));
                }
            }
            m.read(entry, b, 0, 1);
            m.close();
            assertEquals(mapsBefore.lines().filter(l -> l.contains("rwxp")).count(),
                    Files.readString(Path.of("/proc/" + pid + "/maps")).lines().filter(l -> l.contains("rwxp")).count(),
                    "scratch unmapped");
            assertTrue(Files.readString(Path.of("/proc/" + pid + "/status")).contains("TracerPid:\t0\n"));
            Thread.sleep(200);
            new ProcessBuilder("kill", "-USR1", Integer.toString(pid)).start().waitFor();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ProcessHandle.of(pid).isPresent() && System.nanoTime() < deadline) Thread.sleep(20);
            assertTrue(Files.readString(out).matches("ok \\d+\n"), Files.readString(out));
        } finally {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void jobControlStopAndContinueWhileTraced() throws Exception {
        String bin = Fixtures.bin("ft_threads");
        Path out = tmp();
        TracedProcess p = create(out, bin, "20000");
        List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", "tick"::equals);
        AtomicLong hits = new AtomicLong();
        p.enable(Fixtures.everyInstruction(fns, c -> hits.incrementAndGet()));
        p.go();
        while (hits.get() < 2000) Thread.sleep(2);
        Sys.current().kill(p.pid(), Sys.SIGSTOP);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String state = "";
        while (System.nanoTime() < deadline) {
            state = allThreadStates(p.pid());
            if (state.chars().allMatch(c -> c == 't' || c == 'T')) break;
            Thread.sleep(10);
        }
        // 't' is also a thread stopped at a hit: its trap is counted when the control thread
        // serves it, after which it enters the group-stop before any user instruction; so the
        // count settles (at most one hit a thread), then must stay still
        long frozen = hits.get();
        for (long settled = -1; settled != frozen && System.nanoTime() < deadline; ) {
            settled = frozen;
            Thread.sleep(50);
            frozen = hits.get();
        }
        Thread.sleep(300);
        assertEquals(frozen, hits.get(), "no thread runs while the process is stopped (" + state + ")");
        Sys.current().kill(p.pid(), Sys.SIGCONT);
        int st = p.awaitExit(120, TimeUnit.SECONDS);
        assertEquals(0, st);
        assertEquals("160000\n", Files.readString(out));
    }

    /** The state letter of every thread of {@code pid}. */
    private static String allThreadStates(int pid) throws Exception {
        StringBuilder sb = new StringBuilder();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                String stat = Files.readString(t.resolve("stat"));
                sb.append(stat.charAt(stat.lastIndexOf(')') + 2));
            }
        }
        return sb.toString();
    }
}
