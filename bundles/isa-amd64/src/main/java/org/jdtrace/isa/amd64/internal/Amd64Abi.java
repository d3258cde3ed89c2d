package org.jdtrace.isa.amd64.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.isa.RegisterFile;
import org.jdtrace.isa.SdtArgument;

/**
 * The System V amd64 calling convention and DTrace's amd64 register names.
 *
 * Arguments 0-5 are in rdi rsi rdx rcx r8 r9; at a function's entry (before its first
 * instruction ran) [rsp] is the return address and argument 6+k is at rsp + 8 + 8k. Return values
 * are rax (and rdx for the second half).
 *
 * uregs[] numbering is illumos DTrace's (libdtrace regs.d, from sys/regset.h): 0-18 are the i386
 * names (R_GS 0 ... R_EAX 11, R_TRAPNO 12, R_ERR 13, R_EIP 14, R_CS 15, R_EFL 16, R_UESP 17, R_SS
 * 18), which on amd64 map to the 64-bit registers (R_EAX reads rax); from 19 on the number is
 * 19 + REG_x of the amd64 gregset (R_R15 19 ... R_RAX 33, R_RIP 36, R_RFL 38, R_RSP 39, and the
 * unnamed 34 trapno, 35 err, 37 cs, 40 ss, 41 fs, 42 gs, 43 es, 44 ds, 45 fs_base, 46 gs_base).
 * R_PC, R_SP, R_PS, R_R0, R_R1 are regs.d's aliases (R_EIP, R_UESP, R_EFL, R_EAX, R_EBX); R_FP
 * (= R_EBP) is a jdtrace addition. Linux does not report trapno and err to ptrace; they read 0.
 *
 * System calls (the syscall provider): the number is orig_rax at a syscall stop, the arguments
 * rdi rsi rdx r10 r8 r9, the result rax (a negative errno on failure); names from Amd64Syscalls.
 */
final class Amd64Abi implements Abi {

    private static final int[] ARG_REGS = {7, 6, 2, 1, 8, 9};

    /** REG_x (sys/regset.h amd64 order) to ptrace user_regs_struct slot; -1 reads 0. */
    private static final int[] SLOT_OF_REG = {
        Amd64Registers.R15, Amd64Registers.R14, Amd64Registers.R13, Amd64Registers.R12, Amd64Registers.R11,
        Amd64Registers.R10, Amd64Registers.R9, Amd64Registers.R8, Amd64Registers.RDI, Amd64Registers.RSI,
        Amd64Registers.RBP, Amd64Registers.RBX, Amd64Registers.RDX, Amd64Registers.RCX, Amd64Registers.RAX,
        -1 /* trapno */, -1 /* err */, Amd64Registers.RIP, Amd64Registers.CS, Amd64Registers.EFLAGS,
        Amd64Registers.RSP, Amd64Registers.SS, Amd64Registers.FS, Amd64Registers.GS, Amd64Registers.ES,
        Amd64Registers.DS, Amd64Registers.FS_BASE, Amd64Registers.GS_BASE,
    };
    private static final int REG_GS = 23, REG_FS = 22, REG_ES = 24, REG_DS = 25, REG_RDI = 8, REG_RSI = 9,
            REG_RBP = 10, REG_RSP = 20, REG_RBX = 11, REG_RDX = 12, REG_RCX = 13, REG_RAX = 14, REG_TRAPNO = 15,
            REG_ERR = 16, REG_RIP = 17, REG_CS = 18, REG_RFL = 19, REG_SS = 21;
    /** i386 register numbers 0..18 (GS..SS) to amd64 REG_x, as dtrace_getreg() maps them. */
    private static final int[] REGMAP = {REG_GS, REG_FS, REG_ES, REG_DS, REG_RDI, REG_RSI, REG_RBP, REG_RSP,
        REG_RBX, REG_RDX, REG_RCX, REG_RAX, REG_TRAPNO, REG_ERR, REG_RIP, REG_CS, REG_RFL, REG_RSP, REG_SS};
    private static final int SS = 18;

    private static final Map<String, Integer> NAMES;

    static {
        Map<String, Integer> m = new LinkedHashMap<>();
        String[] i386 = {"R_GS", "R_FS", "R_ES", "R_DS", "R_EDI", "R_ESI", "R_EBP", "R_ESP", "R_EBX", "R_EDX", "R_ECX",
            "R_EAX", "R_TRAPNO", "R_ERR", "R_EIP", "R_CS", "R_EFL", "R_UESP", "R_SS"};
        for (int i = 0; i < i386.length; i++) {
            m.put(i386[i], i);
        }
        m.put("R_PC", 14);
        m.put("R_SP", 17);
        m.put("R_PS", 16);
        m.put("R_R0", 11);
        m.put("R_R1", 8);
        m.put("R_FP", 6);
        String[] amd64 = {"R_R15", "R_R14", "R_R13", "R_R12", "R_R11", "R_R10", "R_R9", "R_R8", "R_RDI", "R_RSI",
            "R_RBP", "R_RBX", "R_RDX", "R_RCX", "R_RAX", null, null, "R_RIP", null, "R_RFL", "R_RSP"};
        for (int r = 0; r < amd64.length; r++) {
            if (amd64[r] != null) {
                m.put(amd64[r], SS + 1 + r);
            }
        }
        NAMES = Collections.unmodifiableMap(m);
    }

    @Override
    public long entryArgument(RegisterFile file, Memory mem, int index) throws IsaException {
        Amd64Registers regs = regs(file);
        if (index < 0) {
            throw new IsaException("argument " + index, regs.pc());
        }
        if (index < ARG_REGS.length) {
            return regs.gpr(ARG_REGS[index]);
        }
        return mem.readLong(regs.sp() + 8L * (index - ARG_REGS.length + 1));
    }

    @Override
    public long returnValue(RegisterFile regs, boolean second) {
        return regs.raw()[second ? Amd64Registers.RDX : Amd64Registers.RAX];
    }

    @Override
    public long returnAddressAtEntry(RegisterFile regs, Memory mem) throws IsaException {
        return mem.readLong(regs.sp());
    }

    @Override
    public int uregNumber(String name) {
        Integer n = name == null ? null : NAMES.get(name);
        return n == null ? -1 : n;
    }

    @Override
    public long ureg(RegisterFile file, int number) throws IsaException {
        Amd64Registers regs = regs(file);
        int reg;
        if (number >= 0 && number <= SS) {
            reg = REGMAP[number];
        } else if (number > SS && number - SS - 1 < SLOT_OF_REG.length) {
            reg = number - SS - 1;
        } else {
            throw new IsaException("no register " + number + " in uregs[]", regs.pc());
        }
        int slot = SLOT_OF_REG[reg];
        return slot < 0 ? 0 : regs.raw()[slot];
    }

    @Override
    public Map<String, Integer> uregNames() {
        return NAMES;
    }

    @Override
    public long[] stack(RegisterFile regs, Memory mem, int max) {
        try {
            return StackWalker.walk(regs(regs), mem, max);
        } catch (IsaException e) {
            return new long[0];
        }
    }

    @Override
    public SdtArgument parseSdtArgument(String spec) throws IsaException {
        return SdtArgs.parse(spec);
    }

    @Override
    public long sdtArgumentValue(SdtArgument arg, RegisterFile regs, Memory mem, ToLongFunction<String> symbols)
            throws IsaException {
        return SdtArgs.value(arg, regs(regs), mem, symbols);
    }

    private static Amd64Registers regs(RegisterFile file) throws IsaException {
        if (file == null || file.raw() == null || file.raw().length < Amd64Registers.SLOTS) {
            throw new IsaException("not an amd64 register file", 0);
        }
        return Amd64Registers.of(file);
    }

    /** The kernel's system call argument registers: rdi rsi rdx r10 r8 r9 (r10, not rcx). */
    private static final int[] SYSCALL_ARG_SLOTS = {Amd64Registers.RDI, Amd64Registers.RSI, Amd64Registers.RDX,
        Amd64Registers.R10, Amd64Registers.R8, Amd64Registers.R9};

    @Override
    public Map<Integer, String> syscallNames() {
        return Amd64Syscalls.NAMES;
    }

    @Override
    public long syscallNumber(RegisterFile regs) {
        return regs.raw()[Amd64Registers.ORIG_RAX];
    }

    @Override
    public long syscallArgument(RegisterFile regs, int index) throws IsaException {
        if (index < 0 || index >= SYSCALL_ARG_SLOTS.length) {
            throw new IsaException("system call argument " + index, regs.pc());
        }
        return regs.raw()[SYSCALL_ARG_SLOTS[index]];
    }

    @Override
    public long syscallReturn(RegisterFile regs) {
        return regs.raw()[Amd64Registers.RAX];
    }

    /*
     * perf_regs.h for x86-64: AX BX CX DX SI DI BP SP IP FLAGS CS SS (bits 0-11), DS ES FS GS (12-15,
     * refused by the kernel in 64-bit mode), R8..R15 (16-23). PERF_SLOT gives each sampled
     * register's user_regs_struct slot, in bit order.
     */
    private static final long PERF_MASK = 0xff0fffL;
    private static final int[] PERF_SLOT = {
        Amd64Registers.RAX, Amd64Registers.RBX, Amd64Registers.RCX, Amd64Registers.RDX,
        Amd64Registers.RSI, Amd64Registers.RDI, Amd64Registers.RBP, Amd64Registers.RSP,
        Amd64Registers.RIP, Amd64Registers.EFLAGS, Amd64Registers.CS, Amd64Registers.SS,
        Amd64Registers.R8, Amd64Registers.R9, Amd64Registers.R10, Amd64Registers.R11,
        Amd64Registers.R12, Amd64Registers.R13, Amd64Registers.R14, Amd64Registers.R15};

    @Override
    public long perfRegsUserMask() {
        return PERF_MASK;
    }

    @Override
    public RegisterFile fromPerfRegs(long[] regs, int count) {
        long[] raw = new long[Amd64Registers.SLOTS];
        for (int i = 0; i < Math.min(count, PERF_SLOT.length); i++) raw[PERF_SLOT[i]] = regs[i];
        return new Amd64Registers(raw);
    }
}
