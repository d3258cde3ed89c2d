/*
 * The process of -c (created) or -p (grabbed), whose pid is $target.
 *
 * dtrace creates the -c command stopped, compiles and enables with $target known, and only then
 * lets it run, so no event of the command is missed. Until the pid provider brings ptrace, the
 * command is created stopped this way: /bin/sh stops itself (kill -STOP $$) and then execs the
 * command, so the shell's pid is the command's pid. resume() waits until the shell really is
 * stopped (/proc/pid/stat says 'T'), then sends SIGCONT through kill(2) called with FFM.
 *
 * When the pid provider's ProcessControl service is present (org.jdtrace.proc), -c and -p go
 * through it instead: the command is created under ptrace, stopped before its first instruction
 * with its libraries mapped, so pid$target probes in every module match before it runs; its
 * output comes through pipes when dtrace's streams are not the real ones; -p is grabbed and
 * released untouched at the end.
 *
 * Invariants: a created process never outlives dtrace (close() kills it, as libdtrace releases
 * created processes with PRELEASE_KILL); a grabbed process is never touched.
 */
package org.jdtrace.libdtrace.cmd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

final class TargetProcess implements AutoCloseable {

    private static final int SIGCONT = 18;

    private final long pid;
    private final ProcessHandle handle;
    private final Process created;
    private final List<Thread> pumps = new ArrayList<>();

    /** The process under the pid provider's control, or null without it. */
    private final org.jdtrace.proc.TargetProcess traced;

    private TargetProcess(long pid, ProcessHandle handle, Process created) {
        this.pid = pid;
        this.handle = handle;
        this.created = created;
        this.traced = null;
    }

    private TargetProcess(org.jdtrace.proc.TargetProcess traced) {
        this.pid = traced.pid();
        this.handle = null;
        this.created = null;
        this.traced = traced;
    }

    /**
     * -c through the pid provider's ProcessControl (null: without it, when there are no pid
     * probes for {@code at}, -x evaltime, to matter), held at {@code at}.
     */
    static TargetProcess create(String command, InputStream in, PrintStream out, PrintStream err,
            org.jdtrace.proc.ProcessControl control, org.jdtrace.proc.ProcessControl.Evaltime at) throws IOException {
        if (control == null) {
            return create(command, in, out, err);
        }
        List<String> argv = splitCommand(command);
        if (argv.isEmpty()) {
            throw new IOException("failed to execute : empty command");
        }
        org.jdtrace.proc.TargetProcess p;
        try {
            p = control.create(argv, new org.jdtrace.proc.ProcessControl.Stdio(
                    in != System.in, out != System.out, err != System.err), at);
        } catch (org.jdtrace.proc.ProcessException e) {
            throw new IOException(e.getMessage());
        }
        TargetProcess t = new TargetProcess(p);
        if (p.stdout() != null) {
            t.pump(p.stdout(), out);
        }
        if (p.stderr() != null) {
            t.pump(p.stderr(), err);
        }
        if (p.stdin() != null) {
            try {
                p.stdin().close();
            } catch (IOException ignored) {
                // the command sees end-of-file on stdin
            }
        }
        return t;
    }

    /** -p through the pid provider's ProcessControl (null: without it). */
    static TargetProcess grab(String pidText, org.jdtrace.proc.ProcessControl control) throws IOException {
        TargetProcess plain = grab(pidText);
        if (control == null) {
            return plain;
        }
        try {
            return new TargetProcess(control.grab((int) plain.pid));
        } catch (org.jdtrace.proc.ProcessException e) {
            throw new IOException(e.getMessage());
        }
    }

    long pid() {
        return pid;
    }

    boolean alive() {
        if (traced != null) {
            return !traced.exited();
        }
        return created != null ? created.isAlive() : handle.isAlive();
    }

    /** -c: splits the command on white space (a backslash escapes the next character), as dtrace. */
    static TargetProcess create(String command, InputStream in, PrintStream out, PrintStream err)
            throws IOException {
        List<String> argv = splitCommand(command);
        if (argv.isEmpty()) {
            throw new IOException("failed to execute : empty command");
        }
        List<String> sh = new ArrayList<>(List.of("/bin/sh", "-c", "kill -STOP $$; exec \"$@\"", "sh"));
        sh.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(sh);
        boolean realStdout = out == System.out;
        boolean realStderr = err == System.err;
        pb.redirectOutput(realStdout ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.PIPE);
        pb.redirectError(realStderr ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.PIPE);
        pb.redirectInput(in == System.in ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.PIPE);
        Process p = pb.start();
        TargetProcess t = new TargetProcess(p.pid(), p.toHandle(), p);
        if (!realStdout) {
            t.pump(p.getInputStream(), out);
        }
        if (!realStderr) {
            t.pump(p.getErrorStream(), err);
        }
        if (in != System.in) {
            try {
                p.getOutputStream().close();
            } catch (IOException ignored) {
                // the command sees end-of-file on stdin
            }
        }
        return t;
    }

    /**
     * -p: the process must exist. The pid is read as dtrace reads it, with strtol(3): leading
     * white space (isspace) and a sign are taken, nothing may follow the digits.
     */
    static TargetProcess grab(String pidText) throws IOException {
        long pid;
        try {
            int from = 0;
            while (from < pidText.length() && " \t\n\u000b\f\r".indexOf(pidText.charAt(from)) >= 0) from++;
            pid = Long.parseLong(pidText.substring(from));
        } catch (NumberFormatException e) {
            throw new IOException("invalid pid: " + pidText);
        }
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive()) {
            throw new IOException("failed to grab pid " + pid + ": No such process");
        }
        return new TargetProcess(pid, h.get(), null);
    }

    /** Lets a created command run, once its shell has stopped itself. */
    void resume() {
        if (traced != null) {
            traced.go();
            return;
        }
        if (created == null) {
            return;
        }
        Path stat = Path.of("/proc/" + pid + "/stat");
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (created.isAlive() && System.nanoTime() < deadline) {
            try {
                String s = Files.readString(stat);
                int close = s.lastIndexOf(')');
                if (close > 0 && close + 2 < s.length() && s.charAt(close + 2) == 'T') {
                    break;
                }
            } catch (IOException e) {
                break;
            }
            Thread.onSpinWait();
        }
        kill(pid, SIGCONT);
    }

    int exitValue() {
        if (traced != null) {
            int st = traced.exitStatus();
            return st == -1 ? 0 : (st & 0x7f) == 0 ? (st >> 8) & 0xff : 128 + (st & 0x7f);
        }
        return created != null && !created.isAlive() ? created.exitValue() : 0;
    }

    @Override
    public void close() {
        if (traced != null) {
            traced.close();
        }
        if (created != null && created.isAlive()) {
            created.destroyForcibly();
            try {
                created.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Thread t : pumps) {
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void pump(InputStream from, OutputStream to) {
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

    private static final class Kill {
        static final MethodHandle KILL = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("kill").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private static void kill(long pid, int sig) {
        try {
            int unused = (int) Kill.KILL.invokeExact((int) pid, sig);
        } catch (Throwable e) {
            throw new IllegalStateException("kill(" + pid + ", " + sig + ") failed", e);
        }
    }
}
