package org.jdtrace.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTrace;
import org.jdtrace.consumer.ProbeInfo;
import org.jdtrace.consumer.Program;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Java static probes (org.jdtrace.sdt) of a real bundle, test-provider's itest:::tick, and the
 * osgi provider's events, in the distribution's bundles: the probes come and go with their
 * bundle (stop, start, uninstall, install again) and with provider-sdt (stop and start; uninstall,
 * refresh and install again, while the declaring bundle runs on untouched) while one
 * enabling holds them, which is kept and fires again each time they return; the framework's
 * bundle and service events fire osgi::: probes, through the consumer and through Gogo's dtrace.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StaticProbeBundleTest {

    private static final String TEST_BUNDLE = "org.jdtrace.itest.provider";
    private static final String TICK = "itest:::tick { printf(\"tick %d %s\\n\", arg0, copyinstr(arg1)); }";

    @Inject
    DTrace dtrace;

    @Inject
    BundleContext context;

    @Inject
    CommandProcessor processor;

    @Configuration
    public Option[] config() {
        return Platform.options();
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private long ticks() {
        return out().lines().filter(l -> l.matches("tick \\d+ tock")).count();
    }

    private Bundle installTestBundle() throws Exception {
        Bundle b = context.installBundle(new File(Platform.TEST_PROVIDER).toURI().toString());
        b.start();
        return b;
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError(symbolicName + " is not installed");
    }

    private static void workUntil(Consumer c, BooleanSupplier done, String what) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue("timed out waiting for " + what, System.nanoTime() < deadline);
            assertEquals(Consumer.Status.OK, c.work());
        }
    }

    private Consumer trace(String d) throws Exception {
        Consumer c = dtrace.open();
        c.setOption("quiet", null);
        c.setOption("zdefs", null);
        c.setOption("switchrate", "100hz");
        Program p = c.compile(d, "itest.d", List.of("itest.d"));
        c.exec(p);
        c.go(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));
        return c;
    }

    private static void finish(Consumer c) throws Exception {
        c.stop();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (c.work() != Consumer.Status.DONE) {
            assertTrue(System.nanoTime() < deadline);
        }
        c.close();
    }

    /** The probe is gone and nothing fires any more (what was in flight is drained first). */
    private void assertRetired(Consumer c, Program listing) throws Exception {
        assertEquals("the probes are retired", List.of(), c.list(listing));
        for (int i = 0; i < 5; i++) {
            c.work();
        }
        long settled = ticks();
        Thread.sleep(100);
        for (int i = 0; i < 3; i++) {
            c.work();
        }
        assertEquals("nothing fires while the probes are retired", settled, ticks());
    }

    private void assertFiresAgain(Consumer c, Program listing) throws Exception {
        long before = ticks();
        workUntil(c, () -> {
            try {
                return c.list(listing).size() == 1;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, "the probe to come back");
        workUntil(c, () -> ticks() >= before + 5, "the retained enabling to fire again");
    }

    @Test
    public void staticProbesComeAndGoWithTheirBundle() throws Exception {
        Bundle b = installTestBundle();
        try {
            Consumer c = trace(TICK);
            Program listing = c.compileDescription(Consumer.DescriptionKind.NAME, "itest:::tick");
            workUntil(c, () -> ticks() >= 5, "itest:::tick to fire");
            List<ProbeInfo> probes = c.list(listing);
            assertEquals(1, probes.size());
            assertEquals(TEST_BUNDLE, probes.get(0).module());
            assertEquals(List.of("long", "string"), probes.get(0).args());

            b.stop();
            assertRetired(c, listing);
            b.start();
            assertFiresAgain(c, listing);

            b.uninstall();
            assertRetired(c, listing);
            b = installTestBundle();
            assertFiresAgain(c, listing);
            finish(c);
        } finally {
            if (b.getState() != Bundle.UNINSTALLED) {
                b.uninstall();
            }
        }
    }

    @Test
    public void stoppingProviderSdtRetiresThemAndStartingItMatchesTheEnablingAgain() throws Exception {
        Bundle b = installTestBundle();
        Bundle sdt = bundle("org.jdtrace.provider.sdt");
        try {
            Consumer c = trace(TICK);
            Program listing = c.compileDescription(Consumer.DescriptionKind.NAME, "itest:::tick");
            workUntil(c, () -> ticks() >= 5, "itest:::tick to fire");
            sdt.stop();
            assertRetired(c, listing);
            assertEquals("the osgi provider goes with provider-sdt", List.of(),
                    c.list(c.compileDescription(Consumer.DescriptionKind.NAME, "osgi:::")));
            sdt.start();
            assertFiresAgain(c, listing);
            finish(c);
        } finally {
            if (sdt.getState() != Bundle.ACTIVE) {
                sdt.start();
            }
            b.uninstall();
        }
    }

    /** Uninstalls {@code b} and refreshes the framework's wiring (what a bundle update does). */
    private void uninstallAndRefresh(Bundle b) throws Exception {
        b.uninstall();
        CountDownLatch refreshed = new CountDownLatch(1);
        context.getBundle(0).adapt(FrameworkWiring.class).refreshBundles(null, e -> refreshed.countDown());
        assertTrue("the framework refreshed", refreshed.await(30, TimeUnit.SECONDS));
    }

    @Test
    public void uninstallingProviderSdtLeavesTheFiringBundleRunningAndItsReturnMatchesAgain() throws Exception {
        Bundle b = installTestBundle();
        Bundle sdt = bundle("org.jdtrace.provider.sdt");
        String location = sdt.getLocation();
        try {
            Consumer c = trace(TICK);
            Program listing = c.compileDescription(Consumer.DescriptionKind.NAME, "itest:::tick");
            workUntil(c, () -> ticks() >= 5, "itest:::tick to fire");
            uninstallAndRefresh(sdt);
            assertRetired(c, listing);
            assertEquals("the declaring bundle is not refreshed with provider-sdt: the API is core-framework's",
                    Bundle.ACTIVE, b.getState());
            sdt = context.installBundle(location);
            sdt.start();
            assertFiresAgain(c, listing);
            assertEquals(1, c.list(c.compileDescription(Consumer.DescriptionKind.NAME, "osgi:::bundle-started")).size());
            finish(c);
        } finally {
            if (sdt.getState() == Bundle.UNINSTALLED) {
                sdt = context.installBundle(location);
            }
            if (sdt.getState() != Bundle.ACTIVE) {
                sdt.start();
            }
            b.uninstall();
        }
    }

    @Test
    public void theFrameworksBundleAndServiceEventsAreProbes() throws Exception {
        Consumer c = trace("osgi:::bundle-* /copyinstr(arg0) == \"" + TEST_BUNDLE + "\"/ "
                + "{ printf(\"%s %s %d\\n\", probename, copyinstr(arg0), arg1); }\n"
                + "osgi:::service-registered, osgi:::service-unregistering /copyinstr(arg2) == \"" + TEST_BUNDLE + "\"/ "
                + "{ printf(\"%s %s\\n\", probename, copyinstr(arg0)); }\n");
        Bundle b = installTestBundle();
        long id = b.getBundleId();
        workUntil(c, () -> out().contains("service-registered org.jdtrace.spi.Provider"), "the test provider's service");
        b.stop();
        b.uninstall();
        workUntil(c, () -> out().contains("bundle-uninstalled"), "bundle-uninstalled");
        finish(c);
        List<String> events = out().lines().filter(l -> l.startsWith("bundle-") && !l.startsWith("bundle-unresolved")).toList();
        List<String> expected = List.of("installed", "resolved", "starting", "started", "stopping", "stopped", "uninstalled")
                .stream().map(e -> "bundle-" + e + " " + TEST_BUNDLE + " " + id).toList();
        assertEquals(out(), expected, events);
        assertTrue(out(), out().contains("service-unregistering org.jdtrace.spi.Provider\n"));
        String o = out();
        assertTrue(o, o.indexOf("bundle-starting") < o.indexOf("service-registered")
                && o.indexOf("service-unregistering") < o.indexOf("bundle-stopped"));
    }

    @Test
    public void osgiProbesInTheGogoShell() throws Exception {
        ServiceTracker<Object, Object> t = new ServiceTracker<>(context,
                context.createFilter("(osgi.command.scope=dtrace)"), null);
        t.open(true);
        try {
            assertNotNull("the dtrace shell commands are registered", t.waitForService(30_000));
        } finally {
            t.close();
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AtomicReference<Object> status = new AtomicReference<>();
        try (CommandSession s = processor.createSession(new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))) {
            Thread runner = Thread.ofPlatform().start(() -> {
                try {
                    s.execute("dtrace -q -n 'osgi:::bundle-started /copyinstr(arg0) == \"" + TEST_BUNDLE
                            + "\"/ { printf(\"started %s %d\\n\", copyinstr(arg0), arg1); }'");
                    status.set(s.get("dtrace.status"));
                } catch (InterruptedException e) {
                    // gogo gives up waiting for an interrupted job; the command ends on its own
                } catch (Exception e) {
                    status.set(e);
                }
            });
            // the command enables its probe some time after it starts: start the bundle until
            // the command has seen it start, then Ctrl-C it
            long deadline = System.nanoTime() + 30_000_000_000L;
            int installs = 0;
            while (!out().contains("started " + TEST_BUNDLE)) {
                assertTrue("dtrace did not see the bundle start: " + out() + err, System.nanoTime() < deadline);
                installs++;
                Bundle b = installTestBundle();
                b.uninstall();
                Thread.sleep(100);
            }
            while (s.foregroundJob() == null) {
                assertTrue("no foreground job", System.nanoTime() < deadline);
                Thread.sleep(10);
            }
            s.foregroundJob().interrupt();
            runner.join(30_000);
            while (s.get("dtrace.status") == null && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals("status; err: " + err.toString(StandardCharsets.UTF_8) + status.get(), 0, s.get("dtrace.status"));
            List<String> lines = out().lines().filter(l -> !l.isEmpty()).toList();
            assertTrue(out(), !lines.isEmpty() && lines.size() <= installs);
            for (String l : lines) {
                assertTrue(out(), l.matches("started " + TEST_BUNDLE.replace(".", "\\.") + " \\d+"));
            }
            assertFalse(err.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8).contains("Exception"));
        }
    }
}
