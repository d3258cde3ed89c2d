package org.jdtrace.provider.fasttrap.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.provider.fasttrap.internal.proc.HitContext;
import org.jdtrace.spi.FaultException;

/*
 * The probe context of a pid probe firing: a thread of a traced process stopped at a
 * tracepoint (what all such contexts share is ThreadContext's).
 *
 * Arguments: at entry (and at offsets) arg0.. are the calling convention's (Abi.entryArgument);
 * at a return site arg0 is the return site's offset in the function and arg1 the return value,
 * as in illumos. A return probe on the kernel's uretprobe (UprobeSites: a function with one return
 * site) fires with the registers after the return, the pc in the caller, so ustack()'s first frame
 * is the caller's; arg0 is still that site's offset.
 */
final class PidContext extends ThreadContext {

    private PidProbe probe;
    private long site;

    PidContext(ProcessState state, Abi abi) {
        super(state, abi);
    }

    PidContext at(HitContext hit, PidProbe probe) {
        this.hit = hit;
        this.probe = probe;
        this.site = hit.regs().pc();
        return this;
    }

    /** A return probe fired by a uretprobe (registers after the return): its one return site is {@code site}. */
    PidContext atReturn(HitContext hit, PidProbe probe, long site) {
        at(hit, probe);
        this.site = site;
        return this;
    }

    @Override
    public long arg(int i) {
        if (probe.kind() == PidProbe.Kind.RETURN) {
            return switch (i) {
                case 0 -> site - probe.functionStart();
                case 1 -> abi.returnValue(hit.regs(), false);
                default -> 0;
            };
        }
        try {
            return abi.entryArgument(hit.regs(), hit.memory(), i);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.BADADDR, e.address());
        }
    }

    @Override
    public long[] ustack(int max) {
        long[] walk = super.ustack(max);
        // with call-frame information the entry's row already says where the return address is
        if (probe.kind() != PidProbe.Kind.ENTRY || walk.length == 0 || max < 2 || walkedByCfi) return walk;
        // at an entry probe the callee has no frame yet: its caller is the return address at
        // %rsp, and the frame-pointer walk from %rbp continues with the caller's caller (as
        // dtrace_getupcstack does under CPU_DTRACE_ENTRY)
        long ret;
        try {
            ret = abi.returnAddressAtEntry(hit.regs(), hit.memory());
        } catch (IsaException e) {
            return walk;
        }
        long[] pcs = new long[Math.min(max, walk.length + 1)];
        pcs[0] = walk[0];
        pcs[1] = ret;
        System.arraycopy(walk, 1, pcs, 2, pcs.length - 2);
        return pcs;
    }

    @Override
    public long ucaller() {
        try {
            if (probe.kind() == PidProbe.Kind.ENTRY) return abi.returnAddressAtEntry(hit.regs(), hit.memory());
        } catch (IsaException e) {
            return 0;
        }
        return super.ucaller();
    }
}
