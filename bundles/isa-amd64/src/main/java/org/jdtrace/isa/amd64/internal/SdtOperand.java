package org.jdtrace.isa.amd64.internal;

/**
 * The operand of a SystemTap SDT argument on amd64, as {@link SdtArgs} parses it from the AT&T
 * syntax the assembler wrote into the note: a register (possibly a sub-register), a memory
 * reference, or an immediate.
 */
sealed interface SdtOperand {

    /** Base number of rip in {@link Mem#base}. */
    int RIP = 16;

    /** {@code %name}: hardware register {@code hw}, {@code width} bytes, {@code high} for ah/ch/dh/bh. */
    record Reg(int hw, int width, boolean high) implements SdtOperand {}

    /**
     * {@code [%seg:][symbol][+-disp](base, index, scale)}; base/index -1 when absent, base
     * {@link #RIP} for rip-relative; segment 0, 4 (%fs) or 5 (%gs); symbol null when absent.
     */
    record Mem(int segment, String symbol, long disp, int base, int index, int scale) implements SdtOperand {}

    /** {@code $value} or {@code $symbol[+-value]}. */
    record Imm(String symbol, long value) implements SdtOperand {}
}
