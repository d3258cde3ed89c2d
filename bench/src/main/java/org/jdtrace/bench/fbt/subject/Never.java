package org.jdtrace.bench.fbt.subject;

import java.util.function.IntUnaryOperator;

/** FbtBenchmark's target: the same small method in three classes, traced differently. */
public final class Never implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return x * 31 + 7;
    }
}
