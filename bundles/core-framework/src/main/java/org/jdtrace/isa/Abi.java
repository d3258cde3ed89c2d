package org.jdtrace.isa;

/**
 * The calling convention, DTrace's register names, stack walking and SystemTap SDT argument specs
 * of an ISA.
 */
public interface Abi {

    /** Argument {@code index} at a function's entry (integer class). */
    long entryArgument(RegisterFile regs, Memory mem, int index) throws IsaException;

    /** The return value at a return site (rax); {@code second} is rdx. */
    long returnValue(RegisterFile regs, boolean second);

    /** The return address at a function's entry (ucaller). */
    long returnAddressAtEntry(RegisterFile regs, Memory mem) throws IsaException;

    /** DTrace's register number for a name ({@code R_RAX}, {@code R_PC}...), or -1. */
    int uregNumber(String name);

    /** uregs[n] by DTrace register number. */
    long ureg(RegisterFile regs, int number) throws IsaException;

    /**
     * uregs[n] of the calling thread itself, read now: the registers of a probe that fires in the
     * thread that runs its clauses (ProbeContext.firesInCallingThread), as DTrace on Linux's
     * BEGIN, a uprobe in dtrace's own process, gives dtrace's. A register the read cannot see
     * reads 0. Allocates at most once a thread.
     */
    default long callingThreadUreg(int number) throws IsaException {
        throw new IsaException("the calling thread's registers cannot be read", 0);
    }

    /** Every DTrace register name this ISA has, indexed by number (for the D compiler's inlines). */
    java.util.Map<String, Integer> uregNames();

    /**
     * Frame-pointer stack walk: program counters, innermost first, at most {@code max}. Bounded
     * and stops quietly at the first bad frame.
     */
    long[] stack(RegisterFile regs, Memory mem, int max);

    /** Parses one SystemTap SDT argument ({@code -4@%edi}, {@code 8@-8(%rbp)}, {@code 8@sym(%rip)}). */
    SdtArgument parseSdtArgument(String spec) throws IsaException;

    /** An SDT argument's value at the probe site; {@code symbols} resolves names in the spec. */
    long sdtArgumentValue(SdtArgument arg, RegisterFile regs, Memory mem,
            java.util.function.ToLongFunction<String> symbols) throws IsaException;

    /**
     * The operating system's system calls by number, named as the kernel names them
     * ({@code __NR_openat} is {@code openat}): the syscall provider's probe table. Empty when
     * the ISA does not know them.
     *
     * @since 1.1
     */
    default java.util.Map<Integer, String> syscallNames() {
        return java.util.Map.of();
    }

    /**
     * The arguments of system call {@code name} (a {@link #syscallNames()} name) that are
     * NUL-terminated strings the kernel reads from the caller: a path, a file system or key name
     * (openat's 1, rename's 0 and 1). A buffer with a length is none (read's and write's 1), nor is
     * an array of strings (execve's argv). Empty for a call with none, or one the ISA does not know.
     *
     * @since 1.6
     */
    default java.util.Set<Integer> syscallStringArguments(String name) {
        return java.util.Set.of();
    }

    /**
     * At a system call stop (entry or exit): the call's number (amd64: orig_rax).
     *
     * @since 1.1
     */
    default long syscallNumber(RegisterFile regs) {
        throw new UnsupportedOperationException("no system call convention for this ISA");
    }

    /**
     * At a system call's entry: its argument {@code index}, 0..5 (amd64: rdi rsi rdx r10 r8 r9).
     *
     * @since 1.1
     */
    default long syscallArgument(RegisterFile regs, int index) throws IsaException {
        throw new IsaException("no system call convention for this ISA", regs.pc());
    }

    /**
     * At a system call's exit: the value the kernel returns (a negative errno on failure; amd64: rax).
     *
     * @since 1.1
     */
    default long syscallReturn(RegisterFile regs) {
        throw new UnsupportedOperationException("no system call convention for this ISA");
    }

    /**
     * The number of the system call the kernel names {@code name} ({@code mmap}), or -1 when
     * {@link #syscallNames()} has none of that name.
     *
     * @since 1.5
     */
    default long syscallNumberOf(String name) {
        for (java.util.Map.Entry<Integer, String> e : syscallNames().entrySet()) {
            if (e.getValue().equals(name)) return e.getKey();
        }
        return -1;
    }

    /**
     * Sets {@code regs} up so that the ISA's system call instruction ({@link Isa#syscallInstruction()})
     * makes call {@code number} with {@code args} (at most 6; amd64: rax, then rdi rsi rdx r10 r8
     * r9), and so that a thread stopped inside an interrupted call does not have the kernel's
     * restart logic applied to these registers (amd64: orig_rax = -1). The result is read with
     * {@link #syscallReturn} once the call has run.
     *
     * @since 1.5
     */
    default void setSyscall(RegisterFile regs, long number, long... args) {
        throw new UnsupportedOperationException("no system call convention for this ISA");
    }

    /**
     * The perf_event_attr.sample_regs_user mask (perf_regs.h) under which a kernel sample carries
     * what {@link #fromPerfRegs} needs; 0 when this ISA has none.
     *
     * @since 1.2
     */
    default long perfRegsUserMask() {
        return 0;
    }

    /**
     * The register file of a kernel sample's user registers, {@code regs[0..count)} in the bit
     * order of {@link #perfRegsUserMask()}; the registers perf does not sample read 0.
     *
     * @since 1.2
     */
    default RegisterFile fromPerfRegs(long[] regs, int count) {
        throw new UnsupportedOperationException("no perf register convention for this ISA");
    }

    /**
     * {@link #fromPerfRegs(long[], int)} written into {@code reuse} when it is not null (no
     * allocation: a profile converts every sample's registers) and returned.
     *
     * @since 1.7
     */
    default RegisterFile fromPerfRegs(long[] regs, int count, RegisterFile reuse) {
        return fromPerfRegs(regs, count);
    }

    /**
     * The DWARF register numbering of this ISA for the CFI unwinder (org.jdtrace.unwind), or null
     * when this ISA has none (ustack() then walks frame pointers only).
     *
     * @since 1.4
     */
    default org.jdtrace.unwind.RegisterNumbering dwarfNumbering() {
        return null;
    }

    /**
     * Copies {@code regs} into {@code out} in DWARF numbering ({@link #dwarfNumbering()}'s count
     * entries); answers the mask of the registers known (bit n for DWARF register n).
     *
     * @since 1.4
     */
    default long dwarfRegisters(RegisterFile regs, long[] out) {
        return 0;
    }

    /**
     * The words of the kernel's register frame at a uprobe hit (amd64: struct pt_regs) that a
     * BPF capture copies from its context for {@link #fromKernelRegs}; 0 when this ISA has none.
     *
     * @since 1.4
     */
    default int kernelRegsWords() {
        return 0;
    }

    /** The word of that frame holding the user stack pointer (-1 when none). @since 1.4 */
    default int kernelRegsSpWord() {
        return -1;
    }

    /**
     * The word of that frame holding entry argument {@code index} of the calling convention (a
     * BPF program reads it there at a function's entry), -1 when the argument is not in a
     * register (on the stack) or the ISA has no such frame.
     *
     * @since 1.5
     */
    default int kernelRegsArgumentWord(int index) {
        return -1;
    }

    /**
     * Where SystemTap SDT argument {@code arg} lies in that frame when it is a register operand:
     * {@code word | bytes << 8 | (signed ? 1 << 16 : 0)} (its value is the word's low
     * {@code bytes} bytes, sign- or zero-extended), -1 when it is not in a register (memory, a
     * constant, ah/bh/ch/dh) or the ISA has no such frame.
     *
     * @since 1.5
     */
    default int kernelRegsSdtArgument(SdtArgument arg) {
        return -1;
    }

    /** The word of that frame holding a function's (first) return value, -1 when none. @since 1.5 */
    default int kernelRegsReturnWord() {
        return -1;
    }

    /**
     * The register file of a captured kernel frame ({@code words[0..kernelRegsWords())}),
     * written into {@code reuse} when it is not null (no allocation) and returned; registers the
     * frame lacks read 0.
     *
     * @since 1.4
     */
    default RegisterFile fromKernelRegs(long[] words, RegisterFile reuse) {
        throw new UnsupportedOperationException("no kernel register frame for this ISA");
    }
}
