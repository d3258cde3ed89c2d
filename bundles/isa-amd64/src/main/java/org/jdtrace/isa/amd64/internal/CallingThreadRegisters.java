/*
 * The calling thread's own registers on x86-64 Linux, for the uregs[] of a probe that fires in
 * the thread that runs its clauses (Abi.callingThreadUreg): glibc's getcontext(3), called through
 * FFM, saves them into a ucontext_t whose uc_mcontext.gregs this copies into user_regs_struct
 * order, so Amd64Abi's uregs[] numbering reads them as it reads a stopped process's. What DTrace
 * on Linux gives at BEGIN, a uprobe in dtrace's process: that thread's registers at the firing.
 *
 * What getcontext saves (glibc's x86_64 getcontext.S): rbx, rbp, r12-r15, rdi, rsi, rdx, rcx, r8,
 * r9, rsp (the caller's) and rip (the return address, in the FFM downcall stub); rax, r10, r11,
 * eflags and the segment registers it does not save, so they read 0 (the buffer is zeroed before
 * each read).
 *
 * Layout (<sys/ucontext.h>, x86_64): uc_flags 8, uc_link 8, uc_stack 24, then uc_mcontext.gregs,
 * 23 longs in REG_R8 ... REG_CR2 order; sizeof(ucontext_t) is 968 in glibc 2.36, and BUFFER
 * leaves room beyond it.
 *
 * Threads: each thread reads into its own buffer and register file (a ThreadLocal of this
 * instance), made at its first read (the only allocation), then reused: allocation-free and
 * lock-free after that. The buffers live in an automatic arena, freed with their thread's
 * ThreadLocal entry. A failed lookup of getcontext (no glibc) leaves the instance unusable:
 * read() throws IsaException, which the caller turns into a D fault.
 *
 * illumos counterpart: none (illumos's BEGIN fires in the ioctl(2) of dtrace(1M) and reads the
 * registers its trap saved, dtrace_getreg on the thread's lwp_regs).
 */
package org.jdtrace.isa.amd64.internal;

import static org.jdtrace.isa.amd64.internal.Amd64Registers.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.jdtrace.isa.IsaException;

final class CallingThreadRegisters {

    private static final long BUFFER = 1024;
    private static final long GREGS = 40;
    /** gregs index (REG_R8 = 0 ... REG_EFL = 17) to user_regs_struct slot. */
    private static final int[] SLOT_OF_GREG = {R8, R9, R10, R11, R12, R13, R14, R15, RDI, RSI, RBP, RBX, RDX,
        RAX, RCX, RSP, RIP, EFLAGS};

    private record Buffers(MemorySegment context, Amd64Registers registers) {}

    private final MethodHandle getcontext;
    private final ThreadLocal<Buffers> buffers = ThreadLocal.withInitial(
            () -> new Buffers(Arena.ofAuto().allocate(BUFFER, 16), new Amd64Registers()));

    CallingThreadRegisters() {
        Linker linker = Linker.nativeLinker();
        this.getcontext = linker.defaultLookup().find("getcontext")
                .map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
                .orElse(null);
    }

    /** The calling thread's registers now, in its own reused register file. */
    Amd64Registers read() throws IsaException {
        if (getcontext == null) throw new IsaException("getcontext(3) is not available", 0);
        Buffers b = buffers.get();
        MemorySegment uc = b.context();
        uc.fill((byte) 0);
        int rc;
        try {
            rc = (int) getcontext.invokeExact(uc);
        } catch (Throwable t) {
            throw new IsaException("getcontext(3) failed: " + t, 0);
        }
        if (rc != 0) throw new IsaException("getcontext(3) failed", 0);
        long[] raw = b.registers().raw(); // written here only: the slots getcontext has none for stay 0
        for (int i = 0; i < SLOT_OF_GREG.length; i++) {
            raw[SLOT_OF_GREG[i]] = uc.get(ValueLayout.JAVA_LONG, GREGS + 8L * i);
        }
        return b.registers();
    }
}
