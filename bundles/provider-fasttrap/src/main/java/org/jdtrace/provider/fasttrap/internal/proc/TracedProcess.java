package org.jdtrace.provider.fasttrap.internal.proc;

import org.jdtrace.proc.Procfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.RegisterFile;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.provider.fasttrap.internal.sys.SysException;

/*
 * A process under the pid provider's control (fasttrap_proc_t plus libproc's Pcreate/Pgrab).
 *
 * Creation (-c): Java cannot fork and PTRACE_TRACEME in the child, and ProcessBuilder's reaper
 * would waitpid() the child and steal its ptrace stops. So the control thread posix_spawns
 *   /bin/sh -c 'kill -STOP $$; exec "$0" "$@"' cmd args...
 * waits for the shell's self-stop (WUNTRACED), PTRACE_SEIZEs it (TRACEEXEC|CLONE|FORK|VFORK|
 * EXITKILL), sends SIGCONT, and meets the exec event: the new image stopped at the dynamic
 * linker's first instruction. There only the executable and ld.so are mapped. A StopPoint
 * (dtrace -x evaltime) says where to hold it: EXEC holds it right there (moved on to execve's
 * syscall-exit-stop, so that injected system calls keep their registers); otherwise a temporary
 * int3 at the StopPoint's address (by default AT_ENTRY, from /proc/PID/auxv) lets it run on until
 * a hit the StopPoint accepts (a hit it refuses is stepped over: byte restored, one single-step,
 * int3 back); the byte and the pc are then restored and the process is held (STOPPED) until
 * go(). At the default point the linker has mapped every library, so probes in libraries match
 * $target as they do in DTrace.
 *
 * Grabbing (-p): every thread in /proc/PID/task is PTRACE_SEIZEd (no EXITKILL) and
 * PTRACE_INTERRUPTed; the scan repeats until it finds no new thread. release() lets it run on
 * as if never traced. untrace() does the same for a process whose probes the kernel serves
 * (uprobes) but keeps following it (DETACHED): its memory stays open (/proc/PID/mem needs no
 * attachment), ended()/awaitExit() poll it (waitpid WNOHANG for a created one, /proc for a
 * grabbed one) and kill() still ends a created one; no event (exec, exit, clone) is seen.
 *
 * Events (all on the control thread, ControlThread's loop -> dispatch):
 *  - clone: the new thread is traced automatically (TRACECLONE) and followed;
 *  - fork: the child (traced automatically) gets every int3 removed from its copy of the
 *    address space and is detached; vfork: the child shares our memory, so it is followed like
 *    a thread (its hits handled) until it execs (then detached) or exits. Its parent sleeps in
 *    the kernel meanwhile and cannot stop: holding and teardown do not wait for it
 *    (blockedInVfork), and teardown detaches it once the released child lets it wake;
 *  - exec: the old image and its tracepoints are gone: the state is DEFUNCT, listeners retire
 *    the probes, the process is followed until it exits;
 *  - exit of the leader: EXITED.
 *  - signals pass through: a signal-delivery-stop re-injects its signal. A SIGTRAP at an
 *    address that is not a tracepoint is the program's own (int3, raise) and is re-injected,
 *    except the one case where the int3 was ours and was removed while the trap was in flight
 *    (si_code SI_KERNEL and no int3 at pc-1 any more): the pc is backed up and nothing is
 *    delivered (fasttrap_pid_probe's retry). A SIGTRAP still pending when holding interrupts a
 *    thread is taken and judged by the same rule before the thread is held or detached
 *    (takePendingTrap), so no thread is ever detached with one of our traps pending.
 *  - group-stop (PTRACE_EVENT_STOP with a stop signal) is answered with PTRACE_LISTEN, so the
 *    process stays stopped as job control wants and SIGCONT still wakes it.
 *
 * The hit path (the hot path, one ptrace stop): GETREGS, look the tracepoint up by pc-1 in a
 * concurrent map, run its handlers, then either emulate the displaced instruction (SETREGS) or
 * point the pc at its out-of-line slot, and PTRACE_CONT. It never takes a lock and never
 * single-steps.
 *
 * System calls (the syscall provider, as strace sees them): while a SyscallHandler is set, every
 * thread is resumed with PTRACE_SYSCALL instead of PTRACE_CONT (resumeRequest, read by resume()
 * and by the hit path, so the hit path costs the same either way); the threads running when it is
 * set are PTRACE_INTERRUPTed once so that their next resume is one. PTRACE_O_TRACESYSGOOD (always
 * set) makes a syscall-stop a SIGTRAP|0x80 stop, never mistaken for a trap or re-injected.
 * PTRACE_GET_SYSCALL_INFO says whether it is an entry or an exit (so nothing is tracked per thread
 * and a handler set or cleared between the two halves of a call confuses nothing); GETREGS gives
 * number, arguments and result. A thread in a syscall-stop is no place to inject a system call
 * (stopEvent SYSCALL_STOP): one met on the way to an injection is reported, and the thread is
 * resumed under resumeRequest (never losing the next call's stop) and interrupted again. The
 * injected call itself and takePendingTrap resume with PTRACE_CONT, which makes no syscall-stops. vfork children are followed but not reported (another process). Cleared,
 * the threads still running under PTRACE_SYSCALL make one last syscall-stop each, resumed with
 * PTRACE_CONT.
 *
 * The dynamic linker's events (dlopen, dlclose): one more tracepoint, planted by the pid
 * provider (RtldEvents) at glibc's r_brk, whose handler runs whileHeld: the provider's work
 * (creating and retiring probes through the framework) runs on another thread while the thread
 * that called the linker stays stopped, and the control thread serves meanwhile only the calls
 * safe inside a hit (scratch mapping, injected into that very thread). forgetRange drops the
 * tracepoints of an unmapped object without writing there. Nothing of this is on the hit path.
 *
 * Locking: the thread table and hit state belong to the control thread. Tracepoints are
 * installed and removed from any thread under tpLock, by /proc/PID/mem writes (no ptrace
 * needed), publishing into the concurrent map before the int3 is written and removing it after
 * the original byte is back. Only scratch creation needs a stopped thread; it goes through the
 * control thread (never while it waits for tpLock: the hit path does not take it).
 */
public final class TracedProcess implements AutoCloseable {

    /** DETACHED: running untraced, still followed for the kernel's probes (untrace()). */
    public enum State { STOPPED, RUNNING, DEFUNCT, EXITED, RELEASED, DETACHED }

    private static final int OPTIONS = Sys.PTRACE_O_TRACECLONE | Sys.PTRACE_O_TRACEFORK
            | Sys.PTRACE_O_TRACEVFORK | Sys.PTRACE_O_TRACEEXEC | Sys.PTRACE_O_TRACESYSGOOD;

    /** TState.stopEvent of a syscall-stop (no ptrace event number). */
    private static final int SYSCALL_STOP = -1;

    /** Per-thread bookkeeping, owned by the control thread. */
    private static final class TState {
        final int tid;
        final boolean vforkChild;
        boolean stopped;
        boolean groupStop;
        int pendingSig;
        /** The vfork child this thread waits for (blocked in the kernel until it execs or exits). */
        int vforkChildTid;
        /** The ptrace event of its last stop (0: a signal-delivery stop). */
        int stopEvent;

        TState(int tid, boolean vforkChild) {
            this.tid = tid;
            this.vforkChild = vforkChild;
        }
    }

    private final int pid;
    private final boolean created;
    private final ControlThread ctl;
    private final ProcessMemory mem;
    private final Isa isa;
    private final int maxTracepoints;
    private final Sys sys; // the control thread's
    private volatile State state = State.STOPPED;
    private volatile int exitStatus = -1;
    private final CountDownLatch gone = new CountDownLatch(1);
    private final List<ProcessListener> listeners = new CopyOnWriteArrayList<>();

    // control thread only
    private final Map<Integer, TState> threads = new ConcurrentHashMap<>();
    private final Set<Integer> earlyChildren = new HashSet<>();
    private boolean holding = true;
    private final RegisterFile regs;
    /** The registers of the thread run to its start point (creation only). */
    private final RegisterFile startRegs;
    private final HitContext hit;
    /** PTRACE_CONT, or PTRACE_SYSCALL while a syscall handler is set. */
    private int resumeRequest = Sys.PTRACE_CONT;
    private volatile SyscallHandler syscallHandler;

    // tracepoints
    private final Object tpLock = new Object();
    private final Map<Long, Tracepoint> tracepoints = new ConcurrentHashMap<>();
    private final Map<Long, Instruction> slotInstructions = new ConcurrentHashMap<>();
    private final ScratchSpace scratch;
    private final byte[] breakpoint;

    private TracedProcess(int pid, boolean created, ControlThread ctl, Isa isa, int maxTracepoints) {
        this.pid = pid;
        this.created = created;
        this.ctl = ctl;
        this.isa = java.util.Objects.requireNonNull(isa, "isa");
        this.maxTracepoints = maxTracepoints;
        this.sys = Sys.current();
        this.mem = new ProcessMemory(pid);
        this.regs = isa.newRegisterFile();
        this.startRegs = isa.newRegisterFile();
        this.hit = new HitContext(this);
        this.breakpoint = isa.breakpoint();
        this.scratch = new ScratchSpace(isa.outOfLineMaxSize(), this::mapScratch);
    }

    // ------------------------------------------------------------------ creation

    /**
     * Starts {@code argv} (argv[0] looked up in PATH) stopped before its first instruction,
     * with its libraries mapped. The process is STOPPED until {@link #go()}.
     */
    public static TracedProcess create(List<String> argv, Isa isa, int maxTracepoints) {
        return create(argv, isa, maxTracepoints, StdioSpec.INHERIT);
    }

    /** As {@link #create(List, Isa, int)}, with standard output sent to {@code stdout} when not null. */
    public static TracedProcess create(List<String> argv, Isa isa, int maxTracepoints, Path stdout) {
        return create(argv, isa, maxTracepoints, stdout == null ? StdioSpec.INHERIT : StdioSpec.outTo(stdout));
    }

    /** As {@link #create(List, Isa, int)}, with the standard streams as {@code io} says. */
    public static TracedProcess create(List<String> argv, Isa isa, int maxTracepoints, StdioSpec io) {
        return create(argv, isa, maxTracepoints, io, StopPoint.ENTRY);
    }

    /**
     * Where a created process is held (dtrace -x evaltime). {@link #address} is asked once the
     * process is stopped after exec (its memory readable): where to run it to, or 0 to hold it
     * there; {@link #arrived} is asked at each hit there: false lets it run on to the next hit.
     * Failures are IllegalStateExceptions whose message says what is missing.
     */
    public interface StopPoint {
        long address(int pid, ProcessMemory mem);

        default boolean arrived(ProcessMemory mem) {
            return true;
        }

        /** The entry point (AT_ENTRY): libraries mapped and initialised (evaltime=postinit). */
        StopPoint ENTRY = (pid, mem) -> Auxv.get(pid, Auxv.AT_ENTRY);
        /** Right after exec (evaltime=exec). */
        StopPoint EXEC = (pid, mem) -> 0;
    }

    /** As {@link #create(List, Isa, int, StdioSpec)}, held at {@code stop}. */
    public static TracedProcess create(List<String> argv, Isa isa, int maxTracepoints, StdioSpec io, StopPoint stop) {
        if (argv.isEmpty()) throw new IllegalArgumentException("no command");
        return onControlThread("jdtrace-pid-" + argv.get(0), ctl -> {
            List<String> sh = new ArrayList<>(List.of("/bin/sh", "-c", "kill -STOP $$; exec \"$0\" \"$@\""));
            sh.addAll(argv);
            List<String> env = System.getenv().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
            Sys sys = Sys.current();
            int[] in = io.pipeIn() ? sys.pipe() : null;
            int[] out = io.pipeOut() ? sys.pipe() : null;
            int[] err = io.pipeErr() ? sys.pipe() : null;
            List<Sys.FileAction> acts = new ArrayList<>();
            if (in != null) acts.add(Sys.FileAction.dup2(in[0], 0));
            if (out != null) {
                acts.add(Sys.FileAction.dup2(out[1], 1));
            } else if (io.outFile() != null) {
                acts.add(Sys.FileAction.open(io.outFile().toString(), 1, Sys.O_WRONLY | Sys.O_CREAT | Sys.O_TRUNC));
            }
            if (err != null) acts.add(Sys.FileAction.dup2(err[1], 2));
            int pid;
            try {
                pid = sys.spawn("/bin/sh", sh, env, acts);
            } finally {
                if (in != null) Sys.close(in[0]);
                if (out != null) Sys.close(out[1]);
                if (err != null) Sys.close(err[1]);
            }
            TracedProcess tp = new TracedProcess(pid, true, ctl, isa, maxTracepoints);
            tp.stdin = in == null ? null : tp.adopt(in[1], true);
            tp.stdout = out == null ? null : tp.adopt(out[0], false);
            tp.stderr = err == null ? null : tp.adopt(err[0], false);
            try {
                tp.startCreated(argv.get(0), stop);
            } catch (RuntimeException e) {
                try {
                    tp.sys.kill(pid, Sys.SIGKILL);
                    while (tp.sys.waitpid(pid, Sys.__WALL) == -1) { /* EINTR */ }
                } catch (SysException gone) {
                    // already reaped
                }
                throw e;
            }
            return tp;
        });
    }

    /**
     * Starts the control thread a new TracedProcess will be bound to, makes the process on it
     * ({@code make}: spawn or seize) and sets it as the thread's dispatcher; on failure the
     * thread ends.
     */
    private static TracedProcess onControlThread(String name,
            java.util.function.Function<ControlThread, TracedProcess> make) {
        ControlThread ctl = new ControlThread(name);
        ctl.start();
        try {
            TracedProcess p = ctl.call(() -> make.apply(ctl));
            ctl.setDispatcher(p.dispatcher());
            return p;
        } catch (RuntimeException e) {
            ctl.finish();
            throw e;
        }
    }

    private java.io.Closeable adopt(int fd, boolean write) {
        // a Java stream on our end of the pipe: open it again through /proc/self/fd, close the raw fd
        String path = Procfs.file(Procfs.self(), "fd/" + fd).toString();
        try {
            return write ? new java.io.FileOutputStream(path) : new java.io.FileInputStream(path);
        } catch (IOException e) {
            throw new IllegalStateException("cannot open the pipe " + path + ": " + e.getMessage());
        } finally {
            Sys.close(fd);
        }
    }

    private java.io.Closeable stdin, stdout, stderr;

    /** The created process's stdin pipe, or null. */
    public java.io.OutputStream stdin() {
        return (java.io.OutputStream) stdin;
    }

    /** The created process's stdout pipe, or null. */
    public java.io.InputStream stdout() {
        return (java.io.InputStream) stdout;
    }

    /** The created process's stderr pipe, or null. */
    public java.io.InputStream stderr() {
        return (java.io.InputStream) stderr;
    }

    private void startCreated(String cmd, StopPoint stop) {
        int st = waitFor(pid, Sys.WUNTRACED);
        if (!Sys.stopped(st)) throw new IllegalStateException("failed to start " + cmd);
        sys.ptrace(Sys.PTRACE_SEIZE, pid, 0, OPTIONS | Sys.PTRACE_O_EXITKILL);
        sys.kill(pid, Sys.SIGCONT);
        for (;;) {
            st = waitFor(pid, Sys.__WALL);
            if (!Sys.stopped(st)) throw new IllegalStateException("failed to execute " + cmd + ": " + describeEnd(st));
            int ev = Sys.event(st), sig = Sys.stopSig(st);
            if (ev == Sys.PTRACE_EVENT_EXEC) break;
            int inject = ev == 0 && sig != Sys.SIGCONT && sig != Sys.SIGSTOP ? sig : 0;
            sys.ptrace(Sys.PTRACE_CONT, pid, 0, inject);
        }
        mem.reopen();
        long at = stop.address(pid, mem);
        if (at != 0) {
            runTo(cmd, at, stop);
        } else {
            leaveExecve(cmd);
        }
        TState t = new TState(pid, false);
        t.stopped = true;
        threads.put(pid, t);
    }

    /** Runs the new process to a temporary int3 at {@code at} until {@code stop} accepts a hit. */
    private void runTo(String cmd, long at, StopPoint stop) {
        byte[] orig = new byte[breakpoint.length];
        if (mem.readSome(at, orig, 0, orig.length) != orig.length || !mem.writeText(at, breakpoint)) {
            throw new IllegalStateException("cannot reach the stop point of " + cmd);
        }
        try {
            sys.ptrace(Sys.PTRACE_CONT, pid, 0, 0);
            for (;;) {
                int st = waitFor(pid, Sys.__WALL);
                if (!Sys.stopped(st)) throw new IllegalStateException("failed to execute " + cmd + ": " + describeEnd(st));
                if (Sys.event(st) == 0 && Sys.stopSig(st) == Sys.SIGTRAP) {
                    sys.getRegs(pid, startRegs.raw());
                    if (startRegs.pc() == at + breakpoint.length) {
                        startRegs.setPc(at);
                        sys.setRegs(pid, startRegs.raw());
                        if (stop.arrived(mem)) return;
                        stepOver(cmd, at, orig);
                        sys.ptrace(Sys.PTRACE_CONT, pid, 0, 0);
                        continue;
                    }
                }
                int sig = Sys.event(st) == 0 ? Sys.stopSig(st) : 0;
                sys.ptrace(Sys.PTRACE_CONT, pid, 0, sig);
            }
        } finally {
            mem.writeText(at, orig);
        }
    }

    /**
     * From the exec event stop (inside execve, whose return value the kernel has yet to store
     * in rax) to its syscall-exit-stop, the pc still on the linker's first instruction: a system
     * call injected from there (SyscallInjector) keeps its registers.
     */
    private void leaveExecve(String cmd) {
        sys.ptrace(Sys.PTRACE_SYSCALL, pid, 0, 0);
        for (;;) {
            int st = waitFor(pid, Sys.__WALL);
            if (!Sys.stopped(st)) throw new IllegalStateException("failed to execute " + cmd + ": " + describeEnd(st));
            if (Sys.event(st) == 0 && Sys.stopSig(st) == (Sys.SIGTRAP | 0x80)) return;
            sys.ptrace(Sys.PTRACE_SYSCALL, pid, 0, Sys.event(st) == 0 ? Sys.stopSig(st) : 0);
        }
    }

    /** The pc at the temporary int3 at {@code at}: runs its original instruction, int3 back. */
    private void stepOver(String cmd, long at, byte[] orig) {
        mem.writeText(at, orig);
        int sig = 0;
        for (;;) {
            // a signal that comes first is delivered by the step (which then ends in its handler;
            // the handler's return meets the int3 again)
            sys.ptrace(Sys.PTRACE_SINGLESTEP, pid, 0, sig);
            int st = waitFor(pid, Sys.__WALL);
            if (!Sys.stopped(st)) throw new IllegalStateException("failed to execute " + cmd + ": " + describeEnd(st));
            sig = Sys.event(st) == 0 ? Sys.stopSig(st) : 0;
            if (sig == Sys.SIGTRAP) break;
        }
        if (!mem.writeText(at, breakpoint)) throw new IllegalStateException("cannot reach the stop point of " + cmd);
    }

    private static String describeEnd(int st) {
        if (Sys.exited(st)) return "exit status " + Sys.exitStatus(st);
        return "killed by signal " + Sys.termSig(st);
    }

    private int waitFor(int tid, int flags) {
        for (;;) {
            long w = sys.waitpid(tid, flags);
            if (w != -1) return (int) w;
        }
    }

    /** Grabs the running process {@code pid} (dtrace -p): every thread stopped until go(). */
    public static TracedProcess grab(int pid, Isa isa, int maxTracepoints) {
        if (!Files.isDirectory(Procfs.dir(pid))) {
            throw new IllegalArgumentException("failed to grab pid " + pid + ": No such process");
        }
        return onControlThread("jdtrace-pid-" + pid, ctl -> {
            TracedProcess tp = new TracedProcess(pid, false, ctl, isa, maxTracepoints);
            tp.state = State.STOPPED;
            tp.attachAll();
            return tp;
        });
    }

    private void attachAll() {
        Set<Integer> seen = new HashSet<>();
        for (;;) {
            List<Integer> fresh = tasks().stream().filter(t -> !seen.contains(t)).toList();
            if (fresh.isEmpty()) break;
            for (int tid : fresh) {
                seen.add(tid);
                int e = sys.ptraceErrno(Sys.PTRACE_SEIZE, tid, 0, OPTIONS);
                if (e == SysException.ESRCH) continue; // exited meanwhile
                if (e != 0) {
                    if (tid == pid) throw new SysException("failed to grab pid " + pid, e);
                    continue;
                }
                threads.put(tid, new TState(tid, false));
                sys.ptraceErrno(Sys.PTRACE_INTERRUPT, tid, 0, 0);
            }
        }
        if (threads.isEmpty()) throw new IllegalArgumentException("failed to grab pid " + pid + ": No such process");
        awaitAllStopped();
    }

    private List<Integer> tasks() {
        try (Stream<Path> s = Files.list(Procfs.file(pid, "task"))) {
            return s.map(p -> Integer.parseInt(p.getFileName().toString())).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * A vfork parent cannot stop while its child (which we follow, and hold while holding)
     * has not exec'd or exited: it sleeps in the kernel, runs no user code and is not in a
     * scratch slot, so holding does not wait for it.
     */
    private boolean blockedInVfork(TState t) {
        return t.vforkChildTid != 0 && threads.containsKey(t.vforkChildTid);
    }

    /**
     * Holding: waits until every followed thread is in a ptrace-stop (a vfork parent excepted:
     * blockedInVfork). Control thread.
     */
    private void awaitAllStopped() {
        holding = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threads.values().stream().anyMatch(t -> !t.stopped && !blockedInVfork(t))) {
            long w = sys.waitpid(-1, Sys.__WALL | Sys.__WNOTHREAD | Sys.WNOHANG);
            if (w == 0 || w == -1) {
                // a stop that never comes: another thread of this JVM waited for the pid (a
                // child of the JVM's own ProcessBuilder: its reaper's waitpid sees our stops)
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("process " + pid + ": threads do not stop");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(200_000L);
                continue;
            }
            dispatch((int) (w >>> 32), (int) w);
        }
    }

    // ------------------------------------------------------------------ running

    public int pid() {
        return pid;
    }

    public boolean created() {
        return created;
    }

    public State state() {
        return state;
    }

    public ProcessMemory memory() {
        return mem;
    }

    public Isa isa() {
        return isa;
    }

    public void addListener(ProcessListener l) {
        listeners.add(l);
    }

    public void removeListener(ProcessListener l) {
        listeners.remove(l);
    }

    /** Lets a STOPPED process run. */
    public void go() {
        ctl.run(() -> {
            if (state != State.STOPPED) return;
            holding = false;
            state = State.RUNNING;
            for (TState t : List.copyOf(threads.values())) {
                if (t.stopped) {
                    int sig = t.pendingSig;
                    t.pendingSig = 0;
                    resume(t, sig);
                }
            }
        });
    }

    /** Waits for the process to exit; its wait status, or -1 on timeout. */
    public int awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
        if (state != State.DETACHED && state != State.RELEASED) return gone.await(timeout, unit) ? exitStatus : -1;
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!ended()) {
            if (System.nanoTime() > deadline) return -1;
            Thread.sleep(2);
        }
        return exitStatus;
    }

    /** The wait status once EXITED (or ended after release, see {@link #ended}), else -1. */
    public int exitStatus() {
        return exitStatus;
    }

    /**
     * Whether the process has ended. After release (the provider or ISA bundle stopped under a
     * running -c/-p target) nothing follows it any more: a created one, still our child, is
     * reaped here (WNOHANG) and its wait status kept; a grabbed one is gone when /proc says so.
     */
    public boolean ended() {
        if (state != State.RELEASED && state != State.DETACHED) return state == State.EXITED;
        if (exitStatus != -1) return true;
        if (created) {
            try {
                long w = Sys.current().waitpid(pid, Sys.WNOHANG);
                if (w != 0 && w != -1) {
                    exitStatus = (int) w;
                    return true;
                }
                return false;
            } catch (SysException e) {
                // reaped elsewhere: fall back on /proc
            }
        }
        return !Files.exists(Procfs.dir(pid));
    }

    private ControlThread.Dispatcher dispatcher() {
        return new ControlThread.Dispatcher() {
            @Override
            public void dispatch(int tid, int status) {
                TracedProcess.this.dispatch(tid, status);
            }

            @Override
            public boolean waiting() {
                return !threads.isEmpty();
            }
        };
    }

    private void resume(TState t, int sig) {
        if (holding) {
            t.stopped = true;
            if (sig != 0) t.pendingSig = sig;
            return;
        }
        t.stopped = false;
        int e = sys.ptraceErrno(t.groupStop ? Sys.PTRACE_LISTEN : resumeRequest, t.tid, 0, t.groupStop ? 0 : sig);
        if (e != 0 && e != SysException.ESRCH) {
            throw new SysException("ptrace resume of " + t.tid, e);
        }
    }

    /** One wait status of one of our tracees. Control thread. */
    private void dispatch(int tid, int st) {
        TState t = threads.get(tid);
        if (!Sys.stopped(st)) {
            threads.remove(tid);
            earlyChildren.remove(tid);
            if (tid == pid) processGone(st);
            return;
        }
        if (t == null) {
            t = adopt(tid);
            if (t == null) return; // a fork child whose fork event is still to come
        }
        int ev = Sys.event(st), sig = Sys.stopSig(st);
        t.stopEvent = ev;
        switch (ev) {
            case 0 -> {
                if (sig == Sys.SYSCALL_STOP) {
                    syscallStop(t);
                } else if (sig == Sys.SIGTRAP) {
                    trap(t);
                } else {
                    resume(t, sig);
                }
            }
            case Sys.PTRACE_EVENT_STOP -> {
                t.groupStop = sig == Sys.SIGSTOP || sig == Sys.SIGTSTP || sig == Sys.SIGTTIN || sig == Sys.SIGTTOU;
                if (holding && !t.groupStop && !takePendingTrap(t)) return;
                resume(t, 0);
            }
            case Sys.PTRACE_EVENT_CLONE -> {
                int child = (int) sys.getEventMsg(tid);
                threads.putIfAbsent(child, new TState(child, t.vforkChild));
                resume(t, 0);
            }
            case Sys.PTRACE_EVENT_FORK, Sys.PTRACE_EVENT_VFORK -> {
                int child = (int) sys.getEventMsg(tid);
                if (ev == Sys.PTRACE_EVENT_VFORK) t.vforkChildTid = child;
                newChild(child, ev == Sys.PTRACE_EVENT_VFORK);
                resume(t, 0);
            }
            case Sys.PTRACE_EVENT_EXEC -> exec(t);
            default -> resume(t, 0);
        }
    }

    /** A stop from a tid we do not know yet: a new thread, or a child of fork/vfork. */
    private TState adopt(int tid) {
        if (tgidOf(tid) == pid) {
            TState t = new TState(tid, false);
            threads.put(tid, t);
            return t;
        }
        earlyChildren.add(tid);
        return null;
    }

    private static int tgidOf(int tid) {
        try {
            long tgid = Procfs.status(tid).tgid();
            if (tgid > 0) return (int) tgid;
        } catch (IOException e) {
            // gone
        }
        return -1;
    }

    private void newChild(int child, boolean vfork) {
        boolean stoppedAlready = earlyChildren.remove(child);
        if (vfork) {
            // shares our address space: follow it like a thread until it execs or exits
            TState t = new TState(child, true);
            threads.put(child, t);
            if (stoppedAlready) resume(t, 0);
            return;
        }
        if (!stoppedAlready) {
            int st = waitFor(child, Sys.__WALL);
            if (!Sys.stopped(st)) return;
        }
        // its copy of our memory carries our int3s: put the original bytes back, let it go
        ProcessMemory cm = new ProcessMemory(child);
        try {
            for (Tracepoint tp : tracepoints.values()) {
                cm.writeText(tp.pc, tp.insn.bytes(), 0, breakpoint.length);
            }
        } finally {
            cm.close();
        }
        sys.ptraceErrno(Sys.PTRACE_DETACH, child, 0, 0);
    }

    private void exec(TState t) {
        if (t.vforkChild) {
            threads.remove(t.tid);
            sys.ptraceErrno(Sys.PTRACE_DETACH, t.tid, 0, 0);
            return;
        }
        // every other thread of the old image is gone; the exec'ing one now has the pid
        threads.values().removeIf(o -> !o.vforkChild);
        TState leader = new TState(pid, false);
        threads.put(pid, leader);
        synchronized (tpLock) {
            tracepoints.clear();
            slotInstructions.clear();
            scratch.clear();
            mem.reopen();
            if (state != State.EXITED && state != State.RELEASED) state = State.DEFUNCT;
        }
        for (ProcessListener l : listeners) {
            try {
                l.exec(this);
            } catch (RuntimeException e) {
                // a listener's failure must not stop the process
            }
        }
        resume(leader, 0);
    }

    private void processGone(int st) {
        exitStatus = st;
        // not under tpLock: an enable() may hold it while it waits for this thread to map a
        // scratch region (the exit arrived while this thread sought a stopped thread for it);
        // the volatile state and the closed memory keep anything from being written afterwards
        state = State.EXITED;
        tracepoints.clear();
        mem.close();
        threads.clear();
        for (ProcessListener l : listeners) {
            try {
                l.exited(this, st);
            } catch (RuntimeException e) {
                // ignore
            }
        }
        gone.countDown();
        ctl.finish();
    }

    // ------------------------------------------------------------------ the hit path

    private void trap(TState t) {
        int tid = t.tid;
        sys.getRegs(tid, regs.raw());
        long bp = regs.pc() - breakpoint.length;
        Tracepoint tp = tracepoints.get(bp);
        if (tp == null) {
            strayTrap(t, regs, bp);
            return;
        }
        if (holding) {
            // tearing down: let the thread run the original instruction once it is put back
            regs.setPc(bp);
            sys.setRegs(tid, regs.raw());
            t.stopped = true;
            return;
        }
        regs.setPc(bp);
        hit.tid = tid;
        hit.regs = regs;
        hit.tracepoint = tp;
        for (TracepointHandler h : tp.snapshot) {
            try {
                h.hit(hit);
            } catch (RuntimeException e) {
                // a consumer's failure never harms the traced thread
            }
        }
        hit.regs = null;
        hit.tracepoint = null;
        try {
            if (tp.how == Isa.Displacement.EMULATE) {
                isa.emulate(tp.insn, regs, mem);
            } else {
                regs.setPc(tp.slot);
            }
        } catch (IsaException e) {
            // cannot happen for an analysed instruction unless memory went away: run it in line
            regs.setPc(bp);
        }
        sys.setRegs(tid, regs.raw());
        t.stopped = false;
        sys.ptraceErrno(resumeRequest, tid, 0, 0);
    }

    // ------------------------------------------------------------------ system calls

    /**
     * Reports every system call entry and exit of the process's threads to {@code handler}
     * (on the control thread), or stops reporting them ({@code null}). Any thread.
     */
    public void traceSyscalls(SyscallHandler handler) {
        try {
            // safe inside a hit (the framework may enable while a thread is held in whileHeld):
            // the held thread is stopped and is resumed with the new request when it returns
            ctl.call(() -> {
                syscallHandler = handler;
                int want = handler == null ? Sys.PTRACE_CONT : Sys.PTRACE_SYSCALL;
                if (want == resumeRequest || state == State.EXITED || state == State.RELEASED) return null;
                resumeRequest = want;
                if (handler == null || holding) return null;
                // running under PTRACE_CONT: stop once, to be resumed with PTRACE_SYSCALL
                for (TState t : threads.values()) {
                    if (!t.stopped) sys.ptraceErrno(Sys.PTRACE_INTERRUPT, t.tid, 0, 0);
                }
                return null;
            }, true);
        } catch (IllegalStateException e) {
            // the process is no longer traced
        }
    }

    /** Whether system calls are reported now (a handler is set). */
    public boolean tracingSyscalls() {
        return syscallHandler != null;
    }

    private void syscallStop(TState t) {
        reportSyscall(t);
        resume(t, 0);
    }

    /** Tells the handler of the syscall-stop {@code t} is in (not while holding). */
    private void reportSyscall(TState t) {
        t.stopEvent = SYSCALL_STOP;
        SyscallHandler h = syscallHandler;
        if (h != null && regs != null && !t.vforkChild && !holding) {
            int kind = Sys.PTRACE_SYSCALL_INFO_NONE;
            try {
                kind = sys.syscallStopKind(t.tid);
                if (kind == Sys.PTRACE_SYSCALL_INFO_ENTRY || kind == Sys.PTRACE_SYSCALL_INFO_EXIT) sys.getRegs(t.tid, regs.raw());
            } catch (SysException e) {
                kind = Sys.PTRACE_SYSCALL_INFO_NONE; // the thread is gone; its exit comes next
            }
            if (kind == Sys.PTRACE_SYSCALL_INFO_ENTRY || kind == Sys.PTRACE_SYSCALL_INFO_EXIT) {
                hit.tid = t.tid;
                hit.regs = regs;
                hit.tracepoint = null;
                try {
                    h.syscall(hit, kind == Sys.PTRACE_SYSCALL_INFO_ENTRY);
                } catch (RuntimeException e) {
                    // a consumer's failure never harms the traced thread
                }
                hit.regs = null;
            }
        }
    }

    /**
     * PTRACE_INTERRUPT can stop a thread between its int3 and the delivery of the SIGTRAP: the
     * kernel's get_signal() takes a pending interrupt before it dequeues signals, so the thread
     * sits at the interrupt stop with its pc just after our int3 and the SIGTRAP still pending
     * (a thread preempted on its way back to user mode sits there for a whole time slice).
     * Detached like that, it would take the SIGTRAP untraced and die of it; injected into, the
     * trap would be lost and the thread resume inside the displaced instruction. So a pending
     * SIGTRAP is taken now: PTRACE_CONT, and its signal-delivery stop comes before any user
     * instruction runs (a synchronous signal is dequeued first). Whose it is is decided as for a
     * trap met while tracing (isOurTrap): ours when a tracepoint is at pc-1, or when the int3
     * there was removed while the trap was in flight, as the retire path does before teardown
     * (si_code SI_KERNEL, no int3 at pc-1 any more). Ours, the pc goes back to the tracepoint
     * and the trap is not delivered: the hit is not counted, the instruction runs when the
     * thread runs again, through the int3 again or restored. The program's own (its int3,
     * raise()) is kept as the thread's pendingSig and delivered when it is resumed or detached.
     * Returns false when the thread is gone (its wait status dispatched). Control thread;
     * {@code t} stopped.
     */
    private boolean takePendingTrap(TState t) {
        if (!sigPending(t.tid, Sys.SIGTRAP)) return true;
        if (sys.ptraceErrno(Sys.PTRACE_CONT, t.tid, 0, 0) != 0) return true;
        int st = waitFor(t.tid, Sys.__WALL);
        if (Sys.stopped(st) && Sys.event(st) == 0 && Sys.stopSig(st) == Sys.SIGTRAP) {
            RegisterFile r = isa.newRegisterFile();
            sys.getRegs(t.tid, r.raw());
            long bp = r.pc() - breakpoint.length;
            if (isOurTrap(t, bp)) {
                r.setPc(bp);
                sys.setRegs(t.tid, r.raw());
            } else {
                t.pendingSig = Sys.SIGTRAP;
            }
            t.stopEvent = 0;
            t.stopped = true;
            return true;
        }
        dispatch(t.tid, st); // cannot happen (the SIGTRAP comes first) short of the thread's end
        return false;
    }

    /**
     * Whether the SIGTRAP thread {@code t} stops with (pc just after {@code bp}) came from one
     * of our int3s: a tracepoint is planted at {@code bp}, or the kernel raised it for an int3
     * (SI_KERNEL) that is no longer there, ours, removed while the trap was in flight (the
     * program's own int3 is still in its text). Control thread; {@code t} in its SIGTRAP stop.
     */
    private boolean isOurTrap(TState t, long bp) {
        if (tracepoints.containsKey(bp)) return true;
        if (sys.getSigInfo(t.tid)[1] != Sys.SI_KERNEL) return false;
        byte[] b = new byte[breakpoint.length];
        return mem.readSome(bp, b, 0, b.length) == b.length && !Arrays.equals(b, breakpoint);
    }

    /** Whether {@code sig} is pending for thread {@code tid} (its own pending set, SigPnd). */
    private boolean sigPending(int tid, int sig) {
        try {
            String pending = Procfs.status(pid, tid).get("SigPnd");
            if (pending != null) return (Long.parseUnsignedLong(pending, 16) & (1L << (sig - 1))) != 0;
        } catch (IOException | NumberFormatException e) {
            // gone
        }
        return false;
    }

    private void strayTrap(TState t, RegisterFile r, long bp) {
        if (isOurTrap(t, bp)) {
            // our int3, removed while this trap was in flight: run the restored instruction
            r.setPc(bp);
            sys.setRegs(t.tid, r.raw());
            resume(t, 0);
            return;
        }
        resume(t, Sys.SIGTRAP);
    }

    // ------------------------------------------------------------------ tracepoints

    /** One address to instrument and who wants it. */
    public record Request(long pc, Instruction insn, TracepointHandler handler) {}

    /** The instruction displaced by the tracepoint planted at {@code pc}, or null when none is. */
    public Instruction plantedInstruction(long pc) {
        Tracepoint tp = tracepoints.get(pc);
        return tp == null ? null : tp.insn;
    }

    /** Number of tracepoints planted now. */
    public int tracepointCount() {
        return tracepoints.size();
    }

    /**
     * Plants the tracepoints of {@code requests} (or adds the handlers to existing ones), all or
     * nothing with respect to the tracepoint limit.
     */
    public void enable(List<Request> requests) throws TracepointException {
        synchronized (tpLock) {
            if (state != State.STOPPED && state != State.RUNNING) {
                throw new TracepointException("process " + pid + " is " + state.name().toLowerCase());
            }
            long fresh = requests.stream().map(Request::pc).distinct().filter(pc -> !tracepoints.containsKey(pc)).count();
            if (tracepoints.size() + fresh > maxTracepoints) {
                throw new TracepointException("enabling " + fresh + " tracepoints in process " + pid
                        + " would exceed fasttrap-max (" + maxTracepoints + "); raise it with -x fasttrap-max=N");
            }
            List<Request> done = new ArrayList<>();
            try {
                for (Request rq : requests) {
                    enableOne(rq);
                    done.add(rq);
                }
            } catch (TracepointException e) {
                for (Request rq : done) disableLocked(rq.pc, rq.handler);
                throw e;
            }
        }
    }

    private void enableOne(Request rq) throws TracepointException {
        Tracepoint tp = tracepoints.get(rq.pc);
        if (tp != null) {
            tp.add(rq.handler);
            return;
        }
        Instruction insn = rq.insn;
        Isa.Displacement how = isa.displacement(insn);
        if (how == Isa.Displacement.REFUSE) {
            throw new TracepointException("cannot instrument the instruction at 0x" + Long.toHexString(rq.pc));
        }
        byte[] now = new byte[insn.length()];
        if (mem.readSome(rq.pc, now, 0, now.length) != now.length || !Arrays.equals(now, insn.bytes())) {
            throw new TracepointException("the code at 0x" + Long.toHexString(rq.pc) + " in process " + pid
                    + " is not the analysed instruction");
        }
        boolean ret = how == Isa.Displacement.EMULATE
                && (insn.kind() == Instruction.Kind.RET || insn.kind() == Instruction.Kind.RET_IMM);
        if (ret) {
            // a return takes its target from the stack, not from where it runs: run it from a
            // slot as it is, one read of the target's stack cheaper than emulating it
            how = Isa.Displacement.OUT_OF_LINE;
        }
        long slot = -1;
        if (how == Isa.Displacement.OUT_OF_LINE) {
            try {
                slot = scratch.slotFor(rq.pc);
            } catch (IllegalStateException e) { // the process ended meanwhile
                throw new TracepointException("cannot map scratch space in process " + pid + ": " + e.getMessage());
            }
            try {
                byte[] code = ret ? insn.bytes() : isa.outOfLine(insn, slot);
                mem.write(slot, code, 0, code.length);
            } catch (IsaException e) {
                throw new TracepointException("cannot relocate the instruction at 0x" + Long.toHexString(rq.pc) + ": " + e.getMessage());
            }
            slotInstructions.put(rq.pc, insn);
        }
        tp = new Tracepoint(rq.pc, insn, how, slot);
        tp.add(rq.handler);
        tracepoints.put(rq.pc, tp);
        if (!mem.writeText(rq.pc, breakpoint)) {
            tracepoints.remove(rq.pc);
            throw new TracepointException("cannot write to process " + pid + " at 0x" + Long.toHexString(rq.pc));
        }
    }

    /** Removes {@code handler} from the tracepoint at {@code pc}; the last one out removes the int3. */
    public void disable(long pc, TracepointHandler handler) {
        synchronized (tpLock) {
            disableLocked(pc, handler);
        }
    }

    private void disableLocked(long pc, TracepointHandler handler) {
        Tracepoint tp = tracepoints.get(pc);
        if (tp == null) return;
        tp.remove(handler);
        if (tp.handlers.isEmpty()) {
            if (state == State.STOPPED || state == State.RUNNING) {
                mem.writeText(pc, tp.insn.bytes(), 0, breakpoint.length);
            }
            tracepoints.remove(pc);
        }
    }

    /**
     * A new scratch region near {@code hint}; runs on the control thread with a stopped thread
     * (also while a handler waits in {@link #whileHeld}: its thread is the stopped one).
     */
    private long mapScratch(long hint) {
        return ctl.call(() -> withStoppedThread(tid ->
                SyscallInjector.mmapScratch(isa, sys, mem, pid, tid, hint, ScratchSpace.REGION_SIZE)), true);
    }

    /**
     * From a tracepoint handler (control thread): runs {@code work} on {@code executor} while
     * the hit thread stays stopped, and waits for it at most {@code timeout}, serving meanwhile
     * the control-thread calls that are safe inside a hit (ControlThread.serveWhile). The hit
     * thread counts as a stopped thread meanwhile, so a scratch region can be mapped through it.
     * Returns whether {@code work} finished in time (if not, it goes on while the thread runs).
     */
    public boolean whileHeld(HitContext hit, Runnable work, java.util.concurrent.Executor executor,
            long timeout, TimeUnit unit) {
        if (!ctl.isControlThread() || hit.process != this) throw new IllegalStateException("not inside a hit of " + pid);
        java.util.concurrent.FutureTask<Void> f = new java.util.concurrent.FutureTask<>(work, null);
        TState t = threads.get(hit.tid);
        boolean wasStopped = t != null && t.stopped;
        int event = t == null ? 0 : t.stopEvent;
        if (t != null) {
            t.stopped = true; // a signal-delivery stop (SIGTRAP): a system call can be injected
            t.stopEvent = 0;
        }
        try {
            executor.execute(f);
            return ctl.serveWhile(f, System.nanoTime() + unit.toNanos(timeout));
        } finally {
            if (t != null) {
                t.stopped = wasStopped;
                t.stopEvent = event;
            }
        }
    }

    /**
     * The range [start, end) was unmapped (dlclose): its tracepoints are forgotten without a
     * write (the memory is gone, or somebody else's by now); disabling them later finds nothing.
     */
    public void forgetRange(long start, long end) {
        synchronized (tpLock) {
            tracepoints.keySet().removeIf(pc -> pc >= start && pc < end);
            slotInstructions.keySet().removeIf(pc -> pc >= start && pc < end);
        }
    }

    private interface TidFunction {
        long apply(int tid);
    }

    /**
     * Runs {@code f} with one thread of the process in a ptrace-stop. Control thread. A thread
     * blocked in vfork is the last choice, and while the chosen thread is on its way to its stop
     * every other tracee's events are dispatched: a vfork child's exec must be answered before
     * its parent can stop at all.
     */
    private long withStoppedThread(TidFunction f) {
        for (;;) {
            for (TState t : threads.values()) {
                if (injectable(t)) return f.apply(t.tid);
            }
            TState t = threads.values().stream().filter(x -> !x.vforkChild && !blockedInVfork(x))
                    .min((a, b) -> a.tid == pid ? -1 : b.tid == pid ? 1 : 0)
                    .orElseGet(() -> threads.values().stream().filter(x -> !x.vforkChild).findFirst().orElse(null));
            if (t == null) throw new IllegalStateException("process " + pid + " has no thread left");
            if (t.stopped) throw new IllegalStateException("process " + pid + ": no thread can run a system call now");
            sys.ptraceErrno(Sys.PTRACE_INTERRUPT, t.tid, 0, 0);
            while (threads.containsKey(t.tid)) {
                long w = sys.waitpid(-1, Sys.__WALL | Sys.__WNOTHREAD);
                if (w == -1) continue;
                int tid = (int) (w >>> 32), st = (int) w;
                if (tid == t.tid && !holding && Sys.stopped(st) && Sys.event(st) == 0 && Sys.stopSig(st) == Sys.SYSCALL_STOP) {
                    // any ptrace trap clears a pending interrupt, a syscall-stop too (where no
                    // call can be injected): report it, let t run on and interrupt it again. It
                    // runs on under resumeRequest: under PTRACE_CONT a system call it entered
                    // before the new interrupt landed went unreported (799 of 800 getppid()
                    // entries once); each round reports a real stop, so a thread that is always
                    // in a system call still makes progress until an interrupt lands in user mode
                    reportSyscall(t);
                    sys.ptraceErrno(resumeRequest, tid, 0, 0);
                    sys.ptraceErrno(Sys.PTRACE_INTERRUPT, tid, 0, 0);
                    continue;
                }
                if (tid == t.tid && Sys.stopped(st) && injectableStop(Sys.event(st)) && Sys.stopSig(st) != Sys.SYSCALL_STOP) {
                    if (Sys.event(st) == Sys.PTRACE_EVENT_STOP && !takePendingTrap(t)) continue;
                    long r = f.apply(tid);
                    dispatch(tid, st);
                    return r;
                }
                // a fork/vfork/clone/exec event of t is handled first (resuming from it would
                // finish the fork, and a vfork would block t until its child, which nobody
                // serves while we inject, execs); the interrupt still pending stops t next
                dispatch(tid, st);
                if (t.stopped) {
                    // held where it stopped (holding): usable if that was a clean stop
                    if (injectable(t)) break;
                    throw new IllegalStateException("process " + pid + ": no thread can run a system call now");
                }
            }
        }
    }

    /**
     * A thread a system call can be injected into: stopped in user space (a signal-delivery or
     * interrupt stop), not at a fork, vfork, clone, exec or exit event, and not a vfork child.
     */
    private static boolean injectable(TState t) {
        return t.stopped && !t.vforkChild && injectableStop(t.stopEvent);
    }

    private static boolean injectableStop(int event) {
        return event == 0 || event == Sys.PTRACE_EVENT_STOP;
    }

    // ------------------------------------------------------------------ the end

    /**
     * Removes every tracepoint, moves every thread out of the scratch space, unmaps it and
     * detaches every thread: the process runs on as if never traced. Idempotent.
     */
    public void release() {
        if (state == State.DETACHED) {
            state = State.RELEASED;
            mem.close();
            return;
        }
        if (state == State.EXITED || state == State.RELEASED) return;
        try {
            ctl.run(() -> detachAll(false));
        } catch (IllegalStateException e) {
            // the control thread already finished: the process is gone
        }
    }

    /**
     * Untraced from now on (the kernel's uprobes serve its probes): every tracepoint removed,
     * every thread detached and let run, as release() does, but the process stays followed:
     * its memory open, ended() and awaitExit() polling it, kill() still reaching a created one.
     * A process that is not STOPPED or RUNNING is left as it is. Idempotent.
     */
    public void untrace() {
        if (state != State.STOPPED && state != State.RUNNING) return;
        try {
            ctl.run(() -> detachAll(true));
        } catch (IllegalStateException e) {
            // the control thread already finished: the process is gone
        }
    }

    /** Kills the process (a -c target when dtrace ends first) and waits for it. */
    public void kill() {
        if (state == State.DETACHED && created) {
            try {
                sys.kill(pid, Sys.SIGKILL);
            } catch (SysException e) {
                // already gone
            }
            try {
                awaitExit(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            state = State.RELEASED;
            mem.close();
            return;
        }
        if (state == State.DETACHED) release();
        if (state == State.EXITED || state == State.RELEASED) return;
        try {
            sys.kill(pid, Sys.SIGKILL);
        } catch (SysException e) {
            // already gone
        }
        try {
            gone.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The end of tracing: a created process is killed, a grabbed one released. */
    @Override
    public void close() {
        if (created) kill();
        else release();
    }

    private void detachAll(boolean keepFollowing) {
        if (state == State.EXITED || state == State.RELEASED || state == State.DETACHED) return;
        holding = true;
        for (TState t : threads.values()) {
            if (!t.stopped) sys.ptraceErrno(Sys.PTRACE_INTERRUPT, t.tid, 0, 0);
        }
        awaitAllStopped();
        if (state == State.EXITED) return;
        synchronized (tpLock) {
            for (Tracepoint tp : tracepoints.values()) {
                mem.writeText(tp.pc, tp.insn.bytes(), 0, breakpoint.length);
            }
            tracepoints.clear();
            for (TState t : threads.values()) {
                if (t.stopped) leaveScratch(t); // a blocked vfork parent is in the kernel, not in a slot
            }
            List<ScratchSpace.Region> regions = scratch.regions();
            TState injector = threads.containsKey(pid) && injectable(threads.get(pid)) ? threads.get(pid)
                    : threads.values().stream().filter(TracedProcess::injectable).findFirst().orElse(null);
            if (!regions.isEmpty() && injector != null && state != State.DEFUNCT) {
                int tid = injector.tid;
                for (ScratchSpace.Region r : regions) {
                    try {
                        SyscallInjector.munmap(isa, sys, mem, pid, tid, r.base(), r.size());
                    } catch (RuntimeException e) {
                        // leave it mapped: harmless
                    }
                }
            }
            scratch.clear();
            state = State.RELEASED;
        }
        List<Integer> blocked = new ArrayList<>();
        for (TState t : threads.values()) {
            if (t.stopped) sys.ptraceErrno(Sys.PTRACE_DETACH, t.tid, 0, t.pendingSig);
            else blocked.add(t.tid);
        }
        threads.clear();
        detachWhenStopped(blocked);
        if (keepFollowing && state == State.RELEASED) {
            state = State.DETACHED;
        } else {
            mem.close();
            gone.countDown();
        }
        ctl.finish();
    }

    /**
     * vfork parents, interrupted while blocked: their vfork child is detached now, so they
     * wake and stop (the interrupt is pending), and are detached then. Memory is already
     * clean, so a parent that never wakes (a child that never execs) is harmless; it is left
     * to the kernel's detach when this JVM exits.
     */
    private void detachWhenStopped(List<Integer> tids) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<Integer> left = new ArrayList<>(tids);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            long w = sys.waitpid(-1, Sys.__WALL | Sys.__WNOTHREAD | Sys.WNOHANG);
            if (w == 0 || w == -1) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                continue;
            }
            int tid = (int) (w >>> 32), st = (int) w;
            if (!left.remove(Integer.valueOf(tid))) continue;
            if (Sys.stopped(st)) {
                int sig = Sys.event(st) == 0 && Sys.stopSig(st) != Sys.SIGTRAP ? Sys.stopSig(st) : 0;
                sys.ptraceErrno(Sys.PTRACE_DETACH, tid, 0, sig);
            }
        }
    }

    /**
     * A thread stopped inside a scratch slot is put back where the original instruction lives:
     * before it when it has not run yet, after it when the slot begins with the instruction's
     * own bytes and it has run; otherwise it is single-stepped out (teardown only, never while
     * tracing).
     */
    private void leaveScratch(TState t) {
        RegisterFile r = isa.newRegisterFile();
        sys.getRegs(t.tid, r.raw());
        long rip = r.pc();
        if (!scratch.contains(rip)) return;
        long owner = scratch.ownerOf(rip);
        long slot = scratch.slotOf(owner);
        Instruction insn = slotInstructions.get(owner);
        if (insn != null && rip == slot) {
            r.setPc(owner);
            sys.setRegs(t.tid, r.raw());
            return;
        }
        if (insn != null && rip == slot + insn.length()) {
            byte[] head = new byte[insn.length()];
            if (mem.readSome(slot, head, 0, head.length) == head.length && Arrays.equals(head, insn.bytes())) {
                r.setPc(owner + insn.length());
                sys.setRegs(t.tid, r.raw());
                return;
            }
        }
        for (int i = 0; i < 64 && scratch.contains(r.pc()); i++) {
            sys.ptrace(Sys.PTRACE_SINGLESTEP, t.tid, 0, 0);
            int st = waitFor(t.tid, Sys.__WALL);
            if (!Sys.stopped(st)) return;
            if (Sys.event(st) == 0 && Sys.stopSig(st) != Sys.SIGTRAP) t.pendingSig = Sys.stopSig(st);
            sys.getRegs(t.tid, r.raw());
        }
    }
}
