package org.jdtrace.itest;

import static org.junit.Assert.assertFalse;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdtrace.consumer.DTraceCommand;
import org.ops4j.pax.exam.Option;

/**
 * What the itests that trace the C fixtures share: the platform with the fixtures' directory
 * (the build's fixtures/target/bin), dtrace(1M) runs through the DTraceCommand service, the -c
 * target found among this JVM's children, and the clean-up of every fixture process.
 */
final class Commands {

    private Commands() {}

    /** Platform.options() plus jdtrace.itest.fixtures. */
    static Option[] withFixtures() {
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

    static String bin(String name) {
        return new File(System.getProperty("jdtrace.itest.fixtures"), name).getPath();
    }

    /** Kills every fixture process this JVM started that is still there. */
    static void killFixtures() {
        String fixtures = System.getProperty("jdtrace.itest.fixtures");
        ProcessHandle.current().descendants()
                .filter(h -> h.info().command().map(c -> c.startsWith(fixtures)).orElse(false))
                .forEach(ProcessHandle::destroyForcibly);
    }

    /** The -c target: a child of this JVM running {@code bin} (null until it has exec'd). */
    static ProcessHandle target(String bin, long deadlineNanos) throws InterruptedException {
        while (System.nanoTime() < deadlineNanos) {
            Optional<ProcessHandle> h = ProcessHandle.current().children()
                    .filter(c -> c.info().command().map(bin::equals).orElse(false)).findFirst();
            if (h.isPresent()) return h.get();
            Thread.sleep(5);
        }
        return null;
    }

    /** One dtrace(1M) run through the DTraceCommand service, on its own thread. */
    static final class Run {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final AtomicInteger status = new AtomicInteger(Integer.MIN_VALUE);
        final Thread thread;

        Run(DTraceCommand dtrace, String... argv) {
            thread = Thread.ofPlatform().name("itest-dtrace").start(() -> status.set(dtrace.run(List.of(argv),
                    new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), () -> false)));
        }

        int await() throws InterruptedException {
            thread.join(120_000);
            assertFalse("dtrace " + this + " returned", thread.isAlive());
            return status.get();
        }

        String out() {
            return out.toString(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "out: " + out() + " err: " + err.toString(StandardCharsets.UTF_8);
        }
    }
}
