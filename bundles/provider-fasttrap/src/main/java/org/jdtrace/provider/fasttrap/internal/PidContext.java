package org.jdtrace.provider.fasttrap.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.provider.fasttrap.internal.proc.HitContext;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

/*
 * The probe context of a pid probe firing: a thread of a traced process stopped at a
 * tracepoint. One instance per traced process, reused for every hit (hits of a process are
 * serialised on its control thread), and valid only while the probe fires.
 *
 * Arguments: at entry (and at offsets) arg0.. are the calling convention's (Abi.entryArgument);
 * at a return site arg0 is the return site's offset in the function and arg1 the return value,
 * as in illumos. Memory reads that fail become FaultException (dtrace:::ERROR, tracing goes on).
 */
final class PidContext implements ProbeContext {

    private final ProcessState state;
    private final Abi abi;
    private HitContext hit;
    private PidProbe probe;
    private long site;

    PidContext(ProcessState state, Abi abi) {
        this.state = state;
        this.abi = abi;
    }

    PidContext at(HitContext hit, PidProbe probe) {
        this.hit = hit;
        this.probe = probe;
        this.site = hit.regs().pc();
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
    public long pid() {
        return hit.pid();
    }

    @Override
    public long ppid() {
        return state.ppid();
    }

    @Override
    public long tid() {
        return hit.tid();
    }

    @Override
    public String execname() {
        return state.execname();
    }

    /**
     * The CPU the probe fires on: the control thread's, which runs the probe's ECBs the moment
     * the traced thread stopped (reading the tracee's /proc stat at every firing would cost
     * more than the whole hit).
     */
    @Override
    public int cpu() {
        return Sys.cpu();
    }

    @Override
    public long uregs(int reg) throws FaultException {
        try {
            return abi.ureg(hit.regs(), reg);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
    }

    @Override
    public byte[] copyin(long addr, int len) throws FaultException {
        byte[] b = new byte[Math.max(0, len)];
        try {
            hit.memory().read(addr, b, 0, b.length);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }
        return b;
    }

    @Override
    public String copyinstr(long addr, int max) throws FaultException {
        String s = hit.memory().readString(addr, max);
        if (s == null) throw new FaultException(FaultException.Kind.BADADDR, addr);
        return s;
    }

    @Override
    public void copyout(byte[] data, long addr) throws FaultException {
        try {
            hit.memory().write(addr, data, 0, data.length);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }
    }

    @Override
    public long[] ustack(int max) {
        long[] walk = abi.stack(hit.regs(), hit.memory(), max);
        if (probe.kind() != PidProbe.Kind.ENTRY || walk.length == 0 || max < 2) return walk;
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
    public String usym(long pc) {
        return state.symbolize(pc);
    }

    @Override
    public long ucaller() {
        try {
            if (probe.kind() == PidProbe.Kind.ENTRY) return abi.returnAddressAtEntry(hit.regs(), hit.memory());
        } catch (IsaException e) {
            return 0;
        }
        long[] st = abi.stack(hit.regs(), hit.memory(), 2);
        return st.length > 1 ? st[1] : 0;
    }

    @Override
    public void raise(int signal) throws FaultException {
        if (Sys.current().tgkill(hit.pid(), hit.tid(), signal) != 0) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
    }

    @Override
    public void stopProcess() throws FaultException {
        raise(Sys.SIGSTOP);
    }
}
