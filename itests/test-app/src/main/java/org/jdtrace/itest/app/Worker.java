package org.jdtrace.itest.app;

/**
 * Every {@code periodMs}: greets (a String argument and result), adds (ints), and calls a method
 * that throws every other time (caught here). fbt tests count these calls and read their
 * arguments and return values.
 */
public final class Worker extends Thread {

    private final long periodMs;
    private volatile boolean running = true;
    private long sum;

    public Worker(long periodMs) {
        super("itest-app-worker");
        setDaemon(true);
        this.periodMs = periodMs;
    }

    @Override
    public void run() {
        int i = 0;
        while (running) {
            Greeter.greet("world", i);
            sum += Calc.add(i, 2);
            try {
                Calc.check(i);
            } catch (IllegalStateException e) {
                sum--;
            }
            i++;
            try {
                Thread.sleep(periodMs);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public void halt() throws InterruptedException {
        running = false;
        interrupt();
        join(5_000);
    }
}
