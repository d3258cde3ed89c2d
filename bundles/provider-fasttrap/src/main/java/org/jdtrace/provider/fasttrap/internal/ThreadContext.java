package org.jdtrace.provider.fasttrap.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.provider.fasttrap.internal.proc.HitContext;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.unwind.RegisterNumbering;
import org.jdtrace.unwind.StackSnapshot;
import org.jdtrace.unwind.Unwinder;

/*
 * What every probe context of a stopped thread of a traced process has in common (the pid and
 * the syscall provider's): identity (pid, tid, ppid, execname from the shared ProcessState),
 * registers, the process's memory, symbols and signals. A hit the kernel's uprobes captured
 * (HitContext.captured) has its time, CPU, registers and top of stack from the event; the rest of
 * memory (copyin, copyinstr) is read when the clause runs, after the event. One instance per traced process and
 * provider, reused for every stop (stops of a process are serialised on its control thread) and
 * valid only while the probe fires. Memory reads that fail become FaultException (dtrace:::ERROR,
 * tracing goes on). stop(), raise() and copyout() act on the process at the hit: on ptrace the
 * thread is stopped there, on uprobes the process is held there (Holds) while they run.
 */
abstract class ThreadContext implements ProbeContext {

    final ProcessState state;
    final Abi abi;
    HitContext hit;
    /** The CFI unwinder and its scratch (null when the ISA has no DWARF numbering). */
    private final Unwinder unwinder;
    private final long[] dwarf;
    private final long[] pcs = new long[MAX_FRAMES];
    private final byte[] stackTop = new byte[STACK_COPY];
    private final StackSnapshot snapshot = new StackSnapshot();

    /** The deepest stack ustack() walks. */
    static final int MAX_FRAMES = 1024;
    /** Bytes of stack read at once above the sp (one read instead of one per slot). */
    static final int STACK_COPY = 16384;

    ThreadContext(ProcessState state, Abi abi) {
        this.state = state;
        this.abi = abi;
        RegisterNumbering n = abi.dwarfNumbering();
        this.unwinder = n == null ? null : new Unwinder(n);
        this.dwarf = n == null ? null : new long[n.count()];
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

    /**
     * The stopped thread's time on CPU: its task's sum_exec_runtime, the first field of
     * /proc/PID/task/TID/schedstat, exact while the thread is stopped at the probe (the kernel
     * brought it up to date when the thread left the CPU). It includes the kernel's few
     * microseconds of trap and stop per hit, which DTrace, timing its probe context, leaves out.
     * Read only when a clause uses vtimestamp; 0 when the thread is gone.
     */
    @Override
    public long vtimestamp() {
        return org.jdtrace.spi.ThreadCpuTime.of(hit.pid(), hit.tid());
    }

    @Override
    public long uregs(int reg) throws FaultException {
        return ureg(abi, hit.regs(), reg);
    }

    /** uregs[reg] of {@code regs}: a register the ABI does not name is an illegal operation. */
    static long ureg(org.jdtrace.isa.Abi abi, org.jdtrace.isa.RegisterFile regs, int reg) throws FaultException {
        try {
            return abi.ureg(regs, reg);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
    }

    @Override
    public byte[] copyin(long addr, int len) throws FaultException {
        return copyin(hit.memory(), addr, len);
    }

    /** copyin() from {@code mem}: a read that faults is BADADDR at {@code addr}. */
    static byte[] copyin(org.jdtrace.isa.Memory mem, long addr, int len) throws FaultException {
        byte[] b = new byte[Math.max(0, len)];
        try {
            mem.read(addr, b, 0, b.length);
        } catch (IsaException e) {
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }
        return b;
    }

    @Override
    public String copyinstr(long addr, int max) throws FaultException {
        // a uprobe hit's string read at the event (Probe.userStrings), else the live memory now
        String s = state.capturedString(hit, addr, max);
        if (s == null) s = hit.process().memory().readString(addr, max);
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

    /**
     * The user stack: by the objects' call-frame information when the pc lies in an object that
     * has some (ProcessUnwind, org.jdtrace.unwind.Unwinder), else, or when that walk gets no
     * further than the pc, by frame pointers (Abi.stack). The stack is read from the stopped
     * thread: up to STACK_COPY bytes above the sp in one read, the rest as the walk needs it.
     */
    @Override
    public long[] ustack(int max) {
        walkedByCfi = false;
        if (max <= 0) return new long[0];
        int n = walk(max, null);
        if (n > 1) {
            walkedByCfi = true;
            return java.util.Arrays.copyOf(pcs, n);
        }
        return abi.stack(hit.regs(), hit.memory(), max);
    }

    /** The CFI walk into {@link #pcs} (each frame's fp into {@code fps} when not null); 0 frames when the pc has no CFI. */
    private int walk(int max, long[] fps) {
        if (unwinder == null || !state.unwind.covers(hit.regs().pc())) return 0;
        long known = abi.dwarfRegisters(hit.regs(), dwarf);
        long sp = hit.regs().sp();
        int got = hit.memory().readSome(sp, stackTop, 0, stackTop.length);
        snapshot.reset(sp, stackTop, Math.max(0, got), hit.memory());
        return unwinder.walk(dwarf, known, snapshot, state.unwind, pcs, fps, Math.min(max, pcs.length));
    }

    /**
     * jstack(): the walk ustack() makes, each frame as ustack() names it, except that a HotSpot
     * JVM's interpreter frame is named by its method (HotSpotVm.interpretedMethod: the Method*
     * slot below the frame's fp), {@code [interpreter]`pkg.Class.method}.
     */
    @Override
    public String[] jstack(int max) {
        if (max <= 0) return null;
        long[] fps = new long[Math.min(max, pcs.length)];
        int n = walk(max, fps);
        if (n <= 1) return null;
        org.jdtrace.proc.HotSpotVm vm = state.jvm();
        String[] frames = new String[n];
        for (int i = 0; i < n; i++) {
            String name = vm == null ? null : vm.interpreterFrame(pcs[i], fps[i], snapshot);
            if (name == null) name = state.symbolize(pcs[i]);
            frames[i] = name == null ? "0x" + Long.toHexString(pcs[i]) : name;
        }
        return frames;
    }

    /** True when the latest ustack() walked by CFI (not by frame pointers). */
    boolean walkedByCfi;

    @Override
    public String usym(long pc) {
        return state.symbolize(pc);
    }

    @Override
    public long ucaller() {
        long[] st = ustack(2);
        return st.length > 1 ? st[1] : 0;
    }

    /**
     * raise(): a signal to the hitting thread. On the uprobe path the process is held at the hit
     * (Holds), so the signal is pending until it runs again and is delivered before the thread's
     * next instruction, as DTrace delivers it at the probe; a SIGSTOP is stop()'s (the hold's
     * SIGCONT would cancel it).
     */
    @Override
    public void raise(int signal) throws FaultException {
        if (signal == Sys.SIGSTOP) {
            stopProcess();
            return;
        }
        tgkill(signal);
    }

    private void tgkill(int signal) {
        if (Sys.current().tgkill(hit.pid(), hit.tid(), signal) != 0) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
    }

    /**
     * stop(): the process stays stopped at the probe. On the uprobe path a held process is left
     * stopped when its hold ends; one not held (a hit whose probe did not hold) is stopped now;
     * either way dtrace continues it when it lets the process go (Holds). On ptrace a SIGSTOP.
     */
    @Override
    public void stopProcess() throws FaultException {
        UprobeSites k = state.kernel;
        if (k != null && k.holds.stopHeld(hit.pid())) return;
        tgkill(Sys.SIGSTOP);
        if (k != null) k.holds.stoppedBy(hit.pid());
    }
}
