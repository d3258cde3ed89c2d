/*
 * The program of every uprobe_multi link of a UprobeCapture (a BPF_PROG_TYPE_KPROBE program run
 * by the kernel at each hit, in the hitting thread, before the probed instruction executes). It
 * captures what a clause may read later in the JVM and sends it with bpf_perf_event_output into
 * a per-CPU BPF-output perf event whose ring the PerfEvents service drains:
 *
 *   0 u64 pid_tgid   8 u64 the link's cookie for this offset   16 char comm[16]
 *   32 u64 regs[WORDS]: the context's struct pt_regs, word by word (pc at the probed instruction)
 *   32 + 8 * WORDS: STACK bytes of user stack from regs[SP] up (bpf_probe_read_user; zeroes
 *   when the read faults)
 *
 * The filter (an array map indexed by the cookie, u64 values: the low u32 0 for every process,
 * else the one pid + 1; the high u32 the cookie's clause group, 0 none) drops the hits of other
 * processes in the kernel, before anything is written. Clauses (ClauseProgram, UprobeClauses):
 * the cookie's group runs the clauses taken for its probe (r6 ctx, r7 pid_tgid, r8 the cookie,
 * which is what probefunc compares and keys as, r9 the group in bits 16..31) and decides whether
 * the record is sent at all; group 0 and a group this program does not know (one swapped in just
 * before the filter was rewritten) send it. Each group reads its probe's arguments from the words
 * of pt_regs its Event names (an entry's, a return's, a USDT site's). The
 * record is built in a per-CPU array map's value (the BPF stack is too small for it; uprobe
 * programs run with migration disabled, so the CPU's value is the program's alone). The program
 * returns 0 (a uprobe program's return value is ignored). The links run a trampoline that
 * tail-calls this program through a prog array, so that it can be rebuilt and swapped in one map
 * update when the clauses change (SyscallProgram.trampoline).
 */
package org.jdtrace.perf.internal;

import java.util.List;
import java.util.Map;

import org.jdtrace.spi.KernelClause;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class UprobeProgram {

    static final int PID_TGID = 0, COOKIE = 8, COMM = 16, REGS = 32;

    private UprobeProgram() {}

    /** The record's size for {@code words} registers and {@code stack} bytes of stack. */
    static int size(int words, int stack) {
        return REGS + 8 * words + stack;
    }

    /** One group's clauses: its probes' argument layout and the clauses taken for them. */
    record Group(ClauseProgram.Group group, ClauseProgram.Event event, Map<KernelClause, ClauseProgram.Taken> taken) {}

    /** The clauses of a program: its groups, the zeroed scratch value and the drops map. */
    record Clauses(List<Group> groups, int zeroFd, int dropsFd) {}

    static long[] build(int words, int spWord, int stack, int filterFd, int bufFd, int eventsFd) {
        return build(words, spWord, stack, filterFd, bufFd, eventsFd, null);
    }

    static long[] build(int words, int spWord, int stack, int filterFd, int bufFd, int eventsFd, Clauses clauses) {
        if (spWord < 0 || spWord >= words || stack % 8 != 0 || stack < 0 || stack > 4096) {
            throw new IllegalArgumentException("bad capture: " + words + " words, sp word " + spWord + ", " + stack + " stack bytes");
        }
        BpfAsm a = new BpfAsm()
                .mov(R6, R1)
                .call(GET_CURRENT_PID_TGID)
                .mov(R7, R0)
                .mov(R1, R6)
                .call(GET_ATTACH_COOKIE)
                .mov(R8, R0)
                .lookupKey(filterFd, R8)
                .jeqImm(R0, 0, "out")
                .pidFilter(R0, 0, R7, "out");
        if (clauses != null && !clauses.groups().isEmpty()) {
            a.ldxW(R9, R0, 4).insn(0x67, R9, 0, 0, 16); // the group, in bits 16..31 as ClauseProgram reads it
            a.mov(R1, R9).rshImm(R1, 16);
            for (Group g : clauses.groups()) a.jeqImm(R1, g.group().id(), "ugroup" + g.group().id());
            a.ja("record");
            ClauseProgram cp = new ClauseProgram(a, null);
            for (Group g : clauses.groups()) {
                a.label("ugroup" + g.group().id());
                cp.event(g.event());
                cp.groups(List.of(g.group()), g.taken(), clauses.zeroFd(), clauses.dropsFd(), "record", "out");
            }
        }
        a.label("record")
                .mov(R9, R8)
                .lookupKey0(bufFd)
                .jeqImm(R0, 0, "out")
                .mov(R8, R0)
                .stxDw(R8, PID_TGID, R7)
                .stxDw(R8, COOKIE, R9)
                .comm(R8, COMM);
        for (int i = 0; i < words; i++) a.ldxDw(R1, R6, 8 * i).stxDw(R8, REGS + 8 * i, R1);
        if (stack > 0) {
            a.mov(R1, R8)
                    .addImm(R1, REGS + 8 * words)
                    .movImm(R2, stack)
                    .ldxDw(R3, R6, 8 * spWord)
                    .call(PROBE_READ_USER);
        }
        return a.mov(R1, R6)
                .ldMap(R2, eventsFd)
                .mov32Imm(R3, -1) // BPF_F_CURRENT_CPU
                .mov(R4, R8)
                .movImm(R5, size(words, stack))
                .call(PERF_EVENT_OUTPUT)
                .label("out")
                .movImm(R0, 0)
                .exit()
                .code();
    }
}
