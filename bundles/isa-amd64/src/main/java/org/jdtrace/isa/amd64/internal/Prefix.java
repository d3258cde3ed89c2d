package org.jdtrace.isa.amd64.internal;

/**
 * The bits of {@link org.jdtrace.isa.Instruction#prefixes()} on amd64: legacy prefixes, REX and
 * its bits, and which extended encoding (VEX, EVEX, XOP) introduced the opcode. For VEX/EVEX/XOP
 * the W/R/X/B bits are taken from the extended prefix (uninverted), so that users read operand
 * size and register extension the same way whatever the encoding.
 */
public final class Prefix {

    public static final int LOCK = 1;
    public static final int REPNE = 1 << 1;
    public static final int REP = 1 << 2;
    public static final int CS = 1 << 3;
    public static final int SS = 1 << 4;
    public static final int DS = 1 << 5;
    public static final int ES = 1 << 6;
    public static final int FS = 1 << 7;
    public static final int GS = 1 << 8;
    /** 0x66: operand size 16 (or a mandatory SSE prefix). */
    public static final int OPSIZE = 1 << 9;
    /** 0x67: 32-bit addressing. */
    public static final int ADDRSIZE = 1 << 10;
    public static final int REX = 1 << 11;
    public static final int REX_W = 1 << 12;
    public static final int REX_R = 1 << 13;
    public static final int REX_X = 1 << 14;
    public static final int REX_B = 1 << 15;
    public static final int VEX = 1 << 16;
    public static final int EVEX = 1 << 17;
    public static final int XOP = 1 << 18;

    private Prefix() {}
}
