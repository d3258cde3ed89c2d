package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import org.jdtrace.elf.ElfException;
import org.jdtrace.fasttrap.Fasttrap;
import org.jdtrace.fasttrap.TargetListener;
import org.jdtrace.fasttrap.TracedTarget;
import org.jdtrace.fasttrap.TracepointRefused;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.IsaException;
import org.jdtrace.proc.ProcessControl;
import org.jdtrace.proc.ProcessException;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.provider.fasttrap.internal.proc.ProcessListener;
import org.jdtrace.provider.fasttrap.internal.proc.StdioSpec;
import org.jdtrace.provider.fasttrap.internal.proc.TracedProcess;
import org.jdtrace.provider.fasttrap.internal.proc.TracepointException;
import org.jdtrace.provider.fasttrap.internal.proc.TracepointHandler;
import org.jdtrace.provider.fasttrap.internal.sym.Function;
import org.jdtrace.provider.fasttrap.internal.sym.FunctionTable;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.spi.Glob;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.jdtrace.spi.ProviderException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The pid provider (fasttrap's pid half): probes on the functions of real processes.
 *
 * provide(pid<PID>:<module>:<function>:<name>) reads the process's modules (/proc/PID/maps),
 * their functions (.symtab else .dynsym, IFUNCs resolved), matches the globs, analyses each
 * function with Isa.analyze and creates probes under the provider name pid<PID>: entry,
 * return (every return site; none for a function that never returns, whose probe never
 * fires) and one per instruction offset named in lower-case hex. A
 * process named this way that nobody created or grabbed is grabbed here (as dtrace does) and
 * released when the component goes away. A function that cannot be instrumented is skipped
 * with one warning line.
 *
 * A description it cannot honour is a ProviderException with libdtrace's words and D_* tag (a
 * bad pid D_PROC_BADPID, a process it cannot grab D_PROC_GRAB, no such function D_PROC_FUNC,
 * bad name D_PROC_NAME, offset past the end D_PROC_OFF, '-' misuse D_PROC_LIB): the consumer
 * prints it as one line. A module that is not mapped is no error: the description then
 * matches nothing (D_PDESC_ZERO), as in dtrace.
 *
 * Libraries loaded later (dlopen, as DTrace with rtld_db): every description provide() accepted
 * for a process is remembered in its ProcessState, those that matched nothing included (dtrace
 * -Z keeps them). A tracepoint at the dynamic linker's r_brk (RtldEvents, planted when the
 * process is first followed) reports each consistent state with the thread that called dlopen or
 * dlclose held; modulesChanged then re-reads the maps, plans the remembered descriptions for the
 * new objects only and creates their probes through the registry (which enables them for the
 * retained enablings at once, before dlopen returns), and retires the probes of objects that are
 * gone after dropping their tracepoints unwritten (the memory is unmapped). That work runs on a
 * worker thread, never on the control thread, which may be needed by a framework caller.
 *
 * fasttrap-max bounds the tracepoint sites of all pid probes together; a provide() that would
 * cross it creates nothing and fails with a message naming the option (never a partial set).
 *
 * enable/disable add or remove this probe's handler on each of its tracepoints (shared,
 * reference counted in TracedProcess). Exec and exit retire pid<PID> from a separate thread
 * (never from the control thread, which the framework may be waiting for).
 *
 * Two paths, one provider (the user sees the same probes). By default a process's probes are
 * the kernel's uprobes (UprobeSites, through perf-events' UserProbes: one uprobe_multi link per
 * enabled probe, what the clause reads captured at the hit by BPF, fired on the drain thread):
 * ptrace serves only the start (-c held at its entry point, -p and pid<N> stopped while the
 * probes go in) and go() detaches every thread (TracedProcess.untrace), so the process runs
 * untraced, others (dtrace, strace, gdb) may attach, and a killed dtrace leaves nothing behind.
 * The choice is made when a process is followed (ProcessState.kernel): ptrace when switched off
 * (-x uprobes=off, -Djdtrace.uprobes=off), when no perf events service is there, or when the
 * kernel refuses (one warning line with its reason). A probe the kernel refuses is one warning
 * line; the rest of the enabling goes on. The uprobe path has no dynamic linker events (dlopen
 * after the start) and sees exec and exit only as the end of the process.
 *
 * Probes for every process (provider `pid`, pid 0, matched by `pid*`): a library named by its
 * file name (found in this JVM's mappings or the usual directories) is planned as a process's
 * object with bias 0; its probes are uprobes on the file in any process that maps it, now or
 * later (EveryProcessContext), with the probe's pid filter (/pid == N/) applied in the kernel
 * (filterChanged). Only on uprobes.
 *
 * Deactivation (the bundle or the ISA service stops) releases every process: every int3
 * removed, scratch unmapped, every thread detached, every uprobe link closed.
 *
 * It is also the Fasttrap service (org.jdtrace.fasttrap) through which provider-sdt's USDT
 * probes share these processes and their tracepoints: its TargetListeners hear of each process
 * followed (track), of each dynamic linker change (modulesChanged, the thread held), of exec
 * and exit (the only ways to defunct, ProcessState.markDefunct) and, before any release or
 * kill, `releasing`, so that they undo their writes while the process is still traced.
 */
@Component(service = {Provider.class, ProcessControl.class, ProcessTable.class, Fasttrap.class}, property = "provider.name=pid",
        configurationPid = "org.jdtrace.fasttrap", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = PidProvider.Config.class)
public final class PidProvider implements Provider, ProcessControl, ProcessTable, Fasttrap {

    @ObjectClassDefinition(name = "jdtrace pid provider", description = "fasttrap limits")
    public @interface Config {
        @AttributeDefinition(description = "maximum number of pid tracepoints (dtrace -x fasttrap-max)")
        int fasttrap$_$max() default 250_000;
    }

    private static final Logger LOG = LoggerFactory.getLogger(PidProvider.class);
    private static final Pattern PID_PROVIDER = Pattern.compile("pid([0-9]+)");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]+");

    @Reference(target = "(isa=amd64)")
    private Isa isa;

    /** The platform's one reading of each ELF file (symbols, CFI), shared with the kernel providers. */
    @Reference
    private org.jdtrace.elf.ObjectFiles objects;

    /** The kernel's perf events and BPF: pid and USDT probes on uprobes when present (UprobeSites). */
    private volatile PerfEvents perf;

    @Reference(cardinality = org.osgi.service.component.annotations.ReferenceCardinality.OPTIONAL,
            policy = org.osgi.service.component.annotations.ReferencePolicy.DYNAMIC, unbind = "unbindPerf")
    void bindPerf(PerfEvents p) {
        perf = p;
    }

    /** The perf events service goes (its bundle stops; it closed every link): the next process starts afresh. */
    synchronized void unbindPerf(PerfEvents p) {
        if (perf != p) return;
        perf = null;
        if (kernelSites != null) kernelSites.close();
        kernelSites = null;
        refusalTold = false;
    }

    /** Whether probes go on kernel uprobes when the kernel allows (-x uprobes=off, -Djdtrace.uprobes=off: ptrace). */
    private volatile boolean uprobes = !"off".equals(System.getProperty("jdtrace.uprobes"));
    private UprobeSites kernelSites;
    private boolean refusalTold;
    private final Map<Probe, AutoCloseable> links = new ConcurrentHashMap<>();
    /** Bytes of user stack a uprobe hit copies for a probe with ustack() (-x ustackbytes; 8192 as perf's and profile's). */
    private volatile int ustackbytes = 8192;
    private static final int USTACKBYTES_MAX = 65528;

    private volatile ProbeRegistry registry;
    private volatile int max = 250_000;
    private final Map<Integer, ProcessState> processes = new ConcurrentHashMap<>();
    private final Map<Probe, TracepointHandler> handlers = new ConcurrentHashMap<>();
    private final List<java.util.function.Consumer<ProcessState>> trackListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<TargetListener> targetListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicLong sites = new AtomicLong();
    private final ExecutorService retirer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jdtrace-pid-retire");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService rtldWorker = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "jdtrace-pid-rtld");
        t.setDaemon(true);
        return t;
    });

    public PidProvider() {}

    /** For tests and embedding without DS: probes on ptrace. */
    public PidProvider(Isa isa, int max) {
        this(isa, max, null);
    }

    /** For tests and embedding without DS: probes on the kernel's uprobes through {@code perf} when not null. */
    public PidProvider(Isa isa, int max, PerfEvents perf) {
        this.isa = isa;
        this.max = max;
        this.perf = perf;
        this.objects = new org.jdtrace.elf.ObjectFiles();
    }

    /** SIGTERM, Ctrl-C or System.exit with processes still traced: release them on the way out. */
    private final Thread shutdownHook = new Thread(this::releaseAll, "jdtrace-pid-shutdown");

    @Activate
    void activate(Config config) {
        configure(config);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    @Modified
    void configure(Config config) {
        max = config.fasttrap$_$max();
    }

    @Deactivate
    public void deactivate() {
        releaseAll();
        synchronized (this) {
            if (kernelSites != null) kernelSites.close();
            kernelSites = null;
        }
        for (MappedObject o : everyProcessObjects.values()) o.elf().close();
        everyProcessObjects.clear();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // shutting down already, or never registered (constructed without DS)
        }
        retirer.shutdown();
        rtldWorker.shutdown();
    }

    private void releaseAll() {
        for (ProcessState s : List.copyOf(processes.values())) {
            releasing(s);
            try {
                s.process.release();
            } catch (RuntimeException e) {
                LOG.warn("pid{}: release failed: {}", s.pid(), e.getMessage());
            }
            s.close();
        }
        processes.clear();
    }

    /** Tracepoints planted in process {@code pid} now (the rtld one included), -1 if not followed. */
    int tracepointCount(int pid) {
        ProcessState s = processes.get(pid);
        return s == null ? -1 : s.process.tracepointCount();
    }

    public int fasttrapMax() {
        return max;
    }

    @Override
    public void setFasttrapMax(int max) {
        this.max = max;
    }

    @Override
    public void setUprobes(boolean on) {
        this.uprobes = on;
    }

    /**
     * The uprobe sites for a process followed now, or null for the ptrace path: uprobes switched
     * off, or refused by the kernel (told once, in one warning line with the kernel's reason).
     */
    private synchronized UprobeSites kernelSitesForNewProcess() {
        if (!uprobes || perf == null) return null; // off, or embedded without perf events: ptrace
        if (kernelSites == null) kernelSites = new UprobeSites(perf, isa.abi(), () -> registry);
        String why = kernelSites.refusal();
        if (why == null) return kernelSites;
        if (!refusalTold) {
            refusalTold = true;
            LOG.warn("pid probes use ptrace: the kernel refuses uprobes ({})", why);
        }
        kernelSites = null; // the next process tries again (a perf events service may come)
        return null;
    }

    /** Drops recorded by the kernel's uprobe rings so far (tests). */
    synchronized long uprobeDrops() {
        return kernelSites == null ? 0 : kernelSites.drops.get();
    }

    // ------------------------------------------------------------------ ProcessControl

    @Override
    public TargetProcess create(List<String> argv, Stdio stdio) throws ProcessException {
        return create(argv, stdio, Evaltime.POSTINIT);
    }

    @Override
    public TargetProcess create(List<String> argv, Stdio stdio, Evaltime at) throws ProcessException {
        return create(argv, new StdioSpec(stdio.pipeIn(), stdio.pipeOut(), stdio.pipeErr(), null), at);
    }

    /** As {@link #create(List, Stdio)} with standard output sent to a file (tests, benchmarks). */
    public TargetProcess create(List<String> argv, java.nio.file.Path stdout) throws ProcessException {
        return create(argv, stdout == null ? StdioSpec.INHERIT : StdioSpec.outTo(stdout), Evaltime.POSTINIT);
    }

    /** As {@link #create(List, java.nio.file.Path)}, held at {@code at} (tests). */
    public TargetProcess create(List<String> argv, java.nio.file.Path stdout, Evaltime at) throws ProcessException {
        return create(argv, stdout == null ? StdioSpec.INHERIT : StdioSpec.outTo(stdout), at);
    }

    private TargetProcess create(List<String> argv, StdioSpec io, Evaltime at) throws ProcessException {
        String missing = Executables.problem(argv.isEmpty() ? "" : argv.get(0));
        if (missing != null) throw new ProcessException(missing);
        TracedProcess p;
        try {
            p = TracedProcess.create(argv, isa, max, io, EvaltimeStops.of(at));
        } catch (RuntimeException e) {
            throw new ProcessException(e.getMessage());
        }
        return target(track(p, false));
    }

    @Override
    public TargetProcess grab(int pid) throws ProcessException {
        ProcessState s = processes.get(pid);
        if (s != null) return target(s);
        TracedProcess p;
        try {
            p = grabWaiting(pid);
        } catch (RuntimeException e) {
            throw new ProcessException(e.getMessage().startsWith("failed") ? e.getMessage()
                    : "failed to grab pid " + pid + ": " + e.getMessage());
        }
        return target(track(p, false));
    }

    private ProcessState track(TracedProcess p, boolean owned) {
        ProcessState s = new ProcessState(p, owned, isa, objects);
        s.kernel = kernelSitesForNewProcess();
        // read now: on the uprobe path clauses run after the event, maybe once the process is reaped
        if (s.kernel != null) {
            s.execname();
            s.ppid();
        }
        processes.put(p.pid(), s);
        p.addListener(new ProcessListener() {
            @Override
            public void exec(TracedProcess process) {
                s.markDefunct(ProcessState.Death.EXEC);
                s.refreshModules();
                tell(l -> l.defunct(s));
                retireLater(s, false);
            }

            @Override
            public void exited(TracedProcess process, int status) {
                s.markDefunct(ProcessState.Death.EXIT);
                tell(l -> l.defunct(s));
                retireLater(s, true);
            }
        });
        if (s.kernel == null) RtldEvents.watch(s, isa, () -> modulesChanged(s), rtldWorker);
        for (java.util.function.Consumer<ProcessState> l : trackListeners) l.accept(s);
        tell(l -> l.followed(s));
        return s;
    }

    /** Tells every TargetListener; one that fails is one warning line, the others are told. */
    private void tell(java.util.function.Consumer<TargetListener> event) {
        for (TargetListener l : targetListeners) {
            try {
                event.accept(l);
            } catch (RuntimeException e) {
                LOG.warn("fasttrap listener {} failed: {}", l, e.toString());
                LOG.debug("listener failure", e);
            }
        }
    }

    /** Before a release or kill: the listeners undo their writes while the process is still traced. */
    private void releasing(ProcessState s) {
        if (!s.defunct()) tell(l -> l.releasing(s));
    }

    // ------------------------------------------------------------------ Fasttrap

    @Override
    public java.util.Collection<ProcessState> targets() {
        return List.copyOf(processes.values());
    }

    @Override
    public void addTargetListener(TargetListener l) {
        targetListeners.add(l);
    }

    @Override
    public void removeTargetListener(TargetListener l) {
        targetListeners.remove(l);
    }

    /** A holder of a process through the API counts as a probe provider of it (ProcessState.countProbe). */
    private static final String API_HOLD = " fasttrap-api";

    @Override
    public TracedTarget follow(int pid) throws TracepointRefused {
        try {
            ProcessState s = grabForProbes(pid);
            s.countProbe(API_HOLD, 1);
            return s;
        } catch (ProviderException e) {
            throw new TracepointRefused(e.getMessage());
        }
    }

    @Override
    public void unfollow(TracedTarget t) {
        if (!(t instanceof ProcessState s)) return;
        s.countProbe(API_HOLD, -1);
        letGoIfUnused(s);
    }

    /** A process grabbed only for probes, none left: released untouched. */
    private void letGoIfUnused(ProcessState s) {
        if (s.ownedByProvider && !s.hasProbes() && !s.defunct() && processes.get(s.pid()) == s) {
            releasing(s);
            s.process.release();
            processes.remove(s.pid(), s);
            s.close();
        }
    }

    // ------------------------------------------------------------------ ProcessTable

    @Override
    public java.util.Collection<ProcessState> processes() {
        return List.copyOf(processes.values());
    }

    @Override
    public void addTrackListener(java.util.function.Consumer<ProcessState> l) {
        trackListeners.add(l);
    }

    @Override
    public void removeTrackListener(java.util.function.Consumer<ProcessState> l) {
        trackListeners.remove(l);
    }

    private void retireLater(ProcessState s, boolean forget) {
        retirer.execute(() -> {
            ProbeRegistry r = registry;
            if (r != null) r.retire("pid" + s.pid());
            if (forget) {
                processes.remove(s.pid(), s);
                s.close();
            }
        });
    }

    /**
     * TracedProcess.grab, waiting up to GRAB_WAIT_NANOS while another tracer holds the process
     * (on the uprobe path another dtrace holds it only while its probes go in, then lets go: two
     * started at once must not fail); a process nobody traces fails at once, after one more try
     * (the other tracer may have let go between the refusal and the look at TracerPid).
     */
    private TracedProcess grabWaiting(int pid) {
        long deadline = System.nanoTime() + GRAB_WAIT_NANOS;
        boolean triedFree = false;
        for (;;) {
            try {
                return TracedProcess.grab(pid, isa, max);
            } catch (RuntimeException e) {
                if (!uprobes || perf == null || System.nanoTime() > deadline) throw e;
                if (!tracedByOther(pid)) {
                    if (triedFree) throw e;
                    triedFree = true;
                    continue;
                }
                triedFree = false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting to grab pid " + pid);
            }
        }
    }

    private static final long GRAB_WAIT_NANOS = 10_000_000_000L;

    /** Whether another process ptraces {@code pid} now (/proc/PID/status' TracerPid). */
    private static boolean tracedByOther(int pid) {
        try {
            for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc", Integer.toString(pid), "status"))) {
                if (l.startsWith("TracerPid:")) return !l.substring(10).strip().equals("0");
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** Lets a held process run: on the uprobe path untraced from now on (ptrace only for the start). */
    private static void letRun(ProcessState s) {
        if (s.kernel != null) s.process.untrace();
        else s.process.go();
    }

    private TargetProcess target(ProcessState s) {
        TracedProcess p = s.process;
        return new TargetProcess() {
            @Override public int pid() { return p.pid(); }
            @Override public boolean created() { return p.created(); }
            @Override public void go() { letRun(s); }
            @Override public int awaitExit(long t, TimeUnit u) throws InterruptedException { return p.awaitExit(t, u); }
            @Override public boolean exited() { return p.ended(); }
            @Override public int exitStatus() { return p.exitStatus(); }
            @Override public java.io.OutputStream stdin() { return p.stdin(); }
            @Override public java.io.InputStream stdout() { return p.stdout(); }
            @Override public java.io.InputStream stderr() { return p.stderr(); }
            @Override public void release() { end(s, false); }
            @Override public void kill() { end(s, true); }
            @Override public void close() { end(s, p.created()); }
        };
    }

    private void end(ProcessState s, boolean kill) {
        releasing(s);
        ProbeRegistry r = registry;
        if (r != null) r.retire("pid" + s.pid());
        if (kill) s.process.kill();
        else s.process.release();
        processes.remove(s.pid(), s);
        s.close();
    }

    // ------------------------------------------------------------------ Provider

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return org.jdtrace.spi.ProviderAttributes.PID;
    }

    @Override
    public String name() {
        return "pid";
    }

    @Override
    public void attach(ProbeRegistry registry) {
        this.registry = registry;
    }

    /**
     * The hits the kernel's uprobes captured and the drain thread has not fired yet fire now (the
     * pid probes' and the USDT sites' alike: they share the capture).
     */
    @Override
    public void sync() {
        PerfEvents p = perf;
        boolean open;
        synchronized (this) {
            open = kernelSites != null;
        }
        if (p != null && open) p.drain();
    }

    @Override
    public void detach() {
        registry = null;
    }

    /** A probe to create; {@code alias}: the other name the description gave its function, or null. */
    private record Creation(String module, String function, String name, PidProbe probe, String alias) {
        Creation(String module, String function, String name, PidProbe probe) {
            this(module, function, name, probe, null);
        }

        Creation aliased(String a) {
            return new Creation(module, function, name, probe, a);
        }
    }

    @Override
    public void provide(ProbeDescription desc) {
        ProbeRegistry reg = registry;
        if (reg == null) return;
        int pid = pidOf(desc.provider());
        if (pid == 0) {
            if (desc.provider().startsWith(EVERY_PROCESS)) provideEveryProcess(reg, desc);
            return;
        }
        ProcessState s = grabForProbes(pid);
        if (s.defunct()) return;
        createAll(reg, s, desc, plan(s, desc, null));
        s.descriptions.add(desc);
    }

    // ------------------------------------------------------------------ every process (pid*)

    /**
     * The provider of probes for every process that maps a library (pid 0: uprobes on the file,
     * in any process, now or later): {@code pid:libc.so.6:malloc:entry}, matched by
     * {@code pid*:libc.so.6:malloc:entry}. Only on the kernel's uprobes.
     */
    static final String EVERY_PROCESS = "pid";
    /** Directories a library named by its file name is looked for in, after this JVM's own mappings. */
    private static final List<String> LIBRARY_DIRS = List.of("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
            "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib");
    /** The files of probes for every process, by module name (bias 0: process addresses are file addresses). */
    private final Map<String, MappedObject> everyProcessObjects = new ConcurrentHashMap<>();

    /**
     * Probes under provider {@code pid} for the library {@code desc} names by its file name (or
     * an abbreviation libproc accepts, {@code libc}); a library that cannot be found, a glob or
     * a.out as the module match nothing.
     */
    private void provideEveryProcess(ProbeRegistry reg, ProbeDescription desc) {
        String mod = desc.module();
        if (mod.isEmpty() || !Glob.isLiteral(mod) || mod.equals("a.out") || desc.function().equals("-")) return;
        MappedObject o = everyProcessObject(mod);
        if (o == null) return;
        List<Creation> todo = plan(0, desc, List.of(o), null, f -> {
            try {
                return FunctionTable.of(f);
            } catch (ElfException e) {
                LOG.warn("pid: cannot read the symbols of {}: {}", f.path(), e.getMessage());
                return List.of();
            }
        });
        for (Creation c : todo) {
            Probe p = reg.lookup(EVERY_PROCESS, c.module, c.function, c.name);
            if (p == null) p = reg.create(EVERY_PROCESS, c.module, c.function, c.name, c.probe);
            if (c.alias != null) reg.alias(p, c.alias);
        }
    }

    /** The library named {@code module}: one this JVM maps, else a file of that name in LIBRARY_DIRS; null if none. */
    private MappedObject everyProcessObject(String module) {
        MappedObject known = everyProcessObjects.get(module);
        if (known != null) return known;
        java.nio.file.Path path = null;
        try {
            for (MappedObject m : org.jdtrace.provider.fasttrap.internal.sym.ProcessModules.read((int) ProcessHandle.current().pid())) {
                if (path == null && !m.executable() && m.path() != null && answersTo(m.module(), module)) path = m.path();
                m.elf().close();
            }
        } catch (IOException e) {
            // look in the directories
        }
        for (String dir : LIBRARY_DIRS) {
            java.nio.file.Path p = java.nio.file.Path.of(dir, module);
            if (path == null && java.nio.file.Files.isRegularFile(p)) path = p;
        }
        if (path == null) return null;
        try {
            org.jdtrace.elf.ElfFile elf = org.jdtrace.elf.ElfFile.open(path.toRealPath());
            MappedObject o = new MappedObject(path.toRealPath(), module, false, 0, 0, Long.MAX_VALUE, elf);
            MappedObject raced = everyProcessObjects.putIfAbsent(module, o);
            if (raced != null) elf.close();
            return raced != null ? raced : o;
        } catch (IOException e) {
            LOG.warn("pid: cannot read {}: {}", path, e.getMessage());
            return null;
        }
    }

    /** One link for a probe of every process; its pid filter (/pid == N/) applied in the kernel. */
    private void enableEveryProcess(Probe probe, PidProbe pp) {
        UprobeSites k = kernelSitesForNewProcess();
        MappedObject o = everyProcessObjects.get(probe.module());
        if (pp.sites().isEmpty() || o == null) return;
        if (k == null) {
            LOG.warn("failed to enable {}: probes of every process need the kernel's uprobes", probe.description());
            return;
        }
        try {
            boolean uret = asUretprobe(pp);
            List<Long> offsets = new ArrayList<>();
            for (long pc : uret ? List.of(pp.functionStart()) : pcs(pp)) offsets.add(o.elf().fileOffset(pc, 1));
            EveryProcessContext ctx = new EveryProcessContext(isa.abi(), pp, uret ? pp.sites().get(0).pc() : 0);
            UprobeSites.Handle h = k.attach(Map.of(o.path().toString(), offsets), null, 0, uret, stackBytes(probe),
                    hit -> probe.fire(ctx.at(hit)));
            k.filter(h, probe.pidFilter());
            AutoCloseable old = links.put(probe, h);
            if (old != null) closeLink(old);
        } catch (ElfException | UprobeSites.UprobeRefused e) {
            LOG.warn("failed to enable {}: {}", probe.description(), e.getMessage());
        }
    }

    /**
     * The user stack a uprobe hit of {@code probe} copies: option ustackbytes when a clause on it
     * walks the user stack (Probe.userStack), else 0 (the capture's small copy).
     */
    private int stackBytes(Probe probe) {
        return probe.userStack() ? ustackbytes : 0;
    }

    /** -x ustackbytes=N: the user stack a uprobe hit copies for ustack() (as profile-N's samples). */
    @Override
    public void option(String name, long value) {
        if (name.equals("ustackbytes")) ustackbytes = (int) Math.min(USTACKBYTES_MAX, Math.max(0, value));
    }

    /** A probe's clauses changed: a ustack() added or gone changes the stack its hits copy. */
    @Override
    public void clausesChanged(Probe probe) {
        if (links.get(probe) instanceof UprobeSites.Handle h) h.stack(stackBytes(probe));
    }

    @Override
    public void filterChanged(Probe probe) {
        UprobeSites k;
        synchronized (this) {
            k = kernelSites;
        }
        if (k != null && links.get(probe) instanceof UprobeSites.Handle h && ((PidProbe) probe.providerArg()).pid() == 0) {
            k.filter(h, probe.pidFilter());
        }
    }

    /** The process a description names: the one followed, else grabbed (owned) and let run. */
    private synchronized ProcessState grabForProbes(int pid) {
        ProcessState s = processes.get(pid);
        if (s != null) return s;
        if (pid == ProcessHandle.current().pid()) {
            throw new ProviderException("process " + pid + " is dtrace itself", "D_PROC_DYN");
        }
        try {
            TracedProcess p = grabWaiting(pid);
            s = track(p, true);
            letRun(s);
            return s;
        } catch (RuntimeException e) {
            String msg = String.valueOf(e.getMessage());
            throw new ProviderException(msg.startsWith("failed to grab") ? msg
                    : "failed to grab pid " + pid + ": " + msg, "D_PROC_GRAB", e);
        }
    }

    /** Creates the planned probes that do not exist yet, all or none (fasttrap-max). */
    private void createAll(ProbeRegistry reg, ProcessState s, ProbeDescription desc, List<Creation> todo) {
        String provider = "pid" + s.pid();
        long fresh = 0;
        for (Creation c : todo) {
            if (reg.lookup(provider, c.module, c.function, c.name) == null) fresh += c.probe.sites().size();
        }
        if (sites.get() + fresh > max) {
            throw new ProviderException("failed to create probes for " + desc + ": " + fresh
                    + " more tracepoints exceed fasttrap-max (" + max + "); raise it with -x fasttrap-max=N",
                    "D_PROC_CREATEFAIL");
        }
        for (Creation c : todo) {
            Probe p = reg.lookup(provider, c.module, c.function, c.name);
            if (p == null) {
                p = reg.create(provider, c.module, c.function, c.name, c.probe);
                sites.addAndGet(c.probe.sites().size());
                s.countProbe(provider, 1);
            }
            if (c.alias != null) reg.alias(p, c.alias); // pid$1::_go:entry is the probe of go
        }
    }

    /**
     * The dynamic linker mapped or unmapped objects (RtldEvents; a worker thread, the thread in
     * the linker held): the probes of the objects gone are retired, their tracepoints dropped
     * without a write first; the remembered descriptions are planned for the new objects.
     */
    private void modulesChanged(ProcessState s) {
        if (s.defunct()) return;
        ProcessState.ModuleChange change;
        try {
            change = s.rescan();
        } catch (IOException e) {
            LOG.warn("pid{}: cannot read the modules: {}", s.pid(), e.getMessage());
            return;
        }
        ProbeRegistry reg = registry;
        for (MappedObject o : change.removed()) s.process.forgetRange(o.start(), o.end());
        if (!change.added().isEmpty() || !change.removed().isEmpty()) {
            tell(l -> l.objectsChanged(s, change.added(), change.removed()));
        }
        if (reg == null) return;
        if (!change.removed().isEmpty()) {
            List<Probe> gone = reg.probes("pid" + s.pid()).stream()
                    .filter(p -> p.providerArg() instanceof PidProbe pp
                            && change.removed().stream().anyMatch(o -> o.contains(pp.functionStart())))
                    .toList();
            if (!gone.isEmpty()) reg.retire(gone);
        }
        if (change.added().isEmpty()) return;
        for (ProbeDescription d : List.copyOf(s.descriptions)) {
            if (d.function().equals("-")) continue; // an address in a.out, mapped from the start
            try {
                createAll(reg, s, d, plan(s, d, change.added()));
            } catch (ProviderException e) {
                LOG.warn("pid{}: {}: {}", s.pid(), d, e.getMessage());
            }
        }
    }

    /**
     * The pid a provider description names (dt_pid_get_pid): pid<N>, or a glob ending in N
     * that matches pid<N> ({@code p*d1234}); 0 when it names no pid provider. A pid that is
     * not a positive int is D_PROC_BADPID.
     */
    private static int pidOf(String provider) {
        String digits = ProbeDescription.processDigits(provider);
        if (digits.isEmpty()) return 0;
        if (Glob.isGlob(provider) ? !Glob.match(provider, "pid" + digits) : !PID_PROVIDER.matcher(provider).matches()) {
            return 0;
        }
        int pid;
        try {
            pid = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            pid = 0;
        }
        if (pid <= 0) throw new ProviderException("'" + provider + "' does not contain a valid pid", "D_PROC_BADPID");
        return pid;
    }

    /**
     * Whether object module {@code module} answers to the literal module name {@code name} as
     * libproc's object lookup does: exactly, or as a prefix ending before a '.' of the name
     * ({@code libc} and {@code libc.so} for {@code libc.so.6}).
     */
    static boolean answersTo(String module, String name) {
        return module.equals(name) || (module.startsWith(name + ".") && !name.isEmpty());
    }

    /**
     * The probes {@code desc} names in process {@code s}, nothing created yet. dtrace's checks,
     * with its words and tags: a literal function missing from a literal module (D_PROC_FUNC),
     * a name that is neither entry, return, a glob nor a hex offset (D_PROC_NAME), an offset
     * past the function's end (D_PROC_OFF) or inside an instruction (D_PROC_ALIGN); the '-'
     * function takes an absolute address in a.out (D_PROC_LIB, D_PROC_NAME otherwise).
     * {@code only}: the objects to look in (those a dlopen mapped), null for all.
     */
    private List<Creation> plan(ProcessState s, ProbeDescription desc, List<MappedObject> only) {
        if (desc.function().equals("-")) return planAddress(s, desc);
        return plan(s.pid(), desc, modules(s), only, o -> functions(s, o));
    }

    /**
     * The probes {@code desc} names among {@code objects} (process {@code pid}'s, or, pid 0, the
     * files of the probes for every process), nothing created yet; see above.
     */
    private List<Creation> plan(int pid, ProbeDescription desc, List<MappedObject> objects, List<MappedObject> only,
            java.util.function.Function<MappedObject, List<Function>> functionsOf) {
        String mod = desc.module(), fn = desc.function();
        String name = desc.name();
        boolean entry = Glob.matchesPart(name, "entry"), ret = Glob.matchesPart(name, "return");
        boolean allOffsets = name.isEmpty() || Glob.isGlob(name);
        long oneOffset = !allOffsets && HEX.matcher(name).matches() ? Long.parseUnsignedLong(name, 16) : -1;
        boolean badName = !allOffsets && !entry && !ret && oneOffset < 0;
        boolean needAnalysis = ret || allOffsets || oneOffset >= 0;
        List<Creation> out = new ArrayList<>();
        // a literal name no object has exactly (libc, libc.so): the object it abbreviates, with
        // its probes made under the name as written so that the description matches them
        boolean alias = Glob.isLiteral(mod) && objects.stream().noneMatch(o -> o.module().equals(desc.module()));
        for (MappedObject o : only == null ? objects : only) {
            // the executable answers to its file name and to a.out; its probes are named a.out
            // when the description says a.out (or a glob of it), else by the file name
            String file = fileName(o);
            boolean asAout = o.executable() && !mod.isEmpty() && Glob.matchesPart(mod, "a.out");
            if (alias ? !answersTo(o.module(), desc.module()) && !(o.executable() && answersTo(file, desc.module()))
                    : !asAout && !Glob.matchesPart(mod, file)) {
                continue;
            }
            String module = alias ? desc.module() : asAout ? o.module() : file;
            boolean found = false;
            for (Function f : functionsOf.apply(o)) {
                // a glob names the function once, by its preferred name; a description that
                // names only an alias (_go, _IO_puts) gets the same probes, aliased
                Function as = f.as(n -> Glob.matchesPart(fn, n));
                if (as == null) continue;
                String aliasName = as == f ? null : as.name();
                found = true;
                if (f.size() == 0) {
                    String why = FunctionTable.unresolved(f);
                    if (why != null) LOG.warn("pid{}: {}", pid, why);
                    continue;
                }
                if (badName) throw new ProviderException("'" + name + "' is an invalid probe name", "D_PROC_NAME");
                if (oneOffset >= f.size()) {
                    throw new ProviderException("offset 0x" + Long.toHexString(oneOffset) + " outside of function '"
                            + f.name() + "'", "D_PROC_OFF");
                }
                try {
                    int before = out.size();
                    planFunction(pid, module, f, needAnalysis, entry, ret, allOffsets ? name : null, oneOffset, out);
                    for (int i = before; aliasName != null && i < out.size(); i++) out.set(i, out.get(i).aliased(aliasName));
                } catch (IsaException | ElfException e) {
                    LOG.warn("pid{}: skipping {}`{}: {}", pid, o.module(), f.name(), e.getMessage());
                }
            }
            if (!found && Glob.isLiteral(fn) && Glob.isLiteral(mod)) {
                throw new ProviderException("failed to lookup '" + desc.function() + "' in module '" + desc.module() + "'",
                        "D_PROC_FUNC");
            }
        }
        return out;
    }

    /** The name an object's probes get by default: its file name, the executable's too (dtrace-utils). */
    private static String fileName(MappedObject o) {
        return o.executable() && o.path() != null && o.path().getFileName() != null ? o.path().getFileName().toString() : o.module();
    }

    private List<MappedObject> modules(ProcessState s) {
        try {
            return s.modules();
        } catch (IOException e) {
            throw new ProviderException("cannot read the modules of pid " + s.pid() + ": " + e.getMessage(), "D_PROC_GRAB", e);
        }
    }

    private List<Function> functions(ProcessState s, MappedObject o) {
        try {
            return s.functions(o);
        } catch (ElfException e) {
            LOG.warn("pid{}: cannot read the symbols of {}: {}", s.pid(), o.path(), e.getMessage());
            return List.of();
        }
    }

    /** pid<N>:a.out:-:<hex address>: one probe on the instruction at that address. */
    private List<Creation> planAddress(ProcessState s, ProbeDescription desc) {
        String module = desc.module().isEmpty() ? "a.out" : desc.module();
        if (!module.equals("a.out")) {
            throw new ProviderException("only the a.out module is valid with the '-' function", "D_PROC_LIB");
        }
        String name = desc.name();
        if (name.isEmpty() || Glob.isGlob(name) || !HEX.matcher(name).matches()) {
            throw new ProviderException("only individual addresses may be specified with the '-' function", "D_PROC_NAME");
        }
        long addr = Long.parseUnsignedLong(name, 16);
        for (MappedObject o : modules(s)) {
            if (!o.contains(addr)) continue;
            for (Function f : functions(s, o)) {
                if (addr < f.address() || addr >= f.address() + f.size()) continue;
                try {
                    FunctionAnalysis a = isa.analyze(f.code(), f.address());
                    for (Instruction i : a.instrumentable() ? a.instructions() : List.<Instruction>of()) {
                        if (i.pc() == addr && isa.displacement(i) != Isa.Displacement.REFUSE) {
                            return List.of(new Creation("a.out", "-", Long.toHexString(addr),
                                    new PidProbe(s.pid(), PidProbe.Kind.OFFSET, f.address(), List.of(i))));
                        }
                    }
                } catch (IsaException | ElfException e) {
                    throw new ProviderException("failed to create probe at 0x" + Long.toHexString(addr) + ": "
                            + e.getMessage(), "D_PROC_CREATEFAIL", e);
                }
                throw new ProviderException("address 0x" + Long.toHexString(addr)
                        + " is not an instruction that can be instrumented", "D_PROC_ALIGN");
            }
        }
        throw new ProviderException("address 0x" + Long.toHexString(addr) + " is not in a known function of pid "
                + s.pid(), "D_PROC_CREATEFAIL");
    }

    private void planFunction(int pid, String module, Function f, boolean analyse, boolean entry, boolean ret,
            String offsets, long oneOffset, List<Creation> out) throws IsaException, ElfException {
        byte[] code = f.code();
        if (!analyse) {
            Instruction first = isa.decode(code, 0, f.address());
            if (isa.displacement(first) == Isa.Displacement.REFUSE) {
                LOG.warn("pid{}: skipping {}`{}: its first instruction cannot be instrumented", pid, module, f.name());
                return;
            }
            out.add(new Creation(module, f.name(), "entry", new PidProbe(pid, PidProbe.Kind.ENTRY, f.address(), List.of(first))));
            return;
        }
        FunctionAnalysis a = isa.analyze(code, f.address());
        if (!a.instrumentable()) {
            LOG.warn("pid{}: skipping {}`{}: {}", pid, module, f.name(), a.refusal());
            return;
        }
        List<Instruction> insns = a.instructions();
        if (insns.isEmpty()) return;
        if (entry && isa.displacement(insns.get(0)) != Isa.Displacement.REFUSE) {
            out.add(new Creation(module, f.name(), "entry", new PidProbe(pid, PidProbe.Kind.ENTRY, f.address(), List.of(insns.get(0)))));
        }
        if (ret && a.returnOffsets().isEmpty()) {
            // a function that never returns (main's endless loop, exit()): its return probe
            // exists and never fires, as with dtrace-utils' uretprobes (illumos made none)
            out.add(new Creation(module, f.name(), "return", new PidProbe(pid, PidProbe.Kind.RETURN, f.address(), List.of())));
        } else if (ret) {
            // an instruction the ISA cannot displace gets no probe; the rest of the function does
            List<Instruction> rs = new ArrayList<>();
            for (Instruction i : insns) {
                if (a.returnOffsets().contains((int) (i.pc() - f.address())) && isa.displacement(i) != Isa.Displacement.REFUSE) rs.add(i);
            }
            if (!rs.isEmpty()) {
                out.add(new Creation(module, f.name(), "return", new PidProbe(pid, PidProbe.Kind.RETURN, f.address(), rs)));
            }
        }
        boolean aligned = oneOffset < 0;
        for (Instruction i : insns) {
            long off = i.pc() - f.address();
            String n = Long.toHexString(off);
            aligned |= off == oneOffset;
            if (((offsets != null && Glob.matchesPart(offsets, n)) || off == oneOffset) && isa.displacement(i) != Isa.Displacement.REFUSE) {
                out.add(new Creation(module, f.name(), n, new PidProbe(pid, PidProbe.Kind.OFFSET, f.address(), List.of(i))));
            }
        }
        if (!aligned) {
            throw new ProviderException("offset 0x" + Long.toHexString(oneOffset) + " is not aligned on an instruction",
                    "D_PROC_ALIGN");
        }
    }

    @Override
    public void enable(Probe probe) {
        PidProbe pp = (PidProbe) probe.providerArg();
        if (pp.pid() == 0) {
            enableEveryProcess(probe, pp);
            return;
        }
        ProcessState s = processes.get(pp.pid());
        if (s == null || s.defunct()) return;
        UprobeSites k = s.kernel;
        if (k != null) {
            enableOnUprobes(k, s, probe, pp);
            return;
        }
        TracepointHandler h = hit -> probe.fire(s.context.at(hit, pp));
        List<TracedProcess.Request> rq = new ArrayList<>();
        for (Instruction i : pp.sites()) rq.add(new TracedProcess.Request(i.pc(), i, h));
        try {
            s.process.enable(rq);
        } catch (TracepointException e) {
            throw new ProviderException("failed to enable " + probe.description() + ": " + e.getMessage(), null, e);
        }
        handlers.put(probe, h);
    }

    /**
     * One uprobe link for the probe's sites, its hits fired on the drain thread with the captured
     * context. A probe the kernel refuses is one warning line with its reason; the rest of the
     * enabling goes on (the probe never fires).
     */
    private void enableOnUprobes(UprobeSites k, ProcessState s, Probe probe, PidProbe pp) {
        if (pp.sites().isEmpty()) return; // the return probe of a function that never returns
        boolean uret = asUretprobe(pp);
        long site = pp.sites().get(0).pc();
        TracepointHandler h = uret ? hit -> probe.fire(s.kernelContext.atReturn(hit, pp, site))
                : hit -> probe.fire(s.kernelContext.at(hit, pp));
        try {
            AutoCloseable old = links.put(probe, k.attach(s, uret ? List.of(pp.functionStart()) : pcs(pp), 0, uret, stackBytes(probe), h));
            if (old != null) closeLink(old);
        } catch (UprobeSites.UprobeRefused e) {
            LOG.warn("failed to enable {}: {}", probe.description(), e.getMessage());
        }
    }

    /**
     * A return probe with one return site is the kernel's uretprobe of its function: one trap at
     * the entry and a cheap return trampoline instead of a single-step of the ret at every return
     * (bpftrace's uretprobe cost); arg0 stays that site's offset. (The kernel follows at most 64
     * nested returns of one thread; deeper recursion misses returns there.) Several sites keep a
     * uprobe on each, so that arg0 tells which.
     */
    private static boolean asUretprobe(PidProbe pp) {
        return pp.kind() == PidProbe.Kind.RETURN && pp.sites().size() == 1;
    }

    private static List<Long> pcs(PidProbe pp) {
        List<Long> pcs = new ArrayList<>();
        for (Instruction i : pp.sites()) pcs.add(i.pc());
        return pcs;
    }

    private static void closeLink(AutoCloseable link) {
        try {
            link.close();
        } catch (Exception e) {
            LOG.debug("uprobe link close failed", e);
        }
    }

    @Override
    public void disable(Probe probe) {
        AutoCloseable link = links.remove(probe);
        if (link != null) {
            closeLink(link);
            return;
        }
        PidProbe pp = (PidProbe) probe.providerArg();
        TracepointHandler h = handlers.remove(probe);
        ProcessState s = processes.get(pp.pid());
        if (h == null || s == null) return;
        for (Instruction i : pp.sites()) s.process.disable(i.pc(), h);
    }

    @Override
    public void destroy(Probe probe) {
        PidProbe pp = (PidProbe) probe.providerArg();
        if (pp.pid() == 0) return; // every process's: no process, no fasttrap-max count
        sites.addAndGet(-pp.sites().size());
        ProcessState s = processes.get(pp.pid());
        if (s == null) return;
        s.countProbe(probe.provider(), -1);
        letGoIfUnused(s); // grabbed only for these probes: let it go untouched
    }
}
