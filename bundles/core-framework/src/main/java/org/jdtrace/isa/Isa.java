package org.jdtrace.isa;

/**
 * Everything instruction-set specific that a tracer needs, as one OSGi service per ISA
 * (service property {@code isa=amd64}). The pid provider uses nothing ISA-specific except
 * through this interface. Every method is pure with respect to the traced process: memory and
 * registers come in through {@link Memory} and {@link RegisterFile}. Bad input never throws
 * anything but {@link IsaException}.
 */
public interface Isa {

    /** {@code amd64}. */
    String name();

    /** Decodes the instruction at {@code code[offset]}, which lives at address {@code pc}. */
    Instruction decode(byte[] code, int offset, long pc) throws IsaException;

    /**
     * Analyses the function whose bytes are {@code code[0..code.length)} at address {@code start}:
     * every instruction, the return sites, and whether it can be instrumented.
     */
    FunctionAnalysis analyze(byte[] code, long start) throws IsaException;

    /** The breakpoint instruction's bytes ({@code 0xCC}). */
    byte[] breakpoint();

    /**
     * The bytes of the instruction that enters the kernel for a system call (amd64: {@code syscall},
     * 0f 05), which a tracer places in a stopped process to run a call there (Abi#setSyscall).
     *
     * @since 1.5
     */
    default byte[] syscallInstruction() {
        throw new UnsupportedOperationException("no system call instruction for " + name());
    }

    /** The pc a thread reports after it trapped on a breakpoint planted at {@code pc}. */
    long pcAfterBreakpoint(long pc);

    /** How a displaced instruction is made to take effect when its tracepoint is hit. */
    Displacement displacement(Instruction insn);

    /**
     * Emulates {@code insn} (one of the kinds {@link Displacement#EMULATE} names) on
     * {@code regs} and {@code mem}: afterwards the registers and memory are exactly as if the CPU
     * had executed it, pc included.
     */
    void emulate(Instruction insn, RegisterFile regs, Memory mem) throws IsaException;

    /**
     * The bytes to place in a scratch slot at {@code slot} that execute {@code insn} (originally
     * at {@code insn.pc()}) and then continue at {@code insn.pc() + insn.length()}.
     * Rip-relative operands are re-targeted.
     */
    byte[] outOfLine(Instruction insn, long slot) throws IsaException;

    /** Largest number of bytes {@link #outOfLine} ever returns: the slot size to reserve. */
    int outOfLineMaxSize();

    /**
     * The longest instruction there is, in bytes: what {@link #decode} may need at an address to
     * decode the instruction there (the size of a buffer of code read for one instruction).
     *
     * @since 1.6
     */
    int maxInstructionLength();

    /** The calling convention and register names of this ISA. */
    Abi abi();

    /** A fresh register file in this ISA's ptrace (PTRACE_GETREGS) layout. */
    RegisterFile newRegisterFile();

    /** How a displaced instruction is handled. */
    enum Displacement { EMULATE, OUT_OF_LINE, REFUSE }
}
