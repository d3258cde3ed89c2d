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
}
