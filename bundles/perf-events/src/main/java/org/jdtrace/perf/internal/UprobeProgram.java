/*
 * The program of every uprobe_multi link of a UprobeCapture (a BPF_PROG_TYPE_KPROBE program run
 * by the kernel at each hit, in the hitting thread, before the probed instruction executes). It
 * captures what a clause may read later in the JVM and sends it with bpf_perf_event_output into
 * a per-CPU BPF-output perf event whose ring the PerfEvents service drains:
 *
 *   0 u64 pid_tgid   8 u64 the link's cookie for this offset   16 char comm[16]
 *   32 u64 the user address of the stack copy's first byte   40 u64 the copy's length
 *   48 u32 the strings section's length (0, or STRINGS_BYTES)   52 u32 the signal this hit sends
 *   the process once the record is written (the cookie's, 0 none: UserHit.signal, so that the JVM
 *   knows which records hold their process, whatever the cookie's signal is by the time it reads)
 *   56 u64 regs[WORDS]: the context's struct pt_regs, word by word (pc at the probed instruction)
 *   56 + 8 * WORDS: the strings section, only for a cookie that names strings: u8 word[3] (word + 1
 *   of the register each string address was in, 0 none), u8 faults (bit k: string k could not be
 *   read), 4 bytes pad, and char string[3][256] (bpf_probe_read_user_str at the hit:
 *   copyinstr(argN) of the clauses, Probe.userStrings)
 *   then the stack copy (bpf_probe_read_user), the record ending with it. A string read that
 *   faults at an address other than 0 (a page the process has not touched yet: a uprobe program
 *   cannot fault it in) makes the hit send SIGSTOP, whatever the cookie's signal (both in the
 *   signal slot and in the record's signal word), so that the JVM reads the string from the held
 *   process before it runs on (the pid provider's Holds)
 *
 * The stack copy is one of two kinds, chosen per cookie: the SMALL bytes from regs[SP] up (length
 * 0 when that read faults), enough for an entry's return address and a frame's spills; or, for
 * the probes whose clauses walk the user stack (UserProbes.stack), whole pages from the page of
 * regs[SP] up, one read a page, up to the cookie's page count or the first page that cannot be
 * read (the end of the stack's mapping: perf's PERF_SAMPLE_STACK_USER stops there too), so an
 * unwinder sees the frames of that moment as far as the copy reaches. Records are as long as
 * their copy: a probe without ustack() sends SMALL bytes, not pages. The copy's code is emitted
 * twice, after a strings section and without one, so that every offset and the record's length
 * are constants or bounded registers the verifier can check.
 *
 * The filter (an array map indexed by the cookie, 16-byte values: at 0 a u32, 0 for every
 * process, else the one pid + 1; at SIGNAL a u32 signal number or 0; at HIGH a u32, the cookie's
 * clause group in bits 0..15, 0 none, and in bits 16.., 5 bits each, word + 1 of the registers
 * whose user strings are read: STRINGS; at PAGES a u32, the stack copy's page count, 0 for the
 * small copy) drops the hits of other processes in the kernel, before anything is written.
 * Clauses (ClauseProgram, UprobeClauses): the cookie's group runs the clauses taken for its probe
 * (r6 ctx, r7 pid_tgid, r8 the cookie, which is what probefunc compares and keys as, r9 the group
 * in bits 16..31) and decides whether the record is sent at all; group 0 and a group this program
 * does not know (one swapped in just before the filter was rewritten) send it. Each group reads
 * its probe's arguments from the words of pt_regs its Event names (an entry's, a return's, a USDT
 * site's). A hit that was written and whose cookie names a signal then sends it to the hitting
 * thread (bpf_send_signal_thread: taken on the way back to user mode, after the probed
 * instruction; a SIGSTOP stops the whole process there, which is how the JVM holds it: the
 * dynamic linker's events and the destructive clauses' Holds). Thread-directed, not
 * process-directed: a second SIGSTOP sent to a process while one is pending in its shared queue
 * is dropped without waking its sender, and a thread created during a stop (which may run without
 * having noticed it) would then run on past its hit; the thread's own queue always takes it. A record the ring
 * has no room for is counted in a per-CPU u64 (the lost map, key 0), and its signal is not sent:
 * the kernel's PERF_RECORD_LOST would be written only with the ring's next record, which may never
 * come (the process ended), and a hold with no record would never be released.
 *
 * The record is built in a per-CPU array map's value (the BPF stack is too small for it; uprobe
 * programs run with migration disabled, so the CPU's value is the program's alone); a per-CPU
 * value is at most 32 KB, which bounds the page count (maxPages). The program returns 0 (a uprobe
 * program's return value is ignored). The links run a trampoline that tail-calls this program
 * through a prog array, so that it can be rebuilt and swapped in one map update when the clauses
 * change (SyscallProgram.trampoline).
 */
package org.jdtrace.perf.internal;

import java.util.List;
import java.util.Map;

import org.jdtrace.spi.KernelClause;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class UprobeProgram {

    static final int PID_TGID = 0, COOKIE = 8, COMM = 16, STACK_ADDR = 32, STACK_LEN = 40, STRINGS_LEN = 48, SIGNAL_SENT = 52, REGS = 56;
    static final int PAGE = BpfAsm.PAGE;
    /** Strings a hit can carry, their size, the strings section's size, and the stack slots the filter's words wait in. */
    static final int STRINGS = 3, STRING_SIZE = 256, STRINGS_BYTES = 8 + STRINGS * STRING_SIZE, HIGH_SLOT = -504, SIGNAL_SLOT = -500, PAGES_SLOT = -496;
    /** In the filter map's value: the signal to send at each hit (0: none), the high word, the page count; its size. */
    static final int SIGNAL = 4, HIGH = 8, PAGES = 12, FILTER_VALUE = 16;
    /** The kernel's bound on a per-CPU map value (PCPU_MIN_UNIT_SIZE). */
    private static final int PERCPU_VALUE_MAX = 32768;

    private UprobeProgram() {}

    /** The offset of the strings section (when there is one) in a record of {@code words} registers. */
    static int stringsOffset(int words) {
        return REGS + 8 * words;
    }

    /** The most pages a record of {@code words} registers holds (with a strings section). */
    static int maxPages(int words) {
        return (PERCPU_VALUE_MAX - stringsOffset(words) - STRINGS_BYTES) / PAGE;
    }

    /** The record buffer's size for {@code words} registers and a small copy of {@code small} bytes. */
    static int bufferSize(int words, int small) {
        return stringsOffset(words) + STRINGS_BYTES + Math.max(small, maxPages(words) * PAGE);
    }

    /** The filter value's high u32: the group and the string registers' words (-1: none). */
    static long high(int group, int[] stringWords) {
        long v = group & 0xffff;
        for (int k = 0; k < STRINGS && k < stringWords.length; k++) {
            if (stringWords[k] >= 0) v |= (long) (stringWords[k] + 1 & 31) << (16 + 5 * k);
        }
        return v;
    }

    /** One group's clauses: its probes' argument layout and the clauses taken for them. */
    record Group(ClauseProgram.Group group, ClauseProgram.Event event, Map<KernelClause, ClauseProgram.Taken> taken) {}

    /**
     * The clauses of a program: its groups, the zeroed scratch value and the drops map, the
     * thread-locals maps' lease (ThreadLocalsMap; null when no whole clause is taken).
     */
    record Clauses(List<Group> groups, int zeroFd, int dropsFd, ThreadLocalsMap.Lease tls) {}

    static long[] build(int words, int spWord, int small, int filterFd, int bufFd, int eventsFd, int lostFd) {
        return build(words, spWord, small, filterFd, bufFd, eventsFd, lostFd, null);
    }

    static long[] build(int words, int spWord, int small, int filterFd, int bufFd, int eventsFd, int lostFd, Clauses clauses) {
        if (spWord < 0 || spWord >= words || small % 8 != 0 || small < 0 || small > PAGE) {
            throw new IllegalArgumentException("bad capture: " + words + " words, sp word " + spWord + ", " + small + " stack bytes");
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
                .pidFilter(R0, 0, R7, "out")
                .ldxW(R1, R0, HIGH).stxW(R10, HIGH_SLOT, R1)
                .ldxW(R1, R0, SIGNAL).stxW(R10, SIGNAL_SLOT, R1)
                .ldxW(R1, R0, PAGES).stxW(R10, PAGES_SLOT, R1);
        if (clauses != null && !clauses.groups().isEmpty()) {
            // the group, in bits 16..31 as ClauseProgram reads it
            a.ldxW(R9, R0, HIGH).insn(0x57, R9, 0, 0, 0xffff).insn(0x67, R9, 0, 0, 16);
            a.mov(R1, R9).rshImm(R1, 16);
            for (Group g : clauses.groups()) a.jeqImm(R1, g.group().id(), "ugroup" + g.group().id());
            a.ja("record");
            ClauseProgram cp = new ClauseProgram(a, null).threadLocals(clauses.tls());
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
                .comm(R8, COMM)
                .ldxW(R1, R10, SIGNAL_SLOT).stxW(R8, SIGNAL_SENT, R1);
        for (int i = 0; i < words; i++) a.ldxDw(R1, R6, 8 * i).stxDw(R8, REGS + 8 * i, R1);
        // the strings the cookie's clauses read (copyinstr of an argument register), if any
        int base = stringsOffset(words);
        a.movImm(R1, 0).stxW(R8, STRINGS_LEN, R1)
                .ldxW(R1, R10, HIGH_SLOT).rshImm(R1, 16).jeqImm(R1, 0, "nostrings")
                .movImm(R1, STRINGS_BYTES).stxW(R8, STRINGS_LEN, R1)
                .movImm(R1, 0).stxDw(R8, base, R1);
        for (int k = 0; k < STRINGS; k++) {
            String skip = "str" + k;
            a.ldxW(R1, R10, HIGH_SLOT).rshImm(R1, 16 + 5 * k).insn(0x57, R1, 0, 0, 31).jeqImm(R1, 0, skip)
                    .jgtImm(R1, words, skip)
                    .insn(0x73, R8, R1, base + k, 0) // stxb: word + 1
                    .addImm(R1, -1).insn(0x67, R1, 0, 0, 3)
                    .mov(R3, R8).addImm(R3, REGS).insn(0x0f, R3, R1, 0, 0).ldxDw(R3, R3, 0)
                    .jeqImm(R3, 0, "strfault" + k) // NULL: a fault, nothing to hold for
                    .mov(R1, R8).addImm(R1, base + 8 + STRING_SIZE * k).movImm(R2, STRING_SIZE)
                    .call(PROBE_READ_USER_STR)
                    .jmp(0x65, R0, 0, 0, skip) // jsgt 0: read
                    // a page the process has not touched (or no page): the thread is held
                    // (SIGSTOP) so that the JVM reads the string from the stopped process
                    .movImm(R1, PerfSys.SIGSTOP).stxW(R10, SIGNAL_SLOT, R1).stxW(R8, SIGNAL_SENT, R1)
                    .label("strfault" + k)
                    .insn(0x71, R1, R8, base + 3, 0).insn(0x47, R1, 0, 0, 1 << k).insn(0x73, R8, R1, base + 3, 0)
                    .label(skip);
        }
        stackCopy(a, words, spWord, small, base + STRINGS_BYTES, "s");
        a.label("nostrings");
        stackCopy(a, words, spWord, small, base, "n");
        return a.label("emit") // r5: the record's length
                .stxDw(R8, STACK_LEN, R7)
                .mov(R1, R6)
                .ldMap(R2, eventsFd)
                .mov32Imm(R3, -1) // BPF_F_CURRENT_CPU
                .mov(R4, R8)
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
                // the cookie's signal, if any (read with the filter value, kept in its slot)
                .ldxW(R1, R10, SIGNAL_SLOT)
                .jeqImm(R1, 0, "out")
                .call(SEND_SIGNAL_THREAD)
                .label("out")
                .movImm(R0, 0)
                .exit()
                .code();
    }

    /**
     * The stack copy at record offset {@code stack} (r8 the record, its registers copied): whole
     * pages (BpfAsm.userPages) when the cookie's page count (PAGES_SLOT) is not 0, else the small
     * copy; leaves the copy's length in r7 and the record's in r5, then jumps to "emit".
     */
    private static void stackCopy(BpfAsm a, int words, int spWord, int small, int stack, String tag) {
        int pages = maxPages(words);
        String done = "copied" + tag, smallCopy = "small" + tag;
        a.movImm(R1, 0).stxDw(R8, STACK_LEN, R1)
                .ldxW(R1, R10, PAGES_SLOT)
                .jeqImm(R1, 0, smallCopy)
                .userPages(R8, REGS + 8 * spWord, STACK_ADDR, STACK_LEN, stack, pages, x -> x.ldxW(R1, R10, PAGES_SLOT), tag)
                .ja(done)
                .label(smallCopy);
        if (small > 0) {
            a.ldxDw(R3, R6, 8 * spWord)
                    .stxDw(R8, STACK_ADDR, R3)
                    .mov(R1, R8)
                    .addImm(R1, stack)
                    .movImm(R2, small)
                    .call(PROBE_READ_USER)
                    .jneImm(R0, 0, done)
                    .movImm(R1, small)
                    .stxDw(R8, STACK_LEN, R1);
        }
        // r7: the copy's length, bounded for the verifier (the record's length is a checked size)
        a.label(done)
                .ldxDw(R7, R8, STACK_LEN)
                .jgtImm(R7, Math.max(small, pages * PAGE), "out")
                .mov(R5, R7).addImm(R5, stack).ja("emit");
    }
}
