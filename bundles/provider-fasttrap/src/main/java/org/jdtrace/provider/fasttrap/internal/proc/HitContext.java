package org.jdtrace.provider.fasttrap.internal.proc;

import org.jdtrace.isa.RegisterFile;

/**
 * One stopped thread at one tracepoint: valid only during {@link TracepointHandler#hit}.
 * {@link #regs()} holds the thread's registers with the pc at the tracepoint's address.
 */
public final class HitContext {

    final TracedProcess process;
    int tid;
    RegisterFile regs;
    Tracepoint tracepoint;

    HitContext(TracedProcess process) {
        this.process = process;
    }

    public TracedProcess process() {
        return process;
    }

    public int pid() {
        return process.pid();
    }

    public int tid() {
        return tid;
    }

    public RegisterFile regs() {
        return regs;
    }

    public ProcessMemory memory() {
        return process.memory();
    }

    public Tracepoint tracepoint() {
        return tracepoint;
    }
}
