package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.jdtrace.fasttrap.Fasttrap;
import org.jdtrace.fasttrap.TargetListener;
import org.jdtrace.fasttrap.TracedTarget;
import org.jdtrace.fasttrap.TracepointRefused;
import org.jdtrace.isa.Isa;
import org.jdtrace.proc.ProcessControl;
import org.jdtrace.proc.ProcessException;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.provider.fasttrap.internal.proc.ProcessListener;
import org.jdtrace.provider.fasttrap.internal.proc.StdioSpec;
import org.jdtrace.provider.fasttrap.internal.proc.TracedProcess;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.perf.PerfEvents;
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
 * Process control (libproc's and fasttrap's process half): the one component that creates,
 * grabs, follows and releases traced processes for every user of them: the consumer's -c/-p and
 * $target (ProcessControl), the pid provider (ProcessTable: the processes its probes name), USDT
 * (Fasttrap: provider-sdt's sites share these processes and their tracepoints) and the syscall
 * provider (ProcessTable's track listeners). One ptrace attachment per process, whoever asked.
 *
 * Following a process (track): its ProcessState is made and kept in the table. On the uprobe
 * path (the default) probes are the kernel's uprobes (UprobeSites, one per component, shared by
 * pid and USDT probes) and ptrace serves only the start (go() detaches every thread); on the
 * ptrace path a tracepoint at the dynamic linker's r_brk (RtldEvents) reports library loads, on
 * a worker thread, never the control thread. The choice is made per process, when it is first
 * followed, by the consumer whose -c, -p or description follows it (its consumer options travel
 * with the call: uprobes 0 for -x uprobes=off; nothing of it is kept here, so it never carries
 * over to another consumer; absent, -Djdtrace.uprobes=off read at construction is the default):
 * ptrace when switched off, without the perf events service, or when the kernel refuses (one
 * warning line with its reason). A process already followed keeps its path for every consumer
 * (one attachment per process).
 *
 * Holds (dt_proc's reference count): every create and grab, the second consumer's -p of a
 * process already followed included, is one consumer's hold (a TargetProcess). The process runs
 * once every holder has said go (or let go), and its shared state (the ProcessState, its
 * uprobes, captures, listeners' writes, the probes named after it) stays until the last holder
 * lets go: one consumer's end never takes it from another (illumos bug 6573659: only exit and
 * exec make the state defunct). A -c holder's end kills its command, for every holder, as dtrace
 * -c does. Counts guarded by this component's lock.
 *
 * Events: exec and exit mark the process defunct and tell the Fasttrap listeners; then, on a
 * separate thread (never the control thread, which the framework may be waiting for), the probe
 * owner (the pid provider, ProcessTable.ProbeOwner) retires the probes named after the process,
 * and an exit forgets it. A library change tells the Fasttrap listeners, then the probe owner.
 * Before any release or kill the listeners hear `releasing` (they undo their writes while the
 * process is still traced) and the probe owner retires the process's probes.
 *
 * Deactivation (the bundle or the ISA service stops), and SIGTERM or System.exit with processes
 * still traced (a shutdown hook), release every process: every int3 removed, scratch unmapped,
 * every thread detached, every uprobe link closed. fasttrap-max (configuration pid
 * org.jdtrace.fasttrap, dtrace -x fasttrap-max) is kept here; the pid provider enforces it.
 */
@Component(service = {ProcessControl.class, ProcessTable.class, Fasttrap.class},
        configurationPid = "org.jdtrace.fasttrap", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = ProcessControlImpl.Config.class)
public final class ProcessControlImpl implements ProcessControl, ProcessTable, Fasttrap {

    @ObjectClassDefinition(name = "jdtrace process control", description = "fasttrap limits")
    public @interface Config {
        @AttributeDefinition(description = "maximum number of pid tracepoints (dtrace -x fasttrap-max)")
        int fasttrap$_$max() default 250_000;
    }

    private static final Logger LOG = LoggerFactory.getLogger(ProcessControlImpl.class);

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

    /** Whether probes go on kernel uprobes when the consumer does not say (-Djdtrace.uprobes=off: ptrace). */
    private final boolean uprobesByDefault = !"off".equals(System.getProperty("jdtrace.uprobes"));
    private UprobeSites kernelSites;
    private boolean refusalTold;

    private volatile int max = 250_000;
    private final Map<Integer, ProcessState> processes = new ConcurrentHashMap<>();
    private final List<java.util.function.Consumer<ProcessState>> trackListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<TargetListener> targetListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The owner of the probes named after each process (the pid provider), or null. */
    private volatile ProbeOwner probeOwner;
    private final ExecutorService retirer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jdtrace-pid-retire");
        t.setDaemon(true);
        return t;
    });
    /** Continues the processes a dlopen hold may have stopped if this JVM dies mid-hold (RtldEvents). */
    private final ContinueGuard continueGuard = new ContinueGuard();
    private final ExecutorService rtldWorker = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "jdtrace-pid-rtld");
        t.setDaemon(true);
        return t;
    });
    /** Processes held at uprobe hits (destructive clauses, dynamic linker events) and stopped by stop(). */
    private final Holds holds = new Holds(continueGuard, this::drainRings, rtldWorker);

    public ProcessControlImpl() {}

    /** For tests and embedding without DS: probes on the kernel's uprobes through {@code perf} when not null. */
    public ProcessControlImpl(Isa isa, int max, PerfEvents perf) {
        this.isa = isa;
        this.objects = new org.jdtrace.elf.ObjectFiles();
        this.max = max;
        this.perf = perf;
    }

    /** SIGTERM, Ctrl-C or System.exit with processes still traced: release them on the way out. */
    private final Thread shutdownHook = new Thread(this::releaseAll, "jdtrace-proc-shutdown");

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
        holds.letAllGo();
        synchronized (this) {
            if (kernelSites != null) kernelSites.close();
            kernelSites = null;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // shutting down already, or never registered (constructed without DS)
        }
        retirer.shutdown();
        rtldWorker.shutdown();
        continueGuard.close();
    }

    private void releaseAll() {
        for (ProcessState s : List.copyOf(processes.values())) {
            synchronized (this) {
                s.released = true; // a hold's end after this finds nothing to do
            }
            releasing(s);
            holds.letGo(s.pid(), true);
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
    public int tracepointCount(int pid) {
        ProcessState s = processes.get(pid);
        return s == null ? -1 : s.process.tracepointCount();
    }

    @Override
    public int fasttrapMax() {
        return max;
    }

    @Override
    public void setFasttrapMax(int max) {
        this.max = max;
    }

    /** Whether a consumer with {@code consumerOptions} wants the kernel's uprobes (its uprobes option, else the default). */
    private boolean wantsUprobes(Map<String, Long> consumerOptions) {
        Long v = consumerOptions.get("uprobes");
        return v == null ? uprobesByDefault : v != 0;
    }

    /**
     * The uprobe sites for a process followed now, or null for the ptrace path: uprobes not
     * wanted, or refused by the kernel (told once, in one warning line with the kernel's reason).
     */
    private synchronized UprobeSites kernelSitesForNewProcess(boolean uprobes) {
        if (!uprobes || perf == null) return null; // off, or embedded without perf events: ptrace
        if (kernelSites == null) kernelSites = new UprobeSites(perf, isa.abi(), this::ownerRegistry, holds);
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
    public synchronized long uprobeDrops() {
        return kernelSites == null ? 0 : kernelSites.drops.get();
    }

    // ------------------------------------------------------------------ ProcessControl

    @Override
    public TargetProcess create(List<String> argv, Stdio stdio) throws ProcessException {
        return create(argv, stdio, Evaltime.POSTINIT);
    }

    @Override
    public TargetProcess create(List<String> argv, Stdio stdio, Evaltime at) throws ProcessException {
        return create(argv, stdio, at, Map.of());
    }

    @Override
    public TargetProcess create(List<String> argv, Stdio stdio, Evaltime at, Map<String, Long> consumerOptions)
            throws ProcessException {
        return create(argv, new StdioSpec(stdio.pipeIn(), stdio.pipeOut(), stdio.pipeErr(), null), at,
                wantsUprobes(consumerOptions));
    }

    /** As {@link #create(List, Stdio)} with standard output sent to a file (tests, benchmarks). */
    public TargetProcess create(List<String> argv, java.nio.file.Path stdout) throws ProcessException {
        return create(argv, stdout == null ? StdioSpec.INHERIT : StdioSpec.outTo(stdout), Evaltime.POSTINIT, uprobesByDefault);
    }

    /** As {@link #create(List, java.nio.file.Path)}, held at {@code at} (tests). */
    public TargetProcess create(List<String> argv, java.nio.file.Path stdout, Evaltime at) throws ProcessException {
        return create(argv, stdout == null ? StdioSpec.INHERIT : StdioSpec.outTo(stdout), at, uprobesByDefault);
    }

    private TargetProcess create(List<String> argv, StdioSpec io, Evaltime at, boolean uprobes) throws ProcessException {
        String missing = Executables.problem(argv.isEmpty() ? "" : argv.get(0));
        if (missing != null) throw new ProcessException(missing);
        TracedProcess p;
        try {
            p = TracedProcess.create(argv, isa, max, io, EvaltimeStops.of(at));
        } catch (RuntimeException e) {
            throw new ProcessException(e.getMessage());
        }
        return hold(track(p, false, uprobes), true);
    }

    @Override
    public TargetProcess grab(int pid) throws ProcessException {
        return grab(pid, Map.of());
    }

    @Override
    public TargetProcess grab(int pid, Map<String, Long> consumerOptions) throws ProcessException {
        synchronized (this) {
            ProcessState s = processes.get(pid);
            if (s != null && !s.released) return hold(s, false); // followed already: one more consumer holds it
        }
        boolean uprobes = wantsUprobes(consumerOptions);
        TracedProcess p;
        try {
            p = grabWaiting(pid, uprobes);
        } catch (RuntimeException e) {
            throw new ProcessException(e.getMessage().startsWith("failed") ? e.getMessage()
                    : "failed to grab pid " + pid + ": " + e.getMessage());
        }
        return hold(track(p, false, uprobes), false);
    }

    private ProcessState track(TracedProcess p, boolean owned, boolean uprobes) {
        ProcessState s = new ProcessState(p, owned, isa, objects);
        s.kernel = kernelSitesForNewProcess(uprobes);
        // read now: on the uprobe path clauses run after the event, maybe once the process is reaped
        if (s.kernel != null) {
            s.execname();
            s.ppid();
        }
        processes.put(p.pid(), s);
        p.addListener(new ProcessListener() {
            @Override
            public void exec(TracedProcess process) {
                execd(s);
            }

            @Override
            public void exited(TracedProcess process, int status) {
                s.markDefunct(ProcessState.Death.EXIT);
                holds.letGo(s.pid(), false); // its pid may be another process's soon
                tell(l -> l.defunct(s));
                retireLater(s, true);
            }
        });
        if (s.kernel == null) RtldEvents.watch(s, isa, () -> modulesChanged(s), rtldWorker);
        else if (p.created()) watchLinker(s);
        for (java.util.function.Consumer<ProcessState> l : trackListeners) l.accept(s);
        tell(l -> l.followed(s));
        return s;
    }

    /**
     * On the uprobe path, the dynamic linker's events for {@code s} from now on (once): a created
     * process (-c) from the start; a grabbed one (-p, pid<N>) only once a description could match
     * an object mapped later (not a.out's) or another provider follows it, since each event is a
     * short SIGSTOP that a job-control shell, its parent, sees (RtldEvents).
     */
    @Override
    public void watchLinker(ProcessState s) {
        UprobeSites k = s.kernel;
        if (k == null || s.defunct()) return;
        synchronized (s) {
            if (s.rtldWatch != null) return;
            AutoCloseable w = RtldEvents.watchOnUprobes(s, k, continueGuard, () -> modulesChanged(s), () -> execd(s), rtldWorker);
            s.rtldWatch = w == null ? ProcessState.NO_WATCH : w;
        }
    }

    /** The process exec'd (a ptrace exec event, or on uprobes its new image's dynamic linker): its probes retire. */
    private void execd(ProcessState s) {
        s.endRtldWatch(); // the new image's dlopens stop it no more
        s.markDefunct(ProcessState.Death.EXEC);
        s.refreshModules();
        tell(l -> l.defunct(s));
        retireLater(s, false);
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
        return follow(pid, Map.of());
    }

    @Override
    public TracedTarget follow(int pid, Map<String, Long> consumerOptions) throws TracepointRefused {
        try {
            ProcessState s = grabForProbes(pid, consumerOptions);
            s.countProbe(API_HOLD, 1);
            watchLinker(s);
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
    @Override
    public void letGoIfUnused(ProcessState s) {
        synchronized (this) {
            if (!s.ownedByProvider || s.hasProbes() || s.defunct() || s.holders > 0 || s.released
                    || processes.get(s.pid()) != s) return;
            s.released = true;
        }
        releasing(s);
        holds.letGo(s.pid(), true);
        s.process.release();
        processes.remove(s.pid(), s);
        s.close();
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
            retireProbes(s);
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
    private TracedProcess grabWaiting(int pid, boolean uprobes) {
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
            return org.jdtrace.proc.Procfs.status(pid).tracerPid() != 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Lets a held process run: on the uprobe path untraced from now on (ptrace only for the start). */
    private static void letRun(ProcessState s) {
        if (s.kernel != null) s.process.untrace();
        else s.process.go();
    }

    /**
     * One consumer's hold on {@code s} (its -c or -p; dt_proc's reference): the process runs once
     * every consumer holding it has said go or let go, and is released (its probes retired, its
     * listeners told, its uprobes and captures closed) when the last lets go. A hold's kill (a -c
     * command at its dtrace's end, as dtrace -c kills it whoever else traces it) ends it for all.
     */
    private synchronized TargetProcess hold(ProcessState s, boolean created) {
        assert !s.released;
        s.holders++;
        s.waiting++;
        return new Hold(s, created);
    }

    private final class Hold implements TargetProcess {
        final ProcessState s;
        final TracedProcess p;
        /** This consumer created the process (-c): its end kills it. */
        final boolean created;
        /** Guarded by ProcessControlImpl.this. */
        boolean went, ended;

        Hold(ProcessState s, boolean created) {
            this.s = s;
            this.p = s.process;
            this.created = created;
        }

        @Override public int pid() { return p.pid(); }
        @Override public boolean created() { return created; }
        @Override public void go() { goes(this); }
        @Override public int awaitExit(long t, TimeUnit u) throws InterruptedException { return p.awaitExit(t, u); }
        @Override public boolean exited() { return p.ended(); }
        @Override public int exitStatus() { return p.exitStatus(); }
        @Override public java.io.OutputStream stdin() { return created ? p.stdin() : null; }
        @Override public java.io.InputStream stdout() { return created ? p.stdout() : null; }
        @Override public java.io.InputStream stderr() { return created ? p.stderr() : null; }
        @Override public void release() { end(this, false); }
        @Override public void kill() { end(this, true); }
        @Override public void close() { end(this, created); }
    }

    /** {@code h}'s consumer says go: the process runs unless another holder has not said so yet. */
    private void goes(Hold h) {
        synchronized (this) {
            if (h.went || h.ended) return;
            h.went = true;
            if (--h.s.waiting > 0 || h.s.released) return;
        }
        letRun(h.s);
    }

    /** {@code h}'s consumer lets go: the last one releases the process ({@code kill}: ends it for every holder). */
    private void end(Hold h, boolean kill) {
        ProcessState s = h.s;
        boolean run = false;
        synchronized (this) {
            if (h.ended) return;
            h.ended = true;
            s.holders--;
            // the others said go: it waited for this one
            if (!h.went) run = --s.waiting == 0 && s.holders > 0 && !s.released;
            if (s.released || (!kill && s.holders > 0)) {
                s = null;
            } else {
                s.released = true;
            }
        }
        if (s == null) {
            if (run) letRun(h.s);
            return;
        }
        releasing(s);
        // its probes are retired here unless it exited and forgot already (its pid may be another's now)
        if (processes.get(s.pid()) == s) retireProbes(s);
        holds.letGo(s.pid(), !kill); // stopped by stop(): runs again as dtrace lets it go
        if (kill) s.process.kill();
        else s.process.release();
        processes.remove(s.pid(), s);
        s.close();
    }

    // ------------------------------------------------------------------ for the pid provider

    @Override
    public void setProbeOwner(ProbeOwner owner) {
        probeOwner = owner;
    }

    @Override
    public ProcessState process(int pid) {
        return processes.get(pid);
    }

    @Override
    public synchronized UprobeSites kernelSites() {
        return kernelSitesForNewProcess(true);
    }

    @Override
    public synchronized UprobeSites openKernelSites() {
        return kernelSites;
    }

    /** Every uprobe record written so far handed to its handler (Holds, before it continues a process). */
    private void drainRings() {
        PerfEvents p = perf;
        if (p != null) p.drain();
    }

    /** The holds of this component's processes (tests). */
    Holds holds() {
        return holds;
    }

    @Override
    public void drainUprobes() {
        PerfEvents p = perf;
        UprobeSites k;
        synchronized (this) {
            k = kernelSites;
        }
        if (p != null && k != null) {
            p.drain();
            k.reportLost(); // losses with no later record to report them
        }
    }

    /** The process a description names: the one followed, else grabbed (owned) and let run. */
    @Override
    public synchronized ProcessState grabForProbes(int pid, Map<String, Long> consumerOptions) {
        ProcessState s = processes.get(pid);
        if (s != null) return s;
        if (pid == ProcessHandle.current().pid()) {
            throw new ProviderException("process " + pid + " is dtrace itself", "D_PROC_DYN");
        }
        try {
            boolean uprobes = wantsUprobes(consumerOptions);
            TracedProcess p = grabWaiting(pid, uprobes);
            s = track(p, true, uprobes);
            letRun(s);
            return s;
        } catch (RuntimeException e) {
            String msg = String.valueOf(e.getMessage());
            throw new ProviderException(msg.startsWith("failed to grab") ? msg
                    : "failed to grab pid " + pid + ": " + msg, "D_PROC_GRAB", e);
        }
    }


    /**
     * The dynamic linker mapped or unmapped objects (RtldEvents; a worker thread, the thread in
     * the linker held): the tracepoints in the objects gone are dropped without a write first;
     * the Fasttrap listeners, then the probe owner, are told.
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
        for (MappedObject o : change.removed()) s.process.forgetRange(o.start(), o.end());
        if (!change.added().isEmpty() || !change.removed().isEmpty()) {
            tell(l -> l.objectsChanged(s, change.added(), change.removed()));
        }
        ProbeOwner owner = probeOwner;
        if (owner != null) owner.objectsChanged(s, change);
    }

    /** Where the uprobe rings' lost records are reported: the probe owner's registry, or null. */
    private org.jdtrace.spi.ProbeRegistry ownerRegistry() {
        ProbeOwner owner = probeOwner;
        return owner == null ? null : owner.registry();
    }

    /** The probe owner retires the probes named after {@code s} (none without an owner). */
    private void retireProbes(ProcessState s) {
        ProbeOwner owner = probeOwner;
        if (owner != null) owner.retire(s);
    }
}
