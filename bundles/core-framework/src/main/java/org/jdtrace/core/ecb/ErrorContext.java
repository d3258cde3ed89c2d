/*
 * The probe context of a dtrace:::ERROR firing: everything of the faulting firing's context
 * (pid, tid, execname...) except the arguments, which are DTrace's ERROR arguments as DTrace on
 * Linux passes them, the two the fault report names ("error in dt_clause_N for probe ID P"):
 * arg0 = 0 (the state; D never sees it), arg1 = P, the ID of the probe whose firing faulted,
 * arg2 = N, the clause that faulted, arg3 = the code offset or -1, arg4 = fault kind
 * (DTRACEFLT_*), arg5 = the faulting address. (illumos passed the epid and the action index in
 * arg1 and arg2.)
 */
package org.jdtrace.core.ecb;

import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

public final class ErrorContext implements ProbeContext {

    private final ProbeContext faulting;
    private final long[] args;

    public ErrorContext(ProbeContext faulting, int probeId, int clause, int offset, FaultException.Kind kind,
            long address) {
        this.faulting = faulting;
        this.args = new long[] {0, probeId, clause, offset, kind.code, address};
    }

    @Override
    public long arg(int i) {
        return i >= 0 && i < args.length ? args[i] : 0;
    }

    @Override
    public Object argObject(int i) {
        return arg(i);
    }

    @Override
    public long pid() {
        return faulting.pid();
    }

    @Override
    public long ppid() {
        return faulting.ppid();
    }

    @Override
    public long tid() {
        return faulting.tid();
    }

    @Override
    public String execname() {
        return faulting.execname();
    }

    @Override
    public int cpu() {
        return faulting.cpu();
    }

    @Override
    public long uregs(int reg) throws FaultException {
        return faulting.uregs(reg);
    }

    @Override
    public boolean firesInCallingThread() {
        return faulting.firesInCallingThread();
    }

    @Override
    public byte[] copyin(long addr, int len) throws FaultException {
        return faulting.copyin(addr, len);
    }

    @Override
    public String copyinstr(long addr, int max) throws FaultException {
        return faulting.copyinstr(addr, max);
    }

    @Override
    public long[] ustack(int max) {
        return faulting.ustack(max);
    }

    @Override
    public String[] javaStack(int max) {
        return faulting.javaStack(max);
    }

    @Override
    public String usym(long pc) {
        return faulting.usym(pc);
    }

    @Override
    public long ucaller() {
        return faulting.ucaller();
    }

    @Override
    public long vtimestamp() {
        return faulting.vtimestamp();
    }

    @Override
    public long psinfo(String member) {
        return faulting.psinfo(member);
    }

    @Override
    public String psinfoString(String member) {
        return faulting.psinfoString(member);
    }
}
