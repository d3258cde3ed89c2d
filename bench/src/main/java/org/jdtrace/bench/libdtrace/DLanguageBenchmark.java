/*
 * What D's C types, memory model and translators cost, through the real framework and compiler
 * (as ProbeFireBenchmark: DS components constructed by hand, no OSGi). Targets (issue 11): a
 * firing of a clause with a struct member access and a translator <= 30 ns from Java; compiling
 * the largest program of the conformance suite <= 50 ms once warm.
 *
 *   fireStructAndTranslator  bench:::fire { this->s.l = arg0; this->s.i = curpsinfo->pr_pid;
 *                            @ = sum(this->s.l + xlate <struct out> (this->s.i).v); }
 *                            (a this-> struct stored and loaded twice, the system translator's
 *                            pr_pid, a user translator's member)
 *   fireCount                the same probe with @ = count(), the floor (ProbeFireBenchmark's)
 *   compileLargest           one compilation of the suite's largest program (with a fresh session,
 *                            so nothing is shared between compilations)
 *
 * The largest program is read from -Djdtrace.bench.program=FILE, by default
 * ../shared/conformance/dtrace-utils/begin-end/aggs/tst.llquantize_basic.d (9.7 KB, the largest of
 * the core list) relative to the working directory (a checkout beside ../shared); it is read,
 * never copied into the project. From a worktree:
 *   ... benchmarks.jar DLanguage -jvmArgsAppend -Djdtrace.bench.program=/work/shared/conformance/dtrace-utils/begin-end/aggs/tst.llquantize_basic.d
 *
 * Run: java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar DLanguage
 */
package org.jdtrace.bench.libdtrace;

import org.jdtrace.bench.core.BenchProvider;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.Program;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.core.context.JvmProbeContext;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.engine.DProgram;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
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
public class DLanguageBenchmark {

    static final String CLAUSE = """
            struct in { int i; long l; };
            struct out { long v; };
            translator struct out < int n > { v = n * 2; };
            this struct in s;
            bench:::fire { this->s.l = arg0; this->s.i = curpsinfo->pr_pid;
                @ = sum(this->s.l + xlate <struct out> (this->s.i).v); }
            bench:::count { @c = count(); }
            """;

    private DTraceFramework framework;
    private BenchProvider provider;
    private Consumer consumer;
    private long seq;
    private String largest;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        framework = new DTraceFramework();
        provider = new BenchProvider("fire", "count");
        framework.addProvider(provider);
        consumer = new DTraceService(framework, new DSessionFactoryImpl()).open();
        consumer.setOption("quiet", null);
        Program p = consumer.compile(CLAUSE, "bench.d", List.of("bench.d"));
        if (consumer.exec(p) != 2) {
            throw new IllegalStateException("bench:::fire and bench:::count did not both match");
        }
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        consumer.go(sink, sink);
        Path program = Path.of(System.getProperty("jdtrace.bench.program",
                "../shared/conformance/dtrace-utils/begin-end/aggs/tst.llquantize_basic.d"));
        largest = Files.isReadable(program) ? Files.readString(program) : null;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        consumer.stop();
        while (consumer.work() != Consumer.Status.DONE) {
            // END and the aggregations' print go to the sink
        }
        consumer.close();
        framework.deactivate();
    }

    @Benchmark
    public void fireStructAndTranslator() {
        provider.probe(0).fire(JvmProbeContext.current().clear().arg(0, ++seq));
    }

    @Benchmark
    public void fireCount() {
        provider.probe(1).fire(JvmProbeContext.current().clear().arg(0, ++seq));
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public DProgram compileLargest() throws Exception {
        if (largest == null) {
            throw new IllegalStateException("no program: give -Djdtrace.bench.program=FILE (with -jvmArgsAppend)");
        }
        return new DSessionFactoryImpl().create().compile(largest, "tst.llquantize_basic.d",
                List.of("tst.llquantize_basic.d"));
    }
}
