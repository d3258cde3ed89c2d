package org.jdtrace.provider.fasttrap.internal.proc;

import java.util.concurrent.Callable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.provider.fasttrap.internal.sys.SysException;

/*
 * The one OS thread that talks ptrace to a traced process.
 *
 * Linux binds a tracee to the *thread* that attached it: every ptrace request must come from
 * that thread, and a child made by posix_spawn is a child of the calling thread. So each
 * TracedProcess has one dedicated platform thread that spawns or seizes it and then makes
 * every ptrace and waitpid call for it. Other threads hand it work through call(), which
 * queues a task and wakes the thread.
 *
 * Waiting: the thread blocks in waitpid(-1, __WALL | __WNOTHREAD). __WNOTHREAD restricts the
 * wait to this thread's own tracees and children, so it never reaps the JVM's other children
 * (ProcessBuilder's reaper keeps its own) and nobody else reaps ours.
 *
 * Waking: a blocked waitpid only returns for a tracee's event. To hand the thread work while
 * the tracee runs (or sleeps in a syscall), call() sends this thread a real-time signal
 * (SIGRTMIN+4) whose handler does nothing and is installed without SA_RESTART, so waitpid
 * fails with EINTR and the loop drains its queue. A signal that lands between the queue check
 * and waitpid is lost, so call() rings again every few milliseconds until its task has run.
 * Neither the hot path (a tracepoint hit) nor the tracee ever sees this signal.
 *
 * Serving from inside a hit (serveWhile): a tracepoint handler that waits for another thread
 * (the rtld handler, whose worker creates probes through the framework) keeps the queue served
 * meanwhile, but only the tasks marked as safe there (scratch mapping, which injects a system
 * call into a stopped thread): the framework's lock holder may be waiting for one. Every other
 * task (release, go) keeps its place and runs once the handler has returned.
 */
final class ControlThread extends Thread {

    /** What the loop serves: the wait statuses of the process's threads. */
    interface Dispatcher {
        /** A wait status for {@code tid}. */
        void dispatch(int tid, int status);

        /** True while the thread has tracees or children to wait for. */
        boolean waiting();
    }

    static final int WAKE_SIGNAL = Sys.sigrtmin() + 4;
    private static volatile boolean handlerInstalled;

    private final ConcurrentLinkedDeque<Task<?>> queue = new ConcurrentLinkedDeque<>();

    /** A queued call; {@code insideHit}: it may run while a tracepoint handler waits (serveWhile). */
    private static final class Task<T> extends FutureTask<T> {
        final boolean insideHit;

        Task(Callable<T> work, boolean insideHit) {
            super(work);
            this.insideHit = insideHit;
        }
    }
    private volatile Dispatcher dispatcher;
    private volatile int osTid;
    private volatile boolean finished;

    ControlThread(String name) {
        super(name);
        setDaemon(true);
        installHandler();
    }

    private static synchronized void installHandler() {
        if (!handlerInstalled) {
            Sys.current().installWakeupHandler(WAKE_SIGNAL);
            handlerInstalled = true;
        }
    }

    void setDispatcher(Dispatcher d) {
        this.dispatcher = d;
    }

    /** Stops the loop once the current task returns; later call()s fail. */
    void finish() {
        finished = true;
        LockSupport.unpark(this);
    }

    boolean isControlThread() {
        return Thread.currentThread() == this;
    }

    @Override
    public void run() {
        osTid = Sys.gettid();
        Sys sys = Sys.current();
        try {
            while (!finished) {
                Task<?> task;
                while ((task = queue.poll()) != null) {
                    task.run();
                }
                if (finished) break;
                Dispatcher d = dispatcher;
                if (d == null || !d.waiting()) {
                    LockSupport.parkNanos(50_000_000L);
                    continue;
                }
                long r;
                try {
                    r = sys.waitpid(-1, Sys.__WALL | Sys.__WNOTHREAD);
                } catch (SysException e) {
                    if (e.errno() == SysException.ECHILD) {
                        LockSupport.parkNanos(5_000_000L);
                        continue;
                    }
                    throw e;
                }
                if (r == -1) continue; // EINTR: work was queued
                d.dispatch((int) (r >>> 32), (int) r);
            }
        } finally {
            finished = true;
            Task<?> task;
            while ((task = queue.poll()) != null) task.cancel(false);
        }
    }

    /** Runs {@code work} on this thread and returns its result (inline when already on it). */
    <T> T call(Callable<T> work) {
        return call(work, false);
    }

    /**
     * As {@link #call(Callable)}; {@code insideHit}: the work may also run while a tracepoint
     * handler waits in {@link #serveWhile}.
     */
    <T> T call(Callable<T> work, boolean insideHit) {
        if (isControlThread()) {
            try {
                return work.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        if (finished) throw new IllegalStateException("the process is no longer traced");
        Task<T> task = new Task<>(work, insideHit);
        queue.add(task);
        LockSupport.unpark(this);
        Sys sys = Sys.current();
        for (;;) {
            int tid = osTid;
            if (tid != 0) sys.tgkill(Sys.getpid(), tid, WAKE_SIGNAL);
            try {
                return task.get(5, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (finished && !isAlive() && !task.isDone()) {
                    throw new IllegalStateException("the process is no longer traced");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (java.util.concurrent.CancellationException e) {
                throw new IllegalStateException("the process is no longer traced");
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof RuntimeException r) throw r;
                if (c instanceof Error er) throw er;
                throw new IllegalStateException(c);
            }
        }
    }

    /**
     * From a tracepoint handler on this thread: waits until {@code f} is done or {@code deadline}
     * (System.nanoTime) has passed, running meanwhile the queued tasks marked insideHit; the
     * others stay queued, in order. Returns whether {@code f} is done.
     */
    boolean serveWhile(Future<?> f, long deadline) {
        List<Task<?>> later = new ArrayList<>();
        try {
            while (!f.isDone() && System.nanoTime() < deadline) {
                Task<?> task = queue.poll();
                if (task == null) {
                    LockSupport.parkNanos(100_000L);
                } else if (task.insideHit) {
                    task.run();
                } else {
                    later.add(task);
                }
            }
        } finally {
            for (int i = later.size() - 1; i >= 0; i--) queue.addFirst(later.get(i));
        }
        return f.isDone();
    }

    void run(Runnable work) {
        call(() -> {
            work.run();
            return null;
        });
    }
}
