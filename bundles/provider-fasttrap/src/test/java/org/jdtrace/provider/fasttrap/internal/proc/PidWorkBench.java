package org.jdtrace.provider.fasttrap.internal.proc;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.Instruction;

/**
 * Driver for bench/pid-work.sh: runs {@code prog N} with one tracepoint at the entry of
 * {@code func} (a counting handler, the tracepoint layer's cost of
 * {@code pid$target:a.out:work:entry { @ = count(); }}), or with {@code func:return} at each
 * of its return sites (the cost of {@code ...:work:return}), and prints the hit count. The
 * program prints its own loop time on stderr.
 */
public final class PidWorkBench {

    public static void main(String[] args) throws Exception {
        boolean ret = args[0].endsWith(":return");
        String func = ret ? args[0].substring(0, args[0].length() - ":return".length()) : args[0];
        List<String> argv = List.of(args).subList(1, args.length);
        TracedProcess p = TracedProcess.create(argv, Fixtures.ISA, 250_000);
        try {
            List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", func::equals);
            var analysis = fns.get(0).analysis();
            Instruction first = analysis.instructions().get(0);
            AtomicLong hits = new AtomicLong();
            List<TracedProcess.Request> rq = new java.util.ArrayList<>();
            for (Instruction i : analysis.instructions()) {
                boolean site = ret ? analysis.returnOffsets().contains((int) (i.pc() - analysis.start())) : i == first;
                if (site) rq.add(new TracedProcess.Request(i.pc(), i, c -> hits.incrementAndGet()));
            }
            first = rq.get(0).insn();
            p.enable(rq);
            long t0 = System.nanoTime();
            p.go();
            p.awaitExit(10, TimeUnit.MINUTES);
            System.err.printf("TRACER hits=%d displacement=%s wall=%.3f%n", hits.get(),
                    Fixtures.ISA.displacement(first), (System.nanoTime() - t0) / 1e9);
        } finally {
            p.close();
        }
    }
}
