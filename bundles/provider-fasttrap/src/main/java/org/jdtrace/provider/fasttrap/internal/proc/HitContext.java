package org.jdtrace.provider.fasttrap.internal.proc;

import org.jdtrace.isa.Memory;
import org.jdtrace.isa.RegisterFile;

/**
 * One thread at one tracepoint: valid only during {@link TracepointHandler#hit} (a ptrace stop,
 * the thread stopped) or during the handling of a kernel uprobe's record ({@link #captured}:
 * what the kernel captured at the hit, the thread long gone on). {@link #regs()} holds the
 * thread's registers with the pc at the tracepoint's address; {@link #memory()} the process's
 * memory (for a captured hit, the stack bytes captured at the hit over the live memory).
 */
public final class HitContext {

    final TracedProcess process;
    int tid;
    RegisterFile regs;
    Tracepoint tracepoint;
    private Memory memory;
    private long time;
    private int cpu = -1;

    HitContext(TracedProcess process) {
        this.process = process;
        this.memory = process.memory();
    }

    /** A context for the records of kernel uprobes in {@code process} (refilled by {@link #capture}). */
    public static HitContext captured(TracedProcess process) {
        return new HitContext(process);
    }

    /** Refills a captured context: the hitting thread, its registers, its memory, the hit's time and CPU. */
    public HitContext capture(int tid, RegisterFile regs, Memory memory, long time, int cpu) {
        this.tid = tid;
        this.regs = regs;
        this.memory = memory;
        this.time = time;
        this.cpu = cpu;
        return this;
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

    public Memory memory() {
        return memory;
    }

    /** The hit's time on CLOCK_MONOTONIC when captured by the kernel, else 0 (now). */
    public long time() {
        return time;
    }

    /** The CPU of a captured hit, else -1 (the control thread's, now). */
    public int cpu() {
        return cpu;
    }

    public Tracepoint tracepoint() {
        return tracepoint;
    }
}
