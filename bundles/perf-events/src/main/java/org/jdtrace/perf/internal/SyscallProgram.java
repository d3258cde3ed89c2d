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
 *   entry: 80 u64 ppid   88 u64 runtime   96 s64 kernel stack   104 char strings[4][256] (a call
 *          with string arguments only)
 *          1128 u32 faults: bit i set when string argument i could not be read (a bad address)
 *   return: 40 u64 ppid  48 u64 runtime  56 s64 kernel stack
 * The kernel stack is the KernelStacks id of the stack at the event (bpf_get_stackid) where the
 * call's mask has KSTACK (bit 12: a clause in the JVM reads stack(), Probe.kernelStack), else -1 (and
 * -1 where the stack map would not take it).
 * DEFER (bit 6 of an entry's mask): a string argument that faults at entry is read again at the
 * return of the same call: the entry record waits in the deferred map (tid -> record) and the exit
 * program sends it, completed, before anything else (deferredEntry).
 * Clauses (ClauseProgram): after the pid filter, bits 16..31 of the mask name the call's clause
 * group, whose code runs the clauses the provider took and decides whether the record is sent.
 *
 * USTACK (the call's probe has a clause that walks the user stack, Probe.userStack): bits 9..11
 * of the mask (of a return record's kind too) are the pages of user stack to copy, and the record
 * ends with a stack section at STACK (after the largest record without one, whatever its kind):
 *   STACK u64 the user address of the copy's first byte   +8 u64 the copy's length
 *   +16 u64 regs[words]: the thread's user registers (struct pt_regs at its kernel entry, through
 *   bpf_get_current_task_btf and bpf_task_pt_regs)   then the copy (BpfAsm.userPages, as the
 *   uprobe program's: whole pages from the page of the user sp up), the record ending with it.
 * A deferred entry's stack is copied at the return of its call, whose user frames are the entry's
 * (the call has not returned to user mode yet). A return record with a stack has 0 at EXIT_KIND
 * unless it is a KEEP return.
 *
 * Sizes: entry 104, entry with strings 1136, return 64. ppid is the calling process's parent at the
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

    static final int ENTRY = 1, STRING0 = 2, KEEP = 0x20, DEFER = 0x40, RETURN = 0x80, RETURN_RECORD = 0x100, KSTACK = 0x1000;
    static final int STRINGS = 4, STRING_SIZE = 256;
    static final int ENTRY_PPID = 80, EXIT_PPID = 40, ENTRY_RUNTIME = 88, EXIT_RUNTIME = 48;
    static final int ENTRY_STACK = 96, EXIT_STACK = 56, ENTRY_SIZE = 104, EXIT_SIZE = 64;
    /** The u32 of a record with strings whose bit i says string argument i's read faulted. */
    static final int FAULTS = ENTRY_SIZE + STRINGS * STRING_SIZE;
    static final int ENTRY_STRINGS_SIZE = FAULTS + 8;
    /** The u32 of a kept entry record that says it was not sent yet (the deferred map's copy). */
    static final int PENDING = FAULTS + 4;
    /**
     * A return record of a KEEP call: the entry's args[0..3] at EXIT_ARGS, its strings at
     * EXIT_STRINGS, its faults at EXIT_FAULTS, its mask at EXIT_KIND.
     */
    static final int EXIT_ARGS = EXIT_SIZE, EXIT_STRINGS = EXIT_ARGS + 32, EXIT_FAULTS = EXIT_STRINGS + STRINGS * STRING_SIZE,
            EXIT_KIND = EXIT_FAULTS + 8, EXIT_KEEP_SIZE = EXIT_KIND + 8;
    /** The deferred map's value: a record without a stack section. */
    static final int BUF_SIZE = ENTRY_STRINGS_SIZE;
    /** The mask's (and a return record's kind's) page count of the user stack copy (USTACK). */
    static final int PAGES_SHIFT = 9, PAGES_MASK = 7 << PAGES_SHIFT;
    /** The stack section's offset in a record (its address, length, registers, then the copy). */
    static final int STACK = BUF_SIZE, STACK_ADDR = STACK + SECTION_ADDR, STACK_LEN = STACK + SECTION_LEN,
            STACK_REGS = STACK + SECTION_REGS;
    /** The kernel's bound on a per-CPU map value (PCPU_MIN_UNIT_SIZE), which the record buffer is. */
    private static final int PERCPU_VALUE_MAX = 32768;
    private static final int STRING_BITS = ((1 << STRINGS) - 1) * STRING0;
    /** The deferred map's capacity: threads inside a call whose entry record waits for its return. */
    static final int DEFERRED = 1024;

    private SyscallProgram() {}

    /** Where the stack copy starts in a record whose registers are {@code words} words. */
    static int stackData(int words) {
        return STACK_REGS + 8 * words;
    }

    /** The most pages a record of {@code words} registers holds (0: no stack capture). */
    static int maxPages(int words) {
        return words <= 0 ? 0 : Math.min(PAGES_MASK >> PAGES_SHIFT, (PERCPU_VALUE_MAX - stackData(words)) / PAGE);
    }

    /** The record buffer's size (a per-CPU array's value): room for the stack section. */
    static int bufferSize(int words) {
        return words <= 0 ? BUF_SIZE : stackData(words) + maxPages(words) * PAGE;
    }

    /** The mask bits of a stack copy of {@code bytes} above the sp (0: none), for registers of {@code words} words. */
    static int stackPages(int bytes, int words) {
        if (bytes <= 0) return 0;
        // pages from the sp's page up that hold at least `bytes` above the sp wherever it is in its page
        long n = Math.min(maxPages(words), (bytes + 2L * PAGE - 1) / PAGE);
        return (int) n << PAGES_SHIFT;
    }

    /**
     * The user registers and stack into the stack section of the record at {@code rec} when its
     * kind (at 12) names pages (BpfAsm.userStack); r0..r5 clobbered.
     */
    private static void userStack(BpfAsm a, int rec, UserRegs regs, String tag) {
        if (regs == null) return;
        a.userStack(rec, STACK, regs.words(), regs.spWord(), maxPages(regs.words()),
                x -> x.ldxW(R1, rec, 12).rshImm(R1, PAGES_SHIFT).andImm(R1, PAGES_MASK >> PAGES_SHIFT), tag);
    }

    /**
     * r5 = the length of the record at {@code rec} up to its stack copy's end when it has a stack
     * section (bounded for the verifier), else r5 as it is; r1 clobbered.
     */
    private static void stackLength(BpfAsm a, int rec, UserRegs regs, String tag) {
        if (regs == null) return;
        a.ldxW(R1, rec, 12)
                .jsetImm(R1, PAGES_MASK, "withstack" + tag)
                .ja("length" + tag)
                .label("withstack" + tag)
                .ldxDw(R5, rec, STACK_LEN)
                .jgtImm(R5, maxPages(regs.words()) * PAGE, "out")
                .addImm(R5, stackData(regs.words()))
                .label("length" + tag);
    }


    /**
     * The common head: r6 = ctx, r7 = pid_tgid, r8 = number, r9 = armed mask (else to "out"), the
     * pid filter checked (else to "out"), r7 = record. The entry program reads the call's armed
     * entry at key nr, the exit program at key nr + maxNr + 1 (armedKey).
     */
    private static BpfAsm head(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int bit, Btf.Parent parent,
            Btf.Task task, Clauses clauses, int deferredFd, int eventsFd, UserRegs regs, int stackFd) {
        BpfAsm a = new BpfAsm();
        a.mov(R6, R1)
                .call(GET_CURRENT_PID_TGID)
                .mov(R7, R0)
                .ldxDw(R8, R6, tp.offset("id"))
                .jgtImm(R8, maxNr, "out");
        if (bit == RETURN && deferredFd >= 0) deferredEntry(a, tp, armedFd, deferredFd, eventsFd, bufFd, regs);
        a.mov(R1, R8)
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
                    bit == RETURN ? tp.offset("ret") : 0, parent, clauses.leader(), clauses.numbers()).withStacks(stackFd);
            new ClauseProgram(a, ev).threadLocals(clauses.tls()).groups(clauses.groups(), clauses.taken(), clauses.zeroFd(), clauses.dropsFd(),
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
        int stack = bit == RETURN ? EXIT_STACK : ENTRY_STACK;
        a.movImm(R0, -1);
        if (stackFd >= 0) {
            a.jsetImm(R9, KSTACK, "stack").ja("stacked")
                    .label("stack").mov(R1, R6).ldMap(R2, stackFd).movImm(R3, 0).call(KernelStacks.GET_STACKID)
                    .label("stacked");
        }
        a.stxDw(R7, stack, R0);
        return a;
    }

    /**
     * At a call's return, before anything else: the entry record the entry program left in the
     * deferred map for this thread (a string argument it could not read, DEFER in the entry's
     * mask) is completed and sent, then removed. Each string argument whose FAULTS bit is set is
     * read again (the kernel has just copied it in, so its page is resident now; a bad address
     * still faults and keeps its bit), and the record goes out as an entry record, ahead of the
     * return's. A record of another call (a thread that left a call without a return event and
     * whose tid came back) is removed unsent. An entry with a stack section (USTACK) is copied into
     * the record buffer and its registers and stack copied now (the call's user frames are the
     * entry's). Uses r9 and the stack at -24..-1; r0..r5 clobbered.
     */
    private static void deferredEntry(BpfAsm a, KernelTracepoint tp, int armedFd, int deferredFd, int eventsFd, int bufFd,
            UserRegs regs) {
        a.lookupKey(armedFd, R8)
                .jeqImm(R0, 0, "nodefer")
                .ldxW(R1, R0, 0)
                .stxW(R10, -16, R1) // the entry's mask, for KEEP below
                .jsetImm(R1, DEFER | KEEP, "defer")
                .ja("nodefer")
                .label("defer")
                .stxW(R10, -8, R7) // the tid (lower half of pid_tgid)
                .ldMap(R1, deferredFd).mov(R2, R10).addImm(R2, -8).call(MAP_LOOKUP_ELEM)
                .jeqImm(R0, 0, "nodefer")
                .mov(R9, R0)
                .ldxW(R1, R9, 8)
                .jneReg(R1, R8, "defer_done");
        for (int i = 0; i < STRINGS; i++) {
            a.ldxW(R1, R9, FAULTS)
                    .jsetImm(R1, 1 << i, "reread" + i)
                    .ja("reread_next" + i)
                    .label("reread" + i)
                    .mov(R1, R9)
                    .addImm(R1, ENTRY_SIZE + STRING_SIZE * i)
                    .movImm(R2, STRING_SIZE)
                    .ldxDw(R3, R9, 32 + 8 * i)
                    .call(PROBE_READ_USER_STR)
                    .jmp(0xc5, R0, 0, 1, "reread_next" + i) // jslt 1: faults still
                    .ldxW(R1, R9, FAULTS)
                    .insn(0x57, R1, 0, 0, ~(1 << i)) // and
                    .stxW(R9, FAULTS, R1)
                    .label("reread_next" + i);
        }
        a.ldxW(R1, R9, PENDING)
                .jeqImm(R1, 0, "sent")
                .stW(R9, PENDING, 0);
        if (regs != null) {
            a.ldxW(R1, R9, 12)
                    .jsetImm(R1, PAGES_MASK, "defer_stack")
                    .ja("defer_plain")
                    .label("defer_stack")
                    .stxDw(R10, -24, R7)
                    .lookupKey0(bufFd)
                    .jeqImm(R0, 0, "defer_nobuf")
                    .mov(R7, R0)
                    .mov(R1, R7).movImm(R2, BUF_SIZE).mov(R3, R9).call(PROBE_READ_KERNEL);
            userStack(a, R7, regs, "d");
            a.movImm(R5, ENTRY_STRINGS_SIZE);
            stackLength(a, R7, regs, "d");
            a.mov(R1, R6).ldMap(R2, eventsFd).mov32Imm(R3, -1).mov(R4, R7)
                    .call(PERF_EVENT_OUTPUT)
                    .ldxDw(R7, R10, -24)
                    .ja("sent")
                    .label("defer_nobuf")
                    .ldxDw(R7, R10, -24)
                    .label("defer_plain");
        }
        a.mov(R1, R6).ldMap(R2, eventsFd).mov32Imm(R3, -1).mov(R4, R9).movImm(R5, ENTRY_STRINGS_SIZE)
                .call(PERF_EVENT_OUTPUT)
                .label("sent")
                .ldxW(R1, R10, -16)
                .jsetImm(R1, KEEP, "nodefer") // the return record takes it, then removes it
                .label("defer_done")
                .ldMap(R1, deferredFd).mov(R2, R10).addImm(R2, -8).call(MAP_DELETE_ELEM)
                .label("nodefer");
    }

    /**
     * The clauses the program runs (ClauseProgram): the groups of its end's probes, the taken
     * clauses' maps, the zeroed scratch value and the drops map, the thread-locals maps' lease
     * (ClauseProgram.threadLocals; null without whole clauses); null: none (group bits ignored).
     */
    record Clauses(List<ClauseProgram.Group> groups, Map<KernelClause, ClauseProgram.Taken> taken, int zeroFd,
            int dropsFd, Btf.Leader leader, Map<String, List<Integer>> numbers, ThreadLocalsMap.Lease tls) {}

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
     * {@code clauses}: the clauses the program runs, null for none; {@code stackFd}: the
     * KernelStacks map the record's stack and stack() keys take (-1: none, the record's stack -1).
     */
    static long[] enter(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int eventsFd, Btf.Parent parent,
            Btf.Task task, Clauses clauses, int deferredFd, UserRegs regs, int stackFd) {
        BpfAsm a = head(tp, maxNr, armedFd, bufFd, ENTRY, parent, task, clauses, -1, eventsFd, regs, stackFd);
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
        if (deferredFd >= 0) {
            // a string it could not read, of a call whose return can read it: kept for the return,
            // unsent (PENDING); the entry of a call whose return wants its strings (KEEP): kept, sent
            a.stW(R7, PENDING, 0)
                    .jsetImm(R9, DEFER, "deferrable")
                    .ja("keep")
                    .label("deferrable")
                    .ldxW(R1, R7, FAULTS)
                    .jeqImm(R1, 0, "keep")
                    .stW(R7, PENDING, 1)
                    .label("keep")
                    .ldxW(R1, R7, PENDING)
                    .jneImm(R1, 0, "stash")
                    .jsetImm(R9, KEEP, "stash")
                    .ja("send_now")
                    .label("stash")
                    .call(GET_CURRENT_PID_TGID)
                    .stxW(R10, -8, R0)
                    .ldMap(R1, deferredFd).mov(R2, R10).addImm(R2, -8).mov(R3, R7).movImm(R4, 0) // BPF_ANY
                    .call(MAP_UPDATE_ELEM)
                    .jneImm(R0, 0, "send_now") // the map refused it: sent now, its faults as they are
                    .ldxW(R1, R7, PENDING)
                    .jneImm(R1, 0, "out")
                    .label("send_now");
        }
        userStack(a, R7, regs, "e");
        a.jsetImm(R9, STRING_BITS, "big")
                .movImm(R5, ENTRY_SIZE)
                .ja("send")
                .label("big")
                .movImm(R5, ENTRY_STRINGS_SIZE)
                .label("send");
        stackLength(a, R7, regs, "e");
        output(a, eventsFd);
        a.call(PERF_EVENT_OUTPUT);
        countLost(a, clauses);
        a.label("out")
                .movImm(R0, 0)
                .exit();
        return a.code();
    }

    static long[] exit(KernelTracepoint tp, int maxNr, int armedFd, int bufFd, int eventsFd, Btf.Parent parent,
            Btf.Task task, Clauses clauses, int deferredFd, UserRegs regs, int stackFd) {
        BpfAsm a = head(tp, maxNr, armedFd, bufFd, RETURN, parent, task, clauses, deferredFd, eventsFd, regs, stackFd);
        a.mov(R1, R9).andImm(R1, PAGES_MASK).insn(0x47, R1, 0, 0, RETURN_RECORD) // or: the return's pages
                .stxW(R7, 12, R1)
                .ldxDw(R1, R6, tp.offset("ret"))
                .stxDw(R7, 32, R1);
        if (regs != null) {
            userStack(a, R7, regs, "x");
            a.stW(R7, EXIT_KIND, 0); // no entry's strings unless a KEEP return's below
        }
        if (deferredFd >= 0) {
            // KEEP: the entry's args and strings (read again here where they faulted) go with the
            // return, for copyinstr() of a pointer the entry saved (self->p); then the copy goes
            a.lookupKey(armedFd, R8)
                    .jeqImm(R0, 0, "plain")
                    .ldxW(R1, R0, 0)
                    .jsetImm(R1, KEEP, "kept")
                    .ja("plain")
                    .label("kept")
                    .call(GET_CURRENT_PID_TGID)
                    .stxW(R10, -8, R0)
                    .ldMap(R1, deferredFd).mov(R2, R10).addImm(R2, -8).call(MAP_LOOKUP_ELEM)
                    .jeqImm(R0, 0, "plain")
                    .mov(R9, R0)
                    .ldxW(R1, R9, 8)
                    .jneReg(R1, R8, "kept_done")
                    .mov(R1, R7).addImm(R1, EXIT_ARGS).movImm(R2, 32).mov(R3, R9).addImm(R3, 32).call(PROBE_READ_KERNEL)
                    .mov(R1, R7).addImm(R1, EXIT_STRINGS).movImm(R2, STRINGS * STRING_SIZE + 8)
                    .mov(R3, R9).addImm(R3, ENTRY_SIZE).call(PROBE_READ_KERNEL)
                    .ldxW(R1, R9, 12).stxW(R7, EXIT_KIND, R1);
            a.movImm(R5, EXIT_KEEP_SIZE);
            stackLength(a, R7, regs, "k");
            output(a, eventsFd);
            a.call(PERF_EVENT_OUTPUT)
                    .label("kept_done")
                    .ldMap(R1, deferredFd).mov(R2, R10).addImm(R2, -8).call(MAP_DELETE_ELEM)
                    .ja("out")
                    .label("plain");
        }
        a.movImm(R5, EXIT_SIZE);
        stackLength(a, R7, regs, "p");
        output(a, eventsFd);
        a.call(PERF_EVENT_OUTPUT);
        countLost(a, clauses);
        a.label("out")
                .movImm(R0, 0)
                .exit();
        return a.code();
    }
}
