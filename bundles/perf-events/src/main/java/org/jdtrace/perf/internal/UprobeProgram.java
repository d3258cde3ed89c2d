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
 * The filter (an array map indexed by the cookie, two u32 per value: at 0 the pid filter, 0 every
 * process, else the one pid + 1; at 4 a signal number or 0) drops the hits of other processes in
 * the kernel, before anything is written. A hit that was written and whose cookie names a signal
 * then sends it to the hitting process (bpf_send_signal: taken on the way back to user mode,
 * after the probed instruction, so SIGSTOP holds the process at the probe; the dynamic linker's
 * events and the probes whose clauses must act while the thread waits use it). The
 * record is built in a per-CPU array map's value (the BPF stack is too small for it; uprobe
 * programs run with migration disabled, so the CPU's value is the program's alone). A record the
 * ring has no room for is counted in a per-CPU u64 (the lost map, key 0), and its signal is not
 * sent: the kernel's PERF_RECORD_LOST would be written only with the ring's next record, which
 * may never come (the process ended), and a hold with no record would never be released. The program
 * returns 0 (a uprobe program's return value is ignored).
 */
package org.jdtrace.perf.internal;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class UprobeProgram {

    static final int PID_TGID = 0, COOKIE = 8, COMM = 16, REGS = 32;
    /** In the filter map's value: the signal to send at each hit (0: none). */
    static final int SIGNAL = 4;

    private UprobeProgram() {}

    /** The record's size for {@code words} registers and {@code stack} bytes of stack. */
    static int size(int words, int stack) {
        return REGS + 8 * words + stack;
    }

    static long[] build(int words, int spWord, int stack, int filterFd, int bufFd, int eventsFd, int lostFd) {
        if (spWord < 0 || spWord >= words || stack % 8 != 0 || stack < 0 || stack > 4096) {
            throw new IllegalArgumentException("bad capture: " + words + " words, sp word " + spWord + ", " + stack + " stack bytes");
        }
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
                .jeqImm(R0, 0, "written")
                // a full ring: counted on this CPU (the ring's own lost record comes only with the
                // next record written, maybe never), and no signal (no record would release it)
                .lookupKey0(lostFd)
                .jeqImm(R0, 0, "out")
                .ldxDw(R1, R0, 0)
                .addImm(R1, 1)
                .stxDw(R0, 0, R1)
                .ja("out")
                .label("written")
                // the cookie's signal, if any (the filter value again: r0..r5 are the call's)
                .lookupKey(filterFd, R9)
                .jeqImm(R0, 0, "out")
                .ldxW(R1, R0, SIGNAL)
                .jeqImm(R1, 0, "out")
                .call(SEND_SIGNAL)
                .label("out")
                .movImm(R0, 0)
                .exit()
                .code();
    }
}
