/*
 * tick-N through the kernel (CpuSampler.tick): one cpu-clock event on one CPU fires the probe in
 * whatever ran there when the clock fired (ProfileSampler opens it and hands each sample to
 * admit()), and a watchdog thread fires it for every period whose sample never came. illumos
 * binds tick-N's cyclic to one CPU and fires it in the interrupted context; dtrace-utils opens one
 * cpu-clock event on a CPU picked at random.
 *
 * Why the watchdog: a cpu-clock event of a halted CPU does not fire (measured on this project's
 * machines, Linux 6.18 under Firecracker: `perf record -e cpu-clock -c 1000000000 -C 1 -- sleep 5`
 * takes no sample while CPU 1 idles, 4 while a loop runs on it). Scripts time themselves with
 * tick-N, so a tick must come every period whatever the CPU does. A period with no sample after
 * GRACE_NANOS (longer than a drain takes to deliver one: the wait ProfileSampler allows its
 * samples in the ring, MAX_WAIT_MS, plus PerfEventsImpl's DRAIN_NANOS, and a margin) is a period
 * the CPU spent halted in the idle loop: the watchdog fires it as the idle task's tick: pid 0,
 * tid 0, execname as Comms names pid 0, no user or kernel stack, arg1 = 0 and arg0 the address
 * of the kernel's idle loop (do_idle in kallsyms, 0 where the kernel hides its addresses), as
 * FreeBSD's profile provider gives `&cpu_idle` for a tick that finds the idle thread without an
 * interrupt frame. That address is looked up at the first idle firing (idlePc(),
 * by whichever of the two threads fires it), not on the main thread when the probe is enabled: a
 * lookup reads /proc/kallsyms up to do_idle (~25 ms of CPU in a fresh JVM, 7 of them the kernel's)
 * that a tick on a CPU that never idles a whole period never needs. That first idle firing comes
 * that much later than GRACE_NANOS; its time is its period's all the same.
 *
 * Invariant: one firing a period. `last` is the CLOCK_MONOTONIC time of the last firing, sample's
 * or watchdog's (the sample's own time; the watchdog's is that of the period it stands for, last +
 * interval); a firing claims its period by a compare-and-set of `last`. A sample less than an
 * interval (less half a sample period) after the last firing belongs to a period already fired
 * (the watchdog stood in for it before the sample was drained, or, when the interval is several
 * sample periods, it is not the period's last) and is dropped. Both start from the time the event
 * was enabled (start()), when the kernel starts the CPU's clock, so the watchdog's periods are the
 * clock's: a sample that comes late is a period's own, never the next one's.
 *
 * Threads: admit() on whichever thread drains (one at a time, PerfEventsImpl's drain lock), which
 * alone fires through `drainIdleContext` (the periods a late sample finds unfired); run() on the
 * watchdog thread, which alone fires through `idleContext`. Neither allocates a firing (but the
 * first idle one, which looks the idle pc up; two racing lookups give the same). That lookup comes
 * before the period is claimed, not between the claim and the firing, where it would let the
 * other thread claim and fire a later period first. The two
 * never fire at once (fire(): a spin on `firing`, held for one firing): a tick is one CPU's
 * clock, whose firings the kernel runs one after another, so a clause that calls exit() is the
 * last one to run (the next sees the exit and is skipped); two firings at once had both run
 * (tick-2000usec printed twice under load). Only our two threads spin there, never a traced one.
 * close() stops the watchdog and joins it, then closes the event.
 */
package org.jdtrace.perf.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.jdtrace.perf.Sample;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

final class Tick implements AutoCloseable {

    /** How long a period's sample may take to arrive before the watchdog fires it as idle. */
    static final long GRACE_NANOS =
            ProfileSampler.MAX_WAIT_MS * 1_000_000L + PerfEventsImpl.DRAIN_NANOS + 45_000_000L;

    private final Probe probe;
    private final long interval;
    /** Below this distance from the last firing a sample belongs to a period already fired. */
    private final long minGap;
    private final AtomicLong last;
    private final Sample idle = new Sample();
    private final SampleContext idleContext;
    /** The draining thread's own idle sample and context (admit's catch-up), apart from the watchdog's. */
    private final Sample drainIdle = new Sample();
    /** Looks the idle loop's address up (see above). */
    private final LongSupplier idlePcLookup;
    /** The idle loop's address once looked up, UNRESOLVED before. */
    private volatile long idlePc = UNRESOLVED;
    private static final long UNRESOLVED = -1; // a kernel function never starts at the last byte
    private final SampleContext drainIdleContext;
    private final Thread watchdog;
    /** Set while a firing runs (see Threads). */
    private final AtomicBoolean firing = new AtomicBoolean();
    private volatile boolean running = true;
    /** The cpu-clock event (set once by ProfileSampler after open, before any sample can come). */
    volatile AutoCloseable event;

    /** {@code period}: the event's sample period (the interval, or a part of it: ProfileSampler's Long periods). */
    Tick(Probe probe, long interval, long period, int cpu, LongSupplier idlePc, SampleContext idleContext,
            SampleContext drainIdleContext) {
        this.probe = probe;
        this.interval = interval;
        this.minGap = interval - period / 2;
        this.idleContext = idleContext;
        this.drainIdleContext = drainIdleContext;
        this.last = new AtomicLong();
        this.idlePcLookup = idlePc;
        idle.cpu = cpu;
        drainIdle.cpu = cpu;
        this.watchdog = new Thread(this::run, "jdtrace-" + probe.name() + "-idle");
        watchdog.setDaemon(true);
    }

    /**
     * Called right after the event is enabled: the kernel's clock starts then, so its samples come
     * at that time plus whole intervals, and so do the watchdog's firings (in phase with them).
     */
    void start() {
        last.set(System.nanoTime());
        watchdog.start();
    }

    /**
     * Whether a sample taken at {@code time} fires: it does unless its period was fired already.
     * Periods before it that nothing fired (the CPU halted and the watchdog had not run yet) are
     * fired first, as the idle task's, so that no period is skipped. Draining thread only.
     */
    boolean admit(long time) {
        for (;;) {
            long cur = last.get();
            if (time - cur < minGap) return false;
            if (time - cur >= interval + minGap) {
                long next = cur + interval, pc = idlePc(); // looked up before the claim (see Threads)
                if (last.compareAndSet(cur, next)) {
                    drainIdle.time = next;
                    drainIdle.ip = pc;
                    fire(drainIdleContext.profile(drainIdle));
                }
                continue;
            }
            if (last.compareAndSet(cur, time)) return true;
        }
    }

    /** Fires the probe, after any firing of the other thread has ended (see Threads). */
    void fire(ProbeContext context) {
        while (!firing.compareAndSet(false, true)) Thread.onSpinWait();
        try {
            probe.fire(context);
        } finally {
            firing.set(false);
        }
    }

    private void run() {
        while (running) {
            long cur = last.get();
            long wait = cur + interval + GRACE_NANOS - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
                continue;
            }
            long pc = idlePc(); // looked up before the claim (see Threads)
            long next = cur + interval;
            if (!last.compareAndSet(cur, next) || !running) continue;
            idle.time = next;
            idle.ip = pc;
            fire(idleContext.profile(idle));
        }
    }

    /** The idle loop's address, looked up at the first call (see above). */
    private long idlePc() {
        long pc = idlePc;
        if (pc == UNRESOLVED) idlePc = pc = idlePcLookup.getAsLong();
        return pc;
    }

    @Override
    public void close() throws Exception {
        running = false;
        LockSupport.unpark(watchdog);
        if (watchdog != Thread.currentThread()) watchdog.join(1000);
        AutoCloseable e = event;
        if (e != null) e.close();
    }
}
