package org.jdtrace.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import javax.inject.Inject;
import org.jdtrace.consumer.DTraceCommand;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
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
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The pid provider in the real platform (every bundle of the distribution, forked Felix): dtrace
 * -c traces a fixture through the DTraceCommand service; stopping the provider-fasttrap bundle,
 * or the isa-amd64 bundle it needs, in the middle of tracing removes every breakpoint from the
 * target (read back from /proc/PID/mem), which then runs to its normal end with its right
 * output; started again, the bundle traces again. fasttrap-max comes from ConfigAdmin (pid
 * org.jdtrace.fasttrap). Every process a test starts is killed in @After if still there.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PidProviderBundleTest {

    private static final String FASTTRAP = "org.jdtrace.provider.fasttrap";
    private static final String ISA = "org.jdtrace.isa.amd64";

    @Inject
    BundleContext context;

    @Inject
    DTraceCommand dtrace;

    @Inject
    ConfigurationAdmin configAdmin;

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

    private static boolean hasInt3(byte[] code) {
        for (byte b : code) if (b == (byte) 0xcc) return true;
        return false;
    }

    /**
     * Traces every call and return of tick() in ft_threads (8 threads), stops {@code bsn}
     * mid-run: tick's code in the target is the file's again and no thread is traced; the target
     * ends normally with its right output and the command returns; started again, the bundle
     * traces a new run with exact counts.
     */
    private void stopWhileTracing(String bsn) throws Exception {
        String bin = Commands.bin("ft_threads");
        ElfSymbol tick;
        byte[] original;
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            tick = elf.symbol("tick").orElseThrow();
            original = elf.bytes(tick);
        }
        // long enough that it still runs, untraced, seconds after the bundle stopped
        Run run = new Run(dtrace, "-q", "-n", "pid$target:a.out:tick:entry, pid$target:a.out:tick:return { }",
                "-c", bin + " 400000000");
        long deadline = System.nanoTime() + 60_000_000_000L;
        ProcessHandle t = Commands.target(bin, deadline);
        assertNotNull("the -c target runs " + run, t);
        long at = Targets.address(t.pid(), bin, tick);
        while (!hasInt3(Targets.memory(t.pid(), at, original.length)) && System.nanoTime() < deadline) Thread.sleep(2);
        assertTrue("tick is instrumented while tracing", hasInt3(Targets.memory(t.pid(), at, original.length)));
        Thread.sleep(200); // hits going on in 8 threads

        Bundle b = bundle(bsn);
        b.stop();
        try {
            assertTrue("the target outlives the stop", t.isAlive());
            assertArrayEquals("no int3 left in tick after stopping " + bsn, original, Targets.memory(t.pid(), at, original.length));
            assertEquals("no thread of the target is traced", "0", Targets.tracerPid(t.pid()));
            assertEquals(run.toString(), 0, run.await());
            assertEquals("the target ran to its normal end: " + run, "3200000000", run.out().strip());
        } finally {
            b.start();
        }

        // back again: the next command traces with exact counts
        Run again = null;
        long until = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < until) {
            again = new Run(dtrace, "-q", "-n", "pid$target:a.out:tick:entry { @ = count(); } END { printa(\"entries %@d\\n\", @); }",
                    "-c", bin + " 1000");
            if (again.await() == 0) break;
            Thread.sleep(100); // the provider's service is coming back
        }
        assertNotNull(again);
        assertEquals(again.toString(), 0, again.status.get());
        assertTrue(again.toString(), again.out().contains("8000\n") && again.out().contains("entries 8000\n"));
    }

    @Test
    public void stoppingTheFasttrapBundleWhileTracingRemovesEveryBreakpoint() throws Exception {
        stopWhileTracing(FASTTRAP);
    }

    @Test
    public void stoppingTheIsaBundleWhileTracingRemovesEveryBreakpoint() throws Exception {
        stopWhileTracing(ISA);
    }

    /** dtrace -l with -c lists entry, return and every instruction offset of main ($target expanded). */
    @Test
    public void listingAFunctionOfTheTarget() throws Exception {
        Run run = new Run(dtrace, "-l", "-n", "pid$target:a.out:main:", "-c", Commands.bin("hello"));
        assertEquals(run.toString(), 0, run.await());
        List<String> names = run.out().lines().skip(1).map(l -> l.substring(l.lastIndexOf(' ') + 1)).toList();
        assertTrue(run.toString(), names.contains("entry") && names.contains("return") && names.contains("0"));
        assertTrue(run.toString(), run.out().lines().skip(1).allMatch(l -> l.matches(" *\\d+ +pid\\d+ +a\\.out +main \\S+")));
        assertTrue(run.toString(), names.stream().filter(n -> n.matches("[0-9a-f]+")).count() >= 5);
    }

    /** fasttrap-max from a ConfigAdmin configuration: too few refuses the whole description, deleting restores it. */
    @Test
    public void fasttrapMaxFromConfigAdmin() throws Exception {
        org.osgi.service.cm.Configuration c = configAdmin.getConfiguration("org.jdtrace.fasttrap", "?");
        c.update(new Hashtable<>(java.util.Map.of("fasttrap-max", 3)));
        try {
            Run run = null;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                run = new Run(dtrace, "-l", "-n", "pid$target:a.out:main:", "-c", Commands.bin("hello"));
                if (run.await() == 1 && run.toString().contains("fasttrap-max (3)")) break;
                Thread.sleep(100); // SCR applies the configuration asynchronously
            }
            assertNotNull(run);
            assertEquals(run.toString(), 1, run.status.get());
            String err = run.err.toString(StandardCharsets.UTF_8);
            assertTrue(err, err.startsWith("dtrace: invalid probe specifier pid$target:a.out:main:: failed to create probes"));
            assertTrue(err, err.contains("exceed fasttrap-max (3)") && err.lines().count() == 1);
        } finally {
            c.delete();
        }
        Run ok = null;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            ok = new Run(dtrace, "-l", "-n", "pid$target:a.out:main:", "-c", Commands.bin("hello"));
            if (ok.await() == 0) break;
            Thread.sleep(100);
        }
        assertNotNull(ok);
        assertEquals("the default limit is back: " + ok, 0, ok.status.get());
    }
}
