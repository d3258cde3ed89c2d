package org.jdtrace.isa.amd64.internal;

import org.jdtrace.isa.IsaException;

/**
 * The prefix, opcode and ModRM/SIB structure of one x86-64 instruction, read straight from its
 * bytes. The emulator and the relocator use it to find what they rewrite or evaluate (REX bits,
 * the VEX/EVEX register extensions, the ModRM fields, the SIB byte); the length decoder stays the
 * authority on instruction length and immediate sizes.
 *
 * Rules that matter and are easy to get wrong: a REX prefix counts only when it is the last prefix
 * before the opcode (a legacy prefix after it cancels it); ModRM rm=100 always means a SIB byte
 * follows (rsp or r12 as base); mod=00 with rm=101 is rip-relative whatever REX.B says (r13 as a
 * base needs mod=01 with a zero disp8); in a SIB byte base=101 with mod=00 means "no base, disp32"
 * whatever REX.B says, and index=100 without REX.X means "no index" (r12 can be an index).
 */
final class Form {

    /** Segment override: 0 none, 4 %fs, 5 %gs (the others are no-ops in 64-bit mode). */
    int segment;
    boolean opsize16, addr32, rep, repne, lock;
    /** Index just past the legacy prefixes. */
    int legacyEnd;
    /** The REX byte in effect (0 if none) and its index (-1 if none). */
    int rex, rexPos = -1;
    /** 0 none, 2 two-byte VEX (C5), 3 three-byte VEX (C4), 4 EVEX (62), 5 XOP (8F); at vexPos. */
    int vex, vexPos = -1;
    /** Register extension bits from REX or VEX/EVEX (already un-inverted). */
    boolean r, x, b, w;
    /** VEX/EVEX vvvv register (un-inverted), -1 if none. */
    int vvvv = -1;
    int opcodePos, map, opcode;

    private Form() {}

    static Form parse(byte[] code, long pc) throws IsaException {
        Form f = new Form();
        int i = 0;
        for (;; i++) {
            int c = at(code, i, pc);
            switch (c) {
                case 0x66 -> f.opsize16 = true;
                case 0x67 -> f.addr32 = true;
                case 0xF3 -> { f.rep = true; f.repne = false; }
                case 0xF2 -> { f.repne = true; f.rep = false; }
                case 0xF0 -> f.lock = true;
                case 0x64 -> f.segment = 4;
                case 0x65 -> f.segment = 5;
                case 0x2E, 0x36, 0x3E, 0x26 -> f.segment = 0;
                case 0x9B -> {
                    if (i + 1 >= code.length) { // a lone fwait; before more bytes it leads an x87 instruction
                        f.legacyEnd = i;
                        f.opcodeAndRest(code, i, pc);
                        return f;
                    }
                }
                default -> {
                    if ((c & 0xF0) == 0x40) {
                        int next = at(code, i + 1, pc);
                        if ((next & 0xF0) == 0x40 || isLegacyPrefix(next)) {
                            continue; // a REX not directly before the opcode is ignored
                        }
                    }
                    if (i >= 15) {
                        throw new IsaException("instruction longer than 15 bytes", pc);
                    }
                    f.legacyEnd = i;
                    f.opcodeAndRest(code, i, pc);
                    return f;
                }
            }
        }
    }

    private void opcodeAndRest(byte[] code, int i, long pc) throws IsaException {
        int c = at(code, i, pc);
        if ((c & 0xF0) == 0x40) {
            rex = c;
            rexPos = i;
            w = (c & 8) != 0;
            r = (c & 4) != 0;
            x = (c & 2) != 0;
            b = (c & 1) != 0;
            i++;
            c = at(code, i, pc);
        }
        if (rex == 0 && (c == 0xC4 || c == 0xC5 || c == 0x62 || (c == 0x8F && (at(code, i + 1, pc) & 0x1F) >= 8))) {
            vexPos = i;
            int p1 = at(code, i + 1, pc);
            r = (p1 & 0x80) == 0;
            if (c == 0xC5) {
                vex = 2;
                vvvv = (~p1 >> 3) & 0xF;
                map = 1;
                opcodePos = i + 2;
            } else {
                int p2 = at(code, i + 2, pc);
                x = (p1 & 0x40) == 0;
                b = (p1 & 0x20) == 0;
                w = (p2 & 0x80) != 0;
                vvvv = (~p2 >> 3) & 0xF;
                vex = c == 0xC4 ? 3 : c == 0x62 ? 4 : 5;
                map = c == 0x8F ? 8 + (p1 & 0x1F) : (p1 & (c == 0x62 ? 0x07 : 0x1F));
                opcodePos = i + (c == 0x62 ? 4 : 3);
            }
            opcode = at(code, opcodePos, pc);
            return;
        }
        if (c == 0x0F) {
            int c2 = at(code, i + 1, pc);
            if (c2 == 0x38 || c2 == 0x3A) {
                map = c2 == 0x38 ? 2 : 3;
                opcodePos = i + 2;
            } else {
                map = 1;
                opcodePos = i + 1;
            }
        } else {
            map = 0;
            opcodePos = i;
        }
        opcode = at(code, opcodePos, pc);
    }

    static boolean isLegacyPrefix(int c) {
        return switch (c) {
            case 0x66, 0x67, 0xF3, 0xF2, 0xF0, 0x64, 0x65, 0x2E, 0x36, 0x3E, 0x26 -> true;
            default -> false;
        };
    }

    static int at(byte[] code, int i, long pc) throws IsaException {
        if (i < 0 || i >= code.length) {
            throw new IsaException("truncated instruction", pc);
        }
        return code[i] & 0xFF;
    }

    /** Index of the ModRM byte (the byte after the opcode). */
    int modrmPos() {
        return opcodePos + 1;
    }

    /**
     * Decodes the ModRM operand at {@link #modrmPos()}: a register or a memory address expression.
     * Returns where the bytes after the operand (immediate) start in {@link Operand#end}.
     */
    Operand operand(byte[] code, long pc) throws IsaException {
        int p = modrmPos();
        int modrm = at(code, p, pc);
        Operand o = new Operand();
        o.mod = modrm >> 6;
        o.reg = ((modrm >> 3) & 7) | (r ? 8 : 0);
        int rm = modrm & 7;
        p++;
        if (o.mod == 3) {
            o.register = rm | (b ? 8 : 0);
            o.end = p;
            return o;
        }
        int dispSize = o.mod == 1 ? 1 : o.mod == 2 ? 4 : 0;
        if (rm == 4) {
            int sib = at(code, p++, pc);
            o.scale = sib >> 6;
            int index = ((sib >> 3) & 7) | (x ? 8 : 0);
            o.index = index == 4 ? -1 : index;
            int base = sib & 7;
            if (base == 5 && o.mod == 0) {
                o.base = -1;
                dispSize = 4;
            } else {
                o.base = base | (b ? 8 : 0);
            }
        } else if (rm == 5 && o.mod == 0) {
            o.ripRelative = true;
            dispSize = 4;
        } else {
            o.base = rm | (b ? 8 : 0);
        }
        o.dispPos = dispSize == 0 ? -1 : p;
        if (dispSize == 1) {
            o.disp = (byte) at(code, p, pc);
        } else if (dispSize == 4) {
            o.disp = at(code, p, pc) | at(code, p + 1, pc) << 8 | at(code, p + 2, pc) << 16 | at(code, p + 3, pc) << 24;
        }
        o.end = p + dispSize;
        return o;
    }

    /** A ModRM operand: {@code register >= 0} for a register operand, else a memory address. */
    static final class Operand {
        int mod, reg;
        int register = -1;
        int base = -1, index = -1, scale;
        boolean ripRelative;
        long disp;
        int dispPos = -1;
        int end;

        boolean isMemory() {
            return register < 0;
        }
    }
}
