package org.jdtrace.provider.fasttrap.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.provider.fasttrap.internal.proc.HitContext;

/*
 * The probe context of a syscall probe firing: a thread of a traced process in a syscall-stop.
 * At entry arg0..arg5 are the call's arguments (the kernel's convention: Abi.syscallArgument);
 * at return arg0 and arg1 are both the value the kernel returns, a negative errno on failure, as
 * dtrace-utils gives them (errno stays 0). The rest (pid, tid, memory, ustack, raise) is
 * ThreadContext's: the thread is stopped in user space right at its syscall instruction.
 */
final class SyscallContext extends ThreadContext {

    private boolean entry;

    SyscallContext(ProcessState state, Abi abi) {
        super(state, abi);
    }

    SyscallContext at(HitContext hit, boolean entry) {
        this.hit = hit;
        this.entry = entry;
        return this;
    }

    @Override
    public long arg(int i) {
        if (!entry) return i == 0 || i == 1 ? abi.syscallReturn(hit.regs()) : 0;
        try {
            return i < 6 ? abi.syscallArgument(hit.regs(), i) : 0;
        } catch (IsaException e) {
            return 0;
        }
    }
}
