/*
 * The program of every uprobe_multi link of a UprobeCapture (a BPF_PROG_TYPE_KPROBE program run
 * by the kernel at each hit, in the hitting thread, before the probed instruction executes). It
 * captures what a clause may read later in the JVM and sends it with bpf_perf_event_output into
 * a per-CPU BPF-output perf event whose ring the PerfEvents service drains:
 *
 *   0 u64 pid_tgid   8 u64 the link's cookie for this offset   16 char comm[16]
 *   32 u64 the user address of the stack copy's first byte   40 u64 the copy's length
 *   48 u64 regs[WORDS]: the context's struct pt_regs, word by word (pc at the probed instruction)
 *   48 + 8 * WORDS: the stack copy (bpf_probe_read_user), the record ending with it
 *
 * The stack copy is one of two kinds, chosen per cookie: the SMALL bytes from regs[SP] up (length
 * 0 when that read faults), enough for an entry's return address and a frame's spills; or, for
 * the probes whose clauses walk the user stack (UserProbes.stack), whole pages from the page of
 * regs[SP] up, one read a page, up to the cookie's page count or the first page that cannot be
 * read (the end of the stack's mapping: perf's PERF_SAMPLE_STACK_USER stops there too), so an
 * unwinder sees the frames of that moment as far as the copy reaches. Records are as long as
 * their copy: a probe without ustack() sends SMALL bytes, not pages.
 *
 * The filter (an array map indexed by the cookie, u64 values: the low u32 0 for every process,
 * else the one pid + 1; the high u32 the page count, 0 for the small copy) drops the hits of
 * other processes in the kernel, before anything is written. The record is built in a per-CPU
 * array map's value (the BPF stack is too small for it; uprobe programs run with migration
 * disabled, so the CPU's value is the program's alone); a per-CPU value is at most 32 KB, which
 * bounds the page count (maxPages). The program returns 0 (a uprobe program's return value is
 * ignored).
 */
package org.jdtrace.perf.internal;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class UprobeProgram {

    static final int PID_TGID = 0, COOKIE = 8, COMM = 16, STACK_ADDR = 32, STACK_LEN = 40, REGS = 48;
    static final int PAGE = 4096;
    /** The kernel's bound on a per-CPU map value (PCPU_MIN_UNIT_SIZE). */
    private static final int PERCPU_VALUE_MAX = 32768;

    private UprobeProgram() {}

    /** The offset of the stack copy in a record of {@code words} registers. */
    static int stackOffset(int words) {
        return REGS + 8 * words;
    }

    /** The most pages a record of {@code words} registers holds. */
    static int maxPages(int words) {
        return (PERCPU_VALUE_MAX - stackOffset(words)) / PAGE;
    }

    /** The record buffer's size for {@code words} registers and a small copy of {@code small} bytes. */
    static int bufferSize(int words, int small) {
        return stackOffset(words) + Math.max(small, maxPages(words) * PAGE);
    }

    static long[] build(int words, int spWord, int small, int filterFd, int bufFd, int eventsFd) {
        if (spWord < 0 || spWord >= words || small % 8 != 0 || small < 0 || small > PAGE) {
            throw new IllegalArgumentException("bad capture: " + words + " words, sp word " + spWord + ", " + small + " stack bytes");
        }
        int stack = stackOffset(words), pages = maxPages(words);
        BpfAsm a = new BpfAsm()
                .mov(R6, R1)
                .call(GET_CURRENT_PID_TGID)
                .mov(R7, R0)
                .mov(R1, R6)
                .call(GET_ATTACH_COOKIE)
                .mov(R9, R0)
                .lookupKey(filterFd, R9)
                .jeqImm(R0, 0, "out")
                .pidFilter(R0, 0, R7, "out")
                .ldxW(R1, R0, 4)
                .stxW(R10, -16, R1) // the cookie's page count, kept over the calls below
                .lookupKey0(bufFd)
                .jeqImm(R0, 0, "out")
                .mov(R8, R0)
                .stxDw(R8, PID_TGID, R7)
                .stxDw(R8, COOKIE, R9)
                .comm(R8, COMM);
        for (int i = 0; i < words; i++) a.ldxDw(R1, R6, 8 * i).stxDw(R8, REGS + 8 * i, R1);
        // r7: the copy's length so far; r9: the cookie's page count
        a.movImm(R7, 0)
                .ldxW(R9, R10, -16)
                .jeqImm(R9, 0, "small")
                .ldxDw(R1, R6, 8 * spWord)
                .andImm(R1, -PAGE)
                .stxDw(R8, STACK_ADDR, R1);
        for (int k = 0; k < pages; k++) {
            if (k > 0) a.jleImm(R9, k, "emit");
            a.mov(R1, R8)
                    .addImm(R1, stack + k * PAGE)
                    .movImm(R2, PAGE)
                    .ldxDw(R3, R8, STACK_ADDR)
                    .addImm(R3, k * PAGE)
                    .call(PROBE_READ_USER)
                    .jneImm(R0, 0, "emit")
                    .movImm(R7, (k + 1) * PAGE);
        }
        a.ja("emit").label("small");
        if (small > 0) {
            a.ldxDw(R3, R6, 8 * spWord)
                    .stxDw(R8, STACK_ADDR, R3)
                    .mov(R1, R8)
                    .addImm(R1, stack)
                    .movImm(R2, small)
                    .call(PROBE_READ_USER)
                    .jneImm(R0, 0, "emit")
                    .movImm(R7, small);
        }
        return a.label("emit")
                .stxDw(R8, STACK_LEN, R7)
                .mov(R1, R6)
                .ldMap(R2, eventsFd)
                .mov32Imm(R3, -1) // BPF_F_CURRENT_CPU
                .mov(R4, R8)
                .mov(R5, R7)
                .addImm(R5, stack)
                .call(PERF_EVENT_OUTPUT)
                .label("out")
                .movImm(R0, 0)
                .exit()
                .code();
    }
}
