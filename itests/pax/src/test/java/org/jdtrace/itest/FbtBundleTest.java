package org.jdtrace.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTrace;
import org.jdtrace.consumer.Program;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.util.tracker.ServiceTracker;

/**
 * fbt in a Felix that does not know jdtrace (the itests' forked Felix: no launcher, no agent, no
 * Instrumentation service; provider-fbt gets one by self-attach): the jdtrace bundles beside an
 * application bundle (itests/test-app, which knows nothing of jdtrace) that a thread of its own
 * drives. The application is traced through the Gogo dtrace command; provider-fbt is stopped and
 * started under a live enabling (its probes retire, the enabling waits, then fires again); the
 * application bundle is uninstalled and installed again under a live enabling.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class FbtBundleTest {

    static final String APP = "org.jdtrace.itest.app";

    @Inject
    CommandProcessor processor;

    @Inject
    DTrace dtrace;

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return Platform.options();
    }

    private Bundle app;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Before
    public void installApp() throws Exception {
        app = context.installBundle(new File(Platform.TEST_APP).toURI().toString());
        app.start();
    }

    @After
    public void uninstallApp() throws Exception {
        if (app.getState() != Bundle.UNINSTALLED) {
            app.uninstall();
        }
        Bundle fbt = bundle("org.jdtrace.provider.fbt");
        if (fbt.getState() != Bundle.ACTIVE) {
            fbt.start();
        }
    }

    private Bundle bundle(String name) {
        for (Bundle b : context.getBundles()) {
            if (name.equals(b.getSymbolicName())) return b;
        }
        throw new AssertionError("no bundle " + name);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private long lines(String prefix) {
        return out().lines().filter(l -> l.startsWith(prefix)).count();
    }

    private static void workUntil(Consumer c, BooleanSupplier done, String what) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue("timed out waiting for " + what, System.nanoTime() < deadline);
            assertEquals(Consumer.Status.OK, c.work());
        }
    }

    private static void finish(Consumer c) throws Exception {
        c.stop();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (c.work() != Consumer.Status.DONE) {
            assertTrue(System.nanoTime() < deadline);
        }
    }

    @Test
    public void gogoDtraceCountsTheApplicationsCalls() throws Exception {
        ServiceTracker<Object, Object> t = new ServiceTracker<>(context,
                context.createFilter("(osgi.command.scope=dtrace)"), null);
        t.open(true);
        try {
            assertNotNull("the dtrace shell commands are registered", t.waitForService(30_000));
        } finally {
            t.close();
        }
        try (CommandSession s = processor.createSession(new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))) {
            java.nio.file.Path d = java.nio.file.Files.createTempFile("fbt", ".d");
            d.toFile().deleteOnExit();
            java.nio.file.Files.writeString(d, "#pragma D option quiet\n"
                    + "fbt:" + APP + "::entry { @[probefunc] = count(); }\n"
                    + "fbt:" + APP + ":*Calc.add:entry { n++; }\n"
                    + "fbt:" + APP + ":*Calc.add:entry /n >= 10/ { exit(0); }\n"
                    + "END { printa(\"%s %@d\\n\", @); }\n");
            s.execute("dtrace -s " + d);
            String text = out();
            assertEquals(err.toString(StandardCharsets.UTF_8), 0, s.get("dtrace.status"));
            for (String f : new String[] {"Calc.add", "Calc.check", "Greeter.greet"}) {
                assertTrue(text, text.lines().anyMatch(l -> l.matches(APP + "\\." + f + " [1-9][0-9]*")));
            }
        }
    }

    @Test
    public void stoppingFbtRetiresItsProbesAndStartingItFiresThemAgain() throws Exception {
        Bundle fbt = bundle("org.jdtrace.provider.fbt");
        try (Consumer c = dtrace.open()) {
            PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
            c.setOption("quiet", null);
            c.setOption("switchrate", "100hz");
            c.setOption("zdefs", null); // the listing below of retired probes matches nothing, as with dtrace -l
            Program p = c.compile("fbt:" + APP + ":*Calc.add:entry { printf(\"add %d\\n\", arg0); }",
                    "itest.d", List.of("itest.d"));
            assertEquals(1, c.exec(p));
            c.go(ps, ps);
            workUntil(c, () -> lines("add ") >= 5, "fbt:::entry to fire");

            fbt.stop();
            Program listing = c.compileDescription(Consumer.DescriptionKind.NAME, "fbt:" + APP + "::entry");
            assertEquals("fbt's probes retired with it", List.of(), c.list(listing));
            for (int i = 0; i < 5; i++) {
                c.work();
            }
            long settled = lines("add ");
            Thread.sleep(200);
            for (int i = 0; i < 3; i++) {
                c.work();
            }
            assertEquals("nothing fires while fbt is stopped", settled, lines("add "));

            fbt.start();
            workUntil(c, () -> lines("add ") >= settled + 5, "the retained enabling to fire again");
            finish(c);
        }
    }

    @Test
    public void uninstallingTheApplicationRetiresItsProbesAndReinstallingFiresThemAgain() throws Exception {
        try (Consumer c = dtrace.open()) {
            PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
            c.setOption("quiet", null);
            c.setOption("switchrate", "100hz");
            c.setOption("zdefs", null); // the listing below of retired probes matches nothing, as with dtrace -l
            Program p = c.compile("fbt:" + APP + ":*Greeter.greet:return { printf(\"greet %s\\n\", copyinstr(arg1)); }"
                    + " tick-10ms { printf(\"tick\\n\"); }", "itest.d", List.of("itest.d"));
            c.exec(p);
            c.go(ps, ps);
            workUntil(c, () -> lines("greet hello world ") >= 3, "fbt:::return to fire");

            app.uninstall();
            Program listing = c.compileDescription(Consumer.DescriptionKind.NAME, "fbt:" + APP + "::");
            assertEquals("the application's probes retired", List.of(), c.list(listing));
            for (int i = 0; i < 5; i++) {
                c.work();
            }
            long greets = lines("greet ");
            long ticks = lines("tick");
            workUntil(c, () -> lines("tick") >= ticks + 5, "tracing to go on");
            assertEquals("nothing of the application fires", greets, lines("greet "));

            installApp();
            assertTrue(c.list(listing).size() > 0);
            workUntil(c, () -> lines("greet hello world ") >= greets + 3, "the reinstalled application to fire");
            finish(c);
        }
    }
}
