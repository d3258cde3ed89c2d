package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ObjectFiles;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.proc.Procfs;
import org.jdtrace.unwind.CallFrameInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UserSymbols.View, the unwinder's Modules, pointed at one process after another as a
 * whole-machine profile's samples are (the CPUs' processes alternate): real processes' pcs (in
 * their executable, libc, the dynamic linker, the vDSO, and other processes' addresses) give,
 * asked in turn through one view, the CFI, bias and code frame a new view gives for each alone;
 * once their objects are read, such answers allocate nothing (probe context); and a process that
 * execs a copy of its program (no address randomisation: the same addresses, another file) is
 * answered from the new image after the exec and from the old for a time before it, never from
 * the ranges kept for the old one.
 */
class UserSymbolsViewTest {

    private final List<Process> started = new ArrayList<>();
    private PerfEventsImpl perf;

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : started) p.destroyForcibly().waitFor();
        if (perf != null) perf.close();
    }

    private Process start(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(p);
        return p;
    }

    /** Waits until {@code p} runs {@code exe} with libc mapped (its dynamic linking done far enough). */
    private static void awaitMapped(Process p, String exe) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            Path at = Files.readSymbolicLink(Procfs.file(p.pid(), "exe"));
            if (at.toString().equals(exe) && Procfs.maps(p.pid()).stream().anyMatch(m -> m.path().endsWith("/libc.so.6"))) {
                break;
            }
            assertTrue(System.nanoTime() < deadline, exe + " did not start");
            Thread.sleep(10);
        }
        Thread.sleep(100); // its last mappings made (it waits on its stdin)
    }

    /** Addresses in each executable mapping of a file of {@code pid} (first, middle, last byte) and in its vDSO. */
    private static long[] pcs(long pid) throws Exception {
        List<Long> out = new ArrayList<>();
        for (Procfs.Mapping m : Procfs.maps(pid)) {
            if (!m.executable() || !(m.fileBacked() || m.path().equals("[vdso]"))) continue;
            out.add(m.start());
            out.add(m.start() + (m.end() - m.start()) / 2);
            out.add(m.end() - 1);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** An address near the start of {@code exe}'s executable mapping in {@code pid} (in its code, not the page's tail). */
    private static long textPc(long pid, Path exe) throws Exception {
        for (Procfs.Mapping m : Procfs.maps(pid)) {
            if (m.executable() && m.path().equals(exe.toString())) return m.start() + 16;
        }
        throw new AssertionError("no text of " + exe + " in " + pid);
    }

    @Test
    void aViewPointedAtProcessesInTurnAnswersAsANewViewForEachAndAllocatesNothing() throws Exception {
        // two processes of the same program (other load addresses) and another program, all waiting
        Process[] ps = {start("sleep", "60"), start("sleep", "60"), start("cat")};
        awaitMapped(ps[0], "/usr/bin/sleep");
        awaitMapped(ps[1], "/usr/bin/sleep");
        awaitMapped(ps[2], "/usr/bin/cat");
        int[] pids = new int[ps.length];
        long[][] own = new long[ps.length][];
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < ps.length; i++) {
            pids[i] = (int) ps[i].pid();
            own[i] = pcs(pids[i]);
            for (long pc : own[i]) all.add(pc);
        }
        UserSymbols symbols = new UserSymbols();

        // each process asked about every pc, its own and the others' (mostly in none of its
        // mappings), in turn through one view, against a new view for each question
        Random random = new Random(21);
        UserSymbols.View view = symbols.view();
        int answered = 0;
        for (int sample = 0; sample < 600; sample++) {
            int k = sample % ps.length;
            view.at(pids[k]);
            for (int f = 0; f < 6; f++) {
                long pc = f < 4 ? own[k][random.nextInt(own[k].length)] : all.get(random.nextInt(all.size()));
                UserSymbols.View alone = symbols.view().at(pids[k]);
                CallFrameInfo want = alone.cfi(pc);
                assertSame(want, view.cfi(pc), "cfi of " + Long.toHexString(pc) + " in " + pids[k]);
                assertEquals(alone.bias(pc), view.bias(pc), "bias of " + Long.toHexString(pc) + " in " + pids[k]);
                assertEquals(alone.codeFrame(pc), view.codeFrame(pc));
                if (want != null) answered++;
            }
        }
        assertTrue(answered > 1000, "most pcs have CFI: " + answered);
        for (int k = 0; k < ps.length; k++) {
            for (long pc : own[k]) assertNotNull(symbols.view().at(pids[k]).cfi(pc), "CFI of " + Long.toHexString(pc));
        }
        // the two sleeps' executables at other addresses: the same file, another bias
        assertTrue(symbols.view().at(pids[0]).bias(own[0][0]) != symbols.view().at(pids[1]).bias(own[1][0]));

        // their own pcs, each sample a walk's few frames of one process, the processes in turn:
        // once read, no allocation (the drain thread's probe context)
        var mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long[] picks = new long[4096];
        for (int i = 0; i < picks.length; i++) {
            long[] of = own[i / 4 % ps.length];
            picks[i] = of[random.nextInt(of.length)];
        }
        long sum = 0;
        long before = 0;
        for (int round = 0; round < 12; round++) {
            if (round == 10) before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < picks.length; i += 4) {
                view.at(pids[i / 4 % ps.length], 1);
                sum += view.state() == null ? 0 : 1;
                for (int f = 0; f < 4; f++) {
                    long pc = picks[i + f];
                    sum += view.cfi(pc) == null ? 0 : view.bias(pc);
                }
            }
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(sum != 0);
        assertEquals(0, allocated, "bytes allocated by 2,048 samples of 4 pcs, the processes in turn");
    }

    @Test
    void aProcessThatExecsIsNotAnsweredFromTheRangesOfItsOldImage() throws Exception {
        perf = new PerfEventsImpl(new Amd64Isa());
        UserSymbols symbols = new UserSymbols(new ObjectFiles(), perf);
        Path src = dir.resolve("execer.c"), exe = dir.resolve("execer"), copy = dir.resolve("execer2");
        Files.writeString(src, """
                #include <unistd.h>
                int main(int argc, char **argv) { char c; if (read(0, &c, 1) == 1 && argc > 1) execv(argv[1], argv + 1); return 0; }
                """);
        Process cc = new ProcessBuilder("gcc", "-O2", "-o", exe.toString(), src.toString()).inheritIO().start();
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0, "gcc");
        Files.copy(exe, copy); // the same program at the same addresses, another file
        try (AutoCloseable tracking = symbols.track()) {
            Process other = start("sleep", "60");
            awaitMapped(other, "/usr/bin/sleep");
            // born while tracing, followed by its records; no address randomisation across the exec
            Process p = start("setarch", "-R", exe.toString(), copy.toString());
            awaitMapped(p, exe.toString());
            int pid = (int) p.pid(), otherPid = (int) other.pid();
            long[] mine = pcs(pid), others = pcs(otherPid);
            long text = textPc(pid, exe);
            perf.drain();

            UserSymbols.View view = symbols.view();
            long t1 = System.nanoTime();
            view.at(pid, t1);
            for (long pc : mine) view.cfi(pc); // the old image's objects kept, its text last
            CallFrameInfo old = view.cfi(text);
            assertNotNull(old, "execer's CFI");
            view.at(otherPid, t1).cfi(others[0]);

            p.getOutputStream().write('\n');
            p.getOutputStream().flush();
            awaitMapped(p, copy.toString());
            assertEquals(text, textPc(pid, copy), "the copy's text where execer's was");
            perf.drain();
            long t2 = System.nanoTime();
            CallFrameInfo now = symbols.view().at(pid, t2).cfi(text);
            assertNotNull(now, "the copy's CFI");
            assertNotSame(old, now, "another file's CFI");
            for (int i = 0; i < 20; i++) {
                // after the exec, before it, and another process, in turn
                assertSame(now, view.at(pid, t2).cfi(text), "after the exec");
                assertEquals(symbols.view().at(pid, t2).bias(text), view.bias(text));
                for (long pc : mine) assertSame(symbols.view().at(pid, t2).cfi(pc), view.at(pid, t2).cfi(pc));
                assertSame(old, view.at(pid, t1).cfi(text), "before the exec");
                assertSame(symbols.view().at(otherPid, t2).cfi(others[i % others.length]),
                        view.at(otherPid, t2).cfi(others[i % others.length]));
            }
        }
    }
}
