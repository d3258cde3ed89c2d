package org.jdtrace.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTrace;
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

/**
 * A provider bundle comes, goes and comes back while an enabling holds its probe: the probes are
 * retired when the bundle is uninstalled, the enabling is kept, and it matches and fires again
 * once the bundle is reinstalled, with no new command.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ProviderLifecycleTest {

    @Inject
    DTrace dtrace;

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return Platform.options();
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private long fired() {
        return out.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("fire ")).count();
    }

    private Bundle installProvider() throws Exception {
        Bundle b = context.installBundle(new File(Platform.TEST_PROVIDER).toURI().toString());
        b.start();
        return b;
    }

    private static void workUntil(Consumer c, BooleanSupplier done, String what) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue("timed out waiting for " + what, System.nanoTime() < deadline);
            assertEquals(Consumer.Status.OK, c.work());
        }
    }

    @Test
    public void retireAndMatchAgain() throws Exception {
        Bundle provider = installProvider();
        try (Consumer c = dtrace.open()) {
            PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
            c.setOption("quiet", null);
            c.setOption("switchrate", "100hz");
            Program p = c.compile("test:::fire { printf(\"fire %d\\n\", arg0); }", "itest.d", List.of("itest.d"));
            assertEquals(1, c.exec(p));
            Program listing = c.compileDescription(Consumer.DescriptionKind.NAME, "test:::fire");
            assertEquals(1, c.list(listing).size());
            c.go(ps, ps);
            workUntil(c, () -> fired() >= 5, "the probe to fire");

            provider.uninstall();
            assertEquals("the probes are retired with their provider", List.of(), c.list(listing));
            for (int i = 0; i < 5; i++) {
                c.work(); // drain what fired before the retirement
            }
            long settled = fired();
            Thread.sleep(100);
            for (int i = 0; i < 3; i++) {
                c.work();
            }
            assertEquals("nothing fires while the provider is gone", settled, fired());

            provider = installProvider();
            assertEquals("the probe is back", 1, c.list(listing).size());
            workUntil(c, () -> fired() >= settled + 5, "the retained enabling to fire again");

            c.stop();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (c.work() != Consumer.Status.DONE) {
                assertTrue(System.nanoTime() < deadline);
            }
        } finally {
            if (provider.getState() != Bundle.UNINSTALLED) {
                provider.uninstall();
            }
        }
    }
}
