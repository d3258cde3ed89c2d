/*
 * The timer behind one enabled profile probe. tick-N: one daemon thread firing the probe every
 * interval. profile-N: one daemon thread per CPU the JVM may use (availableProcessors), each
 * firing the probe every interval with cpu pinned to its index: the JVM has no per-CPU
 * interrupt, so "fires on every CPU" becomes "fires once per CPU, each firing reporting one CPU".
 *
 * Each thread keeps a fixed-rate schedule (deadline += interval; a late thread skips the
 * ticks it missed instead of bursting). The probe args are those of a JVM-side sample: arg0 = 0
 * (no kernel pc) and arg1 = 0 (no user pc). Timers exist only while the probe is enabled:
 * start() on enable, stop() on disable, which interrupts and joins the threads.
 */
package org.jdtrace.core.providers.profile;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.jdtrace.core.context.JvmProbeContext;
import org.jdtrace.spi.Probe;

final class ProfileTimer implements AutoCloseable {

    private final Probe probe;
    private final ProfileRate rate;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    ProfileTimer(Probe probe, ProfileRate rate) {
        this.probe = probe;
        this.rate = rate;
    }

    void start() {
        running = true;
        int n = rate.kind() == ProfileRate.Kind.TICK ? 1 : Runtime.getRuntime().availableProcessors();
        for (int cpu = 0; cpu < n; cpu++) {
            int pinned = rate.kind() == ProfileRate.Kind.TICK ? -1 : cpu;
            Thread t = new Thread(() -> run(pinned), "jdtrace-" + probe.name() + (pinned < 0 ? "" : "-cpu" + pinned));
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    @Override
    public void close() {
        stop();
    }

    void stop() {
        running = false;
        for (Thread t : threads) {
            LockSupport.unpark(t);
            t.interrupt();
        }
        for (Thread t : threads) {
            if (t != Thread.currentThread()) {
                try {
                    t.join(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        threads.clear();
    }

    private void run(int cpu) {
        JvmProbeContext ctx = JvmProbeContext.current().pinCpu(cpu);
        long interval = rate.intervalNanos();
        long deadline = System.nanoTime() + interval;
        while (running) {
            long wait = deadline - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
                continue;
            }
            if (!running) {
                break;
            }
            ctx.args(0, 0);
            probe.fire(ctx);
            deadline += interval;
            long now = System.nanoTime();
            if (now - deadline > interval) {
                deadline = now + interval - ((now - deadline) % interval);
            }
        }
    }
}
