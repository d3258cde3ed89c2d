/*
 * DwarfExpression: the DWARF expression evaluator of the CFA rules (DW_CFA_def_cfa_expression,
 * DW_CFA_expression, DW_CFA_val_expression; DWARF 5 section 2.5), over the registers of the frame
 * being unwound and the target's memory.
 *
 * The operations are the stack machine's: literals and constants, register-relative values
 * (DW_OP_bregN, bregx, regN as a value), deref and deref_size, the arithmetic, logic, shifts and
 * comparisons, dup/drop/over/pick/swap/rot, skip and bra. These cover what glibc's assembly
 * (__restore_rt's sigcontext slots, the PLT's CFA), GCC's stack realignment and the vDSO emit.
 * Anything else (DW_OP_call*, piece, TLS, entry values) fails the evaluation.
 *
 * Failure behaviour: an unknown operation, a stack underflow or overflow, an unknown register, a
 * division by zero, a memory fault or more than MAX_STEPS operations (a bra loop) answer
 * a false from eval(); nothing throws. No allocation: the stack is the
 * FrameRow's.
 */
package org.jdtrace.unwind;

import java.nio.ByteBuffer;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

final class DwarfExpression {

    static final int MAX_STEPS = 1000;

    private DwarfExpression() {}

    /**
     * Evaluates the expression {@code expr} (offset << 32 | length in {@code row.section}) with
     * {@code initial} pushed first when {@code push}; the result goes to {@code out[0]}. False when
     * the evaluation fails.
     */
    static boolean eval(FrameRow row, long expr, boolean push, long initial, long[] regs, long known, Memory mem,
            long[] out) {
        ByteBuffer b = row.section;
        int pc = (int) (expr >>> 32), end = pc + (int) (expr & 0xffffffffL);
        if (pc < 0 || end > b.limit() || end < pc) return false;
        long[] st = row.stack;
        int sp = 0;
        if (push) st[sp++] = initial;
        try {
            for (int steps = 0; pc < end; steps++) {
                if (steps == MAX_STEPS) return false;
                int op = b.get(pc++) & 0xff;
                if (op >= 0x30 && op <= 0x4f) { // lit0..lit31
                    st[sp++] = op - 0x30;
                    continue;
                }
                if (op >= 0x50 && op <= 0x6f || op >= 0x70 && op <= 0x8f) { // regN, bregN
                    int r = (op - 0x50) & 0x1f;
                    long off = 0;
                    if (op >= 0x70) {
                        long[] v = readSleb(b, pc, end);
                        off = v[0];
                        pc = (int) v[1];
                    }
                    if (r >= regs.length || (known & (1L << r)) == 0) return false;
                    st[sp++] = regs[r] + off;
                    continue;
                }
                switch (op) {
                    case 0x03 -> { st[sp++] = b.getLong(check(pc, 8, end)); pc += 8; }
                    case 0x06 -> st[sp - 1] = mem.readLong(st[sp - 1]);
                    case 0x08 -> st[sp++] = b.get(check(pc++, 1, end)) & 0xffL;
                    case 0x09 -> st[sp++] = b.get(check(pc++, 1, end));
                    case 0x0a -> { st[sp++] = b.getShort(check(pc, 2, end)) & 0xffffL; pc += 2; }
                    case 0x0b -> { st[sp++] = b.getShort(check(pc, 2, end)); pc += 2; }
                    case 0x0c -> { st[sp++] = b.getInt(check(pc, 4, end)) & 0xffffffffL; pc += 4; }
                    case 0x0d -> { st[sp++] = b.getInt(check(pc, 4, end)); pc += 4; }
                    case 0x0e, 0x0f -> { st[sp++] = b.getLong(check(pc, 8, end)); pc += 8; }
                    case 0x10, 0x11 -> {
                        long[] v = op == 0x10 ? readUleb(b, pc, end) : readSleb(b, pc, end);
                        st[sp++] = v[0];
                        pc = (int) v[1];
                    }
                    case 0x12 -> { st[sp] = st[sp - 1]; sp++; }
                    case 0x13 -> sp--;
                    case 0x14 -> { st[sp] = st[sp - 2]; sp++; }
                    case 0x15 -> { int i = b.get(check(pc++, 1, end)) & 0xff; st[sp] = st[sp - 1 - i]; sp++; }
                    case 0x16 -> { long t = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = t; }
                    case 0x17 -> { long t = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = st[sp - 3]; st[sp - 3] = t; }
                    case 0x19 -> st[sp - 1] = Math.abs(st[sp - 1]);
                    case 0x1a -> { sp--; st[sp - 1] &= st[sp]; }
                    case 0x1b -> { sp--; if (st[sp] == 0) return false; st[sp - 1] /= st[sp]; }
                    case 0x1c -> { sp--; st[sp - 1] -= st[sp]; }
                    case 0x1d -> { sp--; if (st[sp] == 0) return false; st[sp - 1] = Long.remainderUnsigned(st[sp - 1], st[sp]); }
                    case 0x1e -> { sp--; st[sp - 1] *= st[sp]; }
                    case 0x1f -> st[sp - 1] = -st[sp - 1];
                    case 0x20 -> st[sp - 1] = ~st[sp - 1];
                    case 0x21 -> { sp--; st[sp - 1] |= st[sp]; }
                    case 0x22 -> { sp--; st[sp - 1] += st[sp]; }
                    case 0x23 -> { long[] v = readUleb(b, pc, end); st[sp - 1] += v[0]; pc = (int) v[1]; }
                    case 0x24 -> { sp--; st[sp - 1] = st[sp] >= 64 ? 0 : st[sp - 1] << st[sp]; }
                    case 0x25 -> { sp--; st[sp - 1] = st[sp] >= 64 ? 0 : st[sp - 1] >>> st[sp]; }
                    case 0x26 -> { sp--; st[sp - 1] = st[sp - 1] >> Math.min(63, st[sp]); }
                    case 0x27 -> { sp--; st[sp - 1] ^= st[sp]; }
                    case 0x28 -> { // bra
                        int d = b.getShort(check(pc, 2, end));
                        pc += 2;
                        if (st[--sp] != 0) pc += d;
                        if (pc < (int) (expr >>> 32) || pc > end) return false;
                    }
                    case 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e -> {
                        sp--;
                        long x = st[sp - 1], y = st[sp];
                        boolean r = switch (op) {
                            case 0x29 -> x == y;
                            case 0x2a -> x >= y;
                            case 0x2b -> x > y;
                            case 0x2c -> x <= y;
                            case 0x2d -> x < y;
                            default -> x != y;
                        };
                        st[sp - 1] = r ? 1 : 0;
                    }
                    case 0x2f -> { // skip
                        int d = b.getShort(check(pc, 2, end));
                        pc += 2 + d;
                        if (pc < (int) (expr >>> 32) || pc > end) return false;
                    }
                    case 0x90 -> { // regx
                        long[] v = readUleb(b, pc, end);
                        pc = (int) v[1];
                        if (v[0] < 0 || v[0] >= regs.length || (known & (1L << v[0])) == 0) return false;
                        st[sp++] = regs[(int) v[0]];
                    }
                    case 0x92 -> { // bregx
                        long[] r = readUleb(b, pc, end);
                        long[] v = readSleb(b, (int) r[1], end);
                        pc = (int) v[1];
                        if (r[0] < 0 || r[0] >= regs.length || (known & (1L << r[0])) == 0) return false;
                        st[sp++] = regs[(int) r[0]] + v[0];
                    }
                    case 0x94 -> { // deref_size
                        int n = b.get(check(pc++, 1, end)) & 0xff;
                        if (n == 0 || n > 8) return false;
                        long v = mem.readLong(st[sp - 1]);
                        st[sp - 1] = n == 8 ? v : v & ((1L << (8 * n)) - 1);
                    }
                    case 0x96 -> { } // nop
                    default -> {
                        return false;
                    }
                }
            }
        } catch (IsaException | RuntimeException e) {
            return false; // a fault, an underflow (index -1) or an overflow of the stack
        }
        if (sp < 1) return false;
        out[0] = st[sp - 1];
        return true;
    }

    private static int check(int pc, int n, int end) {
        if (pc + n > end) throw new IndexOutOfBoundsException("past the expression");
        return pc;
    }

    // {value, next pc}: small enough for the JIT to keep in registers once inlined
    private static long[] readUleb(ByteBuffer b, int pc, int end) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int x = b.get(check(pc++, 1, end)) & 0xff;
            v |= (long) (x & 0x7f) << shift;
            if ((x & 0x80) == 0) return new long[] {v, pc};
        }
        throw new IndexOutOfBoundsException("LEB128 too long");
    }

    private static long[] readSleb(ByteBuffer b, int pc, int end) {
        long v = 0;
        int shift = 0, x;
        do {
            if (shift >= 64) throw new IndexOutOfBoundsException("LEB128 too long");
            x = b.get(check(pc++, 1, end)) & 0xff;
            v |= (long) (x & 0x7f) << shift;
            shift += 7;
        } while ((x & 0x80) != 0);
        if (shift < 64 && (x & 0x40) != 0) v |= -1L << shift;
        return new long[] {v, pc};
    }
}
