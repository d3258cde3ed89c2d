/*
 * The cost of fbt on a small method, in a real Felix, with the framework, D runtime and provider
 * of the distribution constructed by hand (as ProbeFireBenchmark does) and the Instrumentation
 * provider-fbt gets by self-attach. Three classes of a bundle of their own (bench.target) have
 * the same method, IntUnaryOperator.applyAsInt (x * 31 + 7), called through the interface:
 *
 *   neverTraced        Never: no probe of it was ever enabled
 *   enabledCount       Enabled: fbt:bench.target:*Enabled.applyAsInt:entry { @[probefunc] = count(); }
 *                      enabled for the whole trial. Target: <= 50 ns a call.
 *   afterEnableDisable Restored: the same clause enabled, the method called, then disabled
 *                      (restored) before the trial. Target: as neverTraced.
 *
 * Run: java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar Fbt
 */
package org.jdtrace.bench.fbt;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.felix.framework.Felix;
import org.jdtrace.bench.fbt.subject.Enabled;
import org.jdtrace.bench.fbt.subject.Never;
import org.jdtrace.bench.fbt.subject.Restored;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.module.BundleModule;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.provider.fbt.internal.FbtProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;

@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+EnableDynamicAgentLoading",
        "--sun-misc-unsafe-memory-access=allow"})
@State(Scope.Benchmark)
public class FbtBenchmark {

    private Path storage;
    private Felix felix;
    private DTraceFramework framework;
    private FbtProvider fbt;
    private Consumer traced;
    private IntUnaryOperator never;
    private IntUnaryOperator enabled;
    private IntUnaryOperator restored;
    private int x;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        storage = Files.createTempDirectory("jdtrace-bench-felix");
        Map<String, Object> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put("felix.bootdelegation.implicit", "false");
        felix = new Felix(config);
        felix.start();
        Bundle b = felix.getBundleContext().installBundle("bench.target", new ByteArrayInputStream(targetJar()));
        b.start();
        framework = new DTraceFramework();
        framework.addProvider(new DTraceProvider());
        fbt = new FbtProvider(null, 60_000);
        framework.addProvider(fbt);
        framework.moduleLoaded(new BundleModule(b));
        never = instance(b, Never.class);
        enabled = instance(b, Enabled.class);
        restored = instance(b, Restored.class);

        Consumer once = open("fbt:bench.target:*Restored.applyAsInt:entry { @[probefunc] = count(); }");
        for (int i = 0; i < 100_000; i++) {
            restored.applyAsInt(i);
        }
        close(once);
        traced = open("fbt:bench.target:*Enabled.applyAsInt:entry { @[probefunc] = count(); }");
    }

    private static IntUnaryOperator instance(Bundle b, Class<?> c) throws Exception {
        Object o = b.loadClass(c.getName()).getConstructor().newInstance();
        if (o.getClass() == c) throw new IllegalStateException(c + " is not the bundle's");
        return (IntUnaryOperator) o;
    }

    private Consumer open(String program) throws Exception {
        Consumer c = new DTraceService(framework, new DSessionFactoryImpl()).open();
        c.setOption("quiet", null);
        if (c.exec(c.compile(program, "bench.d", List.of("bench.d"))) != 1) {
            throw new IllegalStateException(program + " did not match one probe");
        }
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        c.go(sink, sink);
        return c;
    }

    private static void close(Consumer c) throws Exception {
        c.stop();
        while (c.work() != Consumer.Status.DONE) {
            // END and the aggregation go to the sink
        }
        c.close();
    }

    private static byte[] targetJar() throws Exception {
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        a.putValue(Constants.BUNDLE_SYMBOLICNAME, "bench.target");
        a.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream j = new JarOutputStream(out, mf)) {
            for (Class<?> c : new Class<?>[] {Never.class, Enabled.class, Restored.class}) {
                String entry = c.getName().replace('.', '/') + ".class";
                j.putNextEntry(new JarEntry(entry));
                try (InputStream in = c.getClassLoader().getResourceAsStream(entry)) {
                    in.transferTo(j);
                }
                j.closeEntry();
            }
        }
        return out.toByteArray();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        close(traced);
        framework.removeProvider(fbt);
        fbt.deactivate();
        framework.deactivate();
        felix.stop();
        felix.waitForStop(10_000);
        try (var walk = Files.walk(storage)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public int neverTraced() {
        return never.applyAsInt(x++);
    }

    @Benchmark
    public int enabledCount() {
        return enabled.applyAsInt(x++);
    }

    @Benchmark
    public int afterEnableDisable() {
        return restored.applyAsInt(x++);
    }
}
