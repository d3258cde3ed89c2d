/*
 * An enabling control block (dtrace_ecb_t): one statement's body enabled on one probe, for one
 * consumer, under one enabled-probe ID (epid, per consumer, from 1, never reused).
 *
 * fire() is the inner loop of a probe firing. It runs the body and turns what the body throws
 * into DTrace's behaviour: a FaultException or DFault is a fault (reported to the owner, which
 * fires dtrace:::ERROR); anything else is a consumer failure (the owner disables itself). In
 * every case the firing thread goes on to the next ECB: a consumer never kills the thread that
 * fires a probe.
 *
 * {@code installed} is guarded by the framework lock.
 */
package org.jdtrace.core.ecb;

import org.jdtrace.engine.DFault;
import org.jdtrace.engine.EcbBody;
import org.jdtrace.engine.Statement;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

public final class Ecb {

    public static final Ecb[] NONE = new Ecb[0];

    private final int epid;
    private final Probe probe;
    private final EcbBody body;
    private final EcbOwner owner;
    private final Enabling enabling;
    private boolean installed;
    /** The probe's provider runs this ECB's clause in the kernel (Probe.runInKernel): fire() is not called. */
    private volatile boolean inKernel;

    Ecb(int epid, Probe probe, Enabling enabling) {
        this.epid = epid;
        this.probe = probe;
        this.enabling = enabling;
        this.owner = enabling.owner();
        this.body = enabling.statement().body();
    }

    public int epid() {
        return epid;
    }

    public Probe probe() {
        return probe;
    }

    public EcbOwner owner() {
        return owner;
    }

    public Enabling enabling() {
        return enabling;
    }

    public Statement statement() {
        return enabling.statement();
    }

    public boolean isInstalled() {
        return installed;
    }

    public void setInstalled(boolean installed) {
        this.installed = installed;
    }

    public boolean inKernel() {
        return inKernel;
    }

    public void setInKernel(boolean inKernel) {
        this.inKernel = inKernel;
    }

    /** Runs the body for one firing; never throws. */
    public void fire(ProbeContext ctx) {
        try {
            body.fire(ctx, probe, epid);
        } catch (DFault f) {
            owner.fault(this, ctx, f.kind, f.address, f.action, f.offset);
        } catch (FaultException f) {
            owner.fault(this, ctx, f.kind(), f.address(), 0, -1);
        } catch (Throwable t) {
            owner.failed(this, t);
        }
    }

    @Override
    public String toString() {
        return "ecb " + epid + " on " + probe;
    }
}
