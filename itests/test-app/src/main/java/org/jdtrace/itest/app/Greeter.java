package org.jdtrace.itest.app;

public final class Greeter {

    private Greeter() {}

    public static String greet(String who, int n) {
        return "hello " + who + " " + n;
    }
}
