package org.jdtrace.perf;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * One uprobe hit as the BPF program captured it at the event (a flyweight: refilled for the next
 * record; {@link #stack} valid only during the handler's call). {@link #regs} holds the kernel's
 * register frame at the hit (struct pt_regs words, pc at the probed instruction); {@link #stack}
 * the bytes of the user stack copied at the hit from {@link #stackAddr} up (the stack pointer, or
 * the start of its page for a larger copy), as far as they could be read, for an unwinder:
 * (regs, stack bytes, their address) is all it needs.
 *
 * @since 1.4
 */
public final class UserHit {

    public long cookie;
    public int pid;
    public int tid;
    public int cpu;
    /**
     * The signal the program sent the hitting process right after writing this record
     * ({@link UserProbes#signal}: the cookie's at the hit), 0 none. A record with SIGSTOP holds
     * its process stopped at the probe until the handler's owner continues it. @since 1.6
     */
    public int signal;
    /** CLOCK_MONOTONIC nanoseconds at the hit (System.nanoTime's clock, DTrace's timestamp). */
    public long time;
    public final long[] regs;
    public MemorySegment stack = MemorySegment.NULL;
    /** The user address of {@link #stack}'s first byte (at or below the stack pointer at the hit). */
    public long stackAddr;
    /**
     * The user strings read at the hit (UserProbes.clauses: copyinstr of an argument register), in
     * the capture's layout; NULL when none. Read them with {@link #string}. @since 1.5
     */
    public MemorySegment strings = MemorySegment.NULL;
    final byte[] comm = new byte[16];
    private String commString;

    public UserHit(int regsWords) {
        regs = new long[regsWords];
    }

    /**
     * The user string at {@code addr} as the kernel read it at the hit (at most {@code max}
     * bytes), or null when none was read there (no clause asked, or the read faulted).
     *
     * @since 1.5
     */
    public String string(long addr, int max) {
        if (strings.byteSize() < 8) return null;
        int faults = strings.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 3);
        for (int k = 0; k < 3; k++) {
            int word = (strings.get(java.lang.foreign.ValueLayout.JAVA_BYTE, k) & 0xff) - 1;
            if (word < 0 || word >= regs.length || regs[word] != addr || (faults & 1 << k) != 0) continue;
            long off = 8 + 256L * k;
            int n = 0, lim = (int) Math.min(Math.max(max, 0), Math.min(256, strings.byteSize() - off));
            while (n < lim && strings.get(java.lang.foreign.ValueLayout.JAVA_BYTE, off + n) != 0) n++;
            byte[] b = new byte[n];
            MemorySegment.copy(strings, java.lang.foreign.ValueLayout.JAVA_BYTE, off, b, 0, n);
            return new String(b, StandardCharsets.UTF_8);
        }
        return null;
    }

    /** The hitting thread's name (its comm) at the hit. */
    public String comm() {
        if (commString == null) {
            int n = 0;
            while (n < comm.length && comm[n] != 0) n++;
            commString = new String(comm, 0, n, StandardCharsets.UTF_8);
        }
        return commString;
    }

    /** For the service: the comm bytes to refill (the cached string forgotten). */
    public byte[] commBytes() {
        commString = null;
        return comm;
    }
}
