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
 * Deactivation (the bundle or the ISA service stops) releases every process: every int3
 * removed, scratch unmapped, every thread detached.
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

    /** For tests and embedding without DS. */
    public PidProvider(Isa isa, int max) {
        this.isa = isa;
        this.max = max;
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
            p = TracedProcess.grab(pid, isa, max);
        } catch (RuntimeException e) {
            throw new ProcessException(e.getMessage().startsWith("failed") ? e.getMessage()
                    : "failed to grab pid " + pid + ": " + e.getMessage());
        }
        return target(track(p, false));
    }

    private ProcessState track(TracedProcess p, boolean owned) {
        ProcessState s = new ProcessState(p, owned, isa);
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
        RtldEvents.watch(s, isa, () -> modulesChanged(s), rtldWorker);
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

    private TargetProcess target(ProcessState s) {
        TracedProcess p = s.process;
        return new TargetProcess() {
            @Override public int pid() { return p.pid(); }
            @Override public boolean created() { return p.created(); }
            @Override public void go() { p.go(); }
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

    /** Provider, module, function, name and argument stability: illumos fasttrap.c's pid_attr. */
    private static final org.jdtrace.spi.ProviderAttributes ATTRIBUTES = org.jdtrace.spi.ProviderAttributes.parse(
            "Evolving/Evolving/ISA", "Private/Private/Unknown", "Private/Private/Unknown", "Evolving/Evolving/ISA", "Private/Private/Unknown");

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return ATTRIBUTES;
    }

    @Override
    public String name() {
        return "pid";
    }

    @Override
    public void attach(ProbeRegistry registry) {
        this.registry = registry;
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
        if (pid == 0) return;
        ProcessState s = grabForProbes(pid);
        if (s.defunct()) return;
        createAll(reg, s, desc, plan(s, desc, null));
        s.descriptions.add(desc);
    }

    /** The process a description names: the one followed, else grabbed (owned) and let run. */
    private synchronized ProcessState grabForProbes(int pid) {
        ProcessState s = processes.get(pid);
        if (s != null) return s;
        if (pid == ProcessHandle.current().pid()) {
            throw new ProviderException("process " + pid + " is dtrace itself", "D_PROC_DYN");
        }
        try {
            TracedProcess p = TracedProcess.grab(pid, isa, max);
            s = track(p, true);
            p.go();
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
        String mod = desc.module(), fn = desc.function();
        String name = desc.name();
        boolean entry = Glob.matchesPart(name, "entry"), ret = Glob.matchesPart(name, "return");
        boolean allOffsets = name.isEmpty() || Glob.isGlob(name);
        long oneOffset = !allOffsets && HEX.matcher(name).matches() ? Long.parseUnsignedLong(name, 16) : -1;
        boolean badName = !allOffsets && !entry && !ret && oneOffset < 0;
        boolean needAnalysis = ret || allOffsets || oneOffset >= 0;
        List<Creation> out = new ArrayList<>();
        List<MappedObject> objects = modules(s);
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
            for (Function f : functions(s, o)) {
                // a glob names the function once, by its preferred name; a description that
                // names only an alias (_go, _IO_puts) gets the same probes, aliased
                Function as = f.as(n -> Glob.matchesPart(fn, n));
                if (as == null) continue;
                String aliasName = as == f ? null : as.name();
                found = true;
                if (f.size() == 0) {
                    String why = FunctionTable.unresolved(f);
                    if (why != null) LOG.warn("pid{}: {}", s.pid(), why);
                    continue;
                }
                if (badName) throw new ProviderException("'" + name + "' is an invalid probe name", "D_PROC_NAME");
                if (oneOffset >= f.size()) {
                    throw new ProviderException("offset 0x" + Long.toHexString(oneOffset) + " outside of function '"
                            + f.name() + "'", "D_PROC_OFF");
                }
                try {
                    int before = out.size();
                    planFunction(s.pid(), module, f, needAnalysis, entry, ret, allOffsets ? name : null, oneOffset, out);
                    for (int i = before; aliasName != null && i < out.size(); i++) out.set(i, out.get(i).aliased(aliasName));
                } catch (IsaException | ElfException e) {
                    LOG.warn("pid{}: skipping {}`{}: {}", s.pid(), o.module(), f.name(), e.getMessage());
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
        ProcessState s = processes.get(pp.pid());
        if (s == null || s.defunct()) return;
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

    @Override
    public void disable(Probe probe) {
        PidProbe pp = (PidProbe) probe.providerArg();
        TracepointHandler h = handlers.remove(probe);
        ProcessState s = processes.get(pp.pid());
        if (h == null || s == null) return;
        for (Instruction i : pp.sites()) s.process.disable(i.pc(), h);
    }

    @Override
    public void destroy(Probe probe) {
        PidProbe pp = (PidProbe) probe.providerArg();
        sites.addAndGet(-pp.sites().size());
        ProcessState s = processes.get(pp.pid());
        if (s == null) return;
        s.countProbe(probe.provider(), -1);
        letGoIfUnused(s); // grabbed only for these probes: let it go untouched
    }
}
