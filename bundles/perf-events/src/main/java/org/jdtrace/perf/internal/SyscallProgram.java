/*
 * The two BPF programs of the machine-wide syscall provider (see KernelSyscallProvider), for
 * raw_syscalls:sys_enter and sys_exit, with the field offsets of this kernel's tracefs formats.
 *
 * The armed map (array, 8-byte values {u32 mask, u32 pid filter}): key nr for the call's entry
 * (ENTRY and the STRINGn bits), key nr + maxNr + 1 for its return (RETURN); the pid filter is 0
 * for every process, else pid + 1 of the one process whose calls are sent (Probe.pidFilter):
 * other processes' calls cost the lookup and a compare, and never reach a ring.
 *
 * The record (in the per-CPU scratch map, sent with bpf_perf_event_output):
 *   0  u64 pid_tgid      8 u32 call number     12 u32 kind (entry: the armed mask; return: RETURN_RECORD)
 *   16 char comm[16]     32 u64 args[6] (entry) | u64 return value (return)
 *   entry: 80 u64 ppid   88 u64 runtime   96 char strings[4][256] (a call with string arguments only)
 *          1120 u32 faults: bit i set when string argument i could not be read (a bad address)
 *   return: 40 u64 ppid  48 u64 runtime
 * Clauses (ClauseProgram): after the pid filter, bits 16..31 of the mask name the call's clause
 * group, whose code runs the clauses the provider took and decides whether the record is sent.
 *
 * Sizes: entry 96, entry with strings 1128, return 56. ppid is the calling process's parent at the
 * event (current->real_parent->tgid at the kernel's BTF offsets), 0 when the kernel has no BTF;
 * runtime the calling thread's time on CPU (current->se.sum_exec_runtime: D's vtimestamp, as the
 * scheduler last accounted it, up to one tick behind; see CaptureProgram), 0 without BTF.
 */
package org.jdtrace.perf.internal;

import java.util.List;
import java.util.Map;

import org.jdtrace.perf.KernelTracepoint;
import org.jdtrace.spi.KernelClause;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class SyscallProgram {

    static final int ENTRY = 1, STRING0 = 2, RETURN = 0x80, RETURN_RECORD = 0x100;
    static final int STRINGS = 4, STRING_SIZE = 256;
    static final int ENTRY_PPID = 80, EXIT_PPID = 40, ENTRY_RUNTIME = 88, EXIT_RUNTIME = 48;
    static final int ENTRY_SIZE = 96, EXIT_SIZE = 56;
    /** The u32 of a record with strings whose bit i says string argument i's read faulted. */
    static final int FAULTS = ENTRY_SIZE + STRINGS * STRING_SIZE;
    static final int ENTRY_STRINGS_SIZE = FAULTS + 8;
    static final int BUF_SIZE = ENTRY_STRINGS_SIZE;
    private static final int STRING_BITS = ((1 << STRINGS) - 1) * STRING0;

    private SyscallProgram() {}

    /**
     * The common head: r6 = ctx, r7 = pid_tgid, r8 = number, r9 = armed mask (else to "out"), the
     * pid filter checked (else to "out"), r7 = record. The entry program reads the call's armed
     * entry at key nr, the exit program at key nr + maxNr + 1 (armedKey).
     */
    private static BpfAsm head(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int bit, Btf.Parent parent,
            Btf.Task task, Clauses clauses) {
        BpfAsm a = new BpfAsm();
        a.mov(R6, R1)
                .call(GET_CURRENT_PID_TGID)
                .mov(R7, R0)
                .ldxDw(R8, R6, tp.offset("id"))
                .jgtImm(R8, maxNr, "out")
                .mov(R1, R8)
                .addImm(R1, bit == RETURN ? maxNr + 1 : 0)
                .stxW(R10, -4, R1)
                .ldMap(R1, armedFd)
                .mov(R2, R10)
                .addImm(R2, -4)
                .call(MAP_LOOKUP_ELEM)
                .jeqImm(R0, 0, "out")
                .ldxW(R9, R0, 0)
                .jsetImm(R9, bit, "armed")
                .ja("out")
                .label("armed")
                .pidFilter(R0, 4, R7, "out");
        if (clauses != null) {
            ClauseProgram.Event ev = new ClauseProgram.Event(bit != RETURN, bit == RETURN ? 0 : tp.offset("args"),
                    bit == RETURN ? tp.offset("ret") : 0, parent, clauses.leader(), clauses.numbers());
            new ClauseProgram(a, ev).groups(clauses.groups(), clauses.taken(), clauses.zeroFd(), clauses.dropsFd(),
                    "record", "out");
        }
        a.label("record")
                .lookupKey0(bufFd)
                .jeqImm(R0, 0, "out")
                .stxDw(R0, 0, R7)
                .stxW(R0, 8, R8)
                .mov(R7, R0)
                .comm(R7, 16);
        int ppid = bit == RETURN ? EXIT_PPID : ENTRY_PPID;
        if (parent != null) a.parentTgid(R7, ppid, parent);
        else a.movImm(R1, 0).stxDw(R7, ppid, R1);
        int runtime = bit == RETURN ? EXIT_RUNTIME : ENTRY_RUNTIME;
        if (task != null) a.taskRead(R7, runtime, task.se() + task.runtime(), 8);
        else a.movImm(R1, 0).stxDw(R7, runtime, R1);
        return a;
    }

    /**
     * The clauses the program runs (ClauseProgram): the groups of its end's probes, the taken
     * clauses' maps, the zeroed scratch value and the drops map; null: none (group bits ignored).
     */
    record Clauses(List<ClauseProgram.Group> groups, Map<KernelClause, ClauseProgram.Taken> taken, int zeroFd,
            int dropsFd, Btf.Leader leader, Map<String, List<Integer>> numbers) {}

    /**
     * The program of the provider's tail call (prog array {@code progsFd}, slot {@code slot}):
     * what is attached to the tracepoint, so that the programs with the clauses can be swapped
     * in one map update (no event seen twice or missed). An empty slot drops the event.
     */
    static long[] trampoline(int progsFd, int slot) {
        return new BpfAsm().ldMap(R2, progsFd).movImm(R3, slot).call(ClauseProgram.TAIL_CALL).movImm(R0, 0).exit().code();
    }

    private static void output(BpfAsm a, int eventsFd) {
        a.mov(R1, R6).ldMap(R2, eventsFd).mov32Imm(R3, -1).mov(R4, R7);
    }

    /** The drops map's slot that counts records a full ring refused (after the clauses' slots). */
    static final int LOST_SLOT = ClauseProgram.MAX_CLAUSES;

    /**
     * After bpf_perf_event_output: a record the full ring refused counted in this CPU's
     * LOST_SLOT (the ring's own PERF_RECORD_LOST comes only with a later record, which may never
     * come: a traced process's last calls would be lost unseen).
     */
    private static void countLost(BpfAsm a, Clauses clauses) {
        if (clauses == null) return;
        a.jeqImm(R0, 0, "out").stW(R10, -4, LOST_SLOT).ldMap(R1, clauses.dropsFd()).mov(R2, R10).addImm(R2, -4)
                .call(MAP_LOOKUP_ELEM).jeqImm(R0, 0, "out").ldxDw(R1, R0, 0).addImm(R1, 1).stxDw(R0, 0, R1);
    }

    /** The armed map's key of a call's entry or return. */
    static int armedKey(int nr, boolean entry, int maxNr) {
        return entry ? nr : nr + maxNr + 1;
    }

    /** The armed map's value: the mask, and the pid filter (-1: every process). */
    static long armedValue(int mask, long pidFilter) {
        return (mask & 0xffffffffL) | (pidFilter < 0 ? 0 : (pidFilter + 1) << 32);
    }

    /**
     * {@code parent}: where the parent's tgid is (Btf.parent), null when unknown (ppid 0);
     * {@code task}: where the thread's time on CPU is (Btf.task), null when unknown (runtime 0);
     * {@code clauses}: the clauses the program runs, null for none.
     */
    static long[] enter(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int eventsFd, Btf.Parent parent,
            Btf.Task task, Clauses clauses) {
        BpfAsm a = head(tp, maxNr, armedFd, bufFd, ENTRY, parent, task, clauses);
        int args = tp.offset("args");
        a.stxW(R7, 12, R9);
        for (int i = 0; i < 6; i++) a.ldxDw(R1, R6, args + 8 * i).stxDw(R7, 32 + 8 * i, R1);
        a.stW(R7, FAULTS, 0);
        for (int i = 0; i < STRINGS; i++) {
            a.jsetImm(R9, STRING0 << i, "s" + i)
                    .ja("n" + i)
                    .label("s" + i)
                    .mov(R1, R7)
                    .addImm(R1, ENTRY_SIZE + STRING_SIZE * i)
                    .movImm(R2, STRING_SIZE)
                    .ldxDw(R3, R6, args + 8 * i)
                    .call(PROBE_READ_USER_STR)
                    .jmp(0x65, R0, 0, 0, "n" + i) // jsgt 0: read (its length with the NUL)
                    .ldxW(R1, R7, FAULTS)
                    .insn(0x47, R1, 0, 0, 1 << i) // or
                    .stxW(R7, FAULTS, R1)
                    .label("n" + i);
        }
        output(a, eventsFd);
        a.jsetImm(R9, STRING_BITS, "big")
                .movImm(R5, ENTRY_SIZE)
                .ja("send")
                .label("big")
                .movImm(R5, ENTRY_STRINGS_SIZE)
                .label("send")
                .call(PERF_EVENT_OUTPUT);
        countLost(a, clauses);
        a.label("out")
                .movImm(R0, 0)
                .exit();
        return a.code();
    }

    static long[] exit(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int eventsFd, Btf.Parent parent,
            Btf.Task task, Clauses clauses) {
        BpfAsm a = head(tp, maxNr, armedFd, bufFd, RETURN, parent, task, clauses);
        a.stW(R7, 12, RETURN_RECORD)
                .ldxDw(R1, R6, tp.offset("ret"))
                .stxDw(R7, 32, R1);
        output(a, eventsFd);
        a.movImm(R5, EXIT_SIZE)
                .call(PERF_EVENT_OUTPUT);
        countLost(a, clauses);
        a.label("out")
                .movImm(R0, 0)
                .exit();
        return a.code();
    }
}
