/*
 * The proc and sched providers on Linux's tracepoints (and, in the list all() gives, the
 * machine-wide syscall provider, KernelSyscallProvider). arg0.. are raw (below, also in the
 * README); args[] are typed as illumos' proc provider types them (sdt_subr.c's argument table,
 * the Dynamic Tracing Guide's proc chapter): where DTrace's args[i] is a psinfo_t * or lwpsinfo_t *
 * (translated from a proc_t * / kthread_t *), the raw argi is the pid or tid it describes, the
 * ArgDesc's native type pid_t / id_t and its translated type psinfo_t * / lwpsinfo_t *, and
 * args[i]->pr_* describe that process or thread (libdtrace's ProcInfo): pr_pid / pr_lwpid is argi;
 * what the event recorded is handed over through ProbeContext.argInfo (create: the child's pr_ppid,
 * its creator, and pr_fname, the creator's comm the child starts with, from task_newtask's record;
 * signal-send: the target thread's comm as lwpsinfo's pr_name, and as psinfo's pr_fname when it is
 * its process's first thread; lwp-create: the new thread's pr_name, and its process's ppid and
 * name, the firing one's); every other member of such an argument (pr_uid, pr_gid, pr_pgid,
 * pr_psargs, the signal target's pr_ppid...) is read from /proc when the record is processed,
 * after the event: zeros and "" for a process gone since, and a process that exec'd or changed its
 * credentials since shows its new ones. The firing process itself is another matter: every probe
 * here runs a CaptureProgram, so its execname, ppid, vtimestamp and (proc probes) curpsinfo's
 * pr_uid, pr_gid, pr_euid, pr_egid and pr_psargs are what the event saw (EventContext).
 *
 * sched (illumos sched provider):
 *   off-cpu   sched:sched_switch, in the thread leaving the CPU. arg0 = next tid, arg1 = next's
 *             process, arg2 = prev_state (the leaving thread's state).
 *   on-cpu    sched:sched_switch, in the name of the thread coming on CPU (pid, tid, execname are
 *             its; no stacks: it is not running yet). No args, as DTrace's.
 *   wakeup    sched:sched_wakeup, in the waking thread. arg0 = woken tid, arg1 = woken process,
 *             arg2 = the CPU it will run on.
 *   enqueue/dequeue: Linux has no run-queue tracepoints (only kprobes reach them): not offered.
 *
 * proc (illumos proc provider):
 *   exec          syscalls:sys_enter_execve, in the calling process, through a CaptureProgram:
 *                 args[0] = the path (string), read in the kernel at the event; arg0 = its user
 *                 address, which copyinstr() turns into that string (no other user memory is
 *                 captured).
 *   exec-success  sched:sched_process_exec, in the new image (execname is the new name). No args.
 *   exec-failure  syscalls:sys_exit_execve with a negative return: args[0] = arg0 = errno (int).
 *   create        task:task_newtask without CLONE_THREAD, in the parent. args[0] psinfo_t * of the
 *                 child; arg0 = the child's pid.
 *   lwp-create    task:task_newtask with CLONE_THREAD. args[0] lwpsinfo_t * of the new thread,
 *                 args[1] psinfo_t * of its process; arg0 = the new tid, arg1 = its process.
 *   exit          sched:sched_process_exit of the thread that ends its process (group_dead),
 *                 through a CaptureProgram reading task_struct.exit_code (offset from the kernel's
 *                 BTF): args[0] = arg0 = CLD_EXITED (exit, return from main), CLD_KILLED (a
 *                 signal) or CLD_DUMPED (a signal that dumped core), as DTrace's.
 *   lwp-exit      sched:sched_process_exit, every thread. No args (DTrace's); arg0 = tid.
 *   signal-send   signal:signal_generate, in the sender. args[0] lwpsinfo_t * of the target
 *                 thread, args[1] psinfo_t * of its process, args[2] the signal (int); arg0 =
 *                 target tid, arg1 = target process, arg2 = the signal.
 *   signal-handle signal:signal_deliver, in the receiving thread. args[0] the signal (int),
 *                 args[1] siginfo_t * (0: the tracepoint gives no siginfo address), args[2]
 *                 void (*)(void), the handler's address.
 */
package org.jdtrace.perf.internal;

import java.lang.foreign.ValueLayout;
import java.util.List;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.spi.Provider;

import static org.jdtrace.perf.internal.CaptureProgram.Capture;
import static org.jdtrace.perf.internal.TracepointProvider.Spec;
import static org.jdtrace.perf.internal.TracepointProvider.chars;
import static org.jdtrace.perf.internal.TracepointProvider.field;

final class TracepointProviders {

    private static final long CLONE_THREAD = 0x10000, CLONE_PARENT = 0x8000;
    /** siginfo's si_code for SIGCHLD (<sys/wait.h>), proc:::exit's arg0. */
    static final int CLD_EXITED = 1, CLD_KILLED = 2, CLD_DUMPED = 3;

    /** DTrace's reason from a wait status (task_struct.exit_code): exited, killed, or dumped core. */
    static int exitReason(int status) {
        if ((status & 0x7f) == 0) return CLD_EXITED;
        return (status & 0x80) != 0 ? CLD_DUMPED : CLD_KILLED;
    }

    private TracepointProviders() {}

    static List<Provider> all(PerfEventsImpl perf, Comms comms, UserSymbols symbols, Abi abi) {
        return List.of(
                new TracepointProvider("sched", sched(comms), perf, comms, symbols, abi),
                new TracepointProvider("proc", proc(comms), perf, comms, symbols, abi),
                new KernelSyscallProvider(perf, comms, symbols, abi));
    }

    static List<Spec> sched(Comms comms) {
        return List.of(
                new Spec("", "off-cpu", "sched", "sched_switch", Capture.sched(true), (s, tp, c) -> {
                    int next = (int) field(s, tp, "next_pid");
                    c.arg(0, next);
                    c.arg(1, comms.tgid(next));
                    c.arg(2, field(s, tp, "prev_state"));
                    return true;
                }, "pid_t", "pid_t", "long"),
                new Spec("", "on-cpu", "sched", "sched_switch", Capture.sched(true), (s, tp, c) -> {
                    c.as((int) field(s, tp, "next_pid"), chars(s, tp, "next_comm"));
                    c.asRuntime = s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.NEXT_RUNTIME);
                    return true;
                }),
                new Spec("", "wakeup", "sched", "sched_wakeup", Capture.sched(false), (s, tp, c) -> {
                    int woken = (int) field(s, tp, "pid");
                    c.arg(0, woken);
                    c.arg(1, comms.tgid(woken));
                    c.arg(2, field(s, tp, "target_cpu"));
                    return true;
                }, "pid_t", "pid_t", "int"));
    }

    static List<Spec> proc(Comms comms) {
        return List.of(
                new Spec("", "exec", "syscalls", "sys_enter_execve", new Capture(null, "filename", "filename", true, false),
                        (s, tp, c) -> {
                    long addr = s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.FIELD);
                    String path = TracepointProvider.cstring(s.raw, CaptureProgram.STRING, CaptureProgram.STRING_SIZE);
                    c.arg(0, addr);
                    c.arg(0, path);
                    c.captured(addr, path);
                    return true;
                }, "string"),
                new Spec("", "exec-success", "sched", "sched_process_exec", Capture.proc(), (s, tp, c) -> true),
                new Spec("", "exec-failure", "syscalls", "sys_exit_execve", Capture.proc(), (s, tp, c) -> {
                    long ret = field(s, tp, "ret");
                    c.arg(0, -ret);
                    return ret < 0;
                }, "int"),
                new Spec("", "create", "task", "task_newtask", Capture.proc(), (s, tp, c) -> {
                    long flags = field(s, tp, "clone_flags");
                    c.arg(0, field(s, tp, "pid"));
                    // the child: its parent is the creator (CLONE_PARENT: the creator's parent), its
                    // name the creator's until it execs (the record's comm, read at the event)
                    c.argInfo(0, (flags & CLONE_PARENT) != 0 ? c.ppid() : s.pid, chars(s, tp, "comm"));
                    return (flags & CLONE_THREAD) == 0;
                }, "psinfo_t *"),
                new Spec("", "lwp-create", "task", "task_newtask", Capture.proc(), (s, tp, c) -> {
                    c.arg(0, field(s, tp, "pid"));
                    c.arg(1, s.pid);
                    c.argInfo(0, Long.MIN_VALUE, chars(s, tp, "comm"));
                    c.argInfo(1, c.ppid(), c.execname());
                    return (field(s, tp, "clone_flags") & CLONE_THREAD) != 0;
                }, "lwpsinfo_t *", "psinfo_t *"),
                new Spec("", "exit", "sched", "sched_process_exit", new Capture("exit_code", "group_dead", null, true, false),
                        (s, tp, c) -> {
                    c.arg(0, exitReason(s.raw.get(ValueLayout.JAVA_INT_UNALIGNED, CaptureProgram.VALUE)));
                    return s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.FIELD) != 0;
                }, "int"),
                new Spec("", "lwp-exit", "sched", "sched_process_exit", Capture.proc(), (s, tp, c) -> {
                    c.arg(0, s.tid);
                    return true;
                }),
                new Spec("", "signal-send", "signal", "signal_generate", Capture.proc(), (s, tp, c) -> {
                    int target = (int) field(s, tp, "pid");
                    c.arg(0, target);
                    c.arg(1, comms.tgid(target));
                    c.arg(2, field(s, tp, "sig"));
                    // the target thread's comm, read at the event (its process's name when it is
                    // the process's first thread)
                    String comm = chars(s, tp, "comm");
                    c.argInfo(0, Long.MIN_VALUE, comm);
                    if (target == c.arg(1)) c.argInfo(1, Long.MIN_VALUE, comm);
                    return true;
                }, "lwpsinfo_t *", "psinfo_t *", "int"),
                new Spec("", "signal-handle", "signal", "signal_deliver", Capture.proc(), (s, tp, c) -> {
                    c.arg(0, field(s, tp, "sig"));
                    c.arg(2, field(s, tp, "sa_handler"));
                    return true;
                }, "int", "siginfo_t *", "void (*)(void)"));
    }
}
