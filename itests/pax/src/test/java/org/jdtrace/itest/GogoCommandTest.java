package org.jdtrace.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Job;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.util.tracker.ServiceTracker;

/** The Gogo `dtrace` and `probes` commands, run through a CommandProcessor session. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class GogoCommandTest {

    @Inject
    CommandProcessor processor;

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return Platform.options();
    }

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private CommandSession session() throws Exception {
        ServiceTracker<Object, Object> t = new ServiceTracker<>(context,
                context.createFilter("(osgi.command.scope=dtrace)"), null);
        t.open(true);
        try {
            assertNotNull("the dtrace shell commands are registered", t.waitForService(30_000));
        } finally {
            t.close();
        }
        return processor.createSession(new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static Path script(String text) throws Exception {
        Path p = Files.createTempFile("itest", ".d");
        p.toFile().deleteOnExit();
        return Files.writeString(p, text);
    }

    @Test
    public void beginTickEnd() throws Exception {
        Path d = script("#pragma D option quiet\n"
                + "BEGIN { i = 0; printf(\"begin\\n\"); }\n"
                + "tick-10ms /i < 3/ { i++; printf(\"tick %d\\n\", i); }\n"
                + "tick-10ms /i >= 3/ { exit(0); }\n"
                + "END { printf(\"end\\n\"); }\n");
        try (CommandSession s = session()) {
            s.execute("dtrace -s " + d);
            assertTrue(out() + err(), out().startsWith("begin\ntick 1\ntick 2\ntick 3\nend\n"));
            assertEquals(out(), "", out().substring("begin\ntick 1\ntick 2\ntick 3\nend\n".length()).strip());
            assertEquals(err.toString(StandardCharsets.UTF_8), 0, s.get("dtrace.status"));
        }
    }

    @Test
    public void exitStatusAndMatchedNotice() throws Exception {
        Path d = script("BEGIN { exit(3); }\n");
        try (CommandSession s = session()) {
            s.execute("dtrace -s " + d);
            assertEquals(err(), 3, s.get("dtrace.status"));
            assertEquals("dtrace: script '" + d + "' matched 1 probe\n", err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    public void probesListsTheDtraceProvider() throws Exception {
        try (CommandSession s = session()) {
            s.execute("probes dtrace:::BEGIN");
            String[] lines = out().split("\n");
            assertEquals("   ID   PROVIDER            MODULE                          FUNCTION NAME", lines[0]);
            assertTrue(out(), lines[1].matches(" *\\d+ +dtrace +BEGIN"));
            assertEquals(2, lines.length);
        }
    }

    @Test
    public void interruptStopsTheEnablingNotTheShell() throws Exception {
        Path d = script("#pragma D option quiet\n"
                + "BEGIN { printf(\"begin\\n\"); }\n"
                + "END { printf(\"end\\n\"); }\n");
        try (CommandSession s = session()) {
            Thread runner = Thread.ofPlatform().start(() -> {
                try {
                    s.execute("dtrace -s " + d);
                } catch (InterruptedException e) {
                    // gogo's execute() gives up waiting for an interrupted job at once; the
                    // command itself goes on to its end (END, aggregations) in its own thread
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!out().contains("begin") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Job job = s.foregroundJob();
            assertNotNull("the dtrace command is the foreground job: " + out() + err(), job);
            job.interrupt();
            while (!out().contains("end") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            runner.join(30_000);
            assertTrue("the command returned after Ctrl-C", !runner.isAlive());
            while (s.get("dtrace.status") == null && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals("begin\n\nend\n", out().replaceAll("\n+$", "\n"));
            assertEquals(0, s.get("dtrace.status"));
            out.reset();
            s.execute("probes dtrace:::END");
            assertTrue("the shell still works", out().contains("END"));
        }
    }

}
