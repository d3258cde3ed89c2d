/*
 * A tracepoint program that captures at the event what the tracepoint's record lacks, for the
 * proc provider: a user string a field points to (proc:::exec's path, read with
 * bpf_probe_read_user_str while the process still exists) and a member of the current task read
 * at the layout the kernel's BTF gives (task_struct.exit_code at sched_process_exit). It sends
 * one record per event with bpf_perf_event_output into a per-CPU BPF-output perf event, whose
 * ring the PerfEvents service drains like any other. It returns 1, so other perf users of the
 * tracepoint keep their samples (a tracepoint's programs are shared by all its perf events).
 *
 * The record: 0 u64 pid_tgid   8 u64 the task member (0 if none)   16 char comm[16]
 *             32 u64 a field of the tracepoint (0 if none)   40 char string[256] (empty if none)
 *             296 u64 ppid: current->real_parent->tgid at the event (0 when the kernel has no BTF)
 */
package org.jdtrace.perf.internal;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.KernelTracepoint;
import org.jdtrace.perf.PerfEvents;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class CaptureProgram {

    static final int VALUE = 8, COMM = 16, FIELD = 32, STRING = 40, STRING_SIZE = 256, PPID = STRING + STRING_SIZE,
            SIZE = PPID + 8;

    /**
     * What to capture: {@code taskMember} of task_struct (4 bytes), {@code field} of the
     * tracepoint (1, 2, 4 or 8 bytes, unsigned), the user string {@code stringField} points to;
     * each may be null.
     */
    record Capture(String taskMember, String field, String stringField) {}

    private CaptureProgram() {}

    /**
     * The program that keeps, for tracepoints whose own records fire the probes (proc and sched
     * probes without a capture), each process's ppid at its latest event: map {@code mapFd}
     * (an LRU hash, u32 tgid -> u64 current->real_parent->tgid) is updated at every event, and
     * the drain thread looks the firing process up when a clause reads ppid (EventContext), so a
     * process gone since still has the parent it had at the event. Returns 1: the tracepoint's
     * records, ours and other perf users', are kept.
     */
    static long[] ppids(int mapFd, Btf.Parent parent) {
        return new BpfAsm()
                .call(GET_CURRENT_PID_TGID)
                .rshImm(R0, 32)
                .recordParent(R0, mapFd, parent)
                .movImm(R0, 1)
                .exit()
                .code();
    }

    /** The map ppids() and ProfileSampler's filter keep the parents in (an LRU hash, u32 tgid -> u64 ppid). */
    static BpfObject ppidMap(PerfEvents perf) {
        return perf.map(PerfSys.MAP_LRU_HASH, 4, 8, 16384, "jdtrace_ppids");
    }

    /**
     * {@code taskOffset}: the member's offset in task_struct (Btf), or -1 when none is read;
     * {@code parent}: where the parent's tgid is (Btf.parent), null when unknown;
     * {@code filterFd}: the pid filter map (see above).
     */
    static long[] build(KernelTracepoint tp, Capture c, int taskOffset, Btf.Parent parent, int filterFd, int bufFd,
            int eventsFd) {
        BpfAsm a = new BpfAsm();
        a.mov(R6, R1)
                .call(GET_CURRENT_PID_TGID)
                .mov(R7, R0)
                // the pid filter (key 0 of filterFd): 0 for every process, else the one pid + 1
                .lookupKey0(filterFd)
                .jeqImm(R0, 0, "out")
                .pidFilter(R0, 0, R7, "out")
                .lookupKey0(bufFd)
                .jeqImm(R0, 0, "out")
                .mov(R8, R0)
                .stxDw(R8, 0, R7)
                .movImm(R1, 0)
                .stxDw(R8, VALUE, R1)
                .stxDw(R8, FIELD, R1)
                .stxDw(R8, STRING, R1)
                .stxDw(R8, PPID, R1)
                .comm(R8, COMM);
        if (parent != null) a.parentTgid(R8, PPID, parent);
        if (c.taskMember() != null) {
            a.call(GET_CURRENT_TASK)
                    .mov(R3, R0)
                    .addImm(R3, taskOffset)
                    .mov(R1, R8)
                    .addImm(R1, VALUE)
                    .movImm(R2, 4)
                    .call(PROBE_READ_KERNEL);
        }
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
        a.mov(R1, R6)
                .ldMap(R2, eventsFd)
                .mov32Imm(R3, -1)
                .mov(R4, R8)
                .movImm(R5, SIZE)
                .call(PERF_EVENT_OUTPUT)
                .label("out")
                .movImm(R0, 1)
                .exit();
        return a.code();
    }
}
