package org.jdtrace.isa.amd64.internal;

import java.util.Arrays;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

/**
 * Frame-pointer stack walk for ustack(): the pc, then for each frame {@code [fp+8]} (the return
 * address) and {@code [fp]} (the caller's frame pointer). The walk trusts nothing it reads: it
 * stops, keeping what it has, at a null, misaligned or unreadable frame pointer, at a return
 * address that is null or no user-space address at all (above 0x7fffffffffff: text that a
 * function without a frame pointer left where a frame would be, such as "/locale/"), when the next frame pointer is not strictly above the current one (which also rules
 * out cycles) or more than {@link #MAX_FRAME} above it, and after {@code max} program counters.
 * A function that does not keep a frame pointer (or a probe before {@code push %rbp; mov
 * %rsp,%rbp} ran) makes the walk skip or end early, as DTrace's does.
 */
final class StackWalker {

    /** The end of the user half of the x86-64 address space (47-bit, 4-level page tables). */
    static final long USER_END = 1L << 47;

    /** A frame larger than this ends the walk: rbp no longer looks like a frame pointer. */
    static final long MAX_FRAME = 64L << 20;

    static long[] walk(Amd64Registers regs, Memory mem, int max) {
        if (max <= 0) {
            return new long[0];
        }
        long[] pcs = new long[Math.min(max, 1024)];
        int n = 0;
        pcs[n++] = regs.pc();
        long fp = regs.gpr(Amd64Registers.HW_RBP);
        while (n < pcs.length) {
            if (fp == 0 || (fp & 7) != 0) {
                break;
            }
            long next, ret;
            try {
                next = mem.readLong(fp);
                ret = mem.readLong(fp + 8);
            } catch (IsaException | RuntimeException e) {
                break;
            }
            if (ret == 0 || Long.compareUnsigned(ret, USER_END) >= 0) {
                break;
            }
            pcs[n++] = ret;
            if (Long.compareUnsigned(next, fp) <= 0 || next - fp > MAX_FRAME) {
                break;
            }
            fp = next;
        }
        return Arrays.copyOf(pcs, n);
    }

    private StackWalker() {}
}
