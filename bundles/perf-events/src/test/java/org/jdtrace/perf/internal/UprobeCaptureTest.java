package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.Abi;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.UserProbes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Uprobes with capture on real processes: ft_count stops itself before compute(n), the probes go
 * in, and the hits of inc() and sq() must be exactly the calls compute makes (counted here from
 * its switch), each with its argument (rdi) captured at the hit.
 */
class UprobeCaptureTest {

    PerfEventsImpl perf;
    final Abi abi = new Amd64Isa().abi();

    @BeforeEach
    void start() {
        perf = new PerfEventsImpl(new Amd64Isa());
    }

    @AfterEach
    void stop() {
        perf.close();
    }

    static long fileOffset(String bin, String fn) throws Exception {
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            ElfSymbol s = elf.symbol(fn).orElseThrow();
            return elf.fileOffset(s.value(), 1);
        }
    }

    /** The arguments compute(n) calls ops[i & 1] with when i % 9 == 3: odd ones go to inc, even to sq. */
    static Set<Long> calls(long n, boolean odd) {
        Set<Long> out = new TreeSet<>();
        for (long i = 0; i < n; i++) if (i % 9 == 3 && (i & 1) == (odd ? 1 : 0)) out.add(i);
        return out;
    }

    @Test
    void everyCallIsCapturedWithItsArgumentAndOnlyTheTracedProcessFires() throws Exception {
        String bin = PerfEventsTest.bin("ft_count");
        int rdi = 14; // pt_regs' di word
        Set<Long> inc = ConcurrentHashMap.newKeySet(), sq = ConcurrentHashMap.newKeySet();
        AtomicLong others = new AtomicLong(), wrongTid = new AtomicLong();
        ProcessBuilder pb = new ProcessBuilder(bin, "1000");
        pb.environment().put("FT_STOP", "1");
        Process p = pb.start();
        Process other = null;
        try (UserProbes u = perf.userProbes(abi.kernelRegsWords(), abi.kernelRegsSpWord(), 64, hit -> {
            if (hit.pid != p.pid()) others.incrementAndGet();
            if (hit.tid != hit.pid || !hit.comm().equals("ft_count")) wrongTid.incrementAndGet();
            (hit.cookie == 1 ? inc : sq).add(hit.regs[rdi]);
        })) {
            awaitStopped(p.pid());
            u.attach(bin, new long[] {fileOffset(bin, "inc")}, null, 1, (int) p.pid(), false);
            u.attach(bin, new long[] {fileOffset(bin, "sq")}, null, 2, (int) p.pid(), false);
            // another process of the same file, not traced: its calls are not ours
            ProcessBuilder ob = new ProcessBuilder(bin, "1000");
            other = ob.start();
            assertEquals(0, other.waitFor());
            continueToTheEnd(p);
        } finally {
            p.destroyForcibly();
        }
        assertEquals(calls(1000, true), new TreeSet<>(inc));
        assertEquals(calls(1000, false), new TreeSet<>(sq));
        assertEquals(0, others.get());
        assertEquals(0, wrongTid.get());
    }

    /**
     * A cookie with SIGSTOP holds the process at each hit, in the kernel: the process is stopped
     * with exactly one record written (the first call's argument), and with the signal taken off
     * it runs on to the end, every call recorded.
     */
    @Test
    void aSignalAtTheHitHoldsTheProcessThereUntilContinued() throws Exception {
        String bin = PerfEventsTest.bin("ft_count");
        int rdi = 14; // pt_regs' di word
        java.util.List<Long> inc = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        ProcessBuilder pb = new ProcessBuilder(bin, "1000");
        pb.environment().put("FT_STOP", "1");
        Process p = pb.start();
        try (UserProbes u = perf.userProbes(abi.kernelRegsWords(), abi.kernelRegsSpWord(), 0, hit -> inc.add(hit.regs[rdi]))) {
            awaitStopped(p.pid());
            u.attach(bin, new long[] {fileOffset(bin, "inc")}, null, 1, (int) p.pid(), false);
            u.signal(1, PerfSys.SIGSTOP);
            new ProcessBuilder("kill", "-CONT", Long.toString(p.pid())).start().waitFor();
            for (int i = 0; i < 1000 && inc.isEmpty(); i++) {
                Thread.sleep(5);
                perf.drain();
            }
            awaitStopped(p.pid());
            Thread.sleep(50); // were it not held, it would run on (inc is called 56 times in well under 50 ms)
            perf.drain();
            assertEquals(List.of(calls(1000, true).iterator().next()), List.copyOf(inc));
            u.signal(1, 0);
            continueToTheEnd(p);
        } finally {
            p.destroyForcibly();
        }
        assertEquals(List.copyOf(calls(1000, true)), List.copyOf(inc));
    }

    /** SIGCONT to the stopped {@code p}, its clean end awaited, and its records drained. */
    private void continueToTheEnd(Process p) throws Exception {
        new ProcessBuilder("kill", "-CONT", Long.toString(p.pid())).start().waitFor();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        perf.drain();
    }

    @Test
    void anOffsetTheKernelRefusesIsItsReasonAndTheRestGoesOn() throws Exception {
        String bin = PerfEventsTest.bin("ft_count");
        long size = Files.size(Path.of(bin));
        try (UserProbes u = perf.userProbes(abi.kernelRegsWords(), abi.kernelRegsSpWord(), 0, hit -> {})) {
            PerfException e = assertThrows(PerfException.class,
                    () -> u.attach(bin, new long[] {size + 4096}, null, 3, 0, false));
            assertTrue(e.getMessage().startsWith("uprobe on " + bin + " failed: "), e.getMessage());
            u.attach(bin, new long[] {fileOffset(bin, "inc")}, null, 1, 0, false).close();
        }
    }

    @Test
    void closingLeavesNoProbeInTheKernel() throws Exception {
        String bin = PerfEventsTest.bin("ft_count");
        UserProbes u = perf.userProbes(abi.kernelRegsWords(), abi.kernelRegsSpWord(), 0, hit -> {});
        u.attach(bin, new long[] {fileOffset(bin, "inc"), fileOffset(bin, "sq")}, null, 1, 0, false);
        assertTrue(links() > 0);
        u.close();
        assertEquals(0, links());
        // a user that took the capture before it closed (the bundle stopped) is not failed
        u.filter(1, (int) ProcessHandle.current().pid());
        u.signal(1, 19);
        u.stack(1, 4096);
        u.clauses(1, null, new int[0], "inc");
    }

    /** This JVM's descriptors that are BPF links (anon_inode:bpf_link). */
    static long links() throws Exception {
        long n = 0;
        for (Path fd : Files.list(Path.of("/proc/self/fd")).toList()) {
            try {
                if (Files.readSymbolicLink(fd).toString().equals("anon_inode:bpf_link")) n++;
            } catch (java.io.IOException gone) {
                // closed meanwhile
            }
        }
        return n;
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
