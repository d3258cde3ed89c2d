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
 *   entry: 80 u64 ppid   88 char strings[4][256] (a call with string arguments only)
 *   return: 40 u64 ppid
 * Sizes: entry 88, entry with strings 1112, return 48. ppid is the calling process's parent at the
 * event (current->real_parent->tgid at the kernel's BTF offsets), 0 when the kernel has no BTF.
 */
package org.jdtrace.perf.internal;

import org.jdtrace.perf.KernelTracepoint;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class SyscallProgram {

    static final int ENTRY = 1, STRING0 = 2, RETURN = 0x80, RETURN_RECORD = 0x100;
    static final int STRINGS = 4, STRING_SIZE = 256;
    static final int ENTRY_PPID = 80, EXIT_PPID = 40;
    static final int ENTRY_SIZE = 88, ENTRY_STRINGS_SIZE = ENTRY_SIZE + STRINGS * STRING_SIZE, EXIT_SIZE = 48;
    static final int BUF_SIZE = ENTRY_STRINGS_SIZE;
    private static final int STRING_BITS = ((1 << STRINGS) - 1) * STRING0;

    private SyscallProgram() {}

    /**
     * The common head: r6 = ctx, r7 = pid_tgid, r8 = number, r9 = armed mask (else to "out"), the
     * pid filter checked (else to "out"), r7 = record. The entry program reads the call's armed
     * entry at key nr, the exit program at key nr + maxNr + 1 (armedKey).
     */
    private static BpfAsm head(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int bit, Btf.Parent parent) {
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
                .pidFilter(R0, 4, R7, "out")
                .lookupKey0(bufFd)
                .jeqImm(R0, 0, "out")
                .stxDw(R0, 0, R7)
                .stxW(R0, 8, R8)
                .mov(R7, R0)
                .comm(R7, 16);
        int ppid = bit == RETURN ? EXIT_PPID : ENTRY_PPID;
        if (parent != null) a.parentTgid(R7, ppid, parent);
        else a.movImm(R1, 0).stxDw(R7, ppid, R1);
        return a;
    }

    private static void output(BpfAsm a, int eventsFd) {
        a.mov(R1, R6).ldMap(R2, eventsFd).mov32Imm(R3, -1).mov(R4, R7);
    }

    /** The armed map's key of a call's entry or return. */
    static int armedKey(int nr, boolean entry, int maxNr) {
        return entry ? nr : nr + maxNr + 1;
    }

    /** The armed map's value: the mask, and the pid filter (-1: every process). */
    static long armedValue(int mask, long pidFilter) {
        return (mask & 0xffffffffL) | (pidFilter < 0 ? 0 : (pidFilter + 1) << 32);
    }

    /** {@code parent}: where the parent's tgid is (Btf.parent), null when unknown (ppid 0). */
    static long[] enter(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int eventsFd, Btf.Parent parent) {
        BpfAsm a = head(tp, maxNr, armedFd, bufFd, ENTRY, parent);
        int args = tp.offset("args");
        a.stxW(R7, 12, R9);
        for (int i = 0; i < 6; i++) a.ldxDw(R1, R6, args + 8 * i).stxDw(R7, 32 + 8 * i, R1);
        for (int i = 0; i < STRINGS; i++) {
            a.jsetImm(R9, STRING0 << i, "s" + i)
                    .ja("n" + i)
                    .label("s" + i)
                    .mov(R1, R7)
                    .addImm(R1, ENTRY_SIZE + STRING_SIZE * i)
                    .movImm(R2, STRING_SIZE)
                    .ldxDw(R3, R6, args + 8 * i)
                    .call(PROBE_READ_USER_STR)
                    .label("n" + i);
        }
        output(a, eventsFd);
        a.jsetImm(R9, STRING_BITS, "big")
                .movImm(R5, ENTRY_SIZE)
                .ja("send")
                .label("big")
                .movImm(R5, ENTRY_STRINGS_SIZE)
                .label("send")
                .call(PERF_EVENT_OUTPUT)
                .label("out")
                .movImm(R0, 0)
                .exit();
        return a.code();
    }

    static long[] exit(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int eventsFd, Btf.Parent parent) {
        BpfAsm a = head(tp, maxNr, armedFd, bufFd, RETURN, parent);
        a.stW(R7, 12, RETURN_RECORD)
                .ldxDw(R1, R6, tp.offset("ret"))
                .stxDw(R7, 32, R1);
        output(a, eventsFd);
        a.movImm(R5, EXIT_SIZE)
                .call(PERF_EVENT_OUTPUT)
                .label("out")
                .movImm(R0, 0)
                .exit();
        return a.code();
    }
}
