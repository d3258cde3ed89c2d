package org.jdtrace.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.TreeSet;
import javax.inject.Inject;
import org.jdtrace.consumer.DTraceCommand;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.elf.SdtNote;
import org.jdtrace.itest.Commands.Run;
import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * illumos bug 6573659 in OSGi form (every bundle of the distribution, forked Felix): ft_usdt
 * traced by pid probes and USDT probes at once, a pid offset probe on the very instruction of a
 * USDT site. Stopping provider-sdt, and separately uninstalling it, retires the USDT probes and
 * restores the semaphore (read back from /proc/PID/mem) while the pid probes count every hit;
 * the target ends normally with its right output; started or installed again, the retained
 * enabling fires again. Stopping provider-fasttrap with USDT probes enabled leaves the code as
 * in the file and the semaphore at 0; started again, USDT tracing works.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class UsdtBundleTest {

    private static final String SDT = "org.jdtrace.provider.sdt";
    private static final String FASTTRAP = "org.jdtrace.provider.fasttrap";

    @Inject
    BundleContext context;

    @Inject
    DTraceCommand dtrace;

    @Configuration
    public Option[] config() {
        return Commands.withFixtures();
    }

    @After
    public void killOurProcesses() {
        Commands.killFixtures();
    }

    private Bundle bundle(String bsn) {
        return Arrays.stream(context.getBundles()).filter(b -> bsn.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("no bundle " + bsn));
    }

    private static ProcessHandle target(String bin) throws InterruptedException {
        return Commands.target(bin, System.nanoTime() + 60_000_000_000L);
    }

    private static void awaitOutput(Run r, String text) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!r.out().contains(text) && System.nanoTime() < deadline) Thread.sleep(5);
        assertTrue("waiting for " + text + ": " + r, r.out().contains(text));
    }

    /** The last i a jdt:::tick firing printed ("u i"), or -1. */
    private static long lastFired(Run r) {
        return r.out().lines().filter(l -> l.startsWith("u ")).mapToLong(l -> Long.parseLong(l.substring(2))).max().orElse(-1);
    }

    private static void awaitFiring(Run r, long after) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (lastFired(r) <= after && System.nanoTime() < deadline) Thread.sleep(5);
        assertTrue("USDT probes fire again after " + after + ": " + r, lastFired(r) > after);
    }

    @Test
    public void stoppingAndUninstallingProviderSdtLeavesThePidProbesFiring() throws Exception {
        String bin = Commands.bin("ft_usdt");
        SdtNote tick, sum;
        ElfSymbol work;
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            tick = elf.sdtNotes().stream().filter(n -> n.name().equals("tick")).findFirst().orElseThrow();
            sum = elf.sdtNotes().stream().filter(n -> n.name().equals("expensive__sum")).findFirst().orElseThrow();
            work = elf.symbol("work").orElseThrow();
        }
        int n = 6000;
        String d = "pid$target:a.out:work:entry { @e = count(); }"
                + " pid$target:a.out:work:" + Long.toHexString(tick.pc() - work.value()) + " { @o = count(); }"
                + " jdt$target:::tick { printf(\"u %d\\n\", arg1); }"
                + " jdt$target:::expensive-sum { @s = count(); }"
                + " END { printa(\"entry %@d\\n\", @e); printa(\"offset %@d\\n\", @o); }";
        Run r = new Run(dtrace, "-q", "-n", d, "-c", bin + " " + n + " 1");
        ProcessHandle t = target(bin);
        assertNotNull(r.toString(), t);
        long semaphore = Targets.address(t.pid(), bin, work) - work.value() + sum.semaphore();
        awaitOutput(r, "u 100\n");
        assertArrayEquals(new byte[] {1, 0}, Targets.memory(t.pid(), semaphore, 2));

        Bundle sdt = bundle(SDT);
        sdt.stop();
        assertArrayEquals("stopped: semaphore restored", new byte[] {0, 0}, Targets.memory(t.pid(), semaphore, 2));
        assertTrue(t.isAlive());
        Thread.sleep(300);
        long before = lastFired(r);
        sdt.start();
        awaitFiring(r, before);

        String location = sdt.getLocation();
        sdt.uninstall();
        assertArrayEquals("uninstalled: semaphore restored", new byte[] {0, 0}, Targets.memory(t.pid(), semaphore, 2));
        assertTrue(t.isAlive());
        Thread.sleep(300);
        before = lastFired(r);
        Bundle again = context.installBundle(location);
        again.start();
        awaitFiring(r, before);

        assertEquals(r.toString(), 0, r.await());
        assertTrue("every call counted at entry: " + r, r.out().contains("entry " + n + "\n"));
        assertTrue("every hit of the shared int3 counted: " + r, r.out().contains("offset " + n + "\n"));
        assertTrue("the program's output: " + r, r.out().contains("sum " + (long) n * (n - 1) + " expensive "));
        TreeSet<Long> fired = new TreeSet<>();
        r.out().lines().filter(l -> l.startsWith("u ")).forEach(l -> fired.add(Long.parseLong(l.substring(2))));
        assertTrue("gaps while provider-sdt was away", fired.size() < n);
    }

    @Test
    public void stoppingFasttrapWithUsdtProbesEnabledRemovesEveryInt3() throws Exception {
        String bin = Commands.bin("ft_usdt");
        SdtNote sum;
        ElfSymbol work;
        byte[] original;
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            sum = elf.sdtNotes().stream().filter(n -> n.name().equals("expensive__sum")).findFirst().orElseThrow();
            work = elf.symbol("work").orElseThrow();
            original = elf.bytes(work);
        }
        Run r = new Run(dtrace, "-q", "-n", "jdt$target:::tick { printf(\"u %d\\n\", arg1); } jdt$target:::expensive-sum { }",
                "-c", bin + " 4000 1");
        ProcessHandle t = target(bin);
        assertNotNull(r.toString(), t);
        long at = Targets.address(t.pid(), bin, work);
        long semaphore = at - work.value() + sum.semaphore();
        awaitOutput(r, "u 100\n");
        assertFalse("work is instrumented", Arrays.equals(original, Targets.memory(t.pid(), at, original.length)));
        Bundle fasttrap = bundle(FASTTRAP);
        fasttrap.stop();
        try {
            assertArrayEquals("no int3 left in work", original, Targets.memory(t.pid(), at, original.length));
            assertArrayEquals("semaphore restored", new byte[] {0, 0}, Targets.memory(t.pid(), semaphore, 2));
            assertEquals("not traced any more", "0", Targets.tracerPid(t.pid()));
            assertEquals(r.toString(), 0, r.await());
        } finally {
            fasttrap.start();
        }
        Run again = null;
        long until = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < until) {
            again = new Run(dtrace, "-q", "-n", "jdt$target:::tick { @ = count(); } END { printa(\"ticks %@d\\n\", @); }",
                    "-c", bin + " 500");
            if (again.await() == 0) break;
            Thread.sleep(100);
        }
        assertNotNull(again);
        assertTrue(again.toString(), again.out().contains("ticks 500\n"));
    }
}
