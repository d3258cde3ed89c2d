package org.jdtrace.provider.fasttrap.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.provider.fasttrap.internal.proc.HitContext;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

/*
 * What every probe context of a stopped thread of a traced process has in common (the pid and
 * the syscall provider's): identity (pid, tid, ppid, execname from the shared ProcessState),
 * registers, the process's memory, symbols and signals. A hit the kernel's uprobes captured
 * (HitContext.captured) has its time, CPU, registers and top of stack from the event; the rest of
 * memory (copyin, copyinstr) is read when the clause runs, after the event. One instance per traced process and
 * provider, reused for every stop (stops of a process are serialised on its control thread) and
 * valid only while the probe fires. Memory reads that fail become FaultException (dtrace:::ERROR,
 * tracing goes on).
 */
abstract class ThreadContext implements ProbeContext {

    final ProcessState state;
    final Abi abi;
    HitContext hit;

    ThreadContext(ProcessState state, Abi abi) {
        this.state = state;
        this.abi = abi;
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
        int c = hit.cpu();
        return c >= 0 ? c : Sys.cpu();
    }

    /** A hit the kernel captured carries its time; a ptrace stop is now. */
    @Override
    public long timestamp() {
        long t = hit.time();
        return t != 0 ? t : System.nanoTime();
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
        String s = hit.process().memory().readString(addr, max);
        if (s == null) throw new FaultException(FaultException.Kind.BADADDR, addr);
        return s;
    }

    @Override
    public void copyout(byte[] data, long addr) throws FaultException {
        try {
            hit.process().memory().write(addr, data, 0, data.length);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }
    }

    @Override
    public long[] ustack(int max) {
        return abi.stack(hit.regs(), hit.memory(), max);
    }

    @Override
    public String usym(long pc) {
        return state.symbolize(pc);
    }

    @Override
    public long ucaller() {
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
