/*
 * A tracepoint program that captures at the event what the proc and sched probes read, for a
 * process that may have exec'd or gone when its record is read: the current task's identity
 * (pid, tid, comm, its parent's tgid), its time on CPU (se.sum_exec_runtime: D's vtimestamp),
 * its credentials (uid and gid, and through task->cred the effective ones), for the proc
 * probes its argument strings (mm->arg_start..arg_end, up to 80 bytes: psinfo's pr_psargs), a
 * user string a field points to (proc:::exec's path, read with bpf_probe_read_user_str while
 * the process still exists), a 4-byte member of the current task (task_struct.exit_code at
 * sched_process_exit), one field of the tracepoint, and a copy of the tracepoint's own record
 * (its fixed part), which the probes' Firings read as they would read the tracepoint's sample.
 * Members are read at the layout the kernel's BTF gives (Btf.Task, Btf.Parent); without BTF
 * they stay 0 and the runtime reads /proc after the event. It sends one record per event with
 * bpf_perf_event_output into a per-CPU BPF-output perf event, whose ring the PerfEvents service
 * drains like any other. It returns 1, so other perf users of the tracepoint keep their samples
 * (a tracepoint's programs are shared by all its perf events).
 *
 * sum_exec_runtime is what the scheduler last accounted: exact for the thread leaving the CPU
 * at sched_switch (the switch accounts it first), else up to one scheduler tick behind the
 * running thread (no helper gives a running task's current slice to a tracepoint program).
 *
 * At sched_switch (Capture.switches) the program also keeps each thread's sum_exec_runtime and
 * process as it leaves the CPU in a map (tid -> {ns, tgid}), and records the incoming thread's (NEXT_RUNTIME), its time
 * on CPU as it comes on, for sched:::on-cpu, which fires in its name; and each process's ppid at
 * its latest event in the ppid map (CaptureProgram.ppidMap), which on-cpu looks the incoming
 * process up in.
 *
 * The record: 0 u64 pid_tgid   8 u64 the task member (0 if none)   16 char comm[16]
 *   32 u64 a field of the tracepoint (0 if none)   40 u64 ppid (current->real_parent->tgid)
 *   48 u64 the current task's sum_exec_runtime   56 u64 uid and gid (bpf_get_current_uid_gid:
 *   gid << 32 | uid)   64 u32 euid   68 u32 egid   72 u64 psargs' length (0: not read)
 *   80 u64 the incoming thread's sum_exec_runtime at sched_switch (0 if unknown)
 *   88 the tracepoint's record[128]   then, where a capture asks for them (else the record ends
 *   at SHORT_SIZE): 216 char psargs[80]   296 char string[256] (empty if none)
 *   then, while a probe of the capture walks the user stack (the filter's page count is not 0),
 *   at SIZE a user stack section (BpfAsm.userStack: the current thread's user registers and the
 *   top of its user stack, the syscall programs' copy), the record ending with it: ustack() at
 *   proc and sched probes unwinds it by CFI (a kernel thread has none).
 *
 * Pid filter (key 0: a u32, 0 for every process, else the one pid + 1; then a u32, the pages of
 * user stack to copy, 0 none): a record is sent for the one process the filter names (or for every process),
 * as the current task's; at sched_switch also when the incoming thread is of that process
 * (on-cpu fires in its name), which the runtime map tells (each thread's process, kept as it
 * leaves the CPU; a thread the map has not seen yet is let through, and the predicates decide).
 */
package org.jdtrace.perf.internal;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.KernelTracepoint;
import org.jdtrace.perf.PerfEvents;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class CaptureProgram {

    static final int VALUE = 8, COMM = 16, FIELD = 32, PPID = 40, RUNTIME = 48, UID_GID = 56, EUID = 64, EGID = 68,
            PSARGS_LEN = 72, NEXT_RUNTIME = 80, RAW = 88, RAW_SIZE = 128, PSARGS = RAW + RAW_SIZE, PSARGS_SIZE = 80,
            STRING = PSARGS + PSARGS_SIZE, STRING_SIZE = 256, SIZE = STRING + STRING_SIZE;
    /** What a record without psargs and string holds (sched's: they are many), sent without the rest. */
    static final int SHORT_SIZE = PSARGS;
    /** The filter value: the pid filter, the page count of the user stack copy; its size. */
    static final int FILTER_PAGES = 4, FILTER_VALUE = 8;
    /** Where the page count waits on the stack between the filter's lookup and the copy. */
    private static final int PAGES_SLOT = -40;
    /** The kernel's bound on a per-CPU map value (PCPU_MIN_UNIT_SIZE), which the record buffer is. */
    private static final int PERCPU_VALUE_MAX = 32768;

    /** The most pages of user stack a record with registers of {@code regs} holds (0: none). */
    static int maxPages(BpfAsm.UserRegs regs) {
        return regs == null ? 0 : (PERCPU_VALUE_MAX - SIZE - BpfAsm.SECTION_REGS - 8 * regs.words()) / PAGE;
    }

    /** The record buffer's size: room for a user stack section. */
    static int bufferSize(BpfAsm.UserRegs regs) {
        return regs == null ? SIZE : SIZE + BpfAsm.SECTION_REGS + 8 * regs.words() + maxPages(regs) * PAGE;
    }

    /** The filter's page count for a copy of {@code bytes} above the sp (as the uprobe and syscall programs size theirs). */
    static int stackPages(int bytes, BpfAsm.UserRegs regs) {
        return bytes <= 0 ? 0 : (int) Math.min(maxPages(regs), (bytes + 2L * PAGE - 1) / PAGE);
    }

    /**
     * What to capture beyond the task's identity, time and credentials: {@code taskMember} of
     * task_struct (4 bytes), {@code field} of the tracepoint (1, 2, 4 or 8 bytes, unsigned), the
     * user string {@code stringField} points to (each may be null); {@code psargs}: the process's
     * argument strings; {@code switches}: the incoming thread's time on CPU at sched_switch (see
     * above). The tracepoint's record is always copied.
     */
    record Capture(String taskMember, String field, String stringField, boolean psargs, boolean switches) {

        /** A proc probe's: psargs. */
        static Capture proc() {
            return new Capture(null, null, null, true, false);
        }

        /** A sched probe's: no psargs (sched events are many). */
        static Capture sched(boolean switches) {
            return new Capture(null, null, null, false, switches);
        }
    }

    private CaptureProgram() {}

    /** The map ProfileSampler's filter and the capture programs keep the parents in (an LRU hash, u32 tgid -> u64 ppid). */
    static BpfObject ppidMap(PerfEvents perf) {
        return perf.map(PerfSys.MAP_LRU_HASH, 4, 8, 16384, "jdtrace_ppids");
    }

    /**
     * The map a sched_switch capture keeps each thread's time on CPU and process in, as the
     * thread last left a CPU (an LRU hash, u32 tid -> {u64 ns, u64 tgid}).
     */
    static BpfObject runtimeMap(PerfEvents perf) {
        return perf.map(PerfSys.MAP_LRU_HASH, 4, 16, 65536, "jdtrace_vtimes");
    }

    /** The bytes of the tracepoint's record its fields span (its fixed part), which RAW holds. */
    static int rawSize(KernelTracepoint tp) {
        int end = 0;
        for (int[] f : tp.fields().values()) end = Math.max(end, f[0] + f[1]);
        return end;
    }

    /**
     * {@code taskOffset}: the member's offset in task_struct (Btf), or -1 when none is read;
     * {@code parent}, {@code task}: where the parent's tgid and the task's time, credentials and
     * arguments are (Btf), null when unknown; {@code filterFd}: the pid filter map (key 0: 0 for
     * every process, else the one pid + 1); {@code ppidsFd}, {@code runtimesFd}: the ppid and
     * runtime maps a switches capture keeps (-1: none); {@code regs}: the user register frame of
     * the user stack section, null for none.
     */
    static long[] build(KernelTracepoint tp, Capture c, int taskOffset, Btf.Parent parent, Btf.Task task, int filterFd,
            int bufFd, int eventsFd, int ppidsFd, int runtimesFd, BpfAsm.UserRegs regs) {
        if (rawSize(tp) > RAW_SIZE) {
            throw new IllegalArgumentException(tp.name() + "'s record (" + rawSize(tp) + " bytes) passes " + RAW_SIZE);
        }
        BpfAsm a = new BpfAsm();
        a.mov(R6, R1)
                .call(GET_CURRENT_PID_TGID)
                .mov(R7, R0);
        boolean switches = c.switches() && runtimesFd >= 0 && task != null;
        if (c.switches() && parent != null && ppidsFd >= 0) {
            // every process's ppid at its latest switch, whatever the filter lets through
            a.mov(R1, R7).rshImm(R1, 32).recordParent(R1, ppidsFd, parent);
        }
        if (switches) keepRuntime(a, tp, runtimesFd, task);
        // the pid filter (key 0 of filterFd): 0 for every process, else the one pid + 1
        a.lookupKey0(filterFd)
                .jeqImm(R0, 0, "out")
                .ldxW(R1, R0, FILTER_PAGES).stxW(R10, PAGES_SLOT, R1);
        if (switches) {
            a.mov(R9, R0)
                    .pidFilter(R9, 0, R7, "other")
                    .ja("pass")
                    .label("other")
                    .stW(R10, PAGES_SLOT, 0); // the current task is not the process's: its stack is not copied
            // the incoming thread's process, as the map last saw it (unknown: let through)
            lookupNext(a, tp, runtimesFd, "pass");
            a.ldxDw(R2, R0, 8)
                    .ldxW(R1, R9, 0)
                    .addImm(R1, -1)
                    .jneReg(R1, R2, "out")
                    .label("pass");
        } else {
            a.pidFilter(R0, 0, R7, "out");
        }
        a.lookupKey0(bufFd)
                .jeqImm(R0, 0, "out")
                .mov(R8, R0)
                .stxDw(R8, 0, R7)
                .movImm(R1, 0);
        for (int off = VALUE; off < RAW; off += 8) {
            if (off != COMM && off != COMM + 8) a.stxDw(R8, off, R1);
        }
        a.stxDw(R8, STRING, R1)
                .comm(R8, COMM)
                .call(GET_CURRENT_UID_GID)
                .stxDw(R8, UID_GID, R0);
        if (parent != null) a.parentTgid(R8, PPID, parent);
        if (task != null) {
            a.taskRead(R8, RUNTIME, task.se() + task.runtime(), 8)
                    .taskDeref(R8, EUID, task.cred(), task.euid(), 4)
                    .taskDeref(R8, EGID, task.cred(), task.egid(), 4);
            if (c.psargs()) psargs(a, task);
        }
        if (switches) switches(a, tp, runtimesFd);
        if (c.taskMember() != null) a.taskRead(R8, VALUE, taskOffset, 4);
        if (c.field() != null) {
            int[] f = tp.fields().get(c.field());
            if (f == null) throw new IllegalArgumentException(tp.name() + " has no field " + c.field());
            switch (f[1]) {
                case 1 -> a.ldxB(R1, R6, f[0]);
                case 2 -> a.ldxH(R1, R6, f[0]);
                case 4 -> a.ldxW(R1, R6, f[0]);
                default -> a.ldxDw(R1, R6, f[0]);
            }
            a.stxDw(R8, FIELD, R1);
        }
        if (c.stringField() != null) {
            a.mov(R1, R8)
                    .addImm(R1, STRING)
                    .movImm(R2, STRING_SIZE)
                    .ldxDw(R3, R6, tp.offset(c.stringField()))
                    .call(PROBE_READ_USER_STR);
        }
        a.mov(R1, R8)
                .addImm(R1, RAW)
                .movImm(R2, RAW_SIZE)
                .mov(R3, R6)
                .call(PROBE_READ_KERNEL);
        a.movImm(R5, c.psargs() || c.stringField() != null ? SIZE : SHORT_SIZE);
        if (regs != null) {
            int pages = maxPages(regs);
            a.userStack(R8, SIZE, regs.words(), regs.spWord(), pages, x -> x.ldxW(R1, R10, PAGES_SLOT), "c")
                    .ldxW(R1, R10, PAGES_SLOT)
                    .movImm(R5, c.psargs() || c.stringField() != null ? SIZE : SHORT_SIZE)
                    .jeqImm(R1, 0, "sized")
                    .ldxDw(R5, R8, SIZE + BpfAsm.SECTION_LEN)
                    .jgtImm(R5, pages * PAGE, "out")
                    .addImm(R5, SIZE + BpfAsm.SECTION_REGS + 8 * regs.words())
                    .label("sized");
        }
        a.mov(R1, R6)
                .ldMap(R2, eventsFd)
                .mov32Imm(R3, -1)
                .mov(R4, R8)
                .call(PERF_EVENT_OUTPUT)
                .label("out")
                .movImm(R0, 1)
                .exit();
        return a.code();
    }

    /**
     * psargs: up to PSARGS_SIZE bytes of current->mm's argument area (arg_start..arg_end, the
     * strings NUL-separated), and their count at PSARGS_LEN; nothing for a task without mm (a
     * kernel thread). Uses the stack at -24..-1.
     */
    private static void psargs(BpfAsm a, Btf.Task task) {
        a.call(GET_CURRENT_TASK)
                .mov(R3, R0).addImm(R3, task.mm())
                .mov(R1, R10).addImm(R1, -8).movImm(R2, 8).call(PROBE_READ_KERNEL)
                .ldxDw(R3, R10, -8)
                .jeqImm(R3, 0, "no_psargs")
                .addImm(R3, task.argStart())
                .mov(R1, R10).addImm(R1, -16).movImm(R2, 8).call(PROBE_READ_KERNEL)
                .ldxDw(R3, R10, -8)
                .addImm(R3, task.argEnd())
                .mov(R1, R10).addImm(R1, -24).movImm(R2, 8).call(PROBE_READ_KERNEL)
                .ldxDw(R2, R10, -24)
                .ldxDw(R1, R10, -16)
                .subReg(R2, R1)
                .jeqImm(R2, 0, "no_psargs")
                .jgtImm(R2, PSARGS_SIZE, "psargs_clamp")
                .ja("psargs_read")
                .label("psargs_clamp")
                .movImm(R2, PSARGS_SIZE)
                .label("psargs_read")
                .stxDw(R8, PSARGS_LEN, R2)
                .mov(R1, R8).addImm(R1, PSARGS)
                .ldxDw(R3, R10, -16)
                .call(PROBE_READ_USER)
                .label("no_psargs");
    }

    /**
     * At sched_switch, whatever the filter says: runtimes[prev_pid] = {the leaving thread's
     * sum_exec_runtime (exact here: the switch accounted it), its process (r7's tgid)}. Uses the
     * stack at -24..-1; r0..r5 clobbered.
     */
    private static void keepRuntime(BpfAsm a, KernelTracepoint tp, int runtimesFd, Btf.Task task) {
        a.ldxW(R1, R6, tp.offset("prev_pid"))
                .stxW(R10, -4, R1)
                .call(GET_CURRENT_TASK)
                .mov(R3, R0).addImm(R3, task.se() + task.runtime())
                .mov(R1, R10).addImm(R1, -24).movImm(R2, 8).call(PROBE_READ_KERNEL)
                .mov(R1, R7).rshImm(R1, 32).stxDw(R10, -16, R1)
                .ldMap(R1, runtimesFd)
                .mov(R2, R10).addImm(R2, -4)
                .mov(R3, R10).addImm(R3, -24)
                .movImm(R4, 0) // BPF_ANY
                .call(MAP_UPDATE_ELEM);
    }

    /**
     * At sched_switch: NEXT_RUNTIME = runtimes[next_pid]'s time (0 when the map has not seen it).
     * Uses the stack at -8..-1.
     */
    private static void switches(BpfAsm a, KernelTracepoint tp, int runtimesFd) {
        lookupNext(a, tp, runtimesFd, "no_next");
        a.ldxDw(R1, R0, 0)
                .stxDw(R8, NEXT_RUNTIME, R1)
                .label("no_next");
    }

    /**
     * r0 = the runtime map's entry of sched_switch's incoming thread (next_pid), or a jump to
     * {@code missing} when the map has none. Uses the stack at -4..-1; r0..r5 clobbered.
     */
    private static void lookupNext(BpfAsm a, KernelTracepoint tp, int runtimesFd, String missing) {
        a.ldxW(R1, R6, tp.offset("next_pid"))
                .stxW(R10, -4, R1)
                .ldMap(R1, runtimesFd)
                .mov(R2, R10).addImm(R2, -4)
                .call(MAP_LOOKUP_ELEM)
                .jeqImm(R0, 0, missing);
    }
}
