/*
 * The framework half of one consumer's state (dtrace_state_t as dtrace(7d) keeps it): its epid
 * counter, its ECBs, whether they are installed on their probes (active), and what happens when
 * one of its ECBs faults or fails.
 *
 * Faults (dtrace_probe_error): the fault is reported (report()), then dtrace:::ERROR fires for
 * this owner only, with the ERROR arguments (see ErrorContext). Recursion guard, as dtrace's: a
 * fault in an ECB of the ERROR probe itself is reported but fires no ERROR.
 *
 * Failures (a body throwing something that is not a fault: a bug): the first one is kept, the
 * owner's hook disables it, and the firing thread carries on.
 *
 * The ECB list is a copy-on-write array written under the framework lock and read without it by
 * fireOwn (BEGIN, END and ERROR fire only the ECBs of the consumer they belong to, as dtrace
 * passes the state as arg0 of those probes).
 */
package org.jdtrace.core.ecb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jdtrace.engine.DFault;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

public abstract class EcbOwner {

    private final AtomicInteger lastEpid = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Enabling> enablings = new ArrayList<>();
    private volatile Ecb[] ecbs = Ecb.NONE;
    private volatile Probe errorProbe;
    private boolean active;
    /** Set after BEGIN, every ECB installed (dtrace_state_go's ACTIVE, DTraceFramework.goLive): firings count only then. */
    private volatile boolean live;

    /** A fault in one of this owner's ECBs, for the D half's default ERROR report. */
    protected abstract void report(int epid, Probe probe, DFault fault);

    /** The clause an epid runs, as the consumer numbers them (ERROR's arg2); 0 when it has none. */
    protected int clauseOf(int epid) {
        return 0;
    }

    /**
     * The options of this owner that travel with its descriptions to the providers
     * (Provider.provide(desc, consumerOptions)); none by default.
     */
    public java.util.Map<String, Long> consumerOptions() {
        return java.util.Map.of();
    }

    /** Firings of an enabled probe were lost before they ran (ProbeRegistry.lost): drops on {@code cpu}. */
    public void lost(int cpu, long count) {}

    /** The kernel refused the program of {@code clause} (its name): it runs in the JVM (Probe.kernelRefused). */
    public void kernelRefused(String clause, String reason) {}

    /** An ECB was created (dtrace's epid-to-probe table is told). */
    protected void created(Ecb ecb) {}

    /** The first failure happened; disable the owner (called on the firing thread). */
    protected abstract void onFailure(Throwable t);

    int nextEpid() {
        return lastEpid.incrementAndGet();
    }

    /** The dtrace:::ERROR probe to fire on faults, once known. */
    public void setErrorProbe(Probe errorProbe) {
        this.errorProbe = errorProbe;
    }

    /** True while the owner's ECBs are installed on their probes (framework lock held). */
    public boolean isActive() {
        return active;
    }

    public void setActive(boolean active) {
        this.active = active;
    }

    /**
     * True once all the owner's ECBs are installed and BEGIN has fired (DTraceFramework.goLive),
     * so that a probe enabled early cannot fire (and act: raise(), exit()) before a probe enabled
     * later is in place, nor before BEGIN.
     */
    public boolean isLive() {
        return live;
    }

    public void setLive(boolean live) {
        this.live = live;
    }

    /** The owner's enablings (framework lock held). */
    public List<Enabling> enablings() {
        return enablings;
    }

    public Ecb[] ecbs() {
        return ecbs;
    }

    public Throwable failure() {
        return failure.get();
    }

    void added(Ecb ecb) {
        Ecb[] old = ecbs;
        Ecb[] n = Arrays.copyOf(old, old.length + 1);
        n[old.length] = ecb;
        ecbs = n;
        created(ecb);
    }

    void removed(Ecb ecb) {
        Ecb[] old = ecbs;
        List<Ecb> keep = new ArrayList<>(old.length);
        for (Ecb e : old) {
            if (e != ecb) {
                keep.add(e);
            }
        }
        ecbs = keep.isEmpty() ? Ecb.NONE : keep.toArray(Ecb[]::new);
    }

    /** Fires this owner's ECBs on {@code probe} only (BEGIN, END, ERROR). Never throws. */
    public void fireOwn(Probe probe, ProbeContext ctx) {
        Ecb[] e = ecbs;
        for (int i = 0; i < e.length; i++) {
            if (e[i].probe() == probe) {
                e[i].fire(ctx);
            }
        }
    }

    final void fault(Ecb ecb, ProbeContext ctx, FaultException.Kind kind, long address, int action, int offset) {
        try {
            report(ecb.epid(), ecb.probe(), new DFault(kind, address, action, offset));
            Probe error = errorProbe;
            if (error != null && ecb.probe() != error) {
                fireOwn(error, new ErrorContext(ctx, ecb.probe().id(), clauseOf(ecb.epid()), offset, kind, address));
            }
        } catch (Throwable t) {
            failed(ecb, t);
        }
    }

    /**
     * The provider of {@code ecb}'s probe could not enable it (framework lock held): a failure
     * of this owner, as a failing body is, carrying the provider's message for the consumer.
     */
    public final void enableFailed(Ecb ecb, org.jdtrace.spi.ProviderException e) {
        failed(ecb, e);
    }

    final void failed(Ecb ecb, Throwable t) {
        if (failure.compareAndSet(null, t)) {
            try {
                onFailure(t);
            } catch (Throwable ignored) {
                // the firing thread must go on whatever the hook does
            }
        }
    }
}
