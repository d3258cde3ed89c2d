/*
 * The cost of one probe firing from a Java thread, through the real framework classes (the DS
 * components constructed by hand, no OSGi): DTraceFramework with a provider registered as SCR
 * would register it, a consumer from DTraceService over the real D compiler, one enabled clause
 * `bench:::fire { @ = count(); }`. Target: <= 100 ns a firing.
 *
 *   fireEnabled   one firing with the count() clause enabled on the probe
 *   fireDisabled  one firing with nothing enabled (the one volatile read)
 *
 * Run: java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar ProbeFire
 */
package org.jdtrace.bench.core;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.Program;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.core.context.JvmProbeContext;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.provider.DTraceFramework;
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

@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class ProbeFireBenchmark {

    private DTraceFramework framework;
    private BenchProvider provider;
    private Consumer consumer;
    private long seq;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        framework = new DTraceFramework();
        provider = new BenchProvider("fire", "idle");
        framework.addProvider(provider);
        consumer = new DTraceService(framework, new DSessionFactoryImpl()).open();
        consumer.setOption("quiet", null);
        Program p = consumer.compile("bench:::fire { @ = count(); }", "bench.d", List.of("bench.d"));
        if (consumer.exec(p) != 1) {
            throw new IllegalStateException("bench:::fire did not match");
        }
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        consumer.go(sink, sink);
        if (!provider.probe(0).isEnabled()) {
            throw new IllegalStateException("bench:::fire is not enabled");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        consumer.stop();
        while (consumer.work() != Consumer.Status.DONE) {
            // END and the aggregation print go to the sink
        }
        consumer.close();
        framework.deactivate();
    }

    @Benchmark
    public void fireEnabled() {
        provider.probe(0).fire(JvmProbeContext.current().clear().arg(0, ++seq));
    }

    @Benchmark
    public void fireDisabled() {
        provider.probe(1).fire(JvmProbeContext.current().clear().arg(0, ++seq));
    }
}
