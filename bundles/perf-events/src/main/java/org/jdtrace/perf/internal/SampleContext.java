/*
 * The probe context of a firing made from a kernel sample (profile-N, and the tracepoint
 * providers' firings): the process and thread the kernel saw running on that CPU, the CPU, the
 * pcs and call chains the sample carries. One instance per provider, refilled by at() for each
 * firing on the drain thread (the only thread that fires these probes), so a firing allocates
 * nothing until a clause asks for a stack or a string.
 *
 * arg0/arg1 are profile's (kernel pc, 0 in user mode / user pc, 0 in the kernel) unless the
 * provider sets its own args. ustack() unwinds the user stack copied at the sample
 * (PERF_SAMPLE_STACK_USER, from the user registers of the sample) by the mapped objects'
 * call-frame information (org.jdtrace.unwind.Unwinder over UserSymbols.View), as perf's
 * --call-graph dwarf does; where the sample has no copy, or that walk gets no further than the
 * pc, it is the user part of the kernel's call chain (frame pointers). jstack() is the same walk
 * with a HotSpot JVM's interpreter frames named by their methods (HotSpotVm, through
 * UserSymbols.View). stack() is the kernel part, symbolised through kallsyms. Memory of the process is not
 * read here: the sample is drained after the fact, so copyin faults (BADADDR) rather than read
 * memory that may have changed; the syscall provider captures its strings in the kernel.
 *
 * Destructive actions (the compiler lets them through only with -w): raise(sig) sends sig to the
 * thread that fired (tgkill(pid, tid): the event's pid and tid, never the drain thread's) and
 * stop() sends SIGSTOP to it, which stops its whole process, as DTrace's stop() does. Both happen
 * when the record is processed, after the event: the thread has run on for up to a drain period
 * (DTrace posts the signal at the event, delivered on the thread's return to user mode). A thread
 * gone since the event is not signalled (ESRCH, no fault: the signal would have died with it);
 * tgkill checks pid and tid together, so a reused pid is never signalled in its place. A
 * firing in no process (pid 0: the idle task) or a bad signal number faults (ILLOP).
 */
package org.jdtrace.perf.internal;

import java.util.Arrays;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.perf.Sample;
import org.jdtrace.proc.HotSpotVm;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.unwind.RegisterNumbering;
import org.jdtrace.unwind.StackSnapshot;
import org.jdtrace.unwind.Unwinder;

class SampleContext implements ProbeContext {

    private final PerfEvents perf;
    private final Comms comms;
    private final UserSymbols symbols;
    private final Abi abi;
    protected Sample s;
    protected final long[] args = new long[10];
    /** errno of raise()'s tgkill (drain thread only: one per context, nothing allocated per call). */
    private final java.lang.foreign.MemorySegment callState = PerfSys.callState();
    private final PerfSys sys;

    /** The CFI unwinder and its scratch (null when the ISA has no DWARF numbering). */
    private final Unwinder unwinder;
    private final long[] dwarf;
    private final long[] pcs = new long[1024], fps = new long[1024];
    private final StackSnapshot snapshot = new StackSnapshot();
    /** What the snapshot reads a sample's stack copy through (StackSnapshot: only as far as the walk reads). */
    private byte[] stackBuffer = new byte[ProfileSampler.USTACKBYTES];
    private final UserSymbols.View view;

    /** The register frame of the BPF programs' user stack sections (BpfAsm.userStack), null when the ISA has none. */
    protected final BpfAsm.UserRegs userRegs;
    /** A section's words and register file, reused (drain thread only). */
    private final long[] sectionWords;
    private org.jdtrace.isa.RegisterFile sectionRegs;
    /** The sample's user registers as a RegisterFile, rewritten by each userState (firing thread only). */
    private org.jdtrace.isa.RegisterFile perfRegs;

    SampleContext(PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi) {
        this.perf = perf;
        this.comms = comms;
        this.symbols = symbols;
        this.abi = abi;
        this.sys = new PerfSys(abi);
        this.userRegs = BpfAsm.UserRegs.of(abi);
        this.sectionWords = new long[userRegs == null ? 0 : userRegs.words()];
        RegisterNumbering n = abi.dwarfNumbering();
        this.unwinder = n == null ? null : new Unwinder(n);
        this.dwarf = n == null ? null : new long[n.count()];
        this.view = symbols.view();
    }

    /** Fills the context for a profile sample: arg0 kernel pc, arg1 user pc. */
    SampleContext profile(Sample sample) {
        this.s = sample;
        Arrays.fill(args, 0);
        if (sample.user) args[1] = sample.ip;
        else args[0] = sample.ip;
        return this;
    }

    /** Fills the context for a tracepoint firing with the provider's args. */
    SampleContext event(Sample sample) {
        this.s = sample;
        Arrays.fill(args, 0);
        return this;
    }

    @Override
    public long arg(int i) {
        return i >= 0 && i < args.length ? args[i] : 0;
    }

    @Override
    public long pid() {
        return s.pid;
    }

    /**
     * The map of each process's ppid at its latest event (CaptureProgram.ppids, ProfileSampler's
     * filter), or null: the ppid is read from /proc after the event.
     */
    volatile org.jdtrace.perf.BpfObject ppids;

    @Override
    public long ppid() {
        org.jdtrace.perf.BpfObject m = ppids;
        if (m != null) {
            long p = m.lookup((int) pid());
            if (p != Long.MIN_VALUE) return p;
        }
        try {
            // after the event: a process gone since gives 0 (syscall and the captured proc probes
            // read it in the kernel at the event instead)
            return org.jdtrace.proc.Procfs.status(pid()).ppid();
        } catch (Exception e) {
            // gone
        }
        return 0;
    }

    @Override
    public long tid() {
        return s.tid;
    }

    /**
     * The thread's time on CPU, read from /proc/PID/task/TID/schedstat when the record is
     * processed, after the event (a cpu-clock sample carries none): later than the event by the
     * time the thread ran since, up to a drain period; 0 for a thread gone since. The tracepoint
     * providers and syscall capture theirs at the event.
     */
    @Override
    public long vtimestamp() {
        return org.jdtrace.spi.ThreadCpuTime.of(pid(), tid());
    }

    @Override
    public String execname() {
        // DTrace's execname is the process's name: its main thread's comm (Linux names threads)
        return comms.get(s.pid, s.pid);
    }

    @Override
    public int cpu() {
        return s.cpu;
    }

    @Override
    public long timestamp() {
        return s.time != 0 ? s.time : System.nanoTime();
    }

    @Override
    public long[] ustack(int max) {
        int n = walk(max, null);
        if (n > 1 || n == 1 && s.userDepth == 0) return Arrays.copyOf(pcs, n);
        return Arrays.copyOf(s.userChain, Math.max(0, Math.min(max, s.userDepth)));
    }

    /**
     * The CFI walk of the sample's copied user stack into {@link #pcs} (and each frame's fp into
     * {@code fps} when not null); answers the frames found, 0 when the sample has no copy.
     */
    private int walk(int max, long[] fps) {
        if (max > 0 && unwinder != null) {
            try {
                long known = userState(dwarf, snapshot);
                if (known != 0) return unwinder.walk(dwarf, known, snapshot, view.at((int) pid(), s.time), pcs, fps, Math.min(max, pcs.length));
            } catch (UnsupportedOperationException e) {
                // no perf register convention: the call chain
            }
        }
        return 0;
    }

    /**
     * The firing's user registers in DWARF numbering into {@code dwarf} and its copy of the user
     * stack into {@code snapshot}; answers the mask of the registers known, 0 when the firing has
     * none (then no CFI walk). A profile sample's: PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER
     * (the copy starts at the sp). A provider whose BPF program captured them overrides it.
     */
    protected long userState(long[] dwarf, StackSnapshot snapshot) {
        if (s.userStackSize <= 0 || s.userRegsCount <= 0) return 0;
        long known = abi.dwarfRegisters(perfRegs = abi.fromPerfRegs(s.userRegs, s.userRegsCount, perfRegs), dwarf);
        if (stackBuffer.length < s.userStackSize) stackBuffer = new byte[s.userStackSize];
        snapshot.reset(dwarf[unwinder.numbering().sp()], s.userStack, s.userStackOffset, s.userStackSize, stackBuffer, null);
        return known;
    }

    /**
     * The user registers of the user stack section at {@code at} in the BPF record {@code r}
     * (BpfAsm.userStack), or null when the record ends before one (its probe walked no stack).
     */
    protected org.jdtrace.isa.RegisterFile sectionRegs(java.lang.foreign.MemorySegment r, long at) {
        if (userRegs == null || r.byteSize() < at + BpfAsm.SECTION_REGS + 8L * userRegs.words()) return null;
        for (int i = 0; i < sectionWords.length; i++) {
            sectionWords[i] = r.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at + BpfAsm.SECTION_REGS + 8L * i);
        }
        return sectionRegs = abi.fromKernelRegs(sectionWords, sectionRegs);
    }

    /**
     * userState from the user stack section at {@code at} in the BPF record {@code r}: its
     * registers, and its stack copy from the copy's address; 0 when the record has no section or
     * its registers are no user thread's (a kernel thread's pc is 0).
     */
    protected long sectionState(java.lang.foreign.MemorySegment r, long at, long[] dwarf, StackSnapshot snapshot) {
        org.jdtrace.isa.RegisterFile rf = sectionRegs(r, at);
        if (rf == null || rf.pc() == 0) return 0;
        long data = at + BpfAsm.SECTION_REGS + 8L * userRegs.words();
        long len = r.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at + BpfAsm.SECTION_LEN);
        if (len < 0 || len > r.byteSize() - data) len = 0;
        snapshot.reset(r.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at + BpfAsm.SECTION_ADDR), r, data, len, null);
        return abi.dwarfRegisters(rf, dwarf);
    }

    /** uregs[reg] of {@code regs}: a register the ABI does not name is an illegal operation. */
    protected long ureg(org.jdtrace.isa.RegisterFile regs, int reg) throws FaultException {
        try {
            return abi.ureg(regs, reg);
        } catch (IsaException | UnsupportedOperationException e) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
    }

    /**
     * jstack(): the walk ustack() makes, each frame as ustack() names it, except that an
     * interpreter frame of a HotSpot JVM is named by its method, read from the frame's Method*
     * slot in the stack copied at the sample ({@code [interpreter]`pkg.Class.method}), or
     * {@code [interpreter]} alone when that slot is outside the copy or names no method.
     */
    @Override
    public String[] jstack(int max) {
        int n = walk(max, fps);
        if (n <= 1) return null;
        HotSpotVm vm = view.at((int) pid()).jvm();
        String[] frames = new String[n];
        for (int i = 0; i < n; i++) {
            String name = vm == null ? null : vm.interpreterFrame(pcs[i], fps[i], snapshot);
            if (name == null) name = symbols.lookup((int) pid(), pcs[i], s.time);
            frames[i] = name == null ? "0x" + Long.toHexString(pcs[i]) : name;
        }
        return frames;
    }

    @Override
    public long[] stack(int max) {
        return Arrays.copyOf(s.kernelChain, Math.max(0, Math.min(max, s.kernelDepth)));
    }

    @Override
    public String usym(long pc) {
        return symbols.lookup((int) pid(), pc, s.time);
    }

    @Override
    public String ksym(long pc) {
        return perf.ksym(pc);
    }

    @Override
    public long ucaller() {
        long[] st = ustack(2);
        return st.length > 1 ? st[1] : 0;
    }

    @Override
    public long uregs(int reg) throws FaultException {
        if (s.userRegsCount == 0) throw new FaultException(FaultException.Kind.ILLOP, 0);
        try {
            return ureg(perfRegs = abi.fromPerfRegs(s.userRegs, s.userRegsCount, perfRegs), reg);
        } catch (UnsupportedOperationException e) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
    }

    @Override
    public void raise(int signal) throws FaultException {
        signal(signal);
    }

    @Override
    public void stopProcess() throws FaultException {
        signal(PerfSys.SIGSTOP);
    }

    private void signal(int signal) throws FaultException {
        long pid = pid(), tid = tid();
        if (pid <= 0 || tid <= 0) throw new FaultException(FaultException.Kind.ILLOP, 0);
        int errno = sys.tgkill(callState, (int) pid, (int) tid, signal);
        if (errno != 0 && errno != ESRCH) throw new FaultException(FaultException.Kind.ILLOP, 0);
    }

    private static final int ESRCH = 3;
}
