package org.jdtrace.unwind;

/**
 * An ISA's DWARF register numbering as the unwinder needs it: how many registers it tracks
 * (DWARF numbers 0..count-1), and the numbers of the stack pointer, the frame pointer and the
 * program counter (the return-address column of the ISA's CIEs; amd64: 7, 6 and 16).
 *
 * @param fpFrameSize the size of a frame-pointer frame's link: the caller's frame pointer is at
 *        {@code [fp]}, its return address at {@code [fp + fpFrameSize / 2]} and its stack pointer
 *        is {@code fp + fpFrameSize} (amd64: 16)
 */
public record RegisterNumbering(int count, int sp, int fp, int pc, int fpFrameSize) {

    public RegisterNumbering {
        if (count <= 0 || count > 64 || sp < 0 || sp >= count || fp < 0 || fp >= count || pc < 0 || pc >= count
                || fpFrameSize <= 0) {
            throw new IllegalArgumentException("bad register numbering");
        }
    }
}
