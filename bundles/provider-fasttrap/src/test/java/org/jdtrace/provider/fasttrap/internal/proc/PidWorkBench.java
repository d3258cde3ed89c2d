package org.jdtrace.provider.fasttrap.internal.proc;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.Instruction;

/**
 * Driver for bench/pid-work.sh: runs {@code prog N} with one tracepoint at the entry of
 * {@code func} (a counting handler, the tracepoint layer's cost of
 * {@code pid$target:a.out:work:entry { @ = count(); }}) and prints the hit count. The
 * program prints its own loop time on stderr.
 */
public final class PidWorkBench {

    public static void main(String[] args) throws Exception {
        String func = args[0];
        List<String> argv = List.of(args).subList(1, args.length);
        TracedProcess p = TracedProcess.create(argv, Fixtures.ISA, 250_000);
        try {
            List<Fixtures.Function> fns = Fixtures.functions(p.pid(), "a.out", func::equals);
            Instruction first = fns.get(0).analysis().instructions().get(0);
            AtomicLong hits = new AtomicLong();
            p.enable(List.of(new TracedProcess.Request(first.pc(), first, c -> hits.incrementAndGet())));
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
