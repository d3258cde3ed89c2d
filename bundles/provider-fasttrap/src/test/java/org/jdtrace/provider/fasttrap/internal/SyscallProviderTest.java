package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The syscall provider on real processes (fixture ft_sys), beside the pid provider it shares them with. */
class SyscallProviderTest {

    private final Amd64Isa isa = new Amd64Isa();
    private final PidProvider pid = new PidProvider(isa, 250_000, null);
    private final TestRegistry pidRegistry = new TestRegistry(pid);
    private final SyscallProvider provider = new SyscallProvider(isa, pid.control());
    private final TestRegistry registry = new TestRegistry(provider);
    private final List<TargetProcess> targets = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void cleanUp() {
        for (TargetProcess t : targets) t.close();
        pid.deactivate();
    }

    private TargetProcess create(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(Path.of("../../fixtures/target/bin/ft_sys").toAbsolutePath().normalize().toString()));
        argv.addAll(List.of(args));
        TargetProcess t = pid.control().create(argv, tmp.resolve("out"));
        targets.add(t);
        return t;
    }

    private String output() throws Exception {
        return Files.readString(tmp.resolve("out"));
    }

    private TestRegistry.TestProbe probe(String function, String name) {
        return registry.probe(SyscallProvider.MODULE, function, name);
    }

    @Test
    void everySyscallHasAnEntryAndAReturnProbeFromTheStart() {
        assertEquals(2 * isa.abi().syscallNames().size(), registry.probes.size());
        assertTrue(registry.probes.stream().allMatch(p -> p.provider.equals("syscall") && p.module.equals("vmlinux")));
        probe("ioctl", "return");
        probe("openat", "entry");
    }

    @Test
    void countsEveryEntryAndReturnOfAKnownCallWithItsReturnValue() throws Exception {
        List<Long> rets = Collections.synchronizedList(new ArrayList<>());
        AtomicLong entries = new AtomicLong();
        List<String> names = Collections.synchronizedList(new ArrayList<>());
        // enabled before the process exists: it is followed as it joins the table
        registry.enable(probe("getppid", "entry"), c -> {
            entries.incrementAndGet();
            names.add(c.execname() + "/" + (c.pid() == c.tid()));
        });
        registry.enable(probe("getppid", "return"), c -> {
            assertEquals(c.arg(0), c.arg(1));
            rets.add(c.arg(0));
        });
        TargetProcess t = create("25");
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertEquals(25, entries.get());
        assertEquals(Collections.nCopies(25, ProcessHandle.current().pid()), rets, "getppid() returns dtrace's pid");
        assertEquals(Collections.nCopies(25, "ft_sys/true"), names);
        assertEquals("ft_sys\nsum 925 1\n", output());
    }

    @Test
    void entryArgumentsAreTheCallsAndReturnIsTheKernelsValue() throws Exception {
        TargetProcess t = create("3");
        List<long[]> args = Collections.synchronizedList(new ArrayList<>());
        List<String> bytes = Collections.synchronizedList(new ArrayList<>());
        List<Long> rets = Collections.synchronizedList(new ArrayList<>());
        registry.enable(probe("write", "entry"), c -> {
            args.add(new long[] {c.arg(0), c.arg(2)});
            bytes.add(new String(c.copyin(c.arg(1), (int) c.arg(2)), StandardCharsets.US_ASCII));
        });
        registry.enable(probe("write", "return"), c -> rets.add(c.arg(1)));
        // a failing call: its return is the negative errno as the kernel returns it
        registry.enable(probe("openat", "return"), c -> rets.add(c.arg(0)));
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertEquals(2, args.size(), "two writes: ft_sys's own and stdio's");
        assertArrayEquals(new long[] {1, 7}, args.get(0));
        assertEquals(List.of("ft_sys\n", "sum 12 1\n"), bytes);
        assertEquals(List.of(7L, 9L), rets);
    }

    @Test
    void pidProbesOnTheSameProcessStayExact() throws Exception {
        TargetProcess t = create("40");
        pid.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:work:entry"));
        AtomicLong work = new AtomicLong(), getppid = new AtomicLong(), all = new AtomicLong();
        pidRegistry.enable(pidRegistry.probe("a.out", "work", "entry"), c -> work.incrementAndGet());
        registry.enable(probe("getppid", "entry"), c -> getppid.incrementAndGet());
        for (TestRegistry.TestProbe p : registry.probes) {
            if (p.name.equals("return") && !p.function.equals("getppid")) registry.enable(p, c -> all.incrementAndGet());
        }
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertEquals(40, work.get());
        assertEquals(40, getppid.get());
        assertTrue(all.get() >= 2, "other returns: " + all.get());
        assertEquals("ft_sys\nsum 2380 1\n", output());
    }

    @Test
    void signalsStillReachTheirHandlers() throws Exception {
        TargetProcess t = create("30", "signal");
        AtomicLong kills = new AtomicLong(), sigreturns = new AtomicLong();
        registry.enable(probe("kill", "entry"), c -> kills.incrementAndGet());
        registry.enable(probe("rt_sigreturn", "entry"), c -> sigreturns.incrementAndGet());
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertEquals("ft_sys\nhandled 30\nsum 1335 1\n", output());
        assertEquals(30, kills.get());
        assertEquals(30, sigreturns.get(), "each handler returned through rt_sigreturn");
    }

    @Test
    void forkVforkAndExecChildrenAreNotReportedAndAllLive() throws Exception {
        TargetProcess t = create("2", "fork");
        AtomicLong exits = new AtomicLong(), vforks = new AtomicLong(), execs = new AtomicLong();
        registry.enable(probe("exit_group", "entry"), c -> exits.incrementAndGet());
        registry.enable(probe("vfork", "return"), c -> vforks.incrementAndGet());
        registry.enable(probe("execve", "entry"), c -> execs.incrementAndGet());
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertEquals("ft_sys\nchild status 7\nvfork status 0\nsum 5 1\n", output());
        assertEquals(1, exits.get(), "only the traced process's own exit_group");
        assertEquals(1, vforks.get(), "vfork returns once in the parent");
        assertEquals(0, execs.get(), "the vfork child's execve is another process's");
    }

    @Test
    void disablingTheLastProbeGoesBackToPtraceCont() throws Exception {
        TargetProcess t = create("400", "loop");
        AtomicLong n = new AtomicLong();
        TestRegistry.TestProbe p = probe("getppid", "entry");
        registry.enable(p, c -> n.incrementAndGet());
        ProcessState s = pid.control().processes().iterator().next();
        assertTrue(s.process.tracingSyscalls());
        t.go();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (n.get() < 420 && System.nanoTime() < deadline) Thread.sleep(5);
        assertTrue(n.get() >= 420, "firings: " + n.get());
        provider.disable(p);
        p.ecb = null;
        assertFalse(s.process.tracingSyscalls());
        assertFalse(provider.active());
        long before = n.get();
        Thread.sleep(300);
        assertEquals(before, n.get(), "no firing after the last disable");
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertTrue(output().endsWith("sum 479600 1\n"), output());
    }

    @Test
    @org.junit.jupiter.api.Timeout(120)
    void aPidProbeNeedingScratchIsEnabledWhileSyscallsAreTraced() throws Exception {
        // mapping scratch space stops a thread with PTRACE_INTERRUPT; a syscall-stop takes the
        // interrupt away (any trap does), so the tracer must interrupt again past it
        TargetProcess t = create("400", "loop");
        AtomicLong n = new AtomicLong(), rets = new AtomicLong();
        registry.enable(probe("getppid", "entry"), c -> n.incrementAndGet());
        t.go();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (n.get() < 420 && System.nanoTime() < deadline) Thread.sleep(5);
        pid.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:work:return"));
        pidRegistry.enable(pidRegistry.probe("a.out", "work", "return"), c -> rets.incrementAndGet());
        long atEnable = n.get();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertTrue(output().endsWith("sum 479600 1\n"), output());
        assertEquals(800, n.get(), "every getppid() entry");
        long missed = atEnable - 400;
        assertTrue(rets.get() > 0 && rets.get() >= 400 - missed - 2, "work returns " + rets.get() + ", enabled after " + missed);
    }

    @Test
    void releasedWhileTracingSyscallsTheProcessRunsOnUntraced() throws Exception {
        TargetProcess t = create("300", "loop");
        AtomicLong n = new AtomicLong();
        // glibc's nanosleep() is the clock_nanosleep system call
        registry.enable(probe("clock_nanosleep", "entry"), c -> n.incrementAndGet());
        registry.enable(probe("clock_nanosleep", "return"), c -> n.incrementAndGet());
        t.go();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (n.get() < 40 && System.nanoTime() < deadline) Thread.sleep(5);
        assertTrue(n.get() >= 40 && n.get() < 600, "firings before the release: " + n.get());
        t.release(); // threads in syscall-stops or running under PTRACE_SYSCALL: detached
        long after = n.get();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!t.exited() && System.nanoTime() < deadline) Thread.sleep(10);
        assertTrue(t.exited());
        assertEquals(0, t.exitStatus(), "exited normally, untraced");
        assertEquals(after, n.get(), "nothing reported after the release");
        assertTrue(output().endsWith("sum 269700 1\n"), output());
    }

    @Test
    void everyThreadIsFollowed() throws Exception {
        TargetProcess t = pid.control().create(List.of(Path.of("../../fixtures/target/bin/ft_threads").toAbsolutePath().normalize().toString(),
                "20000"), tmp.resolve("out"));
        targets.add(t);
        java.util.Set<Long> exits = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicLong groupExits = new AtomicLong();
        registry.enable(probe("exit", "entry"), c -> {
            assertEquals(t.pid(), c.pid());
            exits.add(c.tid());
        });
        registry.enable(probe("exit_group", "entry"), c -> groupExits.incrementAndGet());
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertEquals("160000\n", output());
        assertEquals(8, exits.size(), "each of the 8 threads ends with exit(2): " + exits);
        assertFalse(exits.contains((long) t.pid()));
        assertEquals(1, groupExits.get());
    }
}
