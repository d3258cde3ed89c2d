/*
 * UntracedProcesses: dtrace's -c and -p when no provider offers ProcessControl (the pid provider's
 * bundle is not installed), so $target still names a process and dtrace still ends with it. No
 * probe can be placed in these processes; they are only started held and watched.
 *
 * create: the command is started held without ptrace: /bin/sh stops itself (kill -STOP $$) and
 * then execs the command, so the shell's pid is the command's pid. go() waits until the shell
 * really is stopped (/proc/PID/stat says 'T', at most 5 s), then sends SIGCONT through kill(2)
 * (FFM). Standard streams are pipes or inherited as Stdio says. grab: the process must exist;
 * it is never touched.
 *
 * Invariants: a created process never outlives its close() (killed, as libdtrace releases created
 * processes with PRELEASE_KILL); a grabbed process is never signalled. No state is kept here
 * beyond each TargetProcess; thread-safe.
 */
package org.jdtrace.proc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Process control without tracing: -c started held by a stopped shell, -p watched only.
 *
 * @since 1.2
 */
public final class UntracedProcesses implements ProcessControl {

    private static final int SIGCONT = 18;

    @Override
    public TargetProcess create(List<String> argv, Stdio stdio) throws ProcessException {
        List<String> sh = new ArrayList<>(List.of("/bin/sh", "-c", "kill -STOP $$; exec \"$@\"", "sh"));
        sh.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(sh);
        pb.redirectOutput(stdio.pipeOut() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.INHERIT);
        pb.redirectError(stdio.pipeErr() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.INHERIT);
        pb.redirectInput(stdio.pipeIn() ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.INHERIT);
        try {
            return new Created(pb.start(), stdio);
        } catch (IOException e) {
            throw new ProcessException(e.getMessage());
        }
    }

    /** Any evaltime: no probe is evaluated in these processes, so where they are held does not matter. */
    @Override
    public TargetProcess create(List<String> argv, Stdio stdio, Evaltime at) throws ProcessException {
        return create(argv, stdio);
    }

    @Override
    public TargetProcess grab(int pid) throws ProcessException {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive()) {
            throw new ProcessException("failed to grab pid " + pid + ": No such process");
        }
        return new Grabbed(h.get());
    }

    @Override
    public void setFasttrapMax(int max) {
        // no tracepoints here
    }

    private static final class Created implements TargetProcess {
        private final Process p;
        private final Stdio stdio;

        Created(Process p, Stdio stdio) {
            this.p = p;
            this.stdio = stdio;
        }

        @Override public int pid() { return (int) p.pid(); }
        @Override public boolean created() { return true; }

        /** Lets the command run, once its shell has stopped itself. */
        @Override
        public void go() {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (p.isAlive() && System.nanoTime() < deadline) {
                try {
                    if (Procfs.stat(p.pid()).state() == 'T') break;
                } catch (IOException e) {
                    break;
                }
                Thread.onSpinWait();
            }
            signal(p.pid(), SIGCONT);
        }

        @Override
        public int awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
            return p.waitFor(timeout, unit) ? exitStatus() : -1;
        }

        @Override public boolean exited() { return !p.isAlive(); }

        /** As a wait status: Process gives 128 + the signal for a process a signal killed. */
        @Override
        public int exitStatus() {
            if (p.isAlive()) return -1;
            int v = p.exitValue();
            return v > 128 ? v - 128 : (v & 0xff) << 8;
        }

        @Override public OutputStream stdin() { return stdio.pipeIn() ? p.getOutputStream() : null; }
        @Override public InputStream stdout() { return stdio.pipeOut() ? p.getInputStream() : null; }
        @Override public InputStream stderr() { return stdio.pipeErr() ? p.getErrorStream() : null; }

        @Override
        public void release() {
            // nothing placed in it; it runs on
        }

        @Override
        public void kill() {
            p.destroyForcibly();
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            if (p.isAlive()) kill();
        }
    }

    private record Grabbed(ProcessHandle h) implements TargetProcess {
        @Override public int pid() { return (int) h.pid(); }
        @Override public boolean created() { return false; }
        @Override public void go() {}

        @Override
        public int awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
            try {
                h.onExit().get(timeout, unit);
                return 0;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                return -1;
            }
        }

        @Override public boolean exited() { return !h.isAlive(); }
        /** Not our child: its status is not ours to know; 0 once gone. */
        @Override public int exitStatus() { return h.isAlive() ? -1 : 0; }
        @Override public OutputStream stdin() { return null; }
        @Override public InputStream stdout() { return null; }
        @Override public InputStream stderr() { return null; }
        @Override public void release() {}

        @Override
        public void kill() {
            h.destroyForcibly();
            h.onExit().join();
        }

        /** A grabbed process is left running. */
        @Override public void close() {}
    }

    private static final class Kill {
        static final MethodHandle KILL = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("kill").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private static void signal(long pid, int sig) {
        try {
            int unused = (int) Kill.KILL.invokeExact((int) pid, sig);
        } catch (Throwable e) {
            throw new IllegalStateException("kill(" + pid + ", " + sig + ") failed", e);
        }
    }
}
