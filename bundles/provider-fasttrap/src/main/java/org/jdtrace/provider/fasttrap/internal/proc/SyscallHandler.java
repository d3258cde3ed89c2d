package org.jdtrace.provider.fasttrap.internal.proc;

/** Told of every system call entry and exit of a traced process's threads (TracedProcess.traceSyscalls). */
@FunctionalInterface
public interface SyscallHandler {

    /**
     * A thread stopped at a system call's entry ({@code entry}) or exit: {@code hit} holds its
     * registers (no tracepoint); valid only during the call. Control thread.
     */
    void syscall(HitContext hit, boolean entry);
}
