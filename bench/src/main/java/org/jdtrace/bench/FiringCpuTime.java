/*
 * The firing benchmarks' bodies timed by the calling thread's CPU time instead of the wall clock,
 * for a machine shared with other work (JMH's ns/op counts the time the thread waits for a CPU;
 * this does not). Each benchmark's own @Setup builds the same framework, consumer and probes;
 * then 10 warm-up rounds and 30 measured rounds of 2,000,000 calls; the minimum and the median
 * round are printed in ns of CPU a call. On a quiet machine it agrees with JMH's ns/op.
 *
 * Run: java --enable-native-access=ALL-UNNAMED -XX:+EnableDynamicAgentLoading \
 *          -cp bench/target/benchmarks.jar org.jdtrace.bench.FiringCpuTime fbt probefire struct count
 *   fbt        FbtBenchmark.enabledCount      (fbt entry, @[probefunc] = count())
 *   probefire  ProbeFireBenchmark.fireEnabled (a framework probe, @ = count())
 *   struct     DLanguageBenchmark.fireStructAndTranslator
 *   count      DLanguageBenchmark.fireCount
 *   unwind     UnwindBenchmark.walk           (a 20-frame CFI walk, row cache warm; 200,000 calls a round)
 *   unwindcold UnwindBenchmark.walkCold       (the same, row cache emptied before each walk)
 */
package org.jdtrace.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.IntConsumer;
import org.jdtrace.bench.core.ProbeFireBenchmark;
import org.jdtrace.bench.fbt.FbtBenchmark;
import org.jdtrace.bench.libdtrace.DLanguageBenchmark;

public final class FiringCpuTime {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int ROUNDS = 30;
    private static final int CALLS = 2_000_000;
    static long sink;

    private FiringCpuTime() {}

    interface Teardown {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        for (String which : args) {
            IntConsumer body;
            Teardown down;
            int calls = CALLS;
            switch (which) {
                case "fbt" -> {
                    FbtBenchmark b = new FbtBenchmark();
                    b.setUp();
                    body = n -> { for (int i = 0; i < n; i++) sink += b.enabledCount(); };
                    down = b::tearDown;
                }
                case "probefire" -> {
                    ProbeFireBenchmark b = new ProbeFireBenchmark();
                    b.setUp();
                    body = n -> { for (int i = 0; i < n; i++) b.fireEnabled(); };
                    down = b::tearDown;
                }
                case "struct", "count" -> {
                    DLanguageBenchmark b = new DLanguageBenchmark();
                    b.setUp();
                    body = which.equals("struct")
                            ? n -> { for (int i = 0; i < n; i++) b.fireStructAndTranslator(); }
                            : n -> { for (int i = 0; i < n; i++) b.fireCount(); };
                    down = b::tearDown;
                }
                case "unwind", "unwindcold" -> {
                    org.jdtrace.bench.unwind.UnwindBenchmark b = new org.jdtrace.bench.unwind.UnwindBenchmark();
                    b.setup();
                    body = which.equals("unwind")
                            ? n -> { for (int i = 0; i < n; i++) sink += b.walk(); }
                            : n -> { for (int i = 0; i < n; i++) sink += b.walkCold(); };
                    down = () -> { };
                    calls = which.equals("unwind") ? 200_000 : 20_000;
                }
                default -> throw new IllegalArgumentException("fbt, probefire, struct, count, unwind or unwindcold: " + which);
            }
            for (int w = 0; w < 10; w++) body.accept(calls);
            double[] r = new double[ROUNDS];
            for (int i = 0; i < ROUNDS; i++) {
                long t0 = THREADS.getCurrentThreadCpuTime();
                body.accept(calls);
                r[i] = (THREADS.getCurrentThreadCpuTime() - t0) / (double) calls;
            }
            down.run();
            Arrays.sort(r);
            System.out.printf("%-10s CPU ns a call: min %6.2f  median %6.2f%n", which, r[0], r[ROUNDS / 2]);
        }
    }
}
