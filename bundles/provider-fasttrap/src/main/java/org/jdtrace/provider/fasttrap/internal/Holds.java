/*
 * Holds: processes the uprobe path keeps stopped at a hit until the JVM is done with it, so that
 * what a clause does to the process (stop(), raise(), copyout(), copyoutstr()) takes effect at
 * the probe, as it does in DTrace, where the action runs in the hitting thread before it returns
 * to user mode (illumos: fasttrap's probe context; stop() is the /proc stop of
 * dtrace_action_stop, raise() dtrace_action_raise's psignal on the thread, copyout the
 * write into the stopped address space).
 *
 * Mechanism. A uprobe cookie whose probe has a destructive clause (Probe.procDestructive) sends
 * SIGSTOP from its BPF program right after writing the hit's record (UserProbes.signal; the
 * thread takes it on its way back to user mode, after the probed instruction: the whole process
 * stops there). Each record says which signal its hit sent (UserHit.signal), so the drain
 * thread knows exactly which records hold their process: UprobeSites.hit acquires the hold
 * before the probe fires and releases it after its clauses ran. While held, copyout writes the
 * stopped address space; raise() is a tgkill to the hitting thread, pending until the process
 * runs again and then delivered before the thread executes another instruction of the program;
 * stop() marks the hold to stay stopped. The dynamic linker's watch (RtldEvents) holds its
 * events the same way and releases on its worker once the new objects' probes are in; and a hit
 * whose captured string could not be read in the kernel (a page the process never touched: the
 * BPF program sends SIGSTOP then, UprobeProgram) is held so that copyinstr reads it from the
 * stopped process (ThreadContext.copyinstr's live read) before it runs on.
 *
 * Continuing. Several threads may hit at once (each hit sends its SIGSTOP; records wait in
 * different CPUs' rings), so the last release of a process does not send SIGCONT at once: a
 * worker waits until every thread of the process is stopped (then no thread is between a hit and
 * its stop: a thread runs its BPF program in the kernel, and stops only on its way back to user
 * mode), drains the rings (PerfEvents.drain: every record written before is handled, its own
 * acquire and release included), and continues the process only if no hold was taken meanwhile
 * (refs still 0) and none asked to stay stopped. A process stopped by stop() stays stopped until
 * dtrace lets it go (release(), at the end of tracing, as DTrace releases the processes it
 * grabbed) or dies (ContinueGuard).
 *
 * Safety. Every held pid is registered with the ContinueGuard from its first acquire until it is
 * continued, and for a probe of one process from the moment its cookie can hold (arm), so a
 * dtrace killed mid-hold, or while a process waits stopped by stop(), leaves it running. The wait
 * for the whole process to stop is bounded (HOLD_SECONDS: a thread in an uninterruptible sleep
 * does not stop), after which it is continued all the same. A process stopped by someone else
 * while held is continued too (as by the dynamic linker's watch); two dtrace runs holding one
 * process each continue it when their own holds are done, so the first done lets it run.
 *
 * Locking: every method synchronizes on this object, held only for the bookkeeping (never across
 * a drain or a wait). Failure: a process gone meanwhile is simply forgotten; a worker pool that is
 * shut down (the component deactivating) continues at once.
 */
package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.jdtrace.proc.Procfs;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.provider.fasttrap.internal.sys.SysException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class Holds {

    private static final Logger LOG = LoggerFactory.getLogger(Holds.class);
    /** How long the continuation waits for every thread of a held process to stop. */
    static final long HOLD_SECONDS = 10;

    /** One held process: the holds taken and not released, and what the continuation does. */
    private static final class Hold {
        int refs;
        /** A clause asked it to stay stopped (stop()). */
        boolean stop;
        /** A continuation is scheduled or running. */
        boolean continuing;
    }

    private final ContinueGuard guard;
    private final Runnable drain;
    private final Executor worker;
    /** Guarded by this. */
    private final Map<Integer, Hold> held = new HashMap<>();
    /** Processes left stopped by stop(), continued by release(); guarded by this. */
    private final Set<Integer> stopped = new HashSet<>();

    /**
     * @param drain hands every uprobe record written so far to its handler (PerfEvents.drain)
     * @param worker where continuations run (never the drain thread: they drain)
     */
    Holds(ContinueGuard guard, Runnable drain, Executor worker) {
        this.guard = guard;
        this.drain = drain;
        this.worker = worker;
    }

    /** Process {@code pid} may be held from now on (a probe of it can hold): continued if this JVM dies. */
    void arm(int pid) {
        guard.register(pid);
    }

    /** The end of an {@link #arm}. */
    void disarm(int pid) {
        guard.unregister(pid);
    }

    /** A held record of {@code pid} is being handled (the process stopped, or stopping, at its hit). */
    synchronized void acquire(int pid) {
        Hold h = held.get(pid);
        if (h == null) {
            held.put(pid, h = new Hold());
            guard.register(pid); // until it is continued (or let go, when stop() stopped it)
        }
        h.refs++;
    }

    /** The end of an {@link #acquire}: the last one schedules the continuation (see above). */
    void release(int pid) {
        synchronized (this) {
            Hold h = held.get(pid);
            assert h != null && h.refs > 0 : "release of pid " + pid + " without a hold";
            if (h == null || --h.refs > 0 || h.continuing) return;
            h.continuing = true;
        }
        try {
            worker.execute(() -> continueHeld(pid, true));
        } catch (RejectedExecutionException e) {
            continueHeld(pid, false); // deactivating: no worker (and no drain) any more
        }
    }

    /**
     * stop() in a clause firing for {@code pid}: true when the process is held, which now stays
     * stopped; false when it is not held (the caller stops it itself, see {@link #stoppedBy}).
     */
    synchronized boolean stopHeld(int pid) {
        Hold h = held.get(pid);
        if (h == null || h.refs == 0) return false;
        h.stop = true;
        return true;
    }

    /** {@code pid} was stopped by stop() outside a hold: continued by {@link #release(int, boolean)}, or if this JVM dies. */
    synchronized void stoppedBy(int pid) {
        if (stopped.add(pid)) guard.register(pid);
    }

    /** Whether {@code pid} waits stopped by stop() (tests). */
    synchronized boolean stoppedByStop(int pid) {
        return stopped.contains(pid);
    }

    /**
     * dtrace lets {@code pid} go (released, killed, its tracing ended): a process stopped by
     * stop() runs again ({@code cont}; false when it is being killed anyway).
     */
    void letGo(int pid, boolean cont) {
        synchronized (this) {
            if (!stopped.remove(pid)) return;
            guard.unregister(pid);
        }
        if (cont) signal(pid, Sys.SIGCONT);
    }

    /** Every process stopped by stop() runs again (the end of tracing). */
    void letAllGo() {
        List<Integer> all;
        synchronized (this) {
            all = List.copyOf(stopped);
        }
        for (int pid : all) letGo(pid, true);
    }

    /** Worker: once the whole process stopped and the rings are drained, continue it unless held again or stopped by stop(). */
    private void continueHeld(int pid, boolean wait) {
        if (wait) {
            awaitAllStopped(pid, TimeUnit.SECONDS.toNanos(HOLD_SECONDS));
            try {
                drain.run();
            } catch (RuntimeException e) {
                LOG.debug("pid{}: drain before continuing failed", pid, e);
            }
        }
        boolean cont;
        synchronized (this) {
            Hold h = held.get(pid);
            if (h == null) return;
            h.continuing = false;
            if (h.refs > 0) return; // a record handled meanwhile whose release comes later continues it
            held.remove(pid);
            cont = !h.stop;
            // stays registered with the guard until let go (once: a second stop() adds nothing)
            if (h.stop && !stopped.add(pid)) guard.unregister(pid);
        }
        if (cont) {
            signal(pid, Sys.SIGCONT);
            guard.unregister(pid);
        }
    }

    private static void signal(int pid, int sig) {
        try {
            Sys.current().kill(pid, sig);
        } catch (SysException e) {
            // it ended meanwhile
        }
    }

    /**
     * Waits up to {@code nanos} until every thread of {@code pid} is stopped (T, t) or gone
     * (Z, X, no longer listed); returns at once when the process is gone.
     */
    static void awaitAllStopped(int pid, long nanos) {
        long deadline = System.nanoTime() + nanos;
        Path tasks = Procfs.dir(pid).resolve("task");
        while (!allStopped(pid, tasks) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static boolean allStopped(int pid, Path tasks) {
        List<Path> tids;
        try (var l = Files.list(tasks)) {
            tids = l.toList();
        } catch (IOException | RuntimeException e) {
            return true; // gone
        }
        for (Path t : tids) {
            long tid;
            try {
                tid = Long.parseLong(t.getFileName().toString());
            } catch (NumberFormatException e) {
                continue;
            }
            char state;
            try {
                state = Procfs.stat(pid, tid).state();
            } catch (IOException | RuntimeException e) {
                continue; // that thread is gone
            }
            if (state != 'T' && state != 't' && state != 'Z' && state != 'X') return false;
        }
        return true;
    }
}
