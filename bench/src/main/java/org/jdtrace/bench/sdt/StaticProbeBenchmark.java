/*
 * The cost of a Java static probe (org.jdtrace.sdt) through the real classes: the framework,
 * provider-sdt's jsdt provider and a consumer over the real D compiler, constructed by hand (no
 * OSGi; the probes are declared by this class, outside any bundle, as a bundle declares them).
 * Targets (issue 8): a loop that fires a disabled probe is within 1 ns an iteration of the same
 * loop without the call; an enabled probe with `@ = count()` costs <= 30 ns a firing.
 *
 *   loopBaseline        LOOP iterations of a multiply-add chain, no probe (ns per iteration)
 *   loopDisabled        the same loop firing a disabled probe with a long each iteration
 *   loopDisabledString  the same loop firing a disabled (char *, long) probe
 *   fireEnabled         one firing of benchsdt:::fire (long) with `@ = count()` enabled
 *   fireEnabledString   one firing of benchsdt:::query (char *, long) with `@s = count()`
 *
 * Run: java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar StaticProbe
 * On a loaded machine add -prof 'perfnorm:events=task-clock' -rf json -rff out.json: the CPU time
 * per operation of the benchmark JVM (its every thread), which waiting for a CPU does not inflate
 * as it does the wall time; compare with ProbeFire's runs in the same invocation.
 */
package org.jdtrace.bench.sdt;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.Program;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.provider.sdt.internal.jvm.JsdtProvider;
import org.jdtrace.sdt.ArgType;
import org.jdtrace.sdt.StaticProbe;
import org.jdtrace.sdt.StaticProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class StaticProbeBenchmark {

    static final int LOOP = 1000;

    static final StaticProvider BENCH = StaticProvider.define(StaticProbeBenchmark.class, "benchsdt");
    static final StaticProbe FIRE = BENCH.probe("fire", ArgType.LONG);
    static final StaticProbe QUERY = BENCH.probe("query", ArgType.STRING, ArgType.LONG);
    static final StaticProbe IDLE = BENCH.probe("idle", ArgType.LONG);
    static final StaticProbe IDLE_STRING = BENCH.probe("idle-string", ArgType.STRING, ArgType.LONG);

    private DTraceFramework framework;
    private JsdtProvider provider;
    private Consumer consumer;
    private long seed = 17;
    private final String word = "select";

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        framework = new DTraceFramework();
        provider = new JsdtProvider(null);
        framework.addProvider(provider);
        consumer = new DTraceService(framework, new DSessionFactoryImpl()).open();
        consumer.setOption("quiet", null);
        Program p = consumer.compile("benchsdt:::fire { @ = count(); } benchsdt:::query { @s = count(); }",
                "bench.d", List.of("bench.d"));
        if (consumer.exec(p) != 2) {
            throw new IllegalStateException("benchsdt:::fire and query did not match");
        }
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        consumer.go(sink, sink);
        if (!FIRE.isEnabled() || !QUERY.isEnabled() || IDLE.isEnabled() || IDLE_STRING.isEnabled()) {
            throw new IllegalStateException("the probes are not armed as the benchmark needs");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        consumer.stop();
        while (consumer.work() != Consumer.Status.DONE) {
            // END and the aggregation print go to the sink
        }
        consumer.close();
        framework.removeProvider(provider);
        provider.deactivate();
        framework.deactivate();
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long loopBaseline() {
        long acc = seed;
        for (int i = 0; i < LOOP; i++) {
            acc = acc * 31 + i;
        }
        return acc;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long loopDisabled() {
        long acc = seed;
        for (int i = 0; i < LOOP; i++) {
            acc = acc * 31 + i;
            IDLE.fire(acc);
        }
        return acc;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public long loopDisabledString() {
        long acc = seed;
        for (int i = 0; i < LOOP; i++) {
            acc = acc * 31 + i;
            IDLE_STRING.fire(word, acc);
        }
        return acc;
    }

    @Benchmark
    public void fireEnabled() {
        FIRE.fire(++seed);
    }

    @Benchmark
    public void fireEnabledString() {
        QUERY.fire(word, ++seed);
    }
}
