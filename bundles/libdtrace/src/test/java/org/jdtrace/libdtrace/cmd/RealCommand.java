package org.jdtrace.libdtrace.cmd;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.spi.Provider;

/**
 * dtrace(1M) behind the real framework (with the dtrace provider and {@code more}), consumer
 * service and D session, as a test runs it: each run's standard output and error are kept.
 * {@link #close()} deactivates the service and the framework.
 */
final class RealCommand implements AutoCloseable {

    final DTraceFramework fw = new DTraceFramework();
    final DTraceService dtrace;
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

    RealCommand(Provider... more) {
        fw.addProvider(new DTraceProvider());
        for (Provider p : more) {
            fw.addProvider(p);
        }
        dtrace = new DTraceService(fw, new DSessionFactoryImpl());
    }

    int run(String... argv) {
        outBytes.reset();
        errBytes.reset();
        return new DTraceCommandImpl(dtrace).run(List.of(argv), new ByteArrayInputStream(new byte[0]),
                new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8), () -> false);
    }

    String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        dtrace.deactivate();
        fw.deactivate();
    }
}
