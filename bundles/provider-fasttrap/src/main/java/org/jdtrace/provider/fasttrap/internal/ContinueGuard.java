/*
 * The continue guard: what makes the uprobe path's holds harmless when dtrace is killed.
 * RtldEvents.watchOnUprobes holds a process at each dlopen/dlclose, and Holds at each hit of a
 * probe whose clauses act on the process (stop(), raise(), copyout()), with a SIGSTOP sent by the
 * BPF program, and this JVM continues it; a JVM killed in between (kill -9, a crash, the OOM
 * killer) would leave the process stopped for good, as would one killed while a process waits
 * stopped by stop() for dtrace's end. The guard is a /bin/sh child whose
 * standard input is a pipe from this JVM: told "+ PID" before the process can be held and "- PID"
 * once it no longer can, it sends SIGCONT to every PID still registered when the pipe ends, which
 * the kernel does when this JVM dies however it dies (its descriptors are closed), and close()
 * does on a normal way out. It runs in a session of its own (setsid), so a terminal's Ctrl-C or
 * hangup, which reach dtrace's foreground process group, never reach it, and it ignores SIGINT,
 * SIGTERM and SIGHUP besides. A SIGCONT to a process that is not
 * stopped does nothing; one that another stopped on purpose while dtrace watched it is continued
 * too, the price of the guarantee.
 *
 * illumos counterpart: /proc's run-on-last-close (PR_RLC), which libproc sets on a grabbed
 * process so that a dtrace that dies leaves it running.
 *
 * Registrations are counted per pid (the dynamic linker's watch and the holds of destructive
 * probes register the same process independently): the shell hears "+ PID" at the first and
 * "- PID" at the last unregistration only.
 *
 * Locking: register, unregister and close are synchronized on the guard. Failure: a guard that
 * cannot start or be written to is one warning line, and holds go on unguarded (as before it).
 * The shell is started on first use, once.
 */
package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class ContinueGuard implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ContinueGuard.class);

    /** Registered pids as " a b c "; at end of input every one of them is continued. */
    static final String SCRIPT = "trap '' INT TERM HUP; held=' '; "
            + "while read op pid; do case $op in "
            + "+) held=\"$held$pid \";; "
            + "-) n=' '; for p in $held; do [ \"$p\" = \"$pid\" ] || n=\"$n$p \"; done; held=$n;; "
            + "esac; done; "
            + "for p in $held; do kill -CONT \"$p\" 2>/dev/null; done";

    /** util-linux's setsid(1): the shell in a session of its own (not a group leader, so no fork). */
    private static final java.nio.file.Path SETSID = java.nio.file.Path.of("/usr/bin/setsid");

    private Process sh;
    private OutputStream in;
    private boolean broken, closed;

    /** Registrations per pid (see above); guarded by this. */
    private final java.util.Map<Integer, Integer> counts = new java.util.HashMap<>();

    /** From now on {@code pid} is continued if this JVM ends (or the guard closes) before {@link #unregister}. */
    synchronized void register(int pid) {
        if (counts.merge(pid, 1, Integer::sum) == 1) send("+ " + pid);
    }

    /** One registration of {@code pid} ends; after the last it can no longer be held by this JVM: left alone at the end. */
    synchronized void unregister(int pid) {
        Integer n = counts.get(pid);
        if (n == null) return;
        if (n > 1) {
            counts.put(pid, n - 1);
            return;
        }
        counts.remove(pid);
        send("- " + pid);
    }

    /** The guard's process (tests), or null before the first registration. */
    synchronized Process process() {
        return sh;
    }

    private void send(String line) {
        assert Thread.holdsLock(this);
        if (broken || closed) return;
        try {
            if (sh == null) {
                List<String> argv = new java.util.ArrayList<>(List.of("/bin/sh", "-c", SCRIPT));
                if (java.nio.file.Files.isExecutable(SETSID)) argv.add(0, SETSID.toString());
                sh = new ProcessBuilder(argv)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                in = sh.getOutputStream();
            }
            in.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
        } catch (IOException e) {
            broken = true;
            LOG.warn("the guard that continues processes held at probes if dtrace dies failed: {}", e.getMessage());
        }
    }

    /** Ends the guard: the processes still registered are continued, then it exits. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (sh == null) return;
        try {
            in.close();
            if (!sh.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) sh.destroyForcibly();
        } catch (IOException e) {
            sh.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            sh.destroyForcibly();
        }
    }
}
