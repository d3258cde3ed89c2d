package org.jdtrace.provider.fasttrap.internal;

import org.jdtrace.proc.Procfs;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.isa.RegisterFile;
import org.jdtrace.perf.UserHit;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

/*
 * The probe context of a pid probe for every process (provider "pid", pid 0: a uprobe on the
 * file, in any process that maps it, now or later): no followed process stands behind it, so
 * everything comes from what the kernel captured at the hit (pid, tid, the thread's comm as
 * execname, time, CPU, registers, the top of the stack), and copyin/copyinstr read the hitting
 * process's memory through /proc/PID/mem when the clause runs (a fault when it is gone). ustack()
 * walks the captured stack bytes only; usym() has no symbols (the process is not followed). One
 * instance per probe, drain thread only.
 */
final class EveryProcessContext implements ProbeContext {

    private final Abi abi;
    private final PidProbe probe;
    private UserHit hit;
    private RegisterFile regs;
    private final org.jdtrace.unwind.StackSnapshot stack = new org.jdtrace.unwind.StackSnapshot();
    /** The hitting process's memory now, through /proc/PID/mem: what the stack copy does not hold. */
    private final Memory live = new Memory() {
        @Override
        public void read(long addr, byte[] buf, int off, int len) throws IsaException {
            if (readLive(addr, buf, off, len) != len) throw new IsaException("cannot read 0x" + Long.toHexString(addr), addr);
        }

        @Override
        public void write(long addr, byte[] buf, int off, int len) throws IsaException {
            throw new IsaException("the hitting process is not followed", addr);
        }
    };

    /** The return site of a return probe fired by a uretprobe (registers after the return), else 0. */
    private final long site;

    EveryProcessContext(Abi abi, PidProbe probe, long site) {
        this.abi = abi;
        this.probe = probe;
        this.site = site;
    }

    EveryProcessContext at(UserHit h) {
        hit = h;
        regs = abi.fromKernelRegs(h.regs, regs);
        stack.reset(h.stackAddr, h.stack, live);
        return this;
    }

    private int readLive(long addr, byte[] buf, int off, int len) {
        try (RandomAccessFile mem = new RandomAccessFile(Procfs.file(hit.pid, "mem").toFile(), "r")) {
            return Math.max(0, mem.getChannel().read(ByteBuffer.wrap(buf, off, len), addr));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    @Override
    public long arg(int i) {
        if (probe.kind() == PidProbe.Kind.RETURN) {
            return switch (i) {
                case 0 -> (site != 0 ? site : regs.pc()) - probe.functionStart();
                case 1 -> abi.returnValue(regs, false);
                default -> 0;
            };
        }
        try {
            return abi.entryArgument(regs, stack, i);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.BADADDR, e.address());
        }
    }

    @Override
    public long pid() {
        return hit.pid;
    }

    @Override
    public long ppid() {
        return Procfs.ppid(hit.pid);
    }

    @Override
    public long tid() {
        return hit.tid;
    }

    @Override
    public String execname() {
        return hit.comm();
    }

    @Override
    public int cpu() {
        return hit.cpu;
    }

    @Override
    public long timestamp() {
        return hit.time;
    }

    @Override
    public long uregs(int reg) throws FaultException {
        return ThreadContext.ureg(abi, regs, reg);
    }

    @Override
    public byte[] copyin(long addr, int len) throws FaultException {
        return ThreadContext.copyin(stack, addr, len);
    }

    @Override
    public String copyinstr(long addr, int max) throws FaultException {
        String s = hit.string(addr, max); // read at the hit (Probe.userStrings)
        if (s != null) return s;
        byte[] b = new byte[Math.max(0, max)];
        int n = readLive(addr, b, 0, b.length);
        if (n == 0) throw new FaultException(FaultException.Kind.BADADDR, addr);
        int end = 0;
        while (end < n && b[end] != 0) end++;
        return new String(b, 0, end, StandardCharsets.UTF_8);
    }

    @Override
    public long[] ustack(int max) {
        return abi.stack(regs, stack, max);
    }
}
