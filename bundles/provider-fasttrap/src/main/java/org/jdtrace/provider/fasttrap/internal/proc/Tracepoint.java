package org.jdtrace.provider.fasttrap.internal.proc;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;

/*
 * One int3 planted at one address of one process (fasttrap_tracepoint_t), shared by every probe
 * and every consumer that wants that address: the handlers list is its reference count. The
 * int3 is planted when the first handler arrives and the original byte put back when the last
 * leaves (TracedProcess.enable/disable, under the process's tracepoint lock).
 *
 * The displaced instruction takes effect in one of two ways, decided once by Isa.displacement:
 * EMULATE (control flow: the tracer computes its effect on the registers and memory) or
 * OUT_OF_LINE (its copy, relocated by Isa.outOfLine and followed by a jump back, sits in a
 * scratch slot of the target that belongs to this address; the thread resumes there). One
 * exception to the ISA's choice: a return the ISA would emulate runs from its slot as it is (it
 * takes its target from the stack, wherever it runs), which saves the emulator's read of the
 * target's stack (return probes cost what entry probes cost). Either way a hit costs exactly
 * one ptrace stop.
 */
public final class Tracepoint {

    final long pc;
    final Instruction insn;
    final Isa.Displacement how;
    final long slot;
    final List<TracepointHandler> handlers = new CopyOnWriteArrayList<>();
    /** The handlers as an array for the hit path (no iterator); rewritten with every change. */
    volatile TracepointHandler[] snapshot = new TracepointHandler[0];

    void add(TracepointHandler h) {
        handlers.add(h);
        snapshot = handlers.toArray(new TracepointHandler[0]);
    }

    void remove(TracepointHandler h) {
        handlers.remove(h);
        snapshot = handlers.toArray(new TracepointHandler[0]);
    }

    Tracepoint(long pc, Instruction insn, Isa.Displacement how, long slot) {
        this.pc = pc;
        this.insn = insn;
        this.how = how;
        this.slot = slot;
    }

    public long pc() {
        return pc;
    }

    public Instruction instruction() {
        return insn;
    }

    public Isa.Displacement displacement() {
        return how;
    }
}
