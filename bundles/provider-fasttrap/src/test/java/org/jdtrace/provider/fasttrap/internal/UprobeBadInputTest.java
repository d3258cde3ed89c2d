package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.perf.internal.PerfEventsImpl;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 20's bad input on the uprobe path, on real processes: a full ring is drops (every hit
 * either fired or counted lost, the process untouched); a process that exited and was reaped
 * before its hits' clauses ran gives faults for its memory (dtrace:::ERROR), never an exception
 * of another kind; a library probe for every process counts the processes that were already
 * running when it was enabled as well as those started later.
 */
class UprobeBadInputTest {

    private final UprobeTestBed bed = new UprobeTestBed();
    private final Amd64Isa isa = bed.isa;
    private final PidProvider provider = bed.provider;
    private final TestRegistry registry = bed.registry;
    /** The output file of each process create() started, in order. */
    private final List<Path> files = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        bed.close();
    }

    private TargetProcess create(String... argv) throws Exception {
        Path out = bed.out();
        files.add(out);
        return bed.create(out, org.jdtrace.proc.ProcessControl.Evaltime.POSTINIT, argv);
    }

    /**
     * The drain thread held in the first firing while ft_count makes ~55,000 hits: the ring fills,
     * the kernel counts what it could not write, and each hit is either fired or one of the drops
     * reported (ProbeRegistry.lost: dtrace's "N drops on CPU c"). The program's output is intact.
     */
    @Test
    void aFullRingIsDropsEveryHitFiredOrCounted() throws Exception {
        int n = 1_000_000;
        TargetProcess t = create(UprobePidProviderTest.bin("ft_count"), Integer.toString(n));
        provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:inc:entry"));
        CountDownLatch exited = new CountDownLatch(1);
        AtomicLong fired = new AtomicLong();
        registry.enable(registry.probe("a.out", "inc", "entry"), c -> {
            if (fired.getAndIncrement() == 0) {
                try {
                    exited.await(120, TimeUnit.SECONDS); // the drain thread waits: nothing is read meanwhile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        t.go();
        assertEquals(0, t.awaitExit(120, TimeUnit.SECONDS));
        exited.countDown();
        provider.sync();
        long calls = UprobePidProviderTest.calls(n, true).size();
        assertTrue(registry.lost.get() > 0, "the ring was full: drops " + registry.lost.get() + ", fired " + fired.get());
        assertEquals(calls, fired.get() + registry.lost.get(), "each hit fired or counted as a drop");
        assertEquals(registry.lost.get(), provider.control().uprobeDrops());
        assertEquals(UprobePidProviderTest.untraced(UprobePidProviderTest.bin("ft_count"), Integer.toString(n)),
                Files.readString(files.get(0)));
    }

    /**
     * Every clause of a process that exited (and was reaped) before the drain got to its hits:
     * the captured registers and stack top are still there; reading its memory beyond them is a
     * fault (the framework's dtrace:::ERROR), ustack() ends where the capture does; no other
     * exception escapes.
     */
    @Test
    void hitsOfAProcessGoneBeforeTheirClausesRanFaultOrEndNeverThrowOtherwise() throws Exception {
        TargetProcess t = create(UprobePidProviderTest.bin("ft_count"), "1000");
        provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:inc:entry"));
        CountDownLatch exited = new CountDownLatch(1);
        AtomicLong faults = new AtomicLong(), frames = new AtomicLong();
        List<Long> args = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> other = Collections.synchronizedList(new ArrayList<>());
        long text = ((PidProbe) registry.probe("a.out", "inc", "entry").arg).functionStart();
        registry.enable(registry.probe("a.out", "inc", "entry"), c -> {
            try {
                exited.await(60, TimeUnit.SECONDS);
                args.add(c.arg(0));
                frames.addAndGet(c.ustack(20).length);
                for (int i = 0; i < 2; i++) {
                    try {
                        if (i == 0) c.copyin(text, 8);
                        else c.copyinstr(text, 16);
                    } catch (FaultException e) {
                        faults.incrementAndGet();
                    }
                }
            } catch (Throwable e) {
                other.add(e);
            }
        });
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertTrue(!Files.exists(Path.of("/proc/" + t.pid())), "reaped (awaitExit waited for it)");
        exited.countDown();
        provider.sync();
        assertEquals(List.of(), other);
        assertEquals(UprobePidProviderTest.calls(1000, true), args, "arguments come from the capture");
        assertEquals(2L * args.size(), faults.get(), "each read of its memory faults");
        assertTrue(frames.get() >= args.size(), "ustack() gives at least the hit's pc: " + frames.get());
    }

    /**
     * pid*:libc.so.6:printf:entry counts a process that was running, libc mapped (ft_count stopped
     * by its own SIGSTOP), before the probe was enabled, as well as one started after.
     */
    @Test
    void aLibraryProbeForEveryProcessCountsProcessesAlreadyRunning() throws Exception {
        Path out = bed.out();
        ProcessHandle before = UprobePidProviderTest.orphan(out, "FT_STOP=1", UprobePidProviderTest.bin("ft_count"), "1000");
        try {
            UprobePidProviderTest.awaitStopped(before.pid());
            assertTrue(Files.readString(Path.of("/proc/" + before.pid() + "/maps")).contains("/libc.so.6"), "libc mapped already");
            provider.provide(ProbeDescription.parse("pid*:libc.so.6:printf:entry"));
            java.util.Map<Long, Long> calls = new java.util.concurrent.ConcurrentHashMap<>();
            registry.enable(registry.probe("libc.so.6", "printf", "entry"), c -> calls.merge(c.pid(), 1L, Long::sum));
            new ProcessBuilder("kill", "-CONT", Long.toString(before.pid())).start().waitFor();
            Process after = new ProcessBuilder(UprobePidProviderTest.bin("ft_count"), "1000").start();
            assertEquals(0, after.waitFor());
            UprobePidProviderTest.awaitGone(before);
            provider.sync();
            assertEquals(1L, calls.get(before.pid()), "the process already running when it was enabled: " + calls);
            assertEquals(1L, calls.get(after.pid()), "the process started after: " + calls);
        } finally {
            before.destroyForcibly();
        }
    }

    /**
     * A probe the kernel refuses is refused alone: another tracer holds a uprobe at inc's entry
     * that counts a semaphore (ref_ctr_offset), and the kernel refuses a second uprobe there that
     * names none (-EINVAL); enabling inc:entry then warns with the kernel's reason and throws
     * nothing, and sq:entry, enabled beside it, sees every call.
     */
    @Test
    void aProbeTheKernelRefusesIsRefusedAloneAndTheRestOfTheEnablingGoesOn() throws Exception {
        String bin = UprobePidProviderTest.bin("ft_count");
        long incAt, semaphoreAt;
        try (org.jdtrace.elf.ElfFile elf = org.jdtrace.elf.ElfFile.open(Path.of(bin))) {
            incAt = elf.fileOffset(elf.symbol("inc").orElseThrow().value(), 1);
            semaphoreAt = elf.fileOffset(elf.symbol("__data_start").orElseThrow().value(), 2);
        }
        PerfEventsImpl other = new PerfEventsImpl(isa); // another tracer
        try (org.jdtrace.perf.UserProbes theirs = other.userProbes(isa.abi().kernelRegsWords(), isa.abi().kernelRegsSpWord(), 0, h -> { })) {
            theirs.attach(bin, new long[] {incAt}, new long[] {semaphoreAt}, 1, 0, false);
            TargetProcess t = create(bin, "1000");
            provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:inc:entry"));
            provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:sq:entry"));
            AtomicLong incs = new AtomicLong(), sqs = new AtomicLong();
            registry.enable(registry.probe("a.out", "inc", "entry"), c -> incs.incrementAndGet());
            registry.enable(registry.probe("a.out", "sq", "entry"), c -> sqs.incrementAndGet());
            t.go();
            assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
            provider.sync();
            assertEquals(0, incs.get(), "inc:entry was refused by the kernel");
            assertEquals(UprobePidProviderTest.calls(1000, false).size(), sqs.get(), "sq:entry saw every call");
            assertEquals(UprobePidProviderTest.untraced(bin, "1000"), Files.readString(files.get(0)));
        } finally {
            other.close();
        }
    }
}
