/*
 * bin/dtrace's JVM entry point: boots an embedded Felix, runs the platform's dtrace(1M) service
 * with this process's argv and standard streams, and exits with its status.
 *
 * Start-up is on every dtrace command's critical path, so the launcher does the least it can:
 * a fresh framework storage directory per run, on tmpfs where there is one (cleaned on first
 * init, deleted at exit), bundles installed by "reference:" so Felix reads them in place instead
 * of copying them into its cache, no console unless --shell, no SPI Fly: SLF4J lives on the
 * launcher's class path (with its simple binding, found there by ServiceLoader) and its packages
 * are exported to the bundles through org.osgi.framework.system.packages.extra.
 *
 * The launcher sees bundle classes only through reflection (DTraceCommand lives in the core
 * bundle's class space, not on the class path), so it calls DTraceCommand.run reflectively and
 * hands it a proxy of DTraceCommand.Interrupt that answers requested() and await() from one
 * Interrupted flag.
 *
 * Signals: SIGINT and SIGTERM only raise the interrupt flag while dtrace runs; dtrace then ends the
 * run as dtrace does (END fires, aggregations print, every ECB is disabled, the consumer is closed)
 * and the launcher exits normally afterwards. A later signal does not kill the JVM either: a
 * traced process must never be left with a tracepoint in it. Before the command runs, signals keep
 * their default meaning (the JVM exits; a shutdown hook removes the storage directory).
 * The flag is a monitor: the signal handler (a thread the JVM starts per signal) raises it and
 * notifies, and dtrace's watcher thread blocks in await() on it instead of polling, so a run with
 * no -c/-p process to watch costs no CPU for its Ctrl-C (a 50 ms poll through the proxy, run
 * interpreted, cost ~1.5 ms of CPU a second).
 *
 * Felix's own log goes to stderr (its default logger writes to stdout, which is dtrace's output).
 */
package org.jdtrace.launcher;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.felix.framework.Felix;
import org.apache.felix.framework.Logger;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;
import sun.misc.Signal;

public final class Main {

    static final String COMMAND = "org.jdtrace.consumer.DTraceCommand";
    static final String INTERRUPT = "org.jdtrace.consumer.DTraceCommand$Interrupt";
    static final String SLF4J_PACKAGES = "org.slf4j;version=2.0.17,org.slf4j.event;version=2.0.17,"
            + "org.slf4j.helpers;version=2.0.17,org.slf4j.spi;version=2.0.17";
    static final long SERVICE_WAIT_MS = Long.getLong("jdtrace.service.wait", 10_000);

    /**
     * JDTRACE_TIMING=1 prints the start-up phases on stderr (for bench/startup.sh and tuning): the
     * wall time since the launcher's class was initialised and the CPU time of the launcher's
     * thread so far (its /proc schedstat, which counts from the thread's start: the JVM's own
     * start-up on this thread included).
     */
    static final boolean TIMING = System.getenv("JDTRACE_TIMING") != null;
    static final long T0 = System.nanoTime();

    private Main() {}

    static void mark(String phase) {
        if (TIMING) {
            System.err.printf("dtrace: timing: %-28s %6.1f ms  cpu %6.1f ms%n", phase, (System.nanoTime() - T0) / 1e6,
                    threadCpuNanos() / 1e6);
        }
    }

    /** The calling thread's CPU time in ns (/proc/thread-self/schedstat's first field), -1 if unreadable. */
    static long threadCpuNanos() {
        try {
            String s = Files.readString(Path.of("/proc/thread-self/schedstat"));
            return Long.parseLong(s.substring(0, s.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    public static void main(String[] args) {
        nameProcess();
        List<String> argv = new ArrayList<>(Arrays.asList(args));
        boolean shell = false;
        List<Path> extra = new ArrayList<>();
        AotTraining training = AotTraining.ofRun();
        int status;
        try {
            // launcher options: --shell first, --bundle FILE.jar (repeatable) anywhere; the rest is dtrace's
            if (!argv.isEmpty() && argv.get(0).equals("--shell")) {
                shell = true;
                argv.remove(0);
            }
            for (int i = 0; i < argv.size(); ) {
                if (!argv.get(i).equals("--bundle")) {
                    i++;
                } else if (i + 1 == argv.size()) {
                    throw new UsageException("option --bundle requires an argument (a bundle's jar)");
                } else {
                    argv.remove(i);
                    extra.add(Path.of(argv.remove(i)));
                }
            }
            status = new Main().run(argv, shell, extra, training);
        } catch (UsageException e) {
            System.err.println("dtrace: " + e.getMessage());
            status = 2;
        } catch (LaunchException e) {
            System.err.println("dtrace: " + e.getMessage());
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        // halt, not exit: the framework is stopped and the streams are flushed; no shutdown hook
        // or non-daemon thread of some bundle may keep dtrace alive after its work is done.
        Runtime.getRuntime().halt(status);
        // the AOT training run's bundle class loaders stay reachable until the JVM has halted
        java.lang.ref.Reference.reachabilityFence(training);
    }

    /**
     * The process is dtrace(1M): its comm (ps, /proc/PID/comm, and execname of the probes that
     * fire in it, BEGIN and END among them) says "dtrace", not "java". Writing /proc/self/comm
     * renames the thread-group leader; where that is refused the name stays "java".
     */
    private static void nameProcess() {
        try {
            // the process (its first thread, which ps and execname name it by) and the thread that
            // runs dtrace's main and so fires BEGIN and END (curlwpsinfo->pr_name), as in dtrace
            java.nio.file.Files.writeString(java.nio.file.Path.of("/proc/self/comm"), "dtrace");
            java.nio.file.Files.writeString(java.nio.file.Path.of("/proc/thread-self/comm"), "dtrace");
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux, or refused: execname stays the JVM's
        }
    }

    static class LaunchException extends Exception {
        LaunchException(String message) {
            super(message, null, false, false);
        }
    }

    /** A launcher option misused: exit status 2, as dtrace's usage errors. */
    static final class UsageException extends LaunchException {
        UsageException(String message) {
            super(message);
        }
    }

    int run(List<String> argv, boolean shell, List<Path> extra, AotTraining training) throws LaunchException {
        mark("launcher");
        Path dist = distribution();
        Path storage = storageDirectory();
        Thread.ofPlatform().daemon().name("jdtrace-stale-storage").start(() -> deleteStale(storage.getParent()));
        Thread cleaner = new Thread(() -> deleteTree(storage), "jdtrace-storage-cleaner");
        Runtime.getRuntime().addShutdownHook(cleaner);
        mark("storage created");
        List<Path> bundleJars = jars(dist.resolve("bundles"));
        List<Path> shellJars = shell ? jars(dist.resolve("shell")) : List.of();
        Map<String, Object> config = config(storage, shell);
        String systemPackages = SystemPackages.of(dist, extra);
        if (systemPackages != null) {
            config.put(Constants.FRAMEWORK_SYSTEMPACKAGES, systemPackages);
        }
        mark("system packages listed");
        Felix felix = new Felix(config);
        mark("framework constructed");
        try {
            mark("main");
            felix.init();
            mark("framework init");
            BundleContext ctx = felix.getBundleContext();
            offerInstrumentation(ctx);
            List<Bundle> installed = new ArrayList<>();
            install(ctx, bundleJars, installed);
            install(ctx, shellJars, installed);
            List<Bundle> applications = installApplications(ctx, extra);
            mark("bundles installed");
            felix.start();
            for (Bundle b : installed) {
                if (b.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                    try {
                        b.start();
                        mark("  started " + b.getSymbolicName());
                    } catch (BundleException e) {
                        System.err.println("dtrace: bundle " + b.getSymbolicName() + " did not start: "
                                + e.getMessage());
                    }
                }
            }
            for (Bundle b : applications) {
                try {
                    b.start();
                } catch (BundleException e) {
                    throw new LaunchException("bundle " + b.getLocation() + " did not start: " + e.getMessage());
                }
            }
            mark("bundles started");
            if (training != null) {
                training.keep(installed);
            }
            if (shell) {
                felix.waitForStop(0);
                return 0;
            }
            return runCommand(ctx, argv);
        } catch (BundleException e) {
            throw new LaunchException("the OSGi framework did not start: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            mark("command done");
            if (training != null) {
                training.link();
            }
            stop(felix);
            deleteTree(storage);
            mark("framework stopped");
            try {
                Runtime.getRuntime().removeShutdownHook(cleaner);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
    }

    /**
     * jdtrace-felix-PID-N in {@link #storageParent()}, private to this run. Not
     * Files.createTempDirectory: its SecureRandom seeding costs tens of milliseconds, and the pid
     * already makes the name unique.
     */
    private static Path storageDirectory() throws LaunchException {
        Path tmp = storageParent();
        long pid = selfPid();
        for (int n = 0; n < 100; n++) {
            Path p = tmp.resolve("jdtrace-felix-" + pid + "-" + n);
            try {
                return Files.createDirectory(p);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // a stale one from a killed run with a recycled pid: try the next name
            } catch (IOException e) {
                throw new LaunchException("cannot create the framework storage directory " + p + ": " + e);
            }
        }
        throw new LaunchException("cannot create a framework storage directory in " + tmp);
    }

    /**
     * This process's pid, from the /proc/self link: ProcessHandle.current() would initialise the
     * process reaper's machinery (a few ms of every start) for one number.
     */
    static long selfPid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).toString());
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.current().pid();
        }
    }

    /**
     * Where the framework storage goes: -Djdtrace.storage=DIR if given, else /dev/shm when it is a
     * writable directory (tmpfs: Felix writes a dozen small files per bundle install and the
     * launcher deletes them at exit; on a disk file system that is 50-100 ms of every dtrace run,
     * measured on this project's ext4 /tmp), else java.io.tmpdir.
     */
    static Path storageParent() {
        String override = System.getProperty("jdtrace.storage");
        if (override != null) {
            return Path.of(override);
        }
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return shm;
        }
        return Path.of(System.getProperty("java.io.tmpdir", "/tmp"));
    }

    /**
     * Removes the storage directories of runs that were killed (SIGKILL leaves no chance to clean
     * up): jdtrace-felix-PID-N whose PID is no longer alive. Runs on a daemon thread.
     */
    static void deleteStale(Path tmp) {
        try (Stream<Path> s = Files.list(tmp)) {
            s.filter(p -> p.getFileName().toString().matches("jdtrace-felix-\\d+-\\d+"))
                    .filter(p -> {
                        long pid = Long.parseLong(p.getFileName().toString().split("-")[2]);
                        return ProcessHandle.of(pid).isEmpty();
                    })
                    .forEach(Main::deleteTree);
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
    }

    private static Map<String, Object> config(Path storage, boolean shell) {
        Map<String, Object> c = new HashMap<>();
        c.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        c.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        c.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, SLF4J_PACKAGES);
        c.put("felix.cache.locking", "false");
        c.put("felix.log.logger", new StderrLogger());
        c.put("felix.log.level", "1");
        c.put("ds.loglevel", "warn");
        c.put("gosh.args", shell ? "" : "--nointeractive");
        return c;
    }

    /**
     * The directory holding the launcher jar: lib/, bundles/ and shell/ sit beside it. Found by
     * the class path the JVM was started with ({@code -jar DIST/jdtrace-launcher.jar}) before the
     * code source: a class loaded from the AOT cache keeps the code source of the training run,
     * so a copy of the distribution would otherwise load the original's bundles.
     */
    private static Path distribution() throws LaunchException {
        String override = System.getProperty("jdtrace.dist");
        if (override != null) {
            return Path.of(override);
        }
        String cp = System.getProperty("java.class.path", "");
        if (cp.endsWith(".jar") && !cp.contains(java.io.File.pathSeparator)) {
            Path jar = Path.of(cp).toAbsolutePath().getParent();
            if (jar != null) return jar;
        }
        try {
            Path jar = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent();
        } catch (URISyntaxException | RuntimeException e) {
            throw new LaunchException("cannot find the distribution directory: " + e.getMessage());
        }
    }

    /** The launcher agent's Instrumentation as an OSGi service, for provider-fbt. */
    private static void offerInstrumentation(BundleContext ctx) {
        java.lang.instrument.Instrumentation inst = Agent.instrumentation();
        if (inst != null) {
            ctx.registerService(java.lang.instrument.Instrumentation.class, inst, null);
        }
    }

    /** --bundle FILE.jar: installed in place after the platform's bundles, started after them. */
    private static List<Bundle> installApplications(BundleContext ctx, List<Path> jars) throws LaunchException {
        List<Bundle> out = new ArrayList<>();
        for (Path jar : jars) {
            if (!Files.isRegularFile(jar)) {
                throw new LaunchException("cannot install bundle " + jar + ": No such file");
            }
            try {
                out.add(ctx.installBundle("reference:" + jar.toAbsolutePath().toUri()));
            } catch (BundleException e) {
                throw new LaunchException("cannot install bundle " + jar + ": " + e.getMessage());
            }
        }
        return out;
    }

    /** The bundles of a distribution directory (bundles/, shell/), in name order. */
    static List<Path> jars(Path dir) throws LaunchException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw new LaunchException("cannot read " + dir + ": " + e.getMessage()
                    + " (is the distribution built? run bin/dtrace, which builds it)");
        }
    }

    private static void install(BundleContext ctx, List<Path> jars, List<Bundle> into) {
        for (Path jar : jars) {
            try {
                into.add(ctx.installBundle("reference:" + jar.toUri()));
            } catch (BundleException e) {
                System.err.println("dtrace: cannot install " + jar.getFileName() + ": " + e.getMessage());
            }
        }
    }

    private static int runCommand(BundleContext ctx, List<String> argv) throws InterruptedException,
            LaunchException {
        ServiceTracker<Object, Object> tracker = new ServiceTracker<>(ctx, COMMAND, null);
        tracker.open(true);
        try {
            Object command = tracker.waitForService(SERVICE_WAIT_MS);
            ServiceReference<Object> ref = tracker.getServiceReference();
            if (command == null || ref == null) {
                throw new LaunchException("the dtrace(1M) service did not start within "
                        + SERVICE_WAIT_MS + " ms" + diagnose(ctx));
            }
            mark("service found");
            return invoke(ref.getBundle(), command, argv);
        } finally {
            tracker.close();
        }
    }

    /**
     * The SIGINT/SIGTERM flag behind the Interrupt proxy: raised once, never lowered (a second
     * signal changes nothing). Locking: its own monitor; raise() is called by signal handler
     * threads, await() by dtrace's watcher thread.
     */
    static final class Interrupted {
        private boolean raised;

        synchronized void raise() {
            raised = true;
            notifyAll();
        }

        synchronized boolean requested() {
            return raised;
        }

        /** DTraceCommand.Interrupt.await: until raised or {@code millis} ms have passed (0: no limit). */
        synchronized boolean await(long millis) throws InterruptedException {
            if (millis < 0) {
                throw new IllegalArgumentException("negative wait: " + millis);
            }
            long deadline = System.nanoTime() + millis * 1_000_000;
            while (!raised) {
                long left = millis == 0 ? 0 : (deadline - System.nanoTime() + 999_999) / 1_000_000;
                if (millis != 0 && left <= 0) {
                    return false;
                }
                wait(left);
            }
            return true;
        }
    }

    private static int invoke(Bundle bundle, Object command, List<String> argv) throws LaunchException {
        Interrupted interrupted = new Interrupted();
        try {
            Class<?> commandType = bundle.loadClass(COMMAND);
            Class<?> interruptType = commandType.getClassLoader().loadClass(INTERRUPT);
            Object interrupt = Proxy.newProxyInstance(interruptType.getClassLoader(),
                    new Class<?>[] {interruptType}, (proxy, method, a) -> switch (method.getName()) {
                        case "requested" -> interrupted.requested();
                        case "await" -> interrupted.await((Long) a[0]);
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == a[0];
                        case "toString" -> "SIGINT/SIGTERM";
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
            Method run = commandType.getMethod("run", List.class, InputStream.class, PrintStream.class,
                    PrintStream.class, interruptType);
            Signal.handle(new Signal("INT"), s -> interrupted.raise());
            Signal.handle(new Signal("TERM"), s -> interrupted.raise());
            return (Integer) run.invoke(command, List.copyOf(argv), System.in, System.out, System.err, interrupt);
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            throw new LaunchException("internal error: " + t);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new LaunchException("cannot run the dtrace(1M) service: " + e);
        }
    }

    private static String diagnose(BundleContext ctx) {
        StringBuilder sb = new StringBuilder();
        for (Bundle b : ctx.getBundles()) {
            if (b.getBundleId() != 0 && b.getState() != Bundle.ACTIVE
                    && b.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                sb.append("\n  bundle ").append(b.getSymbolicName()).append(" is not active");
            }
        }
        if (sb.isEmpty()) {
            sb.append(" (every bundle is active: is the org.jdtrace.consumer.DTrace service missing?)");
        }
        return sb.toString();
    }

    private static void stop(Felix felix) {
        try {
            if ((felix.getState() & (Bundle.STARTING | Bundle.ACTIVE)) != 0) {
                felix.stop();
                felix.waitForStop(10_000);
            }
        } catch (BundleException e) {
            System.err.println("dtrace: the OSGi framework did not stop cleanly: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | RuntimeException ignored) {
            // best effort: it is in /tmp
        }
    }

    /** Felix's messages on stderr, worded as dtrace's. */
    static final class StderrLogger extends Logger {
        @Override
        protected void doLog(int level, String msg, Throwable throwable) {
            String what = switch (level) {
                case LOG_ERROR -> "error";
                case LOG_WARNING -> "warning";
                case LOG_INFO -> "info";
                default -> "debug";
            };
            System.err.println("dtrace: framework " + what + ": " + msg
                    + (throwable == null ? "" : " (" + throwable + ")"));
        }
    }
}
