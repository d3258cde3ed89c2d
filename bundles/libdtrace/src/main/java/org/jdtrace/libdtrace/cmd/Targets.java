/*
 * Targets: the processes of one dtrace run's -c and -p options, whose first pid is $target
 * (dtrace.c's g_psv with dtrace_proc_create/dtrace_proc_grab). Each is a
 * org.jdtrace.proc.TargetProcess of the ProcessControl service (the pid provider's, which holds
 * a -c command under ptrace before its first instruction so pid$target probes match before it
 * runs), or of UntracedProcesses when that service is not there (held by a stopped shell, no
 * probes). What is dtrace's own stays here: the command split on white space, the pid read as
 * strtol(3) reads it, and the pumps that copy a piped command's output to dtrace's streams
 * when these are not the real ones.
 *
 * Invariants: a created process never outlives close() (TargetProcess.close kills it, as
 * libdtrace releases created processes with PRELEASE_KILL); a grabbed one is released
 * untouched. Used by the thread running the Invocation, the watcher reading pids and exited().
 */
package org.jdtrace.libdtrace.cmd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jdtrace.proc.ProcessControl;
import org.jdtrace.proc.ProcessException;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.proc.UntracedProcesses;

final class Targets {

    private final ProcessControl control;
    private final List<TargetProcess> processes = new CopyOnWriteArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();

    /** {@code control}: the ProcessControl service, or null when there is none. */
    Targets(ProcessControl control) {
        this.control = control != null ? control : new UntracedProcesses();
    }

    List<TargetProcess> processes() {
        return processes;
    }

    /**
     * -c: splits the command on white space (a backslash escapes the next character), as dtrace;
     * {@code options}: the consumer's (Consumer.consumerOptions: how the process is traced).
     */
    void create(String command, InputStream in, PrintStream out, PrintStream err, ProcessControl.Evaltime at,
            java.util.Map<String, Long> options) throws IOException {
        List<String> argv = splitCommand(command);
        if (argv.isEmpty()) {
            throw new IOException("failed to execute : empty command");
        }
        TargetProcess p;
        try {
            p = control.create(argv, new ProcessControl.Stdio(in != System.in, out != System.out, err != System.err), at,
                    options);
        } catch (ProcessException e) {
            throw new IOException(e.getMessage());
        }
        processes.add(p);
        if (p.stdout() != null) {
            pump(p.pid(), p.stdout(), out);
        }
        if (p.stderr() != null) {
            pump(p.pid(), p.stderr(), err);
        }
        if (p.stdin() != null) {
            try {
                p.stdin().close();
            } catch (IOException ignored) {
                // the command sees end-of-file on stdin
            }
        }
    }

    /**
     * -p: the process must exist. The pid is read as dtrace reads it, with strtol(3): leading
     * white space (isspace) and a sign are taken, nothing may follow the digits. {@code options}
     * as create's.
     */
    void grab(String pidText, java.util.Map<String, Long> options) throws IOException {
        long pid;
        try {
            int from = 0;
            while (from < pidText.length() && " \t\n\u000b\f\r".indexOf(pidText.charAt(from)) >= 0) from++;
            pid = Long.parseLong(pidText.substring(from));
        } catch (NumberFormatException e) {
            throw new IOException("invalid pid: " + pidText);
        }
        var h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive() || pid != (int) pid) {
            throw new IOException("failed to grab pid " + pid + ": No such process");
        }
        try {
            processes.add(control.grab((int) pid, options));
        } catch (ProcessException e) {
            throw new IOException(e.getMessage());
        }
    }

    /** Lets every held process run. */
    void goAll() {
        for (TargetProcess t : processes) {
            t.go();
        }
    }

    /** Created processes killed, grabbed ones released; the output pumps drained. */
    void close() {
        for (TargetProcess t : processes) {
            t.close();
        }
        for (Thread t : pumps) {
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void pump(int pid, InputStream from, OutputStream to) {
        Thread t = Thread.ofPlatform().daemon().name("dtrace-target-" + pid).start(() -> {
            byte[] buf = new byte[8192];
            try (from) {
                int n;
                while ((n = from.read(buf)) > 0) {
                    to.write(buf, 0, n);
                    to.flush();
                }
            } catch (IOException ignored) {
                // the command went away
            }
        });
        pumps.add(t);
    }

    static List<String> splitCommand(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                if (cur == null) {
                    cur = new StringBuilder();
                }
                cur.append(s.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                if (cur != null) {
                    out.add(cur.toString());
                    cur = null;
                }
            } else {
                if (cur == null) {
                    cur = new StringBuilder();
                }
                cur.append(c);
            }
        }
        if (cur != null) {
            out.add(cur.toString());
        }
        return out;
    }
}
