package org.jdtrace.unwind;

import java.nio.ByteBuffer;

/**
 * One row of a function's call-frame table (DWARF 5 section 6.4.1): how to find the canonical
 * frame address (CFA) and each register's value in the caller, at one pc. Filled by
 * {@link CallFrameInfo#find}; a FrameRow is scratch owned by one thread and reused from lookup to
 * lookup, so a lookup allocates nothing. Columns at or above {@link #COLUMNS} are parsed and
 * dropped (vector registers, which no unwinding needs).
 */
public final class FrameRow {

    /** Register columns a row keeps (DWARF numbers 0..COLUMNS-1). */
    public static final int COLUMNS = 48;
    /** How deep DW_CFA_remember_state may nest; deeper CFI is refused as corrupt. */
    static final int STATE_DEPTH = 16;

    /** No rule given: the register keeps its value (callee-saved, as every unwinder takes it). */
    public static final byte UNSPECIFIED = 0;
    public static final byte UNDEFINED = 1;
    public static final byte SAME_VALUE = 2;
    /** Saved at CFA + operand. */
    public static final byte OFFSET = 3;
    /** The value is CFA + operand. */
    public static final byte VAL_OFFSET = 4;
    /** The value is in register operand. */
    public static final byte REGISTER = 5;
    /** Saved at the address the expression gives (the CFA pushed first). */
    public static final byte EXPRESSION = 6;
    /** The value is what the expression gives (the CFA pushed first). */
    public static final byte VAL_EXPRESSION = 7;

    // the function (file addresses) and its CIE's facts
    long pcBegin, pcEnd;
    boolean signalFrame;
    int returnColumn;
    long codeAlign, dataAlign;

    // the row
    int cfaRegister;
    long cfaOffset;
    /** The CFA's DWARF expression as (offset << 32 | length) in {@link #section}, or -1. */
    long cfaExpression = -1;
    final byte[] rule = new byte[COLUMNS];
    final long[] operand = new long[COLUMNS];

    // the CIE's initial rules (DW_CFA_restore)
    final byte[] initialRule = new byte[COLUMNS];
    final long[] initialOperand = new long[COLUMNS];

    // DW_CFA_remember_state's stack
    int depth;
    final byte[][] savedRule = new byte[STATE_DEPTH][COLUMNS];
    final long[][] savedOperand = new long[STATE_DEPTH][COLUMNS];
    final long[] savedCfa = new long[STATE_DEPTH * 3];

    /** The section the expressions live in. */
    ByteBuffer section;

    int augmentation, fdeEncoding, fdeStart, fdeEnd;

    // parse cursor (so that a lookup allocates nothing)
    int pos, limit;

    /** The DWARF expression stack of Unwinder's evaluations. */
    final long[] stack = new long[64];

    public long pcBegin() {
        return pcBegin;
    }

    public long pcEnd() {
        return pcEnd;
    }

    /** True when the CIE says 'S': a signal trampoline, whose caller's pc is exact (not a return address). */
    public boolean signalFrame() {
        return signalFrame;
    }

    public int returnColumn() {
        return returnColumn;
    }

    /** The CFA's register, or -1 when the CFA is an expression. */
    public int cfaRegister() {
        return cfaExpression >= 0 ? -1 : cfaRegister;
    }

    public long cfaOffset() {
        return cfaOffset;
    }

    /** The rule of column {@code reg} ({@link #UNSPECIFIED} above {@link #COLUMNS}). */
    public byte rule(int reg) {
        return reg >= 0 && reg < COLUMNS ? rule[reg] : UNSPECIFIED;
    }

    /** The rule's operand: an offset, a register, or an expression's (offset << 32 | length). */
    public long operand(int reg) {
        return reg >= 0 && reg < COLUMNS ? operand[reg] : 0;
    }

    void reset() {
        java.util.Arrays.fill(rule, UNSPECIFIED);
        java.util.Arrays.fill(operand, 0);
        cfaRegister = 0;
        cfaOffset = 0;
        cfaExpression = -1;
        depth = 0;
        signalFrame = false;
    }
}
