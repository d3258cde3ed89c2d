package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.elf.SymbolTable;
import org.jdtrace.fasttrap.Site;
import org.jdtrace.fasttrap.SiteHandler;
import org.jdtrace.fasttrap.TargetObject;
import org.jdtrace.fasttrap.TracedTarget;
import org.jdtrace.fasttrap.TracepointRefused;
import org.jdtrace.isa.Isa;
import org.jdtrace.provider.fasttrap.internal.proc.TracepointException;
import org.jdtrace.provider.fasttrap.internal.proc.TracepointHandler;
import org.jdtrace.provider.fasttrap.internal.proc.TracedProcess;
import org.jdtrace.provider.fasttrap.internal.sym.Function;
import org.jdtrace.provider.fasttrap.internal.sym.FunctionTable;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.provider.fasttrap.internal.sym.ProcessModules;
import org.jdtrace.spi.ProbeDescription;

/*
 * What the pid provider shares about one traced process (fasttrap_proc_t): the TracedProcess
 * (one ptrace attachment, one tracepoint table), its modules and functions, and a count of
 * probes per provider name (pid123; USDT providers of the same process hold their own sites
 * through the exported TracedTarget view, org.jdtrace.fasttrap). Retiring one provider name
 * drops only its count; the process and the tracepoints other providers hold stay.
 *
 * THE RULE (illumos bug 6573659): only exit and exec make the state defunct, and markDefunct
 * below is the one place that sets it; PidProvider calls it from exactly those two process
 * events. Retiring a provider (a USDT provider whose library was dlclose()d, provider-sdt
 * stopped, pid probes destroyed) never does: the next pid probe hit would otherwise find no
 * tracepoint and the process would die of an unhandled SIGTRAP. ProcessStateRuleTest checks it.
 *
 * It also remembers every description provide() accepted for the process, those that matched
 * nothing included (dtrace -Z): when the dynamic linker maps a new object (RtldEvents), rescan()
 * tells which objects came and went, and the provider plans those descriptions again for the
 * new objects only.
 */
final class ProcessState implements TracedTarget {

    final TracedProcess process;
    /**
     * The consumers holding it through ProcessControl (-c, -p; dt_proc's reference count), those
     * of them that have not said go yet, and whether it was let go (released or killed: no new
     * hold): guarded by ProcessControlImpl's lock. The last holder's end releases it.
     */
    int holders, waiting;
    boolean released;
    /** True when the provider grabbed it itself (pid123 named in a description, no -p). */
    final boolean ownedByProvider;
    final PidContext context;
    private final Map<String, Integer> probesPerProvider = new ConcurrentHashMap<>();
    private volatile List<MappedObject> modules;
    private final Map<MappedObject, List<Function>> functions = new ConcurrentHashMap<>();
    private final Map<MappedObject, SymbolTable> symbolTables = new ConcurrentHashMap<>();
    private volatile String execname;
    private volatile long ppid = -1;
    private volatile boolean defunct;
    private final Isa isa;
    /** The objects' call-frame information for ustack() (see ProcessUnwind). */
    final ProcessUnwind unwind = new ProcessUnwind(this);
    /** The view of a hit that other providers get (org.jdtrace.fasttrap.Hit); control thread only. */
    final SiteContext siteContext;
    /**
     * Non-null while the kernel's uprobes serve this process's probes (chosen when it is
     * followed; the process then runs untraced from go() on), null on the ptrace path.
     */
    volatile UprobeSites kernel;
    /** The contexts of hits the kernel captured: drain thread only. */
    final PidContext kernelContext;
    final SiteContext kernelSiteContext;
    private org.jdtrace.provider.fasttrap.internal.proc.HitContext capturedHit;
    private org.jdtrace.isa.RegisterFile capturedRegs;
    private org.jdtrace.unwind.StackSnapshot capturedStack;
    /** The kernel's record of the captured hit being handled (its strings: capturedString). */
    private org.jdtrace.perf.UserHit capturedUser;
    /** The descriptions provide() accepted for this process, in the order given. */
    final Set<ProbeDescription> descriptions = java.util.Collections.synchronizedSet(new java.util.LinkedHashSet<>());

    /** What a dynamic linker event changed: objects mapped since, objects gone since. */
    record ModuleChange(List<MappedObject> added, List<MappedObject> removed) {}

    /** The platform's one reading of each ELF file: symbols and CFI shared with every provider. */
    final org.jdtrace.elf.ObjectFiles objects;

    ProcessState(TracedProcess process, boolean ownedByProvider, Isa isa, org.jdtrace.elf.ObjectFiles objects) {
        this.process = process;
        this.objects = objects;
        this.ownedByProvider = ownedByProvider;
        this.context = new PidContext(this, isa.abi());
        this.siteContext = new SiteContext(this, isa.abi());
        this.kernelContext = new PidContext(this, isa.abi());
        this.kernelSiteContext = new SiteContext(this, isa.abi());
        this.isa = isa;
    }

    /** A hit the kernel captured, as the context of this process's handlers (drain thread only, nothing allocated after the first). */
    org.jdtrace.provider.fasttrap.internal.proc.HitContext captured(org.jdtrace.perf.UserHit h, org.jdtrace.isa.Abi abi) {
        if (capturedHit == null) {
            capturedHit = org.jdtrace.provider.fasttrap.internal.proc.HitContext.captured(process);
            capturedStack = new org.jdtrace.unwind.StackSnapshot();
        }
        capturedRegs = abi.fromKernelRegs(h.regs, capturedRegs);
        capturedUser = h;
        // the stack bytes captured at the hit, over the live memory (read when the clause runs)
        capturedStack.reset(h.stackAddr, h.stack, process.memory());
        return capturedHit.capture(h.tid, capturedRegs, capturedStack, h.time, h.cpu);
    }

    /**
     * The user string at {@code addr} as the kernel read it at the captured hit {@code hit} is
     * (Probe.userStrings), or null: none read there, or {@code hit} is not a captured hit.
     */
    String capturedString(org.jdtrace.provider.fasttrap.internal.proc.HitContext hit, long addr, int max) {
        return hit == capturedHit && capturedUser != null ? capturedUser.string(addr, max) : null;
    }

    /** Why a process became defunct: the only two. */
    enum Death { EXEC, EXIT }

    /**
     * The one place that makes the state defunct (see the theory above): called by PidProvider
     * for the process's exec and exit events only. Idempotent.
     */
    void markDefunct(Death why) {
        if (why == Death.EXEC) execname = null;
        defunct = true;
    }

    /** Up to code.length bytes of the original code at {@code pc}: from its object's file, else from memory. */
    private int readCode(long pc, byte[] code) {
        try {
            for (MappedObject o : modules()) {
                if (!o.contains(pc)) continue;
                for (int n = code.length; n > 0; n--) {
                    try {
                        byte[] b = o.elf().read(pc - o.bias(), n);
                        System.arraycopy(b, 0, code, 0, n);
                        return n;
                    } catch (org.jdtrace.elf.ElfException e) {
                        // past the end of the segment: fewer bytes
                    }
                }
            }
        } catch (IOException e) {
            // the maps cannot be read: memory below
        }
        return process.memory().readSome(pc, code, 0, code.length);
    }

    @Override
    public boolean defunct() {
        return defunct;
    }

    @Override
    public boolean kernelRuns(org.jdtrace.spi.KernelClause clause, int[] args) {
        UprobeSites k = kernel;
        return k != null && k.runs(clause, args);
    }

    @Override
    public int pid() {
        return process.pid();
    }

    @Override
    public List<MappedObject> objects() throws IOException {
        return modules();
    }

    @Override
    public String functionAt(TargetObject object, long pc) {
        if (!(object instanceof MappedObject o)) return null;
        try {
            for (Function f : functions(o)) {
                if (pc >= f.address() && pc < f.address() + Math.max(1, f.size())) return f.name();
            }
        } catch (org.jdtrace.elf.ElfException e) {
            return null;
        }
        return null;
    }

    @Override
    public org.jdtrace.isa.Memory memory() {
        return process.memory();
    }

    /**
     * A shared tracepoint for another provider: the instruction is decoded from the object's
     * file, as the pid provider does (never from the process, where an int3 may sit already;
     * an address outside every object is read from memory), and a site already planted is
     * shared as it is, its instruction known.
     */
    @Override
    public Site trace(long pc, SiteHandler handler) throws TracepointRefused {
        return trace(pc, handler, 0);
    }

    @Override
    public Site trace(long pc, SiteHandler handler, int stackBytes) throws TracepointRefused {
        if (defunct) throw new TracepointRefused("process " + pid() + " has exec'd or exited");
        UprobeSites k = kernel;
        if (k != null) return kernelSite(k, pc, 0, stackBytes, handler);
        byte[] code = new byte[isa.maxInstructionLength()];
        org.jdtrace.isa.Instruction insn;
        try {
            org.jdtrace.isa.Instruction planted = process.plantedInstruction(pc);
            if (planted != null) {
                insn = planted;
            } else {
                int n = readCode(pc, code);
                if (n == 0) throw new TracepointRefused("cannot read process " + pid() + " at 0x" + Long.toHexString(pc));
                insn = isa.decode(n == code.length ? code : java.util.Arrays.copyOf(code, n), 0, pc);
            }
        } catch (org.jdtrace.isa.IsaException e) {
            throw new TracepointRefused("cannot decode the instruction at 0x" + Long.toHexString(pc) + ": " + e.getMessage());
        }
        if (isa.displacement(insn) == Isa.Displacement.REFUSE) {
            throw new TracepointRefused("cannot instrument the instruction at 0x" + Long.toHexString(pc));
        }
        TracepointHandler h = hit -> handler.hit(siteContext.at(hit));
        try {
            process.enable(List.of(new TracedProcess.Request(pc, insn, h)));
        } catch (TracepointException e) {
            throw new TracepointRefused(e.getMessage());
        }
        return site(pc, () -> process.disable(pc, h));
    }

    /** A hold on the site at {@code pc} whose first close() runs {@code undo} (later ones nothing). */
    private static Site site(long pc, Runnable undo) {
        return new Site() {
            private final java.util.concurrent.atomic.AtomicBoolean open = new java.util.concurrent.atomic.AtomicBoolean(true);

            @Override
            public long pc() {
                return pc;
            }

            @Override
            public void close() {
                if (open.compareAndSet(true, false)) undo.run();
            }
        };
    }

    /**
     * On the uprobe path, a site whose semaphore the kernel counts (ref_ctr_offset); null on the
     * ptrace path, or when the kernel refuses it so (another tracer's uprobe there names no
     * semaphore, or the semaphore has no place in the file): the caller counts it itself.
     */
    @Override
    public Site traceCounted(long pc, long semaphore, SiteHandler handler) {
        return traceCounted(pc, semaphore, handler, 0);
    }

    @Override
    public Site traceCounted(long pc, long semaphore, SiteHandler handler, int stackBytes) {
        UprobeSites k = kernel;
        if (k == null || defunct || semaphore == 0) return null;
        try {
            return kernelSite(k, pc, semaphore, stackBytes, handler);
        } catch (TracepointRefused e) {
            return null;
        }
    }

    /** A site on a kernel uprobe (the kernel decides what it can probe; its refusal is the message). */
    private Site kernelSite(UprobeSites k, long pc, long semaphore, int stackBytes, SiteHandler handler)
            throws TracepointRefused {
        UprobeSites.Handle link;
        try {
            link = k.attach(this, List.of(pc), semaphore, false, stackBytes, hit -> handler.hit(kernelSiteContext.at(hit)));
        } catch (UprobeSites.UprobeRefused e) {
            throw new TracepointRefused(e.getMessage());
        }
        Site s = site(pc, link::close); // the kernel removes the probe with the link's descriptor in any case
        return new Site() {
            @Override
            public long pc() {
                return pc;
            }

            @Override
            public void kernelClauses(org.jdtrace.spi.Probe probe, int[] args) throws TracepointRefused {
                try {
                    k.clauses(link, probe, args);
                } catch (UprobeSites.UprobeRefused e) {
                    throw new TracepointRefused(e.getMessage());
                }
            }

            @Override
            public void stack(int bytes) {
                link.stack(bytes);
            }

            @Override
            public void close() {
                s.close();
            }
        };
    }

    synchronized List<MappedObject> modules() throws IOException {
        if (modules == null) modules = ProcessModules.read(pid());
        return modules;
    }

    /**
     * Whether the process has exec'd since its modules were read (its executable is no longer
     * mapped where it was: a new address space); false when they were never read.
     */
    synchronized boolean execdSince() {
        List<MappedObject> m = modules;
        if (m == null) return false;
        for (MappedObject o : m) {
            if (o.executable()) return !ProcessModules.stillMaps(pid(), o);
        }
        return false;
    }

    /** Re-reads /proc/PID/maps (a library was loaded since). */
    synchronized void refreshModules() {
        List<MappedObject> old = modules;
        modules = null;
        functions.clear();
        symbolTables.clear();
        unwind.retain(List.of());
        if (old != null) ProcessModules.close(old);
    }

    /**
     * Reads /proc/PID/maps again after a dynamic linker event: an object still mapped where it
     * was keeps its MappedObject (and function table); the others are added or removed (their
     * ELF files closed). Nothing to compare with when the modules were never read.
     */
    synchronized ModuleChange rescan() throws IOException {
        List<MappedObject> old = modules;
        if (old == null) return new ModuleChange(List.of(), List.of());
        List<MappedObject> now = ProcessModules.read(pid());
        List<MappedObject> next = new ArrayList<>(), added = new ArrayList<>(), removed = new ArrayList<>(old);
        for (MappedObject n : now) {
            MappedObject same = old.stream().filter(o -> o.path().equals(n.path()) && o.start() == n.start()
                    && o.bias() == n.bias()).findFirst().orElse(null);
            if (same != null) {
                n.elf().close();
                removed.remove(same);
                next.add(same);
            } else {
                added.add(n);
                next.add(n);
            }
        }
        modules = next;
        for (MappedObject o : removed) {
            functions.remove(o);
            symbolTables.remove(o);
        }
        unwind.retain(next);
        ProcessModules.close(removed);
        return new ModuleChange(added, removed);
    }

    List<Function> functions(MappedObject obj) throws org.jdtrace.elf.ElfException {
        List<Function> f = functions.get(obj);
        if (f == null) {
            f = FunctionTable.of(obj);
            functions.put(obj, f);
        }
        return f;
    }

    void countProbe(String provider, int delta) {
        probesPerProvider.merge(provider, delta, (a, b) -> a + b <= 0 ? null : a + b);
    }

    boolean hasProbes() {
        return !probesPerProvider.isEmpty();
    }

    String execname() {
        String e = execname;
        if (e == null) {
            try {
                e = org.jdtrace.proc.Procfs.comm(pid());
            } catch (IOException ex) {
                e = "";
            }
            execname = e;
        }
        return e;
    }

    long ppid() {
        if (ppid < 0) {
            try {
                ppid = org.jdtrace.proc.Procfs.stat(pid()).ppid();
            } catch (IOException | RuntimeException ex) {
                return 0;
            }
        }
        return ppid;
    }

    /**
     * Waits up to {@code nanos} for the process to be stopped (state T, or t under another's
     * ptrace); false when it is gone (or a zombie) or did not stop in time.
     */
    boolean awaitStopped(long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (;;) {
            char state;
            try {
                state = org.jdtrace.proc.Procfs.stat(pid()).state();
            } catch (IOException | RuntimeException e) {
                return false;
            }
            if (state == 'T' || state == 't') return true;
            if (state == 'Z' || state == 'X' || System.nanoTime() > deadline) return false;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * module`function+0xoff for a pc: the object's SymbolTable (its symbol tables, MiniDebugInfo,
     * separate debug file), else the pid provider's function table (an IFUNC's implementation
     * sized from .eh_frame, named by the IFUNC), else module`0xoffset from the object's lowest
     * mapped address, as DTrace prints a pc in no symbol (the same in every run); a pc in the
     * vDSO is named from the vDSO's own symbols, one in JIT code from the process's perf map
     * ([jit]`pkg.Class.method+0xoff, HotSpot's after `jcmd PID Compiler.perfmap`), or in a HotSpot
     * JVM whose structures can be read from its live code cache (HotSpotVm); null otherwise.
     */
    String symbolize(long pc) {
        try {
            for (MappedObject o : modules()) {
                if (!o.contains(pc)) continue;
                // named by the object's file name, as usym()/ustack() print it (not "a.out")
                String module = o.executable() && o.path() != null && o.path().getFileName() != null
                        ? o.path().getFileName().toString() : o.module();
                String named = symbols(o).describe(pc - o.bias());
                if (named != null) return module + "`" + named;
                for (Function f : functions(o)) {
                    if (pc >= f.address() && pc < f.address() + Math.max(1, f.size())) {
                        long off = pc - f.address();
                        return module + "`" + f.name() + (off == 0 ? "" : "+0x" + Long.toHexString(off));
                    }
                }
                return module + "`0x" + Long.toHexString(pc - o.start());
            }
        } catch (IOException e) {
            return null;
        }
        String vdso = unwind.vdsoSymbol(pc);
        if (vdso != null) return vdso;
        // a HotSpot JVM's live code cache over its perf map (which may name code freed since)
        org.jdtrace.proc.HotSpotVm vm = jvm();
        String jit = vm != null ? vm.describe(pc) : perfMap().describe(pc);
        return jit == null ? null : "[jit]`" + jit;
    }

    private volatile org.jdtrace.proc.HotSpotVm jvm;
    private volatile long jvmAt;

    /**
     * The process's HotSpot JVM structures (org.jdtrace.proc.HotSpotVm: frame sizes of its JIT
     * code, names of its methods), looked for at most once a second while there are none; null
     * when it is no JVM.
     */
    org.jdtrace.proc.HotSpotVm jvm() {
        org.jdtrace.proc.HotSpotVm vm = jvm;
        if (vm != null || jvmAt != 0 && System.nanoTime() - jvmAt < 1_000_000_000L) return vm;
        synchronized (this) {
            if (jvm == null && (jvmAt == 0 || System.nanoTime() - jvmAt >= 1_000_000_000L)) {
                jvm = org.jdtrace.proc.HotSpotVm.of(pid());
                jvmAt = System.nanoTime();
            }
            return jvm;
        }
    }

    private volatile org.jdtrace.proc.PerfMap perfMap;

    private org.jdtrace.proc.PerfMap perfMap() {
        org.jdtrace.proc.PerfMap m = perfMap;
        if (m == null) perfMap = m = new org.jdtrace.proc.PerfMap(pid());
        return m;
    }

    /** The SymbolTable of a mapped object: the platform's (ObjectFiles), kept while it stays mapped. */
    private SymbolTable symbols(MappedObject o) {
        SymbolTable t = symbolTables.get(o);
        if (t == null) {
            if (o.path() != null) t = objects.symbols(o.path());
            if (t == null) t = SymbolTable.of(o.elf());
            symbolTables.put(o, t);
        }
        return t;
    }

    /** The uprobe path's dynamic linker watch (RtldEvents.watchOnUprobes), closed with this state; guarded by this. */
    AutoCloseable rtldWatch;
    /** rtldWatch once there is none to make (no dynamic linker, the kernel refused, the state closed). */
    static final AutoCloseable NO_WATCH = () -> { };

    /** Closes the dynamic linker watch, if any; none is made after this (an exec, the end). */
    void endRtldWatch() {
        AutoCloseable w;
        synchronized (this) {
            w = rtldWatch;
            rtldWatch = NO_WATCH;
        }
        if (w != null) {
            try {
                w.close();
            } catch (Exception e) {
                // the kernel removes the probe with the link's descriptor in any case
            }
        }
    }

    void close() {
        endRtldWatch();
        List<MappedObject> m = modules;
        modules = null;
        if (m != null) ProcessModules.close(m);
        org.jdtrace.proc.HotSpotVm vm = jvm;
        jvm = null;
        if (vm != null) vm.close();
    }
}
