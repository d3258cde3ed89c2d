/*
 * OpcodeMaps: which opcodes exist, as opcode maps in the layout of the Intel SDM's (Volume 2,
 * Appendix A): one 16x16 grid per encoding space (legacy, VEX, XOP, EVEX), opcode map and
 * mandatory prefix (np = none, 66, F3, F2; for VEX/EVEX/XOP the pp field). The length decoder
 * refuses every encoding whose cell says it does not exist, because GNU objdump prints (bad) for
 * those and the CPU raises #UD: guessing a length there would hand a probe site to garbage.
 *
 * A cell lists the forms that exist, as alternatives separated by '|':
 *   .            nothing is defined here (a '-' marks a prefix or an escape byte, never looked up)
 *   *            every form
 *   W0, W1       only with that REX.W / VEX.W / EVEX.W
 *   L0, L1, L12  only with those vector lengths (VEX.L; EVEX.L'L, where 0/1/2 are 128/256/512
 *                bits; without an L every length exists except EVEX.L'L=3)
 *   r            only ModRM.mod = 3 (register operand)
 *   m            only a memory operand; n only memory that is not rip-relative (MPX); s only
 *                memory with a SIB byte (VSIB, sibmem)
 *   /digits      only those ModRM.reg values (opcode groups)
 *   x            (legacy) register forms only as listed under "modrm" by the whole ModRM byte
 *   ~ (at the end) these forms have no vvvv operand: VEX/EVEX/XOP.vvvv must be 1111
 * After the VEX and EVEX grids, "limits" lists the opcodes whose register operands come from a
 * smaller register file than the encoding can name (mask registers k0-k7, general registers in
 * EVEX, tiles): "map pp opcode W form letters", form r (register), m (memory) or * (both), and
 * letters R (ModRM.reg: REX.R/VEX.R/EVEX.R clear), P (EVEX.R' clear), B (register ModRM.rm:
 * B clear), V (vvvv below 8) and N (no rounding control: EVEX.b clear on a register operand).
 * EVEX.z (zeroing) without a mask register is refused everywhere.
 * For example "W0L0m/1" is W0, 128-bit, memory operand, reg field 1 only. In the legacy space
 * the mandatory prefix is the last F2/F3 if there is one, else 66; REX.W never matters there.
 * With EVEX.b and a register operand L'L is a rounding mode, not a length, and is not checked.
 *
 * How the maps were made and are kept right: the reference is what GNU objdump 2.40 (GNU
 * Binutils for Debian) decodes, since the decoder must agree with it. The cells were written from
 * probing objdump with every opcode of every map under every mandatory prefix, W, vector length,
 * ModRM.reg value, register form and memory form (rip-relative, base, SIB with and without index),
 * with vvvv 1111, 0001 and 0000, and with the register extension bits set one at a time; the
 * result was read against the SDM's opcode maps and #UD rules (group members, L0-only and
 * W-dependent forms, VSIB, mask registers, AMX tiles). OpcodeSweepTest re-checks the maps against the
 * installed objdump on every build and fails on any encoding it calls (bad) that the decoder
 * accepts; with another objdump version, differences show up there first.
 */
package org.jdtrace.isa.amd64.internal;

/** The defined opcodes of amd64 per encoding space, map, mandatory prefix, W, L and ModRM form. */
final class OpcodeMaps {

    /**
     * Form bits of a cell: bit reg for a register operand (mod=3), MEM+reg for memory without SIB
     * (not rip-relative), SIB+reg for memory with a SIB byte, RIP+reg for rip-relative memory.
     */
    static final int MEM = 8;
    static final int SIB = 16;
    static final int RIP = 24;

    /** Mandatory prefix (pp) numbers. */
    static final int NP = 0, P66 = 1, PF3 = 2, PF2 = 3;

    /** Legacy space, indexed by {@link #legacy}: form bits (register forms of "x" cells are in LEGACY_MOD3). */
    private static final int[] LEGACY = new int[4 * 256 * 4];
    /** Legacy register forms by ModRM byte (bit modrm & 63), for "x" cells. */
    private static final long[] LEGACY_MOD3 = new long[4 * 256 * 4];
    /** VEX (slots 0-2: maps 1-3), XOP (3-5: maps 8-10) and EVEX (6-13: maps 0-7), indexed by {@link #extended}. */
    private static final int[] EXTENDED = new int[14 * 256 * 4 * 2 * 4];
    /** The forms of EXTENDED that have no vvvv operand ("~"), indexed alike. */
    private static final int[] NO_VVVV = new int[EXTENDED.length];
    /** Register limits of the "limits" lists, by {@link #limits}: LIMIT_* bits, memory forms' << 8. */
    private static final char[] LIMITS = new char[14 * 256 * 4 * 2];

    /** ModRM.reg names k0-k7 or a 16-register class: REX.R / VEX.R / EVEX.R must be clear. */
    static final int LIMIT_R = 1;
    /** ModRM.reg names a register class of at most 16: EVEX.R' must be clear. */
    static final int LIMIT_R2 = 2;
    /** A register ModRM.rm names k0-k7: REX.B / VEX.B must be clear. */
    static final int LIMIT_B = 4;
    /** vvvv names k0-k7: it must be below 8. */
    static final int LIMIT_V = 8;
    /** No rounding control or SAE: EVEX.b must be clear on a register operand. */
    static final int LIMIT_NO_B = 16;

    static final int VEX_SLOT = -1, XOP_SLOT = 3 - 8, EVEX_SLOT = 6;

    private OpcodeMaps() {}

    /** Form bits of a legacy opcode (map 0-3) under mandatory prefix pp. */
    static int legacy(int map, int opcode, int pp) {
        return LEGACY[(map << 10) | (opcode << 2) | pp];
    }

    /** Whether a legacy "x" cell defines the register form with this ModRM byte. */
    static boolean legacyModrm(int map, int opcode, int pp, int modrm) {
        return (LEGACY_MOD3[(map << 10) | (opcode << 2) | pp] >>> (modrm & 63) & 1) != 0;
    }

    /** Form bits of an extended opcode; slot is the map plus VEX_SLOT, XOP_SLOT or EVEX_SLOT. */
    static int extended(int slot, int opcode, int pp, int w, int l) {
        return EXTENDED[(((slot << 8 | opcode) << 2 | pp) << 1 | w) << 2 | l];
    }

    /** Of those forms, the ones without a vvvv operand (vvvv must be 1111). */
    static int noVvvv(int slot, int opcode, int pp, int w, int l) {
        return NO_VVVV[(((slot << 8 | opcode) << 2 | pp) << 1 | w) << 2 | l];
    }

    /** LIMIT_* bits of an extended opcode: bits 0-7 for its register form, 8-15 for its memory forms. */
    static int limits(int slot, int opcode, int pp, int w) {
        return LIMITS[((slot << 8 | opcode) << 2 | pp) << 1 | w];
    }

    static {
        load(OpcodeMaps.LEGACY_TEXT);
        load(OpcodeMaps.VEX_TEXT);
        load(OpcodeMaps.XOP_TEXT);
        load(OpcodeMaps.EVEX_TEXT);
    }

    /** Parses grids ("space map pp..." then a column header and 16 rows) and the modrm list. */
    private static void load(String text) {
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] head = line.split("\\s+");
            if (head[0].equals("limits")) {
                int slot = slot(head[1], 1) - 1;
                for (i++; i < lines.length && !lines[i].isBlank(); i++) {
                    limitRow(slot, lines[i].strip().split("\\s+"));
                }
                continue;
            }
            if (head[0].equals("modrm")) {
                for (i++; i < lines.length && !lines[i].isBlank(); i++) {
                    modrmRow(lines[i].strip().split("\\s+"));
                }
                continue;
            }
            int map = map(head[1]);
            for (int row = 0; row < 16; row++) {
                String[] cells = lines[i + 2 + row].strip().split("\\s+");
                if (cells.length != 17 || !cells[0].equals(Integer.toHexString(row).toUpperCase() + "x:")) {
                    throw new IllegalStateException("bad opcode map row: " + lines[i + 2 + row]);
                }
                for (int col = 0; col < 16; col++) {
                    for (int k = 2; k < head.length; k++) {
                        cell(head[0], map, row << 4 | col, pp(head[k]), cells[col + 1]);
                    }
                }
            }
            i += 17;
        }
    }

    private static void cell(String space, int map, int opcode, int pp, String cell) {
        boolean legacy = space.equals("legacy");
        int slot = slot(space, map);
        if (cell.equals(".") || cell.equals("-")) {
            return;
        }
        for (String alt : cell.split("\\|")) {
            boolean noVvvv = alt.endsWith("~");
            if (noVvvv) {
                alt = alt.substring(0, alt.length() - 1);
            }
            int p = 0;
            int wMask = 3;
            int lMask = space.equals("evex") ? 7 : legacy ? 1 : 3;
            int forms = -1;
            if (alt.equals("*")) {
                p = alt.length();
            }
            if (alt.startsWith("W", p)) {
                wMask = 1 << (alt.charAt(p + 1) - '0');
                p += 2;
            }
            if (alt.startsWith("L", p)) {
                lMask = 0;
                for (p++; p < alt.length() && Character.isDigit(alt.charAt(p)); p++) {
                    lMask |= 1 << (alt.charAt(p) - '0');
                }
            }
            if (p < alt.length()) {
                switch (alt.charAt(p)) {
                    case 'r' -> { forms = 0xFF; p++; }
                    case 'm' -> { forms = 0xFFFFFF00; p++; }
                    case 'n' -> { forms = 0x00FFFF00; p++; }
                    case 's' -> { forms = 0x00FF0000; p++; }
                    case 'x' -> { forms = 0; p++; }
                    default -> { }
                }
            }
            if (p < alt.length() && alt.charAt(p) == '/') {
                int regs = 0;
                for (p++; p < alt.length() && Character.isDigit(alt.charAt(p)); p++) {
                    regs |= 1 << (alt.charAt(p) - '0');
                }
                forms &= regs * 0x01010101;
            }
            if (p != alt.length()) {
                throw new IllegalStateException("bad opcode map cell " + cell + " (" + space + " map " + map + ")");
            }
            if (legacy) {
                LEGACY[(map << 10) | (opcode << 2) | pp] |= forms;
                continue;
            }
            for (int w = 0; w < 2; w++) {
                for (int l = 0; l < 4; l++) {
                    if ((wMask >>> w & 1) != 0 && (lMask >>> l & 1) != 0) {
                        int i = (((slot << 8 | opcode) << 2 | pp) << 1 | w) << 2 | l;
                        EXTENDED[i] |= forms;
                        NO_VVVV[i] |= noVvvv ? forms : 0;
                    }
                }
            }
        }
    }

    private static int slot(String space, int map) {
        return switch (space) {
            case "legacy" -> 0;
            case "vex" -> map + VEX_SLOT;
            case "xop" -> map + XOP_SLOT;
            case "evex" -> map + EVEX_SLOT;
            default -> throw new IllegalStateException("unknown encoding space " + space);
        };
    }

    /** "map pp opcode W0|W1|W* r|m|* letters", letters R (LIMIT_R), P (LIMIT_R2), B, V, N; slot is of map 0. */
    private static void limitRow(int slot, String[] f) {
        int at = ((slot + map(f[0])) << 8 | Integer.parseInt(f[2], 16)) << 2 | pp(f[1]);
        int bits = 0;
        for (char c : f[5].toCharArray()) {
            bits |= switch (c) {
                case 'R' -> LIMIT_R;
                case 'P' -> LIMIT_R2;
                case 'B' -> LIMIT_B;
                case 'V' -> LIMIT_V;
                case 'N' -> LIMIT_NO_B;
                default -> throw new IllegalStateException("bad register limit " + c);
            };
        }
        int shifted = (f[4].equals("m") ? 0 : bits) | (f[4].equals("r") ? 0 : bits << 8);
        for (int w = 0; w < 2; w++) {
            if (f[3].equals("W*") || f[3].equals("W" + w)) {
                LIMITS[at << 1 | w] |= (char) shifted;
            }
        }
    }

    /** "pp[,pp...] map opcode modrm-bytes-or-ranges..." */
    private static void modrmRow(String[] f) {
        int map = map(f[1]);
        int opcode = Integer.parseInt(f[2], 16);
        long mask = 0;
        for (int k = 3; k < f.length; k++) {
            int dash = f[k].indexOf('-');
            int from = Integer.parseInt(dash < 0 ? f[k] : f[k].substring(0, dash), 16);
            int to = dash < 0 ? from : Integer.parseInt(f[k].substring(dash + 1), 16);
            for (int b = from; b <= to; b++) {
                mask |= 1L << (b & 63);
            }
        }
        for (String pp : f[0].split(",")) {
            LEGACY_MOD3[(map << 10) | (opcode << 2) | pp(pp)] = mask;
        }
    }

    private static int map(String name) {
        return switch (name) {
            case "map0" -> 0;
            case "0F" -> 1;
            case "0F38" -> 2;
            case "0F3A" -> 3;
            default -> {
                if (name.startsWith("map")) {
                    yield Integer.parseInt(name.substring(3), 16);
                }
                throw new IllegalStateException("unknown opcode map " + name);
            }
        };
    }

    private static int pp(String name) {
        return switch (name) {
            case "np" -> NP;
            case "66" -> P66;
            case "F3" -> PF3;
            case "F2" -> PF2;
            default -> throw new IllegalStateException("unknown mandatory prefix " + name);
        };
    }

    /** Legacy maps: one byte, 0F, 0F 38, 0F 3A; then the register forms decided by the whole ModRM byte. */
    private static final String LEGACY_TEXT = """
            legacy map0 np 66 F3 F2
                0 1 2 3 4 5 6     7     8 9           A   B          C          D                 E   F
            0x: * * * * * * .     .     * *           *   *          *          *                 .   -
            1x: * * * * * * .     .     * *           *   *          *          *                 .   .
            2x: * * * * * * -     .     * *           *   *          *          *                 -   .
            3x: * * * * * * -     .     * *           *   *          *          *                 -   .
            4x: - - - - - - -     -     - -           -   -          -          -                 -   -
            5x: * * * * * * *     *     * *           *   *          *          *                 *   *
            6x: . . - * - - -     -     * *           *   *          *          *                 *   *
            7x: * * * * * * *     *     * *           *   *          *          *                 *   *
            8x: * * . * * * *     *     * *           *   *          *          m                 *   /0
            9x: * * * * * * *     *     * *           .   *          *          *                 *   *
            Ax: * * * * * * *     *     * *           *   *          *          *                 *   *
            Bx: * * * * * * *     *     * *           *   *          *          *                 *   *
            Cx: * * * * - - m/0|x m/0|x * *           *   *          *          *                 .   *
            Dx: * * * * . . .     *     * m/0234567|x m|x m/012357|x r/014567|m r/02345|m/0123467 m|x m|x
            Ex: * * * * * * *     *     * *           .   *          *          *                 *   *
            Fx: - * - - * * *     *     * *           *   *          *          *                 /01 r/01246|m/0123456

            legacy 0F np
                0       1           2     3    4 5 6 7             8 9 A        B        C D E   F
            0x: /012345 m/0123467|x *     *    . * * *             * * .        *        . m *   .
            1x: *       *           *     m    * * * m             * * r|n/0123 r|n/0123 * * *   *
            2x: *       *           *     *    . . . .             * * *        m        * * *   *
            3x: *       *           *     *    * * . *             - . -        .        . . .   .
            4x: *       *           *     *    * * * *             * * *        *        * * *   *
            5x: r       *           *     *    * * * *             * * *        *        * * *   *
            6x: *       *           *     *    * * * *             * * *        *        . . *   *
            7x: *       r/246       r/246 r/26 * * * *             * * .        .        . . *   *
            8x: *       *           *     *    * * * *             * * *        *        * * *   *
            9x: *       *           *     *    * * * *             * * *        *        * * *   *
            Ax: *       *           *     *    * * x x             * * *        *        * * m|x *
            Bx: *       *           m     *    m m * *             . * /4567    *        * * *   *
            Cx: *       *           *     m    * r * r/67|m/134567 * * *        *        * * *   *
            Dx: .       *           *     *    * * . r             * * *        *        * * *   *
            Ex: *       *           *     *    * * . m             * * *        *        * * *   *
            Fx: .       *           *     *    * * * r             * * *        *        * * *   *

            legacy 0F 66
                0       1           2     3      4 5 6 7             8 9 A        B        C D E          F
            0x: /012345 m/0123467|x *     *      . * * *             * . .        *        . m *          .
            1x: *       *           m     m      * * m m             * * m/0123|x m/0123|x * * *          *
            2x: *       *           *     *      . . . .             * * *        m        * * *          *
            3x: *       *           *     *      * * . *             - . -        .        . . .          .
            4x: *       *           *     *      * * * *             * * *        *        * * *          *
            5x: r       *           .     .      * * * *             * * *        *        * * *          *
            6x: *       *           *     *      * * * *             * * *        *        * * *          *
            7x: *       r/246       r/246 r/2367 * * * .             r r .        .        * * *          *
            8x: *       *           *     *      * * * *             * * *        *        * * *          *
            9x: *       *           *     *      * * * *             * * *        *        * * *          *
            Ax: *       *           *     *      * * x x             * * *        *        * * m/012367|x *
            Bx: *       *           m     *      m m * *             . * /4567    *        * * *          *
            Cx: *       *           *     .      * r * r/67|m/134567 * * *        *        * * *          *
            Dx: *       *           *     *      * * * r             * * *        *        * * *          *
            Ex: *       *           *     *      * * * m             * * *        *        * * *          *
            Fx: .       *           *     *      * * * r             * * *        *        * * *          *

            legacy 0F F3
                0       1   2 3 4 5 6 7             8 9 A     B        C D E          F
            0x: /012345 m|x * * . * * *             * * .     *        . m *          .
            1x: *       *   * . . . * .             * * /0123 r|n/0123 * * *          *
            2x: *       *   * * . . . .             . . *     m        * * .          .
            3x: *       *   * * * * . *             - . -     .        . . .          .
            4x: *       *   * * * * * *             * * *     *        * * *          *
            5x: .       *   * * . . . .             * * *     *        * * *          *
            6x: .       .   . . . . . .             . . .     .        . . .          *
            7x: *       .   . . . . . .             . . .     .        . . *          *
            8x: *       *   * * * * * *             * * *     *        * * *          *
            9x: *       *   * * * * * *             * * *     *        * * *          *
            Ax: *       *   * * * * x x             * * *     *        * * m/012346|x *
            Bx: *       *   m * m m * *             * * /4567 *        * * *          *
            Cx: *       *   * . . . . r/67|m/134567 * * *     *        * * *          *
            Dx: .       .   . . . . r r             . . .     .        . . .          .
            Ex: .       .   . . . . * .             . . .     .        . . .          .
            Fx: .       .   . . . . . .             . . .     .        . . .          *

            legacy 0F F2
                0       1           2 3 4 5 6 7       8 9 A     B     C D E        F
            0x: /012345 m/0123467|x * * . * * *       * . .     *     . m *        .
            1x: *       *           * . . . . .       * * /0123 /0123 * * *        *
            2x: *       *           * * . . . .       . . *     m     * * .        .
            3x: *       *           * * * * . *       - . -     .     . . .        .
            4x: *       *           * * * * * *       * * *     *     * * *        *
            5x: .       *           . . . . . .       * * *     .     * * *        *
            6x: .       .           . . . . . .       . . .     .     . . .        .
            7x: *       .           . . . . . .       r r .     .     * * .        .
            8x: *       *           * * * * * *       * * *     *     * * *        *
            9x: *       *           * * * * * *       * * *     *     * * *        *
            Ax: *       *           * * * * x x       * * *     *     * * m/0123|x *
            Bx: *       *           m * m m * *       . * /4567 *     . . *        *
            Cx: *       *           * . . . . m/13457 * * *     *     * * *        *
            Dx: *       .           . . . . r r       . . .     .     . . .        .
            Ex: .       .           . . . . * .       . . .     .     . . .        .
            Fx: m       .           . . . . . .       . . .     .     . . .        *

            legacy 0F38 np
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: * * * * * * * * * * * * . . . .
            1x: . . . . . . . . . . . . * * * .
            2x: . . . . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: . . . . . . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . * * * * * * . .
            Dx: . . . . . . . . . . . . . . . .
            Ex: . . . . . . . . . . . . . . . .
            Fx: m m . . . . m . . m . . m . . .

            legacy 0F38 66
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: * * * * * * * * * * * * . . . .
            1x: * . . . * * . * . . . . * * * .
            2x: * * * * * * . . * * m * . . . .
            3x: * * * * * * . * * * * * * * * *
            4x: * * . . . . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: m m m . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . . . . *
            Dx: . . . . . . . . . . . * * * * *
            Ex: . . . . . . . . . . . . . . . .
            Fx: m m . . . m * . m . . . m . . .

            legacy 0F38 F3
                0 1 2 3 4 5 6 7 8      9 A B C D E F
            0x: . . . . . . . . .      . . . . . . .
            1x: . . . . . . . . .      . . . . . . .
            2x: . . . . . . . . .      . . . . . . .
            3x: . . . . . . . . .      . . . . . . .
            4x: . . . . . . . . .      . . . . . . .
            5x: . . . . . . . . .      . . . . . . .
            6x: . . . . . . . . .      . . . . . . .
            7x: . . . . . . . . .      . . . . . . .
            8x: . . . . . . . . .      . . . . . . .
            9x: . . . . . . . . .      . . . . . . .
            Ax: . . . . . . . . .      . . . . . . .
            Bx: . . . . . . . . .      . . . . . . .
            Cx: . . . . . . . . .      . . . . . . .
            Dx: . . . . . . . . m/0123 . . . * m m m
            Ex: . . . . . . . . .      . . . . . . .
            Fx: . . . . . . * . m      . r r m . . .

            legacy 0F38 F2
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: . . . . . . . . . . . . . . . .
            1x: . . . . . . . . . . . . . . . .
            2x: . . . . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: . . . . . . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . . . . .
            Dx: . . . . . . . . . . . . . . . .
            Ex: . . . . . . . . . . . . . . . .
            Fx: * * . . . . . . m . . . m . . .

            legacy 0F3A np
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: . . . . . . . . . . . . . . . *
            1x: . . . . . . . . . . . . . . . .
            2x: . . . . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: . . . . . . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . * . . .
            Dx: . . . . . . . . . . . . . . . .
            Ex: . . . . . . . . . . . . . . . .
            Fx: . . . . . . . . . . . . . . . .

            legacy 0F3A 66
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: . . . . . . . . * * * * * * * *
            1x: . . . . * * * * . . . . . . . .
            2x: * * * . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: * * * . * . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: * * * * . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . . . * *
            Dx: . . . . . . . . . . . . . . . *
            Ex: . . . . . . . . . . . . . . . .
            Fx: . . . . . . . . . . . . . . . .

            legacy 0F3A F3
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: . . . . . . . . . . . . . . . .
            1x: . . . . . . . . . . . . . . . .
            2x: . . . . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: . . . . . . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . . . . .
            Dx: . . . . . . . . . . . . . . . .
            Ex: . . . . . . . . . . . . . . . .
            Fx: x . . . . . . . . . . . . . . .

            legacy 0F3A F2
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: . . . . . . . . . . . . . . . .
            1x: . . . . . . . . . . . . . . . .
            2x: . . . . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: . . . . . . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . . . . .
            Dx: . . . . . . . . . . . . . . . .
            Ex: . . . . . . . . . . . . . . . .
            Fx: . . . . . . . . . . . . . . . .

            modrm
            np,66,F3,F2 map0 C6  C0-C7 F8
            np,66,F3,F2 map0 C7  C0-C7 F8
            np,66,F3,F2 map0 D9  C0-D0 E0-E1 E4-E5 E8-EE F0-FF
            np,66,F3,F2 map0 DA  C0-DF E9
            np,66,F3,F2 map0 DB  C0-E5 E8-F7
            np,66,F3,F2 map0 DE  C0-CF D9 E0-FF
            np,66,F3,F2 map0 DF  C0-C7 E0 E8-F7
            np          0F   01  C0-C6 C8-CB CF-D1 D4-E8 EE-FF
            np,66,F3,F2 0F   A6  C0 C8 D0
            np,66,F3,F2 0F   A7  C0 C8 D0 D8 E0 E8
            np          0F   AE  E8-F0 F8
            66          0F   01  C0-C5 C8-D1 D4-D8 DA-E7 F0-F9 FC
            66          0F   1A  C0-C3 C8-CB D0-D3 D8-DB
            66          0F   1B  C0-C3 C8-CB D0-D3 D8-DB
            66,F2       0F   AE  F0-F8
            F3          0F   01  C0-C6 C8-CB D0-D1 D4-E8 EA EC-FA FC-FF
            F3          0F   AE  C0-F8
            F2          0F   01  C0-C6 C8-CB D0-D1 D4-E9 F0-F9 FC FE-FF
            F3          0F3A F0  C0
            """;

    /** VEX (C4/C5) maps 0F, 0F38, 0F3A. */
    private static final String VEX_TEXT = """
            vex 0F np
                0   1    2      3      4    5   6   7    8    9    A   B   C D E       F
            0x: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .
            1x: *~  *~   L0     L0m~   *    *   L0  L0m~ .    .    .   .   . . .       .
            2x: .   .    .      .      .    .   .   .    *~   *~   .   m~  . . *~      *~
            3x: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .
            4x: .   L1r  L1r    .      L0r~ L1r L1r L1r  .    .    L1r L1r . . .       .
            5x: r~  *~   *~     *~     *    *   *   *    *    *    *~  *~  * * *       *
            6x: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .
            7x: .   .    .      .      .    .   .   *~   .    .    .   .   . . .       .
            8x: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .
            9x: L0~ L0m~ W0L0r~ W0L0r~ .    .   .   .    L0r~ L0r~ .   .   . . .       .
            Ax: .   .    .      .      .    .   .   .    .    .    .   .   . . L0m/23~ .
            Bx: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .
            Cx: .   .    *      .      .    .   *   .    .    .    .   .   . . .       .
            Dx: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .
            Ex: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .
            Fx: .   .    .      .      .    .   .   .    .    .    .   .   . . .       .

            vex 0F 66
                0   1     2      3      4    5    6   7    8    9    A   B     C D E       F
            0x: .   .     .      .      .    .    .   .    .    .    .   .     . . .       .
            1x: *~  *~    L0m    L0m~   *    *    L0m L0m~ .    .    .   .     . . .       .
            2x: .   .     .      .      .    .    .   .    *~   *~   .   m~    . . *~      *~
            3x: .   .     .      .      .    .    .   .    .    .    .   .     . . .       .
            4x: .   L1r   L1r    .      L0r~ L1r  L1r L1r  .    .    L1r W0L1r . . .       .
            5x: r~  *~    .      .      *    *    *   *    *    *    *~  *~    * * *       *
            6x: *   *     *      *      *    *    *   *    *    *    *   *     * * L0~     *~
            7x: *~  r/246 r/246  r/2367 *    *    *   *~   .    .    .   .     * * L0~     *~
            8x: .   .     .      .      .    .    .   .    .    .    .   .     . . .       .
            9x: L0~ L0m~  W0L0r~ W0L0r~ .    .    .   .    L0r~ L0r~ .   .     . . .       .
            Ax: .   .     .      .      .    .    .   .    .    .    .   .     . . L0m/23~ .
            Bx: .   .     .      .      .    .    .   .    .    .    .   .     . . .       .
            Cx: .   .     *      .      L0   L0r~ *   .    .    .    .   .     . . .       .
            Dx: *   *     *      *      *    *    L0~ r~   *    *    *   *     * * *       *
            Ex: *   *     *      *      *    *    *~  m~   *    *    *   *     * * *       *
            Fx: .   *     *      *      *    *    *   L0r~ *    *    *   *     * * *       .

            vex 0F F3
                0    1    2  3 4 5 6  7  8 9 A B  C  D  E       F
            0x: .    .    .  . . . .  .  . . . .  .  .  .       .
            1x: r|m~ r|m~ *~ . . . *~ .  . . . .  .  .  .       .
            2x: .    .    .  . . . .  .  . . * .  *~ *~ .       .
            3x: .    .    .  . . . .  .  . . . .  .  .  .       .
            4x: .    .    .  . . . .  .  . . . .  .  .  .       .
            5x: .    *    *  * . . .  .  * * * *~ *  *  *       *
            6x: .    .    .  . . . .  .  . . . .  .  .  .       *~
            7x: *~   .    .  . . . .  *~ . . . .  .  .  L0~     *~
            8x: .    .    .  . . . .  .  . . . .  .  .  .       .
            9x: .    .    .  . . . .  .  . . . .  .  .  .       .
            Ax: .    .    .  . . . .  .  . . . .  .  .  L0m/23~ .
            Bx: .    .    .  . . . .  .  . . . .  .  .  .       .
            Cx: .    .    *  . . . .  .  . . . .  .  .  .       .
            Dx: .    .    .  . . . .  .  . . . .  .  .  .       .
            Ex: .    .    .  . . . *~ .  . . . .  .  .  .       .
            Fx: .    .    .  . . . .  .  . . . .  .  .  .       .

            vex 0F F2
                0    1    2    3    4 5 6  7  8 9 A B C  D  E       F
            0x: .    .    .    .    . . .  .  . . . . .  .  .       .
            1x: r|m~ r|m~ *~   .    . . .  .  . . . . .  .  .       .
            2x: .    .    .    .    . . .  .  . . * . *~ *~ .       .
            3x: .    .    .    .    . . .  .  . . . . .  .  .       .
            4x: .    .    .    .    . . .  .  . . . . .  .  .       .
            5x: .    *    .    .    . . .  .  * * * . *  *  *       *
            6x: .    .    .    .    . . .  .  . . . . .  .  .       .
            7x: *~   .    .    .    . . .  *~ . . . . *  *  .       .
            8x: .    .    .    .    . . .  .  . . . . .  .  .       .
            9x: .    .    L0r~ L0r~ . . .  .  . . . . .  .  .       .
            Ax: .    .    .    .    . . .  .  . . . . .  .  L0m/23~ .
            Bx: .    .    .    .    . . .  .  . . . . .  .  .       .
            Cx: .    .    *    .    . . .  .  . . . . .  .  .       .
            Dx: *    .    .    .    . . .  .  . . . . .  .  .       .
            Ex: .    .    .    .    . . *~ .  . . . . .  .  .       .
            Fx: m~   .    .    .    . . .  .  . . . . .  .  .       .

            vex 0F38 np
                0    1  2  3      4 5  6 7  8 9      A B C D E     F
            0x: .    .  .  .      . .  . .  . .      . . . . .     .
            1x: .    .  .  .      . .  . .  . .      . . . . .     .
            2x: .    .  .  .      . .  . .  . .      . . . . .     .
            3x: .    .  .  .      . .  . .  . .      . . . . .     .
            4x: .    .  .  .      . .  . .  . W0L0m~ . . . . .     .
            5x: W0   W0 .  .      . .  . .  . .      . . . . W0L0r .
            6x: .    .  .  .      . .  . .  . .      . . . . .     .
            7x: .    .  .  .      . .  . .  . .      . . . . .     .
            8x: .    .  .  .      . .  . .  . .      . . . . .     .
            9x: .    .  .  .      . .  . .  . .      . . . . .     .
            Ax: .    .  .  .      . .  . .  . .      . . . . .     .
            Bx: W0m~ .  .  .      . .  . .  . .      . . . . .     .
            Cx: .    .  .  .      . .  . .  . .      . . . . .     .
            Dx: .    .  .  .      . .  . .  . .      . . . . .     .
            Ex: .    .  .  .      . .  . .  . .      . . . . .     .
            Fx: .    .  L0 L0/123 . L0 . L0 . .      . . . . .     .

            vex 0F38 66
                0    1    2   3   4   5   6    7   8   9      A      B      C   D   E     F
            0x: *    *    *   *   *   *   *    *   *   *      *      *      W0  W0  W0~   W0~
            1x: .    .    .   W0~ .   .   W0L1 *~  W0~ W0L1~  W0L1m~ .      *~  *~  *~    .
            2x: *~   *~   *~  *~  *~  *~  .    .   *   *      m~     *      W0m W0m W0m   W0m
            3x: *~   *~   *~  *~  *~  *~  W0L1 *   *   *      *      *      *   *   *     *
            4x: *    L0~  .   .   .   *   W0   *   .   W0L0m~ .      W0L0s~ .   .   .     .
            5x: W0   W0   W0  W0  .   .   .    .   W0~ W0~    W0L1m~ .      .   .   W0L0r .
            6x: .    .    .   .   .   .   .    .   .   .      .      .      .   .   .     .
            7x: .    .    .   .   .   .   .    .   W0~ W0~    .      .      .   .   .     .
            8x: .    .    .   .   .   .   .    .   .   .      .      .      m   .   m     .
            9x: s    s    s   s   .   .   *    *   *   *      *      *      *   *   *     *
            Ax: .    .    .   .   .   .   *    *   *   *      *      *      *   *   *     *
            Bx: W0m~ W0m~ .   .   W1  W1  *    *   *   *      *      *      *   *   *     *
            Cx: .    .    .   .   .   .   .    .   .   .      .      .      .   .   .     W0
            Dx: .    .    .   .   .   .   .    .   .   .      .      L0~    *   *   *     *
            Ex: L0m  L0m  L0m L0m L0m L0m L0m  L0m L0m L0m    L0m    L0m    L0m L0m L0m   L0m
            Fx: .    .    .   .   .   .   .    L0  .   .      .      .      .   .   .     .

            vex 0F38 F3
                0    1    2   3 4 5  6 7  8 9 A B      C     D E     F
            0x: .    .    .   . . .  . .  . . . .      .     . .     .
            1x: .    .    .   . . .  . .  . . . .      .     . .     .
            2x: .    .    .   . . .  . .  . . . .      .     . .     .
            3x: .    .    .   . . .  . .  . . . .      .     . .     .
            4x: .    .    .   . . .  . .  . . . W0L0s~ .     . .     .
            5x: W0   W0   .   . . .  . .  . . . .      W0L0r . W0L0r .
            6x: .    .    .   . . .  . .  . . . .      .     . .     .
            7x: .    .    W0~ . . .  . .  . . . .      .     . .     .
            8x: .    .    .   . . .  . .  . . . .      .     . .     .
            9x: .    .    .   . . .  . .  . . . .      .     . .     .
            Ax: .    .    .   . . .  . .  . . . .      .     . .     .
            Bx: W0m~ W0m~ .   . . .  . .  . . . .      .     . .     .
            Cx: .    .    .   . . .  . .  . . . .      .     . .     .
            Dx: .    .    .   . . .  . .  . . . .      .     . .     .
            Ex: .    .    .   . . .  . .  . . . .      .     . .     .
            Fx: .    .    .   . . L0 . L0 . . . .      .     . .     .

            vex 0F38 F2
                0    1  2 3 4 5  6  7  8 9      A B      C     D E     F
            0x: .    .  . . . .  .  .  . .      . .      .     . .     .
            1x: .    .  . . . .  .  .  . .      . .      .     . .     .
            2x: .    .  . . . .  .  .  . .      . .      .     . .     .
            3x: .    .  . . . .  .  .  . .      . .      .     . .     .
            4x: .    .  . . . .  .  .  . W0L0r~ . W0L0s~ .     . .     .
            5x: W0   W0 . . . .  .  .  . .      . .      W0L0r . W0L0r .
            6x: .    .  . . . .  .  .  . .      . .      .     . .     .
            7x: .    .  . . . .  .  .  . .      . .      .     . .     .
            8x: .    .  . . . .  .  .  . .      . .      .     . .     .
            9x: .    .  . . . .  .  .  . .      . .      .     . .     .
            Ax: .    .  . . . .  .  .  . .      . .      .     . .     .
            Bx: W0m~ .  . . . .  .  .  . .      . .      .     . .     .
            Cx: .    .  . . . .  .  .  . .      . .      .     . .     .
            Dx: .    .  . . . .  .  .  . .      . .      .     . .     .
            Ex: .    .  . . . .  .  .  . .      . .      .     . .     .
            Fx: .    .  . . . L0 L0 L0 . .      . .      .     . .     .

            vex 0F3A 66
                0     1     2    3    4   5   6    7   8    9     A  B  C  D   E  F
            0x: W1L1~ W1L1~ W0   .    W0~ W0~ W0L1 .   *~   *~    *  *  *  *   *  *
            1x: .     .     .    .    L0~ L0~ L0~  L0~ W0L1 W0L1~ .  .  .  W0~ .  .
            2x: L0    L0    L0   .    .   .   .    .   .    .     .  .  .  .   .  .
            3x: L0r~  L0r~  L0r~ L0r~ .   .   .    .   W0L1 W0L1~ .  .  .  .   .  .
            4x: *     L0    *    .    *   .   W0L1 .   *    *     W0 W0 W0 .   .  .
            5x: .     .     .    .    .   .   .    .   .    .     .  .  *  *   *  *
            6x: L0~   L0~   L0~  L0~  .   .   .    .   *    *     *  *  *  *   *  *
            7x: .     .     .    .    .   .   .    .   *    *     *  *  *  *   *  *
            8x: .     .     .    .    .   .   .    .   .    .     .  .  .  .   .  .
            9x: .     .     .    .    .   .   .    .   .    .     .  .  .  .   .  .
            Ax: .     .     .    .    .   .   .    .   .    .     .  .  .  .   .  .
            Bx: .     .     .    .    .   .   .    .   .    .     .  .  .  .   .  .
            Cx: .     .     .    .    .   .   .    .   .    .     .  .  .  .   W1 W1
            Dx: .     .     .    .    .   .   .    .   .    .     .  .  .  .   .  L0~
            Ex: .     .     .    .    .   .   .    .   .    .     .  .  .  .   .  .
            Fx: .     .     .    .    .   .   .    .   .    .     .  .  .  .   .  .

            vex 0F3A F2
                0   1 2 3 4 5 6 7 8 9 A B C D E F
            0x: .   . . . . . . . . . . . . . . .
            1x: .   . . . . . . . . . . . . . . .
            2x: .   . . . . . . . . . . . . . . .
            3x: .   . . . . . . . . . . . . . . .
            4x: .   . . . . . . . . . . . . . . .
            5x: .   . . . . . . . . . . . . . . .
            6x: .   . . . . . . . . . . . . . . .
            7x: .   . . . . . . . . . . . . . . .
            8x: .   . . . . . . . . . . . . . . .
            9x: .   . . . . . . . . . . . . . . .
            Ax: .   . . . . . . . . . . . . . . .
            Bx: .   . . . . . . . . . . . . . . .
            Cx: .   . . . . . . . . . . . . . . .
            Dx: .   . . . . . . . . . . . . . . .
            Ex: .   . . . . . . . . . . . . . . .
            Fx: L0~ . . . . . . . . . . . . . . .

            limits vex
            0F   np 41 W* r RBV
            0F   np 42 W* r RBV
            0F   np 44 W* r RB
            0F   np 45 W* r RBV
            0F   np 46 W* r RBV
            0F   np 47 W* r RBV
            0F   np 4A W* r RBV
            0F   np 4B W* r RBV
            0F   np 90 W* r RB
            0F   np 90 W* m R
            0F   np 91 W* m R
            0F   np 92 W0 r R
            0F   np 93 W0 r B
            0F   np 98 W* r RB
            0F   np 99 W* r RB
            0F   66 41 W* r RBV
            0F   66 42 W* r RBV
            0F   66 44 W* r RB
            0F   66 45 W* r RBV
            0F   66 46 W* r RBV
            0F   66 47 W* r RBV
            0F   66 4A W* r RBV
            0F   66 4B W0 r RBV
            0F   66 90 W* r RB
            0F   66 90 W* m R
            0F   66 91 W* m R
            0F   66 92 W0 r R
            0F   66 93 W0 r B
            0F   66 98 W* r RB
            0F   66 99 W* r RB
            0F   F2 92 W* r R
            0F   F2 93 W* r B
            0F38 np 5E W0 r RB
            0F38 66 5E W0 r RB
            0F38 F3 5C W0 r RB
            0F38 F3 5E W0 r RB
            0F38 F2 49 W0 r R
            0F38 F2 5C W0 r RB
            0F38 F2 5E W0 r RB
            0F3A 66 30 W* r RB
            0F3A 66 31 W* r RB
            0F3A 66 32 W* r RB
            0F3A 66 33 W* r RB
            """;

    /** AMD XOP (8F) maps 8, 9, A. */
    private static final String XOP_TEXT = """
            xop map8 np
                0     1     2     3     4 5    6    7    8 9 A B C    D    E    F
            0x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            1x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            2x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            3x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            4x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            5x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            6x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            7x: .     .     .     .     . .    .    .    . . . . .    .    .    .
            8x: .     .     .     .     . W0L0 W0L0 W0L0 . . . . .    .    W0L0 W0L0
            9x: .     .     .     .     . W0L0 W0L0 W0L0 . . . . .    .    W0L0 W0L0
            Ax: .     .     *     L0    . .    W0L0 .    . . . . .    .    .    .
            Bx: .     .     .     .     . .    W0L0 .    . . . . .    .    .    .
            Cx: W0L0~ W0L0~ W0L0~ W0L0~ . .    .    .    . . . . W0L0 W0L0 W0L0 W0L0
            Dx: .     .     .     .     . .    .    .    . . . . .    .    .    .
            Ex: .     .     .     .     . .    .    .    . . . . W0L0 W0L0 W0L0 W0L0
            Fx: .     .     .     .     . .    .    .    . . . . .    .    .    .

            xop map9 np
                0   1          2       3     4  5  6     7     8  9  A  B     C D E F
            0x: .   L0/1234567 L0/16   .     .  .  .     .     .  .  .  .     . . . .
            1x: .   .          L0r/01~ .     .  .  .     .     .  .  .  .     . . . .
            2x: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            3x: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            4x: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            5x: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            6x: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            7x: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            8x: W0~ W0~        W0L0~   W0L0~ .  .  .     .     .  .  .  .     . . . .
            9x: L0  L0         L0      L0    L0 L0 L0    L0    L0 L0 L0 L0    . . . .
            Ax: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            Bx: .   .          .       .     .  .  .     .     .  .  .  .     . . . .
            Cx: .   W0L0~      W0L0~   W0L0~ .  .  W0L0~ W0L0~ .  .  .  W0L0~ . . . .
            Dx: .   W0L0~      W0L0~   W0L0~ .  .  W0L0~ W0L0~ .  .  .  W0L0~ . . . .
            Ex: .   W0L0~      W0L0~   W0L0~ .  .  .     .     .  .  .  .     . . . .
            Fx: .   .          .       .     .  .  .     .     .  .  .  .     . . . .

            xop mapA np
                0  1 2     3 4 5 6 7 8 9 A B C D E F
            0x: .  . .     . . . . . . . . . . . . .
            1x: *~ . L0/01 . . . . . . . . . . . . .
            2x: .  . .     . . . . . . . . . . . . .
            3x: .  . .     . . . . . . . . . . . . .
            4x: .  . .     . . . . . . . . . . . . .
            5x: .  . .     . . . . . . . . . . . . .
            6x: .  . .     . . . . . . . . . . . . .
            7x: .  . .     . . . . . . . . . . . . .
            8x: .  . .     . . . . . . . . . . . . .
            9x: .  . .     . . . . . . . . . . . . .
            Ax: .  . .     . . . . . . . . . . . . .
            Bx: .  . .     . . . . . . . . . . . . .
            Cx: .  . .     . . . . . . . . . . . . .
            Dx: .  . .     . . . . . . . . . . . . .
            Ex: .  . .     . . . . . . . . . . . . .
            Fx: .  . .     . . . . . . . . . . . . .
            """;

    /** EVEX (62) maps 0F, 0F38, 0F3A, 5 and 6 (AVX512-FP16). */
    private static final String EVEX_TEXT = """
            evex 0F np
                0  1  2  3      4  5  6  7      8   9   A  B    C D E  F
            0x: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            1x: *~ *~ L0 W0L0m~ W0 W0 L0 W0L0m~ .   .   .  .    . . .  .
            2x: .  .  .  .      .  .  .  .      W0~ W0~ .  W0m~ . . *~ *~
            3x: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            4x: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            5x: .  *~ .  .      W0 W0 W0 W0     *   *   *~ *~   * * *  *
            6x: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            7x: .  .  .  .      .  .  .  .      *~  *~  .  .    . . .  .
            8x: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            9x: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            Ax: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            Bx: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            Cx: .  .  W0 .      .  .  W0 .      .   .   .  .    . . .  .
            Dx: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            Ex: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .
            Fx: .  .  .  .      .  .  .  .      .   .   .  .    . . .  .

            evex 0F 66
                0   1    2               3             4  5    6     7      8   9   A  B    C  D  E   F
            0x: .   .    .               .             .  .    .     .      .   .   .  .    .  .  .   .
            1x: *~  *~   L0m             W1L0m~        W1 W1   L0m   W1L0m~ .   .   .  .    .  .  .   .
            2x: .   .    .               .             .  .    .     .      W1~ W1~ .  W1m~ .  .  *~  *~
            3x: .   .    .               .             .  .    .     .      .   .   .  .    .  .  .   .
            4x: .   .    .               .             .  .    .     .      .   .   .  .    .  .  .   .
            5x: .   *~   .               .             W1 W1   W1    W1     *   *   *~ *~   *  *  *   *
            6x: *   *    W0              *             *  *    W0    *      *   *   W0 W0   W1 W1 L0~ *~
            7x: W0~ /246 W0/01246|W1/014 W0/37|W1/2367 *  *    W0    .      *~  *~  *~ *~   .  .  L0~ *~
            8x: .   .    .               .             .  .    .     .      .   .   .  .    .  .  .   .
            9x: .   .    .               .             .  .    .     .      .   .   .  .    .  .  .   .
            Ax: .   .    .               .             .  .    .     .      .   .   .  .    .  .  .   .
            Bx: .   .    .               .             .  .    .     .      .   .   .  .    .  .  .   .
            Cx: .   .    W1              .             L0 L0r~ W1    .      .   .   .  .    .  .  .   .
            Dx: .   *    W0              W1            W1 *    W1L0~ .      *   *   *  *    *  *  *   *
            Ex: *   *    *               *             *  *    *~    W0~    *   *   *  *    *  *  *   *
            Fx: .   *    W0              W1            W1 *    *     .      *   *   W0 W1   *  *  W0  .

            evex 0F F3
                0    1    2  3 4 5 6  7 8  9  A  B  C  D  E     F
            0x: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            1x: r|m~ r|m~ *~ . . . *~ . .  .  .  .  .  .  .     .
            2x: .    .    .  . . . .  . .  .  *  .  *~ *~ .     .
            3x: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            4x: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            5x: .    *    .  . . . .  . *  *  *  *~ *  *  *     *
            6x: .    .    .  . . . .  . .  .  .  .  .  .  .     *~
            7x: *~   .    .  . . . .  . *~ *~ *~ *  .  .  W1L0~ *~
            8x: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            9x: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            Ax: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            Bx: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            Cx: .    .    *  . . . .  . .  .  .  .  .  .  .     .
            Dx: .    .    .  . . . .  . .  .  .  .  .  .  .     .
            Ex: .    .    .  . . . *~ . .  .  .  .  .  .  .     .
            Fx: .    .    .  . . . .  . .  .  .  .  .  .  .     .

            evex 0F F2
                0    1    2  3 4 5 6  7 8  9  A  B C  D  E F
            0x: .    .    .  . . . .  . .  .  .  . .  .  . .
            1x: r|m~ r|m~ *~ . . . .  . .  .  .  . .  .  . .
            2x: .    .    .  . . . .  . .  .  *  . *~ *~ . .
            3x: .    .    .  . . . .  . .  .  .  . .  .  . .
            4x: .    .    .  . . . .  . .  .  .  . .  .  . .
            5x: .    *    .  . . . .  . *  *  *  . *  *  * *
            6x: .    .    .  . . . .  . .  .  .  . .  .  . *~
            7x: *~   .    .  . . . .  . *~ *~ *~ * .  .  . *~
            8x: .    .    .  . . . .  . .  .  .  . .  .  . .
            9x: .    .    .  . . . .  . .  .  .  . .  .  . .
            Ax: .    .    .  . . . .  . .  .  .  . .  .  . .
            Bx: .    .    .  . . . .  . .  .  .  . .  .  . .
            Cx: .    .    *  . . . .  . .  .  .  . .  .  . .
            Dx: .    .    .  . . . .  . .  .  .  . .  .  . .
            Ex: .    .    .  . . . *~ . .  .  .  . .  .  . .
            Fx: .    .    .  . . . .  . .  .  .  . .  .  . .

            evex 0F38 np
                0  1  2 3 4 5 6 7 8 9 A B C D E  F
            0x: .  .  . . . . . . . . . . . . .  .
            1x: .  .  . . . . . . . . . . . . .  .
            2x: .  .  . . . . . . . . . . . . .  .
            3x: .  .  . . . . . . . . . . . . .  .
            4x: .  .  . . . . . . . . . . . . *~ .
            5x: W0 W0 . . . . . . . . . . . . .  .
            6x: .  .  . . . . . . . . . . . . .  .
            7x: .  .  . . . . . . . . . . . . .  .
            8x: .  .  . . . . . . . . . . . . .  .
            9x: .  .  . . . . . . . . . . . . .  .
            Ax: .  .  . . . . . . . . . . . . .  .
            Bx: .  .  . . . . . . . . . . . . .  .
            Cx: .  .  . . . . . . . . . . . . .  .
            Dx: .  .  . . . . . . . . . . . . .  .
            Ex: .  .  . . . . . . . . . . . . .  .
            Fx: .  .  . . . . . . . . . . . . .  .

            evex 0F38 66
                0  1  2  3  4  5   6         7         8   9    A     B    C  D  E   F
            0x: *  .  .  .  *  .   .         .         .   .    .     *    W0 *  .   .
            1x: W1 W1 W1 *~ *  *   L12       .         W0~ L12~ L12m~ L2m~ *~ *~ W0~ W1~
            2x: *~ *~ *~ *~ *~ W0~ *         *         W1  W1   W0~   W0   *  *  .   .
            3x: *~ *~ *~ *~ *~ W0~ L12       W1        *   *    *     *    *  *  *   *
            4x: *  .  *~ *  *~ *   *         *         .   .    .     .    *~ *  *~  *
            5x: W0 W0 W0 W0 *~ *~  .         .         W0~ *~   L12m~ L2m~ .  .  .   .
            6x: .  .  *~ *~ *  *   *         .         .   .    .     .    .  .  .   .
            7x: W1 *  W1 *  .  *   *         *         W0~ W0~  W0r~  W0r~ r~ *  *   *
            8x: .  .  .  W1 .  .   .         .         *~  *~   *~    *~   .  *  .   *
            9x: s~ s~ s~ s~ .  .   *         *         *   *    *     *    *  *  *   *
            Ax: s~ s~ s~ s~ .  .   *         *         *   *    *     *    *  *  *   *
            Bx: .  .  .  .  W1 W1  *         *         *   *    *     *    *  *  *   *
            Cx: .  .  .  .  *~ .   L2s/1256~ L2s/1256~ *~  .    *~    *    *~ *  .   W0
            Dx: .  .  .  .  .  .   .         .         .   .    .     .    *  *  *   *
            Ex: .  .  .  .  .  .   .         .         .   .    .     .    .  .  .   .
            Fx: .  .  .  .  .  .   .         .         .   .    .     .    .  .  .   .

            evex 0F38 F3
                0   1   2   3   4   5   6 7 8  9  A    B C D E  F
            0x: .   .   .   .   .   .   . . .  .  .    . . . .  .
            1x: W0~ W0~ W0~ W0~ W0~ W0~ . . .  .  .    . . . .  .
            2x: W0~ W0~ W0~ W0~ W0~ W0~ * * r~ *~ W1r~ . . . .  .
            3x: W0~ W0~ W0~ W0~ W0~ W0~ . . r~ *~ W0r~ . . . .  .
            4x: .   .   .   .   .   .   . . .  .  .    . . . *~ .
            5x: W0  W0  *   .   .   .   . . .  .  .    . . . .  .
            6x: .   .   .   .   .   .   . . .  .  .    . . . .  .
            7x: .   .   *~  .   .   .   . . .  .  .    . . . .  .
            8x: .   .   .   .   .   .   . . .  .  .    . . . .  .
            9x: .   .   .   .   .   .   . . .  .  .    . . . .  .
            Ax: .   .   .   .   .   .   . . .  .  .    . . . .  .
            Bx: .   .   .   .   .   .   . . .  .  .    . . . .  .
            Cx: .   .   .   .   .   .   . . .  .  .    . . . .  .
            Dx: .   .   .   .   .   .   . . .  .  .    . . . .  .
            Ex: .   .   .   .   .   .   . . .  .  .    . . . .  .
            Fx: .   .   .   .   .   .   . . .  .  .    . . . .  .

            evex 0F38 F2
                0  1  2 3 4 5 6 7 8 9 A B C D E  F
            0x: .  .  . . . . . . . . . . . . .  .
            1x: .  .  . . . . . . . . . . . . .  .
            2x: .  .  . . . . . . . . . . . . .  .
            3x: .  .  . . . . . . . . . . . . .  .
            4x: .  .  . . . . . . . . . . . . *~ .
            5x: W0 W0 m m . . . . . . . . . . .  .
            6x: .  .  . . . . . . * . . . . . .  .
            7x: .  .  * . . . . . . . . . . . .  .
            8x: .  .  . . . . . . . . . . . . .  .
            9x: .  .  . . . . . . . . m m . . .  .
            Ax: .  .  . . . . . . . . m m . . .  .
            Bx: .  .  . . . . . . . . . . . . .  .
            Cx: .  .  . . . . . . . . . . . . .  .
            Dx: .  .  . . . . . . . . . . . . .  .
            Ex: .  .  . . . . . . . . . . . . .  .
            Fx: .  .  . . . . . . . . . . . . .  .

            evex 0F3A np
                0  1 2  3 4 5 6  7  8  9 A B C D E F
            0x: .  . .  . . . .  .  *~ . * . . . . .
            1x: .  . .  . . . .  .  .  . . . . . . .
            2x: .  . .  . . . *~ *  .  . . . . . . .
            3x: .  . .  . . . .  .  .  . . . . . . .
            4x: .  . W0 . . . .  .  .  . . . . . . .
            5x: .  . .  . . . *~ *  .  . . . . . . .
            6x: .  . .  . . . *~ *~ .  . . . . . . .
            7x: W1 . W1 . . . .  .  .  . . . . . . .
            8x: .  . .  . . . .  .  .  . . . . . . .
            9x: .  . .  . . . .  .  .  . . . . . . .
            Ax: .  . .  . . . .  .  .  . . . . . . .
            Bx: .  . .  . . . .  .  .  . . . . . . .
            Cx: .  . *  . . . .  .  .  . . . . . . .
            Dx: .  . .  . . . .  .  .  . . . . . . .
            Ex: .  . .  . . . .  .  .  . . . . . . .
            Fx: .  . .  . . . .  .  .  . . . . . . .

            evex 0F3A 66
                0      1      2  3   4   5   6   7   8   9    A  B   C D   E  F
            0x: W1L12~ W1L12~ .  *   W0~ *~  .   .   *~  *~   *  *   . .   .  *
            1x: .      .      .  .   L0~ L0~ L0~ L0~ L12 L12~ L2 L2~ . W0~ *  *
            2x: L0     W0L0   L0 L12 .   *   *~  *   .   .    .  .   . .   .  .
            3x: .      .      .  .   .   .   .   .   L12 L12~ L2 L2~ . .   *  *
            4x: .      .      W0 L12 *   .   .   .   .   .    .  .   . .   .  .
            5x: *      *      .  .   *   *   *~  *   .   .    .  .   . .   .  .
            6x: .      .      .  .   .   .   *~  *~  .   .    .  .   . .   .  .
            7x: W1     *      W1 *   .   .   .   .   .   .    .  .   . .   .  .
            8x: .      .      .  .   .   .   .   .   .   .    .  .   . .   .  .
            9x: .      .      .  .   .   .   .   .   .   .    .  .   . .   .  .
            Ax: .      .      .  .   .   .   .   .   .   .    .  .   . .   .  .
            Bx: .      .      .  .   .   .   .   .   .   .    .  .   . .   .  .
            Cx: .      .      .  .   .   .   .   .   .   .    .  .   . .   W1 W1
            Dx: .      .      .  .   .   .   .   .   .   .    .  .   . .   .  .
            Ex: .      .      .  .   .   .   .   .   .   .    .  .   . .   .  .
            Fx: .      .      .  .   .   .   .   .   .   .    .  .   . .   .  .

            evex 0F3A F3
                0  1 2  3 4 5 6 7 8 9 A B C D E F
            0x: .  . .  . . . . . . . . . . . . .
            1x: .  . .  . . . . . . . . . . . . .
            2x: .  . .  . . . . . . . . . . . . .
            3x: .  . .  . . . . . . . . . . . . .
            4x: .  . W0 . . . . . . . . . . . . .
            5x: .  . .  . . . . . . . . . . . . .
            6x: .  . .  . . . . . . . . . . . . .
            7x: W1 . W1 . . . . . . . . . . . . .
            8x: .  . .  . . . . . . . . . . . . .
            9x: .  . .  . . . . . . . . . . . . .
            Ax: .  . .  . . . . . . . . . . . . .
            Bx: .  . .  . . . . . . . . . . . . .
            Cx: .  . *  . . . . . . . . . . . . .
            Dx: .  . .  . . . . . . . . . . . . .
            Ex: .  . .  . . . . . . . . . . . . .
            Fx: .  . .  . . . . . . . . . . . . .

            evex 0F3A F2
                0  1 2  3 4 5 6 7 8 9 A B C D E F
            0x: .  . .  . . . . . . . . . . . . .
            1x: .  . .  . . . . . . . . . . . . .
            2x: .  . .  . . . . . . . . . . . . .
            3x: .  . .  . . . . . . . . . . . . .
            4x: .  . W0 . . . . . . . . . . . . .
            5x: .  . .  . . . . . . . . . . . . .
            6x: .  . .  . . . . . . . . . . . . .
            7x: W1 . W1 . . . . . . . . . . . . .
            8x: .  . .  . . . . . . . . . . . . .
            9x: .  . .  . . . . . . . . . . . . .
            Ax: .  . .  . . . . . . . . . . . . .
            Bx: .  . .  . . . . . . . . . . . . .
            Cx: .  . .  . . . . . . . . . . . . .
            Dx: .  . .  . . . . . . . . . . . . .
            Ex: .  . .  . . . . . . . . . . . . .
            Fx: .  . .  . . . . . . . . . . . . .

            evex map5 np
                0 1  2 3 4 5 6 7 8  9  A  B  C  D  E  F
            0x: . .  . . . . . . .  .  .  .  .  .  .  .
            1x: . .  . . . . . . .  .  .  .  .  *  .  .
            2x: . .  . . . . . . .  .  .  .  .  .  *~ *~
            3x: . .  . . . . . . .  .  .  .  .  .  .  .
            4x: . .  . . . . . . .  .  .  .  .  .  .  .
            5x: . *~ . . . . . . *  *  *~ *~ *  *  *  *
            6x: . .  . . . . . . .  .  .  .  .  .  .  .
            7x: . .  . . . . . . *~ *~ .  .  *~ *~ .  .
            8x: . .  . . . . . . .  .  .  .  .  .  .  .
            9x: . .  . . . . . . .  .  .  .  .  .  .  .
            Ax: . .  . . . . . . .  .  .  .  .  .  .  .
            Bx: . .  . . . . . . .  .  .  .  .  .  .  .
            Cx: . .  . . . . . . .  .  .  .  .  .  .  .
            Dx: . .  . . . . . . .  .  .  .  .  .  .  .
            Ex: . .  . . . . . . .  .  .  .  .  .  .  .
            Fx: . .  . . . . . . .  .  .  .  .  .  .  .

            evex map5 66
                0 1 2 3 4 5 6 7 8  9  A  B  C  D  E  F
            0x: . . . . . . . . .  .  .  .  .  .  .  .
            1x: . . . . . . . . .  .  .  .  .  *~ .  .
            2x: . . . . . . . . .  .  .  .  .  .  .  .
            3x: . . . . . . . . .  .  .  .  .  .  .  .
            4x: . . . . . . . . .  .  .  .  .  .  .  .
            5x: . . . . . . . . .  .  *~ *~ .  .  .  .
            6x: . . . . . . . . .  .  .  .  .  .  *~ .
            7x: . . . . . . . . *~ *~ *~ *~ *~ *~ *~ .
            8x: . . . . . . . . .  .  .  .  .  .  .  .
            9x: . . . . . . . . .  .  .  .  .  .  .  .
            Ax: . . . . . . . . .  .  .  .  .  .  .  .
            Bx: . . . . . . . . .  .  .  .  .  .  .  .
            Cx: . . . . . . . . .  .  .  .  .  .  .  .
            Dx: . . . . . . . . .  .  .  .  .  .  .  .
            Ex: . . . . . . . . .  .  .  .  .  .  .  .
            Fx: . . . . . . . . .  .  .  .  .  .  .  .

            evex map5 F3
                0    1    2 3 4 5 6 7 8  9  A B  C  D  E F
            0x: .    .    . . . . . . .  .  . .  .  .  . .
            1x: r|m~ r|m~ . . . . . . .  .  . .  .  .  . .
            2x: .    .    . . . . . . .  .  * .  *~ *~ . .
            3x: .    .    . . . . . . .  .  . .  .  .  . .
            4x: .    .    . . . . . . .  .  . .  .  .  . .
            5x: .    *    . . . . . . *  *  * *~ *  *  * *
            6x: .    .    . . . . . . .  .  . .  .  .  . .
            7x: .    .    . . . . . . *~ *~ . *  .  *~ . .
            8x: .    .    . . . . . . .  .  . .  .  .  . .
            9x: .    .    . . . . . . .  .  . .  .  .  . .
            Ax: .    .    . . . . . . .  .  . .  .  .  . .
            Bx: .    .    . . . . . . .  .  . .  .  .  . .
            Cx: .    .    . . . . . . .  .  . .  .  .  . .
            Dx: .    .    . . . . . . .  .  . .  .  .  . .
            Ex: .    .    . . . . . . .  .  . .  .  .  . .
            Fx: .    .    . . . . . . .  .  . .  .  .  . .

            evex map5 F2
                0 1 2 3 4 5 6 7 8 9 A  B C D  E F
            0x: . . . . . . . . . . .  . . .  . .
            1x: . . . . . . . . . . .  . . .  . .
            2x: . . . . . . . . . . .  . . .  . .
            3x: . . . . . . . . . . .  . . .  . .
            4x: . . . . . . . . . . .  . . .  . .
            5x: . . . . . . . . . . *  . . .  . .
            6x: . . . . . . . . . . .  . . .  . .
            7x: . . . . . . . . . . *~ . . *~ . .
            8x: . . . . . . . . . . .  . . .  . .
            9x: . . . . . . . . . . .  . . .  . .
            Ax: . . . . . . . . . . .  . . .  . .
            Bx: . . . . . . . . . . .  . . .  . .
            Cx: . . . . . . . . . . .  . . .  . .
            Dx: . . . . . . . . . . .  . . .  . .
            Ex: . . . . . . . . . . .  . . .  . .
            Fx: . . . . . . . . . . .  . . .  . .

            evex map6 np
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: . . . . . . . . . . . . . . . .
            1x: . . . * . . . . . . . . . . . .
            2x: . . . . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: . . . . . . . . . . . . . . . .
            5x: . . . . . . . . . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . . . . .
            Dx: . . . . . . . . . . . . . . . .
            Ex: . . . . . . . . . . . . . . . .
            Fx: . . . . . . . . . . . . . . . .

            evex map6 66
                0 1 2  3  4 5 6 7 8 9 A B C  D E  F
            0x: . . .  .  . . . . . . . . .  . .  .
            1x: . . .  *~ . . . . . . . . .  . .  .
            2x: . . .  .  . . . . . . . . *  * .  .
            3x: . . .  .  . . . . . . . . .  . .  .
            4x: . . *~ *  . . . . . . . . *~ * *~ *
            5x: . . .  .  . . . . . . . . .  . .  .
            6x: . . .  .  . . . . . . . . .  . .  .
            7x: . . .  .  . . . . . . . . .  . .  .
            8x: . . .  .  . . . . . . . . .  . .  .
            9x: . . .  .  . . * * * * * * *  * *  *
            Ax: . . .  .  . . * * * * * * *  * *  *
            Bx: . . .  .  . . * * * * * * *  * *  *
            Cx: . . .  .  . . . . . . . . .  . .  .
            Dx: . . .  .  . . . . . . . . .  . .  .
            Ex: . . .  .  . . . . . . . . .  . .  .
            Fx: . . .  .  . . . . . . . . .  . .  .

            evex map6 F3 F2
                0 1 2 3 4 5 6 7 8 9 A B C D E F
            0x: . . . . . . . . . . . . . . . .
            1x: . . . . . . . . . . . . . . . .
            2x: . . . . . . . . . . . . . . . .
            3x: . . . . . . . . . . . . . . . .
            4x: . . . . . . . . . . . . . . . .
            5x: . . . . . . * * . . . . . . . .
            6x: . . . . . . . . . . . . . . . .
            7x: . . . . . . . . . . . . . . . .
            8x: . . . . . . . . . . . . . . . .
            9x: . . . . . . . . . . . . . . . .
            Ax: . . . . . . . . . . . . . . . .
            Bx: . . . . . . . . . . . . . . . .
            Cx: . . . . . . . . . . . . . . . .
            Dx: . . . . . . * * . . . . . . . .
            Ex: . . . . . . . . . . . . . . . .
            Fx: . . . . . . . . . . . . . . . .

            limits evex
            0F   np 12 W* r N
            0F   np 16 W* r N
            0F   np C2 W0 * RP
            0F   66 64 W* * RP
            0F   66 65 W* * RP
            0F   66 66 W0 * RP
            0F   66 6E W* r N
            0F   66 74 W* * RP
            0F   66 75 W* * RP
            0F   66 76 W0 * RP
            0F   66 7E W* r N
            0F   66 C2 W1 * RP
            0F   66 C4 W* r N
            0F   66 C5 W* r PN
            0F   66 D6 W1 r N
            0F   F3 2C W* * P
            0F   F3 2D W* * P
            0F   F3 78 W* * P
            0F   F3 79 W* * P
            0F   F3 7E W1 r N
            0F   F3 C2 W* * RP
            0F   F2 2C W* * P
            0F   F2 2D W* * P
            0F   F2 78 W* * P
            0F   F2 79 W* * P
            0F   F2 C2 W* * RP
            0F38 66 26 W* * RP
            0F38 66 27 W* * RP
            0F38 66 29 W1 * RP
            0F38 66 37 W1 * RP
            0F38 66 8F W* * RP
            0F38 F3 26 W* * RP
            0F38 F3 27 W* * RP
            0F38 F3 28 W* r B
            0F38 F3 29 W* * RP
            0F38 F3 2A W1 r B
            0F38 F3 38 W* r B
            0F38 F3 39 W* * RP
            0F38 F3 3A W0 r B
            0F38 F2 68 W* * RP
            0F3A np 66 W* * RP
            0F3A np 67 W* * RP
            0F3A np C2 W* * RP
            0F3A 66 14 W* r N
            0F3A 66 15 W* r N
            0F3A 66 16 W* r N
            0F3A 66 17 W* r N
            0F3A 66 1E W* * RP
            0F3A 66 1F W* * RP
            0F3A 66 20 W* r N
            0F3A 66 21 W0 r N
            0F3A 66 22 W* r N
            0F3A 66 3E W* * RP
            0F3A 66 3F W* * RP
            0F3A 66 66 W* * RP
            0F3A 66 67 W* * RP
            0F3A F3 C2 W* * RP
            map5 F3 2C W* * P
            map5 F3 2D W* * P
            map5 F3 78 W* * P
            map5 F3 79 W* * P
            """;
}
