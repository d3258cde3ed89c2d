/*
 * Decoder: the amd64 (64-bit mode) instruction length decoder.
 *
 * Decoding walks the instruction as the CPU does: legacy prefixes (F0 F2 F3 2E 36 3E 26 64 65 66
 * 67, any order), one REX (40-4F) which must come last, then either a legacy opcode (one byte,
 * 0F xx, 0F 38 xx or 0F 3A xx) or an extended encoding that carries its own map: VEX (C5 two-byte,
 * C4 three-byte, maps 1-3), EVEX (62, maps 1, 2, 3, 5, 6) or AMD XOP (8F with map >= 8). Tables
 * say whether each opcode has a ModRM byte and what immediate follows; ModRM/SIB give the
 * displacement (mod 01 disp8, mod 10 disp32, mod 00 rm 101 rip-relative disp32, SIB base 101
 * with mod 00 disp32). In 64-bit mode 67 only narrows addresses (the ModRM layout stays the
 * 32/64-bit one) and shortens moffs (A0-A3) from 8 to 4 bytes; 66 shortens Iz immediates to 2
 * bytes unless REX.W is set.
 *
 * An fwait (9B) followed, after prefixes, by an x87 opcode (D8-DF) is decoded as one instruction
 * with it, as objdump shows fstsw, fstcw, finit and the like; before anything else it stands alone.
 *
 * The decoder refuses (IsaException) rather than guess: opcodes invalid in 64-bit mode, 3DNow!,
 * truncated input, instructions over 15 bytes, a REX not immediately before the opcode, and
 * encodings on which CPUs disagree about the length or effect (66 on near branches and returns:
 * AMD uses 16-bit offsets, Intel ignores the prefix). It also refuses every encoding that does not
 * exist, where objdump prints (bad) and the CPU raises #UD: the opcode maps of OpcodeMaps say per
 * encoding space, map, mandatory prefix (the last F2/F3, else 66; VEX/EVEX pp), W, vector length
 * and ModRM form (register, memory, memory with SIB, rip-relative, reg field, or the whole ModRM
 * byte for x87 and 0F 01) what is defined, which forms have no vvvv operand (vvvv must then be
 * 1111) and which operands come from a smaller register file (k0-k7, tmm0-7, 16 GPRs in EVEX);
 * a few rules sit beside them (MPX has bnd0-3 only; gathers, AMX and the complex FP16 multiplies
 * need distinct registers; EVEX gathers and scatters need a mask, EVEX.z needs one too). The
 * maps and rules agree with GNU objdump 2.40 (GNU Binutils for Debian), checked by
 * OpcodeSweepTest. Known leftover: an fwait with prefixes on both sides, or repeated (66 9B 66
 * D9 C0, 9B 66 9B 90), which objdump splits in ways no CPU does; boundaries differ there.
 * Everything here is static and allocation-free until the Instruction is built, so it is safe
 * from any thread.
 */
package org.jdtrace.isa.amd64.internal;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Instruction.Kind;
import org.jdtrace.isa.IsaException;

/** Decodes one amd64 instruction into an {@link Instruction}. */
public final class Decoder {

    /** The architectural maximum length of one instruction. */
    public static final int MAX_LENGTH = 15;

    // Opcode table flags.
    private static final int M = 1;          // has ModRM
    private static final int IB = 1 << 1;    // imm8 (or rel8)
    private static final int IW = 1 << 2;    // imm16
    private static final int IZ = 1 << 3;    // imm16/imm32 by operand size
    private static final int IV = 1 << 4;    // imm16/32/64 (mov r, imm)
    private static final int MOFFS = 1 << 5; // 8-byte address, 4 with 67
    private static final int ENTER = 1 << 6; // imm16 + imm8
    private static final int INV = 1 << 7;   // invalid in 64-bit mode
    private static final int GRP3 = 1 << 8;  // F6/F7: imm only for /0 and /1
    private static final int REL = 1 << 9;   // relative branch: refuse with 66
    private static final int NOREG = 1 << 10; // mov to/from CR/DR: ModRM is always a register

    private static final int[] MAP0 = new int[256];
    private static final int[] MAP1 = new int[256];
    private static final int[] PREFIX = new int[256];

    static {
        for (int op = 0; op < 0x40; op++) {
            int low = op & 7;
            MAP0[op] = low < 4 ? M : low == 4 ? IB : low == 5 ? IZ : INV;
        }
        // 26 2E 36 3E are prefixes (handled before the table); 0F is the escape.
        MAP0[0x0F] = 0;
        for (int op = 0x50; op < 0x60; op++) {
            MAP0[op] = 0;
        }
        MAP0[0x60] = INV;
        MAP0[0x61] = INV;
        MAP0[0x63] = M;
        MAP0[0x68] = IZ;
        MAP0[0x69] = M | IZ;
        MAP0[0x6A] = IB;
        MAP0[0x6B] = M | IB;
        for (int op = 0x70; op < 0x80; op++) {
            MAP0[op] = IB | REL;
        }
        MAP0[0x80] = M | IB;
        MAP0[0x81] = M | IZ;
        MAP0[0x82] = INV;
        MAP0[0x83] = M | IB;
        for (int op = 0x84; op < 0x90; op++) {
            MAP0[op] = M;
        }
        MAP0[0x9A] = INV;
        for (int op = 0xA0; op < 0xA4; op++) {
            MAP0[op] = MOFFS;
        }
        MAP0[0xA8] = IB;
        MAP0[0xA9] = IZ;
        for (int op = 0xB0; op < 0xB8; op++) {
            MAP0[op] = IB;
            MAP0[op + 8] = IV;
        }
        MAP0[0xC0] = M | IB;
        MAP0[0xC1] = M | IB;
        MAP0[0xC2] = IW | REL;
        MAP0[0xC3] = REL;
        MAP0[0xC6] = M | IB;
        MAP0[0xC7] = M | IZ;
        MAP0[0xC8] = ENTER;
        MAP0[0xCA] = IW;
        MAP0[0xCD] = IB;
        MAP0[0xCE] = INV;
        for (int op = 0xD0; op < 0xD4; op++) {
            MAP0[op] = M;
        }
        MAP0[0xD4] = INV;
        MAP0[0xD5] = INV;
        MAP0[0xD6] = INV;
        for (int op = 0xD8; op < 0xE0; op++) {
            MAP0[op] = M;
        }
        for (int op = 0xE0; op < 0xE4; op++) {
            MAP0[op] = IB | REL;
        }
        for (int op = 0xE4; op < 0xE8; op++) {
            MAP0[op] = IB;
        }
        MAP0[0xE8] = IZ | REL;
        MAP0[0xE9] = IZ | REL;
        MAP0[0xEA] = INV;
        MAP0[0xEB] = IB | REL;
        MAP0[0xF6] = M | GRP3;
        MAP0[0xF7] = M | GRP3;
        MAP0[0xFE] = M;
        MAP0[0xFF] = M;

        for (int op = 0; op < 256; op++) {
            MAP1[op] = M;
        }
        for (int op : new int[] {0x04, 0x0A, 0x0C, 0x0E, 0x0F, 0x24, 0x25, 0x26, 0x27, 0x36, 0x39,
            0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x7A, 0x7B}) {
            MAP1[op] = INV;
        }
        for (int op : new int[] {0x05, 0x06, 0x07, 0x08, 0x09, 0x0B, 0x30, 0x31, 0x32, 0x33, 0x34,
            0x35, 0x37, 0x77, 0xA0, 0xA1, 0xA2, 0xA8, 0xA9, 0xAA}) {
            MAP1[op] = 0;
        }
        for (int op = 0x20; op < 0x24; op++) {
            MAP1[op] = M | NOREG;
        }
        for (int op = 0x80; op < 0x90; op++) {
            MAP1[op] = IZ | REL;
        }
        for (int op = 0xC8; op < 0xD0; op++) {
            MAP1[op] = 0;
        }
        for (int op : new int[] {0x70, 0x71, 0x72, 0x73, 0xA4, 0xAC, 0xBA, 0xC2, 0xC4, 0xC5, 0xC6}) {
            MAP1[op] = M | IB;
        }

        PREFIX[0xF0] = Prefix.LOCK;
        PREFIX[0xF2] = Prefix.REPNE;
        PREFIX[0xF3] = Prefix.REP;
        PREFIX[0x2E] = Prefix.CS;
        PREFIX[0x36] = Prefix.SS;
        PREFIX[0x3E] = Prefix.DS;
        PREFIX[0x26] = Prefix.ES;
        PREFIX[0x64] = Prefix.FS;
        PREFIX[0x65] = Prefix.GS;
        PREFIX[0x66] = Prefix.OPSIZE;
        PREFIX[0x67] = Prefix.ADDRSIZE;
    }

    private Decoder() {}

    /**
     * Decodes the instruction at {@code code[offset]}, reading no byte at or beyond
     * {@code limit}; {@code pc} is its address (only recorded, and named in errors).
     */
    public static Instruction decode(byte[] code, int offset, int limit, long pc) throws IsaException {
        if (offset < 0 || offset >= limit || limit > code.length) {
            throw new IsaException("no bytes to decode at 0x" + Long.toHexString(pc), pc);
        }
        final int end = Math.min(limit, offset + MAX_LENGTH);
        int p = offset;
        int prefixes = 0;
        int b = at(code, p, end, limit, pc);
        int bit;
        int lastRep = 0; // the last of F2/F3 decides the mandatory prefix
        for (;;) {
            while ((bit = PREFIX[b]) != 0) {
                prefixes |= bit;
                if ((bit & (Prefix.REP | Prefix.REPNE)) != 0) {
                    lastRep = bit;
                }
                b = at(code, ++p, end, limit, pc);
            }
            if (b != 0x9B || !fwaitJoins(code, p + 1, end)) {
                break;
            }
            b = at(code, ++p, end, limit, pc);
        }
        if ((b & 0xF0) == 0x40) {
            prefixes |= Prefix.REX | rexBits(b);
            b = at(code, ++p, end, limit, pc);
            if (PREFIX[b] != 0 || (b & 0xF0) == 0x40 || b == 0x9B) {
                throw refuse("REX prefix not immediately before the opcode", pc);
            }
        }

        int map;
        int opcode;
        int flags;
        int slot = -1;  // OpcodeMaps slot of an extended encoding, -1 for legacy
        int vecLen = 0; // VEX.L or EVEX.L'L
        int evexB = 0;
        int vvvv = 0;   // VEX/EVEX vvvv (un-inverted)
        int high = 0;   // EVEX.R' (bit 4 of the ModRM.reg register) and EVEX.V' (of a VSIB index), as 16 and 32
        int aaa = 0;    // EVEX opmask register
        int pp = lastRep == Prefix.REP ? OpcodeMaps.PF3 : lastRep == Prefix.REPNE ? OpcodeMaps.PF2
                : (prefixes & Prefix.OPSIZE) != 0 ? OpcodeMaps.P66 : OpcodeMaps.NP;
        if (b == 0x0F) {
            b = at(code, ++p, end, limit, pc);
            if (b == 0x38) {
                map = 2;
                opcode = at(code, ++p, end, limit, pc);
                flags = M;
            } else if (b == 0x3A) {
                map = 3;
                opcode = at(code, ++p, end, limit, pc);
                flags = M | IB;
            } else {
                map = 1;
                opcode = b;
                flags = MAP1[b];
                if (opcode == 0x78 && (prefixes & (Prefix.OPSIZE | Prefix.REPNE)) != 0) {
                    flags = M | IW; // SSE4a extrq/insertq xmm, imm8, imm8
                }
            }
            p++;
        } else if (b == 0xC4 || b == 0xC5 || b == 0x62 || (b == 0x8F && isXop(code, p, end))) {
            if ((prefixes & (Prefix.REX | Prefix.LOCK | Prefix.OPSIZE | Prefix.REP | Prefix.REPNE)) != 0) {
                throw refuse("VEX/EVEX/XOP after a REX, LOCK, 66, F2 or F3 prefix", pc);
            }
            int p0 = at(code, p + 1, end, limit, pc);
            if (b == 0xC5) {
                prefixes |= Prefix.VEX | ((p0 & 0x80) == 0 ? Prefix.REX_R : 0);
                map = 1;
                slot = map + OpcodeMaps.VEX_SLOT;
                pp = p0 & 3;
                vecLen = (p0 >>> 2) & 1;
                vvvv = (~p0 >>> 3) & 0xF;
                p += 2;
            } else {
                int p1 = at(code, p + 2, end, limit, pc);
                prefixes |= ((p0 & 0x80) == 0 ? Prefix.REX_R : 0) | ((p0 & 0x40) == 0 ? Prefix.REX_X : 0)
                        | ((p0 & 0x20) == 0 ? Prefix.REX_B : 0) | ((p1 & 0x80) != 0 ? Prefix.REX_W : 0);
                pp = p1 & 3;
                vvvv = (~p1 >>> 3) & 0xF;
                if (b == 0x62) {
                    int p2 = at(code, p + 3, end, limit, pc);
                    map = p0 & 7;
                    if ((p0 & 0x08) != 0 || (p1 & 0x04) == 0 || !(map == 1 || map == 2 || map == 3 || map == 5 || map == 6)) {
                        throw refuse("undefined EVEX encoding", pc);
                    }
                    prefixes |= Prefix.EVEX;
                    slot = map + OpcodeMaps.EVEX_SLOT;
                    vecLen = (p2 >>> 5) & 3;
                    evexB = (p2 >>> 4) & 1;
                    aaa = p2 & 7;
                    if ((p2 & 0x80) != 0 && aaa == 0) {
                        throw refuse("EVEX zeroing without a mask register", pc);
                    }
                    high = ((p0 & 0x10) == 0 ? 16 : 0) | ((p2 & 0x08) == 0 ? 32 : 0);
                    p += 4;
                } else if (b == 0xC4) {
                    map = p0 & 0x1F;
                    if (map < 1 || map > 3) {
                        throw refuse("undefined VEX map " + map, pc);
                    }
                    prefixes |= Prefix.VEX;
                    slot = map + OpcodeMaps.VEX_SLOT;
                    vecLen = (p1 >>> 2) & 1;
                    p += 3;
                } else {
                    map = p0 & 0x1F;
                    if (map > 10) {
                        throw refuse("undefined XOP map " + map, pc);
                    }
                    prefixes |= Prefix.XOP;
                    slot = map + OpcodeMaps.XOP_SLOT;
                    vecLen = (p1 >>> 2) & 1;
                    p += 3;
                }
            }
            opcode = at(code, p, end, limit, pc);
            p++;
            flags = extendedFlags(prefixes, map, opcode);
        } else {
            map = 0;
            opcode = b;
            flags = MAP0[b];
            p++;
        }
        if ((flags & INV) != 0) {
            throw refuse(map == 1 && (opcode == 0x0F || opcode == 0x0E) ? "3DNow! instruction"
                    : "opcode invalid in 64-bit mode", pc);
        }
        if ((flags & REL) != 0 && (prefixes & (Prefix.OPSIZE | Prefix.REX_W)) == Prefix.OPSIZE) {
            throw refuse("operand-size prefix on a branch (16-bit on AMD, ignored on Intel)", pc);
        }

        int modrmOffset = -1;
        int dispOffset = -1;
        int dispSize = 0;
        boolean ripRelative = false;
        int reg = -1;
        int modrm = -1;
        int form = -1; // the OpcodeMaps form bit of the ModRM operand
        if ((flags & M) != 0) {
            modrmOffset = p - offset;
            modrm = at(code, p++, end, limit, pc);
            int mod = modrm >>> 6;
            int rm = modrm & 7;
            reg = (modrm >>> 3) & 7;
            form = mod == 3 ? reg : rm == 4 ? OpcodeMaps.SIB + reg : mod == 0 && rm == 5 ? OpcodeMaps.RIP + reg
                    : OpcodeMaps.MEM + reg;
            if (mod != 3 && (flags & NOREG) == 0) {
                if (rm == 4) {
                    int sib = at(code, p++, end, limit, pc);
                    if (slot >= 0 && map == 2 && pp == OpcodeMaps.P66) {
                        checkGather(opcode, prefixes, modrm, sib, vvvv, high, aaa, pc);
                    }
                    if (mod == 0 && (sib & 7) == 5) {
                        dispSize = 4;
                    }
                } else if (mod == 0 && rm == 5) {
                    dispSize = 4;
                    ripRelative = true;
                }
                if (mod == 1) {
                    dispSize = 1;
                } else if (mod == 2) {
                    dispSize = 4;
                }
                if (dispSize > 0) {
                    dispOffset = p - offset;
                    p += dispSize;
                }
            }
        }
        if (!defined(slot, map, opcode, pp, prefixes, vecLen, evexB, form, modrm)) {
            throw refuse("undefined opcode " + describe(slot, map, opcode, pp), pc);
        }
        if (slot >= 0) {
            int w = (prefixes & Prefix.REX_W) != 0 ? 1 : 0;
            if (vvvv != 0 && (OpcodeMaps.noVvvv(slot, opcode, pp, w, evexB != 0 && form >= 0 && form < OpcodeMaps.MEM
                    ? 2 : vecLen) >>> Math.max(form, 0) & 1) != 0) {
                throw refuse("vvvv names a register the instruction has no operand for " + describe(slot, map, opcode, pp), pc);
            }
            int limits = form < 0 ? 0 : OpcodeMaps.limits(slot, opcode, pp, w) >>> (form >= OpcodeMaps.MEM ? 8 : 0) & 0xFF;
            if (limits != 0) {
                checkLimits(limits, prefixes, modrm, vvvv, high, evexB, pc);
            }
        }
        if (slot < 0 && map == 1 && (opcode | 1) == 0x1B) {
            checkMpx(opcode, pp, prefixes, modrm, pc);
        } else if (slot >= 0 && modrm >= 0 && (map == 2 || map == 6)) {
            checkDistinct(map, opcode, pp, prefixes, modrm, vvvv, high, pc);
        }

        int immSize = 0;
        if ((flags & (IB | IW | IZ | IV | MOFFS | ENTER | GRP3)) != 0) {
            boolean w = (prefixes & Prefix.REX_W) != 0;
            boolean o16 = (prefixes & Prefix.OPSIZE) != 0;
            if ((flags & IB) != 0) {
                immSize = 1;
            } else if ((flags & IW) != 0) {
                immSize = 2;
            } else if ((flags & IZ) != 0) {
                immSize = o16 && !w ? 2 : 4;
            } else if ((flags & IV) != 0) {
                immSize = w ? 8 : o16 ? 2 : 4;
            } else if ((flags & MOFFS) != 0) {
                immSize = (prefixes & Prefix.ADDRSIZE) != 0 ? 4 : 8;
            } else if ((flags & ENTER) != 0) {
                immSize = 3;
            } else if (reg <= 1) {
                immSize = opcode == 0xF6 ? 1 : o16 && !w ? 2 : 4;
            }
        }
        int immOffset = immSize > 0 ? p - offset : -1;
        p += immSize;
        int length = p - offset;
        if (length > MAX_LENGTH) {
            throw refuse("instruction longer than 15 bytes", pc);
        }
        if (p > limit) {
            throw truncated(pc);
        }
        byte[] bytes = new byte[length];
        System.arraycopy(code, offset, bytes, 0, length);
        return new Instruction(pc, bytes, prefixes, map, opcode, modrmOffset, dispOffset, dispSize,
                immOffset, immSize, ripRelative, kind(prefixes, map, opcode, modrm));
    }

    /** The length of the instruction at {@code code[offset]}, without building it. */
    public static int length(byte[] code, int offset, int limit, long pc) throws IsaException {
        return decode(code, offset, limit, pc).length();
    }

    private static int extendedFlags(int prefixes, int map, int opcode) {
        if ((prefixes & Prefix.XOP) != 0) {
            return map == 8 ? M | IB : map == 10 ? M | IZ : map == 9 ? M : INV;
        }
        switch (map) {
            case 1:
                if (opcode == 0x77 && (prefixes & Prefix.VEX) != 0) {
                    return 0; // vzeroupper / vzeroall
                }
                return (opcode >= 0x70 && opcode <= 0x73) || opcode == 0xC2 || (opcode >= 0xC4 && opcode <= 0xC6)
                        ? M | IB : M;
            case 3:
                return M | IB;
            default:
                return M;
        }
    }

    /**
     * Whether the opcode exists in this form (see OpcodeMaps): form is the ModRM operand's form bit,
     * -1 without ModRM. With EVEX.b and a register operand L'L is a rounding mode: any length will do.
     */
    private static boolean defined(int slot, int map, int opcode, int pp, int prefixes, int vecLen, int evexB,
            int form, int modrm) {
        int forms;
        if (slot < 0) {
            forms = OpcodeMaps.legacy(map, opcode, pp);
            if (form >= 0 && form < OpcodeMaps.MEM && (forms >>> form & 1) == 0) {
                return OpcodeMaps.legacyModrm(map, opcode, pp, modrm);
            }
        } else {
            int w = (prefixes & Prefix.REX_W) != 0 ? 1 : 0;
            if (evexB != 0 && form >= 0 && form < OpcodeMaps.MEM) {
                forms = OpcodeMaps.extended(slot, opcode, pp, w, 0) | OpcodeMaps.extended(slot, opcode, pp, w, 1)
                        | OpcodeMaps.extended(slot, opcode, pp, w, 2);
            } else {
                forms = OpcodeMaps.extended(slot, opcode, pp, w, vecLen);
            }
        }
        return form < 0 ? forms != 0 : (forms >>> form & 1) != 0;
    }

    /**
     * VEX/EVEX gathers (66 0F38 90-93) are undefined (#UD) when destination, index and (VEX) mask
     * registers are not all distinct; EVEX gathers, scatters (A0-A3) and their prefetches (C6, C7)
     * need a mask register other than k0.
     */
    private static void checkGather(int opcode, int prefixes, int modrm, int sib, int vvvv, int high, int aaa, long pc)
            throws IsaException {
        boolean evex = (prefixes & Prefix.EVEX) != 0;
        if (evex && aaa == 0 && ((opcode & 0xFC) == 0x90 || (opcode & 0xFC) == 0xA0 || (opcode & 0xFE) == 0xC6)) {
            throw refuse("EVEX gather or scatter without a mask register", pc);
        }
        if ((opcode & 0xFC) != 0x90) {
            return;
        }
        int dest = ((modrm >>> 3) & 7) | ((prefixes & Prefix.REX_R) != 0 ? 8 : 0) | (high & 16);
        int index = ((sib >>> 3) & 7) | ((prefixes & Prefix.REX_X) != 0 ? 8 : 0) | ((high & 32) >>> 1);
        boolean bad = evex ? dest == index : dest == index || dest == vvvv || index == vvvv;
        if (bad) {
            throw refuse("gather with overlapping destination, index or mask registers", pc);
        }
    }

    /**
     * MPX (0F 1A/1B) has only bnd0-bnd3: REX.R on the bound register, or REX.B on the register
     * operand of bndmov, names one that does not exist. The register forms without a prefix, and
     * F3 0F 1B, are hint nops and take any register.
     */
    private static void checkMpx(int opcode, int pp, int prefixes, int modrm, long pc) throws IsaException {
        boolean reg = modrm >>> 6 == 3;
        if (reg && (pp == OpcodeMaps.NP || (pp == OpcodeMaps.PF3 && opcode == 0x1B))) {
            return;
        }
        if ((prefixes & Prefix.REX_R) != 0 || (reg && pp == OpcodeMaps.P66 && (prefixes & Prefix.REX_B) != 0)) {
            throw refuse("MPX bound register beyond bnd3", pc);
        }
    }

    /**
     * Instructions that are undefined (#UD) when registers coincide: AMX tile dot products (VEX
     * 0F38 5C/5E) need three distinct tiles tmm0-7; the complex FP16 multiplies (EVEX map 6
     * F3/F2 56/57/D6/D7) need a destination distinct from both sources.
     */
    private static void checkDistinct(int map, int opcode, int pp, int prefixes, int modrm, int vvvv, int high, long pc)
            throws IsaException {
        int dest = ((modrm >>> 3) & 7) | ((prefixes & Prefix.REX_R) != 0 ? 8 : 0) | (high & 16);
        int rm = (modrm & 7) | ((prefixes & Prefix.REX_B) != 0 ? 8 : 0);
        boolean reg = modrm >>> 6 == 3;
        boolean bad;
        if (map == 2 && (prefixes & Prefix.VEX) != 0 && (opcode == 0x5C || opcode == 0x5E)) {
            bad = (dest | rm | vvvv) > 7 || dest == rm || dest == vvvv || rm == vvvv;
        } else if (map == 6 && (prefixes & Prefix.EVEX) != 0 && pp >= OpcodeMaps.PF3 && (opcode & 0x7E) == 0x56) {
            int src1 = vvvv | ((high & 32) >>> 1);
            bad = dest == src1 || (reg && dest == (rm | ((prefixes & Prefix.REX_X) != 0 ? 16 : 0)));
        } else {
            return;
        }
        if (bad) {
            throw refuse("registers that must differ coincide", pc);
        }
    }

    /** The register-number limits of OpcodeMaps' "limits" lists (mask registers, GPRs in EVEX, tiles). */
    private static void checkLimits(int limits, int prefixes, int modrm, int vvvv, int high, int evexB, long pc)
            throws IsaException {
        if ((limits & OpcodeMaps.LIMIT_NO_B) != 0 && evexB != 0) {
            throw refuse("EVEX rounding control on an instruction without it", pc);
        }
        boolean bad = ((limits & OpcodeMaps.LIMIT_R) != 0 && (prefixes & Prefix.REX_R) != 0)
                || ((limits & OpcodeMaps.LIMIT_R2) != 0 && (high & 16) != 0)
                || ((limits & OpcodeMaps.LIMIT_B) != 0 && modrm >>> 6 == 3 && (prefixes & Prefix.REX_B) != 0)
                || ((limits & OpcodeMaps.LIMIT_V) != 0 && vvvv > 7);
        if (bad) {
            throw refuse("register number beyond the register file (k0-k7, 16 GPRs or tmm0-7)", pc);
        }
    }

    private static String describe(int slot, int map, int opcode, int pp) {
        String space = slot < 0 ? "" : slot < OpcodeMaps.VEX_SLOT + 4 ? "VEX " : slot < OpcodeMaps.EVEX_SLOT ? "XOP " : "EVEX ";
        return space + (pp == OpcodeMaps.NP ? "" : pp == OpcodeMaps.P66 ? "66 " : pp == OpcodeMaps.PF3 ? "F3 " : "F2 ")
                + "map " + map + " " + Integer.toHexString(opcode);
    }

    private static Kind kind(int prefixes, int map, int opcode, int modrm) {
        if ((prefixes & (Prefix.VEX | Prefix.EVEX | Prefix.XOP)) != 0) {
            return Kind.OTHER;
        }
        if (map == 0) {
            if (opcode >= 0x70 && opcode <= 0x7F) {
                return Kind.JCC;
            }
            if (opcode >= 0x50 && opcode <= 0x57) {
                return Kind.PUSH;
            }
            switch (opcode) {
                case 0xC3: return Kind.RET;
                case 0xC2: return Kind.RET_IMM;
                case 0xE9, 0xEB: return Kind.JMP_REL;
                case 0xE8: return Kind.CALL_REL;
                case 0xE0, 0xE1, 0xE2: return Kind.LOOP;
                case 0xE3: return Kind.JRCXZ;
                case 0xCC: return Kind.INT3;
                case 0xF4: return Kind.HLT;
                case 0x90:
                    return (prefixes & (Prefix.REX_B | Prefix.REP)) == 0 ? Kind.NOP : Kind.OTHER;
                case 0xFF: {
                    int reg = (modrm >>> 3) & 7;
                    return reg == 2 ? Kind.CALL_INDIRECT : reg == 4 ? Kind.JMP_INDIRECT : Kind.OTHER;
                }
                default: return Kind.OTHER;
            }
        }
        if (map == 1) {
            if (opcode >= 0x80 && opcode <= 0x8F) {
                return Kind.JCC;
            }
            switch (opcode) {
                case 0x05: return Kind.SYSCALL;
                case 0x0B, 0xB9, 0xFF: return Kind.ILLEGAL;
                case 0x1F: return ((modrm >>> 3) & 7) == 0 ? Kind.NOP : Kind.OTHER;
                case 0x1E:
                    return (prefixes & Prefix.REP) != 0 && (modrm == 0xFA || modrm == 0xFB) ? Kind.NOP : Kind.OTHER;
                default: return Kind.OTHER;
            }
        }
        return Kind.OTHER;
    }

    /**
     * Whether the fwait (9B) before {@code code[q]} is one instruction with an x87 opcode that
     * follows it after prefixes, as objdump decodes it (fstsw, fstcw, finit... are written that
     * way); otherwise it stands alone.
     */
    private static boolean fwaitJoins(byte[] code, int q, int end) {
        while (q < end && (PREFIX[code[q] & 0xFF] != 0 || code[q] == (byte) 0x9B)) {
            q++;
        }
        if (q < end && (code[q] & 0xF0) == 0x40) {
            q++;
        }
        return q < end && (code[q] & 0xF8) == 0xD8;
    }

    private static boolean isXop(byte[] code, int p, int end) {
        return p + 1 < end && (code[p + 1] & 0x1F) >= 8;
    }

    private static int rexBits(int rex) {
        return ((rex & 8) != 0 ? Prefix.REX_W : 0) | ((rex & 4) != 0 ? Prefix.REX_R : 0)
                | ((rex & 2) != 0 ? Prefix.REX_X : 0) | ((rex & 1) != 0 ? Prefix.REX_B : 0);
    }

    private static int at(byte[] code, int p, int end, int limit, long pc) throws IsaException {
        if (p >= end) {
            throw p >= limit ? truncated(pc) : refuse("instruction longer than 15 bytes", pc);
        }
        return code[p] & 0xFF;
    }

    private static IsaException truncated(long pc) {
        return new IsaException("truncated instruction at 0x" + Long.toHexString(pc), pc);
    }

    private static IsaException refuse(String why, long pc) {
        return new IsaException(why + " at 0x" + Long.toHexString(pc), pc);
    }
}
