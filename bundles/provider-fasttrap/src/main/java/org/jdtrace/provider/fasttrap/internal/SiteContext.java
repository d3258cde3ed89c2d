package org.jdtrace.provider.fasttrap.internal;

import org.jdtrace.fasttrap.ArgumentReader;
import org.jdtrace.fasttrap.Hit;
import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.isa.RegisterFile;
import org.jdtrace.provider.fasttrap.internal.proc.HitContext;
import org.jdtrace.spi.FaultException;

/*
 * The hit and probe context fasttrap gives other providers (org.jdtrace.fasttrap.Hit; the
 * USDT provider's probes): a thread of a traced process stopped at a shared tracepoint. One
 * instance per traced process, reused for every hit (its hits are serialised on its control
 * thread), so a firing allocates nothing. arg(i) is the ArgumentReader's value at this hit,
 * set by context(); a read that fails is a D fault (dtrace:::ERROR, tracing goes on).
 */
final class SiteContext extends ThreadContext implements Hit {

    private ArgumentReader args;

    SiteContext(ProcessState state, Abi abi) {
        super(state, abi);
    }

    /** Control thread only: the hit in progress. */
    SiteContext at(HitContext hit) {
        this.hit = hit;
        return this;
    }

    @Override
    public RegisterFile regs() {
        return hit.regs();
    }

    @Override
    public Memory memory() {
        return hit.memory();
    }

    @Override
    public SiteContext context(ArgumentReader reader) {
        this.args = reader;
        return this;
    }

    @Override
    public long arg(int i) {
        ArgumentReader r = args;
        if (r == null) return 0;
        try {
            return r.arg(this, i);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.BADADDR, e.address());
        }
    }
}
