package org.jdtrace.isa.amd64.internal;

import java.util.Arrays;

import org.jdtrace.isa.RegisterFile;

/**
 * An amd64 thread's general registers in Linux's {@code struct user_regs_struct} order, the array
 * PTRACE_GETREGS fills. The emulator and the ABI address general registers by their hardware
 * number (0 rax, 1 rcx, 2 rdx, 3 rbx, 4 rsp, 5 rbp, 6 rsi, 7 rdi, 8..15 r8..r15), which
 * {@link #gpr(int)} maps onto the ptrace slots.
 */
public final class Amd64Registers implements RegisterFile {

    public static final int R15 = 0, R14 = 1, R13 = 2, R12 = 3, RBP = 4, RBX = 5, R11 = 6, R10 = 7,
            R9 = 8, R8 = 9, RAX = 10, RCX = 11, RDX = 12, RSI = 13, RDI = 14, ORIG_RAX = 15, RIP = 16,
            CS = 17, EFLAGS = 18, RSP = 19, SS = 20, FS_BASE = 21, GS_BASE = 22, DS = 23, ES = 24,
            FS = 25, GS = 26;

    /** Number of slots in user_regs_struct. */
    public static final int SLOTS = 27;

    /** ptrace slot of each hardware register number. */
    private static final int[] SLOT_OF_GPR = {RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13,
        R14, R15};

    /** Hardware numbers of the general registers. */
    public static final int HW_RAX = 0, HW_RCX = 1, HW_RDX = 2, HW_RBX = 3, HW_RSP = 4, HW_RBP = 5, HW_RSI = 6,
            HW_RDI = 7;

    private final long[] raw;

    public Amd64Registers() {
        this(new long[SLOTS]);
    }

    /** Wraps (does not copy) a user_regs_struct array of at least {@link #SLOTS} slots. */
    public Amd64Registers(long[] raw) {
        if (raw.length < SLOTS) {
            throw new IllegalArgumentException("user_regs_struct has " + SLOTS + " slots, got " + raw.length);
        }
        this.raw = raw;
    }

    /** The ptrace slot of hardware register {@code hw} (0..15). */
    public static int slotOf(int hw) {
        return SLOT_OF_GPR[hw];
    }

    public long gpr(int hw) {
        return raw[SLOT_OF_GPR[hw]];
    }

    public void setGpr(int hw, long value) {
        raw[SLOT_OF_GPR[hw]] = value;
    }

    public long flags() {
        return raw[EFLAGS];
    }

    @Override
    public long[] raw() {
        return raw;
    }

    @Override
    public long pc() {
        return raw[RIP];
    }

    @Override
    public void setPc(long pc) {
        raw[RIP] = pc;
    }

    @Override
    public long sp() {
        return raw[RSP];
    }

    @Override
    public void setSp(long sp) {
        raw[RSP] = sp;
    }

    public Amd64Registers copy() {
        return new Amd64Registers(Arrays.copyOf(raw, raw.length));
    }

    /** Registers of any RegisterFile viewed as amd64 registers (wrapping its raw array). */
    static Amd64Registers of(RegisterFile regs) {
        return regs instanceof Amd64Registers a ? a : new Amd64Registers(regs.raw());
    }
}
