package org.jdtrace.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.inject.Inject;
import org.jdtrace.consumer.DTraceCommand;
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
 * The perf-events bundle in the real platform (every bundle of the distribution, forked Felix),
 * stopped and started while a machine-wide syscall enabling traces: the stop closes every perf
 * event, BPF program and BPF map of this JVM (counted in /proc/self/fd, programs checked in
 * /proc/self/fdinfo), the enabling is kept (fasttrap's ptrace syscall provider answers it
 * meanwhile for the -c target), and the bundle started again fires it through the kernel again.
 * tick-N across the same stop: it fires in the interrupted context through the bundle's clock, on
 * the profile provider's JVM timer while the bundle is stopped, and through the clock again after.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PerfEventsBundleTest {

    private static final String PERF = "org.jdtrace.perf";

    @Inject
    BundleContext context;

    @Inject
    DTraceCommand dtrace;

    @Configuration
    public Option[] config() {
        File root;
        try {
            root = new File(System.getProperty("jdtrace.dist")).getCanonicalFile().getParentFile().getParentFile().getParentFile();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        List<Option> o = new ArrayList<>(Arrays.asList(Platform.options()));
        o.add(systemProperty("jdtrace.itest.fixtures").value(new File(root, "fixtures/target/bin").getPath()));
        return o.toArray(Option[]::new);
    }

    @After
    public void killOurProcesses() {
        String fixtures = System.getProperty("jdtrace.itest.fixtures");
        ProcessHandle.current().descendants()
                .filter(h -> h.info().command().map(c -> c.startsWith(fixtures)).orElse(false))
                .forEach(ProcessHandle::destroyForcibly);
    }

    /** This JVM's perf event, BPF program and BPF map descriptors, by kind. */
    static Map<String, Integer> kernelFds() throws IOException {
        Map<String, Integer> n = new TreeMap<>(Map.of("perf_event", 0, "bpf-prog", 0, "bpf-map", 0));
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path f : s.toList()) {
                String link;
                try {
                    link = Files.readSymbolicLink(f).toString();
                } catch (IOException e) {
                    continue;
                }
                String info = null;
                if (link.contains("bpf-prog")) {
                    try {
                        info = Files.readString(Path.of("/proc/self/fdinfo/" + f.getFileName()));
                    } catch (IOException e) {
                        continue; // closed since it was listed (a program swapped in meanwhile)
                    }
                }
                for (String k : n.keySet()) if (link.contains(k)) n.merge(k, 1, Integer::sum);
                if (info != null) {
                    assertTrue("a tracepoint, perf-event or uprobe program: " + info,
                            info.contains("prog_type:\t5") || info.contains("prog_type:\t7") || info.contains("prog_type:\t2"));
                }
            }
        }
        return n;
    }

    private Bundle bundle(String bsn) {
        return Arrays.stream(context.getBundles()).filter(b -> bsn.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("no bundle " + bsn));
    }

    @Test
    public void stoppingThePerfBundleMidTraceClosesEveryEventAndStartingItFiresAgain() throws Exception {
        Map<String, Integer> baseline = kernelFds();
        String bin = new File(System.getProperty("jdtrace.itest.fixtures"), "ft_sys").getPath();
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        AtomicInteger status = new AtomicInteger(Integer.MIN_VALUE);
        // ft_sys 600 loop: 600 getppid()s, then 600 rounds of getppid() and a 5 ms sleep (3 s or more)
        Thread run = Thread.ofPlatform().start(() -> status.set(dtrace.run(List.of("-q", "-n",
                "syscall::getppid:entry /pid == $target/ { @[probeprov] = count(); } END { printa(\"hits %@d\\n\", @); }",
                "-c", bin + " 600 loop"), new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), () -> false)));
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (kernelFds().get("bpf-prog") < baseline.get("bpf-prog") + 2 && System.nanoTime() < deadline) Thread.sleep(10);
        Map<String, Integer> tracing = kernelFds();
        assertTrue("BPF programs while tracing: " + tracing, tracing.get("bpf-prog") >= baseline.get("bpf-prog") + 2);
        // its first 600 getppid()s are made (it writes "ft_sys" after them) while the kernel side is up
        while (!(out.toString(StandardCharsets.UTF_8) + err).contains("ft_sys\n") && System.nanoTime() < deadline && run.isAlive()) {
            Thread.sleep(10);
        }
        assertTrue("the first 600 calls made while tracing: " + out + err, (out.toString(StandardCharsets.UTF_8) + err).contains("ft_sys\n"));

        Bundle perf = bundle(PERF);
        perf.stop();
        try {
            assertEquals("every perf event and BPF object closed by the stop", baseline, kernelFds());
            Thread.sleep(300);
        } finally {
            perf.start();
        }
        deadline = System.nanoTime() + 30_000_000_000L;
        while (kernelFds().get("bpf-prog") < baseline.get("bpf-prog") + 2 && System.nanoTime() < deadline && run.isAlive()) Thread.sleep(10);
        assertTrue("the kept enabling fires through the kernel again: " + kernelFds(), !run.isAlive()
                || kernelFds().get("bpf-prog") >= baseline.get("bpf-prog") + 2);
        run.join(120_000);
        assertFalse(run.isAlive());
        String o = out.toString(StandardCharsets.UTF_8);
        assertEquals(o + err, 0, status.get());
        java.util.regex.Matcher hits = java.util.regex.Pattern.compile("hits (\\d+)\n").matcher(o);
        assertTrue("hits counted: " + o + err, hits.find());
        // every call the kernel counted before the stop is folded in as its map goes, and those
        // after the restart from the new map's making (those of the gap on fasttrap's ptrace path)
        int n = Integer.parseInt(hits.group(1));
        assertTrue("the 600 calls made before the stop counted, none twice: " + o + err, n >= 600 && n <= 1200);
        Thread.sleep(200);
        assertEquals("nothing left when the trace ends", baseline, kernelFds());
    }

    @Test
    public void tickGoesOnThroughAStopOfThePerfBundleOnAJvmTimer() throws Exception {
        Map<String, Integer> baseline = kernelFds();
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        AtomicInteger status = new AtomicInteger(Integer.MIN_VALUE);
        // a firing in an interrupted context has a kernel or a user pc; the JVM timer's has neither
        Thread run = Thread.ofPlatform().start(() -> status.set(dtrace.run(List.of("-q", "-n",
                "tick-20ms { @[arg0 != 0 || arg1 != 0 ? \"interrupted\" : \"timer\"] = count(); n++; }"
                        + " tick-20ms /n == 200/ { exit(0); } END { printa(\"%s %@d\\n\", @); }"),
                new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), () -> false)));
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (kernelFds().get("perf_event") == baseline.get("perf_event") && System.nanoTime() < deadline) Thread.sleep(10);
        assertTrue("tick-20ms on a perf event: " + kernelFds(), kernelFds().get("perf_event") > baseline.get("perf_event"));
        Thread.sleep(1000);
        Bundle perf = bundle(PERF);
        perf.stop();
        try {
            assertEquals("the tick's perf event closed by the stop", baseline, kernelFds());
            Thread.sleep(1000);
            assertTrue("still ticking", run.isAlive());
        } finally {
            perf.start();
        }
        run.join(60_000);
        assertFalse(run.isAlive());
        String o = out.toString(StandardCharsets.UTF_8);
        assertEquals(o + err, 0, status.get());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("interrupted (\\d+)").matcher(o);
        java.util.regex.Matcher t = java.util.regex.Pattern.compile("timer (\\d+)").matcher(o);
        assertTrue("firings through the kernel's clock: " + o + err, m.find() && Integer.parseInt(m.group(1)) >= 40);
        assertTrue("firings on the JVM timer while the bundle was stopped: " + o + err, t.find() && Integer.parseInt(t.group(1)) >= 25);
        int all = Integer.parseInt(m.group(1)) + Integer.parseInt(t.group(1));
        assertTrue("200 firings, and the few before the exit took effect: " + o, all >= 200 && all <= 205);
        Thread.sleep(200);
        assertEquals("nothing left when the trace ends", baseline, kernelFds());
    }
}
