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
 * uregs[] numbering is DTrace on Linux's (dtrace-utils' x86_64 regs.d): the index of the
 * register in the kernel's struct pt_regs, which is also ptrace's user_regs_struct order: R_R15 0,
 * R_R14 1, R_R13 2, R_R12 3, R_RBP 4, R_RBX 5, R_R11 6, R_R10 7, R_R9 8, R_R8 9, R_RAX 10, R_RCX 11,
 * R_RDX 12, R_RSI 13, R_RDI 14, R_ERR 15 (orig_rax, where the kernel keeps an exception's error
 * code), R_RIP 16, R_CS 17, R_RFL 18, R_RSP 19, R_SS 20; then R_DS 21, R_ES 22, R_FS 23, R_GS 24,
 * R_TRAPNO 25 (Linux does not report trapno to ptrace: it reads 0). The i386 names are the same
 * registers (R_EAX = R_RAX ... R_EIP = R_RIP, R_EFL = R_RFL, R_ESP = R_RSP), and R_PC, R_FP, R_SP,
 * R_PS, R_R0, R_R1 alias R_EIP, R_EBP, R_ESP, R_EFL, R_EAX, R_EBX. Numbers past 25 are out of
 * bounds (the D compiler refuses a constant one past the largest number uregNames() gives).
 * callingThreadUreg reads the same numbering from the calling thread's own registers
 * (CallingThreadRegisters: getcontext(3)), for probes that fire in the thread that runs their clauses.
 *
 * System calls (the syscall provider): the number is orig_rax at a syscall stop, the arguments
 * rdi rsi rdx r10 r8 r9, the result rax (a negative errno on failure); names from Amd64Syscalls.
 */
final class Amd64Abi implements Abi {

    private static final int[] ARG_REGS = {7, 6, 2, 1, 8, 9};

    /** uregs[] number to ptrace user_regs_struct slot; -1 reads 0 (trapno). 0..20 are the same slot. */
    private static final int[] SLOT_OF_UREG = {
        Amd64Registers.R15, Amd64Registers.R14, Amd64Registers.R13, Amd64Registers.R12, Amd64Registers.RBP,
        Amd64Registers.RBX, Amd64Registers.R11, Amd64Registers.R10, Amd64Registers.R9, Amd64Registers.R8,
        Amd64Registers.RAX, Amd64Registers.RCX, Amd64Registers.RDX, Amd64Registers.RSI, Amd64Registers.RDI,
        Amd64Registers.ORIG_RAX, Amd64Registers.RIP, Amd64Registers.CS, Amd64Registers.EFLAGS, Amd64Registers.RSP,
        Amd64Registers.SS, Amd64Registers.DS, Amd64Registers.ES, Amd64Registers.FS, Amd64Registers.GS,
        -1 /* trapno */,
    };

    private static final Map<String, Integer> NAMES;

    private final CallingThreadRegisters callingThread = new CallingThreadRegisters();

    static {
        Map<String, Integer> m = new LinkedHashMap<>();
        String[] names = {"R_R15", "R_R14", "R_R13", "R_R12", "R_RBP", "R_RBX", "R_R11", "R_R10", "R_R9", "R_R8",
            "R_RAX", "R_RCX", "R_RDX", "R_RSI", "R_RDI", "R_ERR", "R_RIP", "R_CS", "R_RFL", "R_RSP", "R_SS",
            "R_DS", "R_ES", "R_FS", "R_GS", "R_TRAPNO"};
        for (int i = 0; i < names.length; i++) {
            m.put(names[i], i);
        }
        String[][] aliases = {{"R_EAX", "R_RAX"}, {"R_EBX", "R_RBX"}, {"R_ECX", "R_RCX"}, {"R_EDX", "R_RDX"},
            {"R_ESI", "R_RSI"}, {"R_EDI", "R_RDI"}, {"R_EBP", "R_RBP"}, {"R_EIP", "R_RIP"}, {"R_EFL", "R_RFL"},
            {"R_ESP", "R_RSP"}, {"R_PC", "R_RIP"}, {"R_FP", "R_RBP"}, {"R_SP", "R_RSP"}, {"R_PS", "R_RFL"},
            {"R_R0", "R_RAX"}, {"R_R1", "R_RBX"}};
        for (String[] a : aliases) {
            m.put(a[0], m.get(a[1]));
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
        if (number < 0 || number >= SLOT_OF_UREG.length) {
            throw new IsaException("no register " + number + " in uregs[]", regs.pc());
        }
        int slot = SLOT_OF_UREG[number];
        return slot < 0 ? 0 : regs.raw()[slot];
    }

    /** The calling thread's registers (getcontext); see CallingThreadRegisters. */
    @Override
    public long callingThreadUreg(int number) throws IsaException {
        return ureg(callingThread.read(), number);
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
    public java.util.Set<Integer> syscallStringArguments(String name) {
        return Amd64Syscalls.STRING_ARGUMENTS.getOrDefault(name, java.util.Set.of());
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

    @Override
    public void setSyscall(RegisterFile regs, long number, long... args) {
        if (args.length > SYSCALL_ARG_SLOTS.length) {
            throw new IllegalArgumentException("a system call takes at most " + SYSCALL_ARG_SLOTS.length + " arguments");
        }
        long[] r = regs.raw();
        r[Amd64Registers.RAX] = number;
        r[Amd64Registers.ORIG_RAX] = -1;
        for (int i = 0; i < args.length; i++) r[SYSCALL_ARG_SLOTS[i]] = args[i];
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
        return fromPerfRegs(regs, count, null);
    }

    @Override
    public RegisterFile fromPerfRegs(long[] regs, int count, RegisterFile reuse) {
        RegisterFile r = reuse != null ? reuse : new Amd64Registers();
        long[] raw = r.raw();
        java.util.Arrays.fill(raw, 0);
        for (int i = 0; i < Math.min(count, PERF_SLOT.length); i++) raw[PERF_SLOT[i]] = regs[i];
        return r;
    }

    /*
     * DWARF numbering (System V amd64 psABI, figure 3.36): 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi,
     * 5 rdi, 6 rbp, 7 rsp, 8..15 r8..r15, 16 the return address (the pc's column). A
     * frame-pointer frame is [rbp] the caller's rbp, [rbp + 8] the return address, rbp + 16 the
     * caller's rsp.
     */
    private static final org.jdtrace.unwind.RegisterNumbering DWARF = new org.jdtrace.unwind.RegisterNumbering(17, 7, 6, 16, 16);
    private static final int[] SLOT_OF_DWARF = {
        Amd64Registers.RAX, Amd64Registers.RDX, Amd64Registers.RCX, Amd64Registers.RBX,
        Amd64Registers.RSI, Amd64Registers.RDI, Amd64Registers.RBP, Amd64Registers.RSP,
        Amd64Registers.R8, Amd64Registers.R9, Amd64Registers.R10, Amd64Registers.R11,
        Amd64Registers.R12, Amd64Registers.R13, Amd64Registers.R14, Amd64Registers.R15,
        Amd64Registers.RIP};

    @Override
    public org.jdtrace.unwind.RegisterNumbering dwarfNumbering() {
        return DWARF;
    }

    @Override
    public long dwarfRegisters(RegisterFile regs, long[] out) {
        long[] raw = regs.raw();
        for (int i = 0; i < SLOT_OF_DWARF.length; i++) out[i] = raw[SLOT_OF_DWARF[i]];
        return (1L << SLOT_OF_DWARF.length) - 1;
    }

    /**
     * struct pt_regs (arch/x86/include/asm/ptrace.h): r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax cx
     * dx si di orig_ax ip cs flags sp ss, the first 21 words of user_regs_struct in its order.
     */
    private static final int PT_REGS_WORDS = Amd64Registers.SS + 1, PT_REGS_SP = Amd64Registers.RSP;

    @Override
    public int kernelRegsWords() {
        return PT_REGS_WORDS;
    }

    @Override
    public int kernelRegsSpWord() {
        return PT_REGS_SP;
    }

    @Override
    public int kernelRegsArgumentWord(int index) {
        return index >= 0 && index < ARG_REGS.length ? Amd64Registers.slotOf(ARG_REGS[index]) : -1;
    }

    /** As SdtArgs.value reads a register operand: zero-extended from the register's width, then extended from the size. */
    @Override
    public int kernelRegsSdtArgument(SdtArgument arg) {
        if (!(arg.operand() instanceof SdtOperand.Reg r) || r.high()) return -1;
        int size = Math.abs(arg.size());
        int bytes = Math.min(size, r.width());
        boolean signed = arg.size() < 0 && size <= r.width();
        return Amd64Registers.slotOf(r.hw()) | bytes << 8 | (signed ? 1 << 16 : 0);
    }

    @Override
    public int kernelRegsReturnWord() {
        return Amd64Registers.RAX;
    }

    @Override
    public RegisterFile fromKernelRegs(long[] words, RegisterFile reuse) {
        RegisterFile r = reuse != null ? reuse : new Amd64Registers();
        long[] raw = r.raw();
        System.arraycopy(words, 0, raw, 0, PT_REGS_WORDS);
        java.util.Arrays.fill(raw, PT_REGS_WORDS, raw.length, 0);
        return r;
    }
}
