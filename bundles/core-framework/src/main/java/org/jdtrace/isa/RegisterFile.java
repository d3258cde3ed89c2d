package org.jdtrace.isa;

/**
 * A thread's general registers in the ISA's ptrace layout (for amd64, {@code struct
 * user_regs_struct}: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs
 * eflags rsp ss fs_base gs_base ds es fs gs). {@link #raw()} is the array PTRACE_GETREGS fills.
 */
public interface RegisterFile {

    long[] raw();

    long pc();

    void setPc(long pc);

    long sp();

    void setSp(long sp);
}
