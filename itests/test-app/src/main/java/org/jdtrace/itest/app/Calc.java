package org.jdtrace.itest.app;

public final class Calc {

    private Calc() {}

    public static int add(int a, int b) {
        return a + b;
    }

    /** Throws for odd {@code n}, returns n for even. */
    public static int check(int n) {
        if ((n & 1) != 0) {
            throw new IllegalStateException("odd " + n);
        }
        return n;
    }
}
