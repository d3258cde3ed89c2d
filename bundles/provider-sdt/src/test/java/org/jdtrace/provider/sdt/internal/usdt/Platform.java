package org.jdtrace.provider.sdt.internal.usdt;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jdtrace.libdtrace.cmd.DTraceCommandImpl;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.provider.fasttrap.internal.PidProvider;

/**
 * The real platform without OSGi: core's framework and D consumer, dtrace(1M)'s command line,
 * provider-fasttrap's pid provider (the Fasttrap service) and this bundle's USDT provider, wired
 * as DS would wire them. {@link #stopUsdt()}/{@link #startUsdt()} do what stopping and starting
 * provider-sdt does to the framework (its Provider service goes, its component deactivates).
 */
final class Platform implements AutoCloseable {

    static final Isa ISA = new Amd64Isa();

    final DTraceFramework fw = new DTraceFramework();
    final PidProvider pid;
    /** The kernel's perf events when the pid provider puts probes on uprobes, else null (ptrace). */
    final org.jdtrace.perf.internal.PerfEventsImpl perf;
    final DTraceService dtrace;
    final DTraceCommandImpl command;
    volatile UsdtProvider usdt;

    Platform() {
        this(false);
    }

    /** With {@code uprobes}, pid and USDT probes on the kernel's uprobes (perf-events), else on ptrace. */
    Platform(boolean uprobes) {
        perf = uprobes ? new org.jdtrace.perf.internal.PerfEventsImpl(ISA) : null;
        pid = new PidProvider(ISA, 250_000, perf);
        fw.addProvider(new DTraceProvider());
        fw.addProvider(pid);
        DSessionFactoryImpl sessions = new DSessionFactoryImpl();
        set(sessions, "isa", ISA);
        dtrace = new DTraceService(fw, sessions);
        command = new DTraceCommandImpl(dtrace);
        set(command, "processControl", pid.control());
        startUsdt();
    }

    void startUsdt() {
        usdt = new UsdtProvider(pid.control(), ISA);
        fw.addProvider(usdt);
    }

    void stopUsdt() {
        fw.removeProvider(usdt);
        usdt.deactivate();
    }

    private static void set(Object o, String field, Object value) {
        try {
            Field f = o.getClass().getDeclaredField(field);
            f.setAccessible(true);
            f.set(o, value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void invoke(Object o, String method) {
        try {
            java.lang.reflect.Method m = o.getClass().getDeclaredMethod(method);
            m.setAccessible(true);
            m.invoke(o);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static String bin(String name) {
        Path p = Path.of("../../fixtures/target/bin", name).toAbsolutePath().normalize();
        if (!Files.isExecutable(p)) throw new IllegalStateException("fixture not built: " + p);
        return p.toString();
    }

    /** One dtrace(1M) run on its own thread. */
    final class Run {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final AtomicInteger status = new AtomicInteger(Integer.MIN_VALUE);
        final Thread thread;

        Run(String... argv) {
            thread = Thread.ofPlatform().name("test-dtrace").start(() -> status.set(command.run(List.of(argv),
                    new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), () -> false)));
        }

        int await() throws InterruptedException {
            thread.join(120_000);
            if (thread.isAlive()) throw new AssertionError("dtrace did not return: " + this);
            return status.get();
        }

        String out() {
            return out.toString(StandardCharsets.UTF_8);
        }

        String err() {
            return err.toString(StandardCharsets.UTF_8);
        }

        /** The pid its script printed as "target N" (its $target), waited for up to 30 s. */
        long target() throws InterruptedException {
            java.util.regex.Pattern target = java.util.regex.Pattern.compile("target (\\d+)\n");
            for (int i = 0; i < 600 && !target.matcher(out()).find(); i++) Thread.sleep(50);
            java.util.regex.Matcher m = target.matcher(out());
            if (!m.find()) throw new AssertionError("no target printed: " + this);
            return Long.parseLong(m.group(1));
        }

        @Override
        public String toString() {
            return "out: " + out() + " err: " + err();
        }
    }

    Run run(String... argv) {
        return new Run(argv);
    }

    private boolean closed;

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        invoke(dtrace, "deactivate");
        stopUsdt();
        pid.deactivate();
        fw.deactivate();
        if (perf != null) perf.close();
    }
}
