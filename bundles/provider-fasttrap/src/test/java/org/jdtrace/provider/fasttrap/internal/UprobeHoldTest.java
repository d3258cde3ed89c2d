package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.proc.ProcessControl.Evaltime;
import org.jdtrace.proc.Procfs;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.Test;

/**
 * Destructive actions at pid probes on the kernel's uprobes act at the hit (Holds): the process is
 * held at a hit of a probe whose clauses act on it (Probe.procDestructive) until they ran in the
 * JVM. ft_hold tells from inside the program when an action took effect; without the hold each of
 * these would see the action late (after the traced function returned, or never).
 */
class UprobeHoldTest {

    private static final long SIGUSR1 = 10;

    /** ft_hold created held (as by -c) with its output file, and the pid probe on a function's entry (not enabled). */
    private record Target(Path out, TargetProcess t, TestRegistry.TestProbe probe) {}

    private static Target start(UprobeTestBed bed, String function, String... args) throws Exception {
        Path out = bed.out();
        String[] argv = new String[args.length + 1];
        argv[0] = UprobePidProviderTest.bin("ft_hold");
        System.arraycopy(args, 0, argv, 1, args.length);
        TargetProcess t = bed.create(out, Evaltime.POSTINIT, argv);
        bed.provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:" + function + ":entry"));
        return new Target(out, t, bed.registry.probe("a.out", function, "entry"));
    }

    /** raise(SIGUSR1) at tick's entry for call K: the handler runs before tick(K)'s body (calls == K), in the hitting thread. */
    @Test
    void raiseAtAnEntryProbeIsDeliveredBeforeTheFunctionBodyRuns() throws Exception {
        try (UprobeTestBed bed = new UprobeTestBed()) {
            Target g = start(bed, "tick", "raise", "60");
            Path out = g.out();
            TargetProcess t = g.t();
            TestRegistry.TestProbe p = g.probe();
            p.procDestructive = true;
            AtomicLong hits = new AtomicLong();
            bed.registry.enable(p, c -> {
                hits.incrementAndGet();
                if (c.arg(0) == 30) c.raise((int) SIGUSR1);
            });
            t.go();
            assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
            assertEquals("seen 30 tid " + t.pid() + " main " + t.pid(), Files.readString(out).strip());
            assertEquals(60, hits.get());
            assertEquals(60, bed.provider.control().openKernelSites().held, "every hit held the process");
        }
    }

    /**
     * copyout at peek's entry, four threads hitting at once: every call returns what the clause
     * wrote, never the value the thread stored (several hits held at once are each acted on
     * before their thread runs on).
     */
    @Test
    void copyoutAtEntryChangesWhatTheFunctionReadsInEveryThread() throws Exception {
        try (UprobeTestBed bed = new UprobeTestBed()) {
            Target g = start(bed, "peek", "copyout", "50", "4");
            Path out = g.out();
            TargetProcess t = g.t();
            TestRegistry.TestProbe p = g.probe();
            p.procDestructive = true;
            byte[] minusOne = new byte[8];
            java.util.Arrays.fill(minusOne, (byte) 0xff);
            bed.registry.enable(p, c -> c.copyout(minusOne, c.arg(0)));
            t.go();
            assertEquals(0, t.awaitExit(120, TimeUnit.SECONDS));
            assertEquals("written 200 of 200", Files.readString(out).strip());
        }
    }

    /**
     * stop() leaves the process stopped at the probe (it does not get past tick) until dtrace lets
     * it go, which continues it; a process grabbed as by dtrace -p.
     */
    @Test
    void stopLeavesTheProcessStoppedAtTheProbeUntilDtraceLetsItGo() throws Exception {
        try (UprobeTestBed bed = new UprobeTestBed()) {
            Path out = bed.out();
            ProcessHandle proc = UprobePidProviderTest.orphan(out, "FT_STOP=1", UprobePidProviderTest.bin("ft_hold"), "stop");
            try {
                UprobePidProviderTest.awaitStopped(proc.pid());
                TargetProcess t = bed.provider.control().grab((int) proc.pid());
                bed.provider.provide(ProbeDescription.parse("pid" + proc.pid() + ":a.out:tick:entry"));
                TestRegistry.TestProbe p = bed.registry.probe("a.out", "tick", "entry");
                p.procDestructive = true;
                AtomicLong hits = new AtomicLong();
                bed.registry.enable(p, c -> {
                    hits.incrementAndGet();
                    c.stopProcess();
                });
                t.go();
                Sys.current().kill((int) proc.pid(), Sys.SIGCONT); // past its own SIGSTOP, into tick
                Holds holds = bed.provider.control().holds();
                for (int i = 0; i < 1000 && !holds.stoppedByStop((int) proc.pid()); i++) Thread.sleep(10);
                assertTrue(holds.stoppedByStop((int) proc.pid()), "stopped by stop()");
                Thread.sleep(300);
                assertEquals('T', Procfs.stat(proc.pid()).state(), "still stopped");
                assertEquals("", Files.readString(out), "not past tick");
                assertEquals(1, hits.get());
                t.release(); // dtrace's end: it lets the process go
                UprobePidProviderTest.awaitGone(proc);
                assertEquals("after", Files.readString(out).strip());
                assertFalse(holds.stoppedByStop((int) proc.pid()));
            } finally {
                proc.destroyForcibly();
            }
        }
    }

    /**
     * copyinstr(arg0) of a string on a file page the process mapped and never touched: the BPF
     * program cannot read it at the hit (a uprobe cannot fault the page in), so the hit holds the
     * process and the JVM reads the string from it before it runs on and overwrites it.
     */
    @Test
    void aStringOnAPageTheProcessNeverTouchedIsReadWhileItIsHeld() throws Exception {
        try (UprobeTestBed bed = new UprobeTestBed()) {
            Path cold = bed.out();
            Files.write(cold, "cold path string\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            Target g = start(bed, "take", "cold", cold.toString());
            Path out = g.out();
            TargetProcess t = g.t();
            TestRegistry.TestProbe p = g.probe();
            p.userStrings = java.util.Set.of(0);
            java.util.concurrent.atomic.AtomicReference<String> got = new java.util.concurrent.atomic.AtomicReference<>();
            bed.registry.enable(p, c -> got.set(c.copyinstr(c.arg(0), 256)));
            t.go();
            assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
            bed.provider.sync();
            assertEquals("took", Files.readString(out).strip());
            assertEquals("cold path string", got.get());
            assertEquals(1, bed.provider.control().openKernelSites().held, "the hit held the process");
        }
    }

    /** A probe without destructive clauses never holds the process: every hit fires, none stops it. */
    @Test
    void aProbeWithoutDestructiveClausesNeverHolds() throws Exception {
        try (UprobeTestBed bed = new UprobeTestBed()) {
            Target g = start(bed, "tick", "raise", "5000");
            Path out = g.out();
            TargetProcess t = g.t();
            AtomicLong hits = new AtomicLong();
            bed.registry.enable(g.probe(), c -> hits.incrementAndGet());
            t.go();
            assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
            bed.provider.sync();
            assertEquals(5000, hits.get());
            assertEquals(0, bed.provider.control().openKernelSites().held);
            assertEquals("seen -1 tid 0 main " + t.pid(), Files.readString(out).strip());
        }
    }
}
