package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import org.jdtrace.elf.ElfException;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.IsaException;
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
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The pid provider (fasttrap's pid half): probes on the functions of real processes.
 *
 * provide(pid<PID>:<module>:<function>:<name>) reads the process's modules (/proc/PID/maps),
 * their functions (.symtab else .dynsym, IFUNCs resolved), matches the globs, analyses each
 * function with Isa.analyze and creates probes under the provider name pid<PID>: entry,
 * return (every return site; none for a function that never returns, whose probe never
 * fires) and one per instruction offset named in lower-case hex. A process named this way that
 * nobody created or grabbed is grabbed (ProcessTable.grabForProbes, as dtrace does) and let go
 * untouched when its last probe goes. A function that cannot be instrumented is skipped with one
 * warning line.
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
 * dlclose held; ProcessControlImpl re-reads the maps and calls objectsChanged, which plans the
 * remembered descriptions for the
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
 * (never from the control thread, which the framework may be waiting for): ProcessControlImpl,
 * which owns every traced process (-c, -p, USDT's and these), tells this provider through
 * ProcessTable.ProbeOwner (retire, objectsChanged).
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
 * line; the rest of the enabling goes on. Dynamic linker events on the uprobe path: a uprobe on
 * r_brk whose BPF program stops the process with SIGSTOP at each call; modulesChanged runs while
 * it is stopped, then SIGCONT (RtldEvents.watchOnUprobes says why this and not /proc or perf
 * mmap records); the same watch sees an exec, as the new image's dynamic linker starts. Otherwise
 * the uprobe path sees exec and exit only as the end of the process.
 * On it the probes' kernel clauses (Probe.kernelClauses) are registered with their links
 * (UprobeSites.clauses, with where the probe's arguments lie in the register frame:
 * kernelArgWords) at enable and at clausesChanged, and built into the capture's program at
 * commit(): a hit none of whose ECBs needs the JVM never leaves the kernel. A probe with a clause
 * that acts on the process (Probe.procDestructive: stop(), raise(), copyout()) holds the process
 * at each hit until its clauses ran in the JVM (UprobeSites.clauses, Holds), so those act at the
 * probe as on ptrace; other probes never stop it.
 *
 * Probes for every process (provider `pid`, pid 0, matched by `pid*`): a library named by its
 * file name (found in this JVM's mappings or the usual directories) is planned as a process's
 * object with bias 0; its probes are uprobes on the file in any process that maps it, now or
 * later (EveryProcessContext), with the probe's pid filter (/pid == N/) applied in the kernel
 * (filterChanged). Only on uprobes.
 *
 * The processes themselves (creating, grabbing, following, the uprobe-or-ptrace choice, the
 * release of every process at deactivation) are ProcessControlImpl's; this component only names,
 * creates, enables and retires probes, and is only the Provider service.
 */
@Component(service = Provider.class, property = "provider.name=pid")
public final class PidProvider implements Provider, ProcessTable.ProbeOwner {

    private static final Logger LOG = LoggerFactory.getLogger(PidProvider.class);
    private static final Pattern PID_PROVIDER = Pattern.compile("pid([0-9]+)");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]+");

    private final Isa isa;
    /** Every traced process: ProcessControlImpl's table. */
    private final ProcessTable processes;
    /** The table this provider made for itself (tests and embedding without DS), else null. */
    private final ProcessControlImpl own;
    private final Map<Probe, AutoCloseable> links = new ConcurrentHashMap<>();
    /** Bytes of user stack a uprobe hit copies for a probe with ustack() (-x ustackbytes; 8192 as perf's and profile's). */
    private volatile int ustackbytes = 8192;
    private static final int USTACKBYTES_MAX = 65528;

    private volatile ProbeRegistry registry;
    private final Map<Probe, TracepointHandler> handlers = new ConcurrentHashMap<>();
    private final AtomicLong sites = new AtomicLong();

    @Activate
    public PidProvider(@Reference(target = "(isa=amd64)") Isa isa, @Reference ProcessTable processes) {
        this(isa, processes, null);
    }

    /**
     * For tests and embedding without DS, processes in a table of its own: probes on the kernel's
     * uprobes through {@code perf}, on ptrace when it is null. (No other two-argument
     * constructor: SCR picks the constructor to inject by its number of arguments.)
     */
    public PidProvider(Isa isa, int max, PerfEvents perf) {
        this(isa, null, new ProcessControlImpl(isa, max, perf));
    }

    private PidProvider(Isa isa, ProcessTable processes, ProcessControlImpl own) {
        this.isa = isa;
        this.own = own;
        this.processes = own != null ? own : processes;
        this.processes.setProbeOwner(this);
    }

    /** The process control of a provider made without DS (its -c, -p, Fasttrap); null under DS. */
    public ProcessControlImpl control() {
        return own;
    }

    @Deactivate
    public void deactivate() {
        processes.setProbeOwner(null);
        for (MappedObject o : everyProcessObjects.values()) o.elf().close();
        everyProcessObjects.clear();
        if (own != null) own.deactivate();
    }

    // ------------------------------------------------------------------ ProbeOwner

    @Override
    public ProbeRegistry registry() {
        return registry;
    }

    @Override
    public void retire(ProcessState s) {
        ProbeRegistry r = registry;
        if (r != null) r.retire("pid" + s.pid());
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
        processes.drainUprobes();
        UprobeSites k = processes.openKernelSites();
        if (k != null) k.sync();
    }

    /** The batch is done: the uprobe capture's program runs the enabled probes' kernel clauses. */
    @Override
    public void commit() {
        UprobeSites k = processes.openKernelSites();
        if (k != null) k.commit();
    }

    /**
     * An ECB came or went on an enabled uprobe probe: its kernel clauses are registered anew
     * (built at commit), and a ustack() added or gone changes the stack its hits copy.
     */
    @Override
    public void clausesChanged(Probe probe) {
        UprobeSites k = processes.openKernelSites();
        if (links.get(probe) instanceof UprobeSites.Handle h) h.stack(stackBytes(probe));
        if (k != null && links.get(probe) instanceof UprobeSites.Handle h) {
            try {
                k.clauses(h, probe, kernelArgWords((PidProbe) probe.providerArg()));
            } catch (UprobeSites.UprobeRefused e) {
                LOG.warn("{}: {}", probe.description(), e.getMessage());
            }
        }
    }

    /**
     * Where a pid probe's arguments are in the kernel's register frame at its hit, for clauses
     * run in the kernel: an entry's and an offset's are the calling convention's registers (the
     * stack ones are not captured: -1); a return's arg1 the return value's register, arg0 (the
     * return site's offset) -1.
     */
    private int[] kernelArgWords(PidProbe pp) {
        org.jdtrace.isa.Abi abi = isa.abi();
        int[] w = new int[10];
        java.util.Arrays.fill(w, -1);
        if (pp.kind() == PidProbe.Kind.RETURN) {
            w[1] = place(abi.kernelRegsReturnWord());
        } else {
            for (int i = 0; i < w.length; i++) w[i] = place(abi.kernelRegsArgumentWord(i));
        }
        return w;
    }

    private static int place(int word) {
        return word < 0 ? -1 : org.jdtrace.perf.UserProbes.argument(word, 8, false);
    }

    /** Registers the probe's kernel clauses with its link; a clause of kernelclauses=force it cannot take fails the enable. */
    private void kernelClauses(UprobeSites k, UprobeSites.Handle h, Probe probe, PidProbe pp) {
        try {
            k.clauses(h, probe, kernelArgWords(pp));
        } catch (UprobeSites.UprobeRefused e) {
            if (links.remove(probe, h)) closeLink(h);
            throw new ProviderException("cannot enable " + probe.description() + ": " + e.getMessage());
        }
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
        provide(desc, Map.of());
    }

    /** {@code consumerOptions}: the asking consumer's; uprobes 0 (-x uprobes=off) traces a process grabbed now with ptrace. */
    @Override
    public void provide(ProbeDescription desc, Map<String, Long> consumerOptions) {
        ProbeRegistry reg = registry;
        if (reg == null) return;
        int pid = pidOf(desc.provider());
        if (pid == 0) {
            if (desc.provider().startsWith(EVERY_PROCESS)) provideEveryProcess(reg, desc);
            return;
        }
        ProcessState s = processes.grabForProbes(pid, consumerOptions);
        if (s.defunct()) return;
        createAll(reg, s, desc, plan(s, desc, null));
        s.descriptions.add(desc);
        if (!desc.module().equals("a.out") && !desc.function().equals("-")) processes.watchLinker(s);
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
        UprobeSites k = processes.kernelSites();
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
            kernelClauses(k, h, probe, pp);
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

    /**
     * Thread-locals in the kernel (whole clauses) run at a probe on the kernel's uprobes (its
     * process's, chosen when it was followed, or every process's) when the capture's program can
     * read all the clause reads there (an entry's first six arguments, a return's arg1).
     */
    @Override
    public boolean kernelThreadLocals(Probe probe, org.jdtrace.spi.KernelClause clause) {
        PidProbe pp = (PidProbe) probe.providerArg();
        if (pp.pid() == 0) {
            UprobeSites k = processes.kernelSites();
            return k != null && k.runs(clause, kernelArgWords(pp));
        }
        ProcessState s = processes.process(pp.pid());
        return s != null && !s.defunct() && s.kernelRuns(clause, kernelArgWords(pp));
    }

    @Override
    public void filterChanged(Probe probe) {
        UprobeSites k = processes.openKernelSites();
        if (k != null && links.get(probe) instanceof UprobeSites.Handle h && ((PidProbe) probe.providerArg()).pid() == 0) {
            k.filter(h, probe.pidFilter());
        }
    }

    /** Creates the planned probes that do not exist yet, all or none (fasttrap-max). */
    private void createAll(ProbeRegistry reg, ProcessState s, ProbeDescription desc, List<Creation> todo) {
        String provider = "pid" + s.pid();
        long fresh = 0;
        for (Creation c : todo) {
            if (reg.lookup(provider, c.module, c.function, c.name) == null) fresh += c.probe.sites().size();
        }
        int max = processes.fasttrapMax();
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
     * The dynamic linker mapped or unmapped objects (ProcessControlImpl tells, on a worker thread,
     * the thread in the linker held, the tracepoints in objects gone already forgotten): the
     * probes of the objects gone are retired; the remembered descriptions are planned for the new
     * objects.
     */
    @Override
    public void objectsChanged(ProcessState s, ProcessState.ModuleChange change) {
        ProbeRegistry reg = registry;
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
        ProcessState s = processes.process(pp.pid());
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
        UprobeSites.Handle link;
        try {
            link = k.attach(s, uret ? List.of(pp.functionStart()) : pcs(pp), 0, uret, stackBytes(probe), h);
            AutoCloseable old = links.put(probe, link);
            if (old != null) closeLink(old);
        } catch (UprobeSites.UprobeRefused e) {
            LOG.warn("failed to enable {}: {}", probe.description(), e.getMessage());
            return;
        }
        kernelClauses(k, link, probe, pp);
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
        ProcessState s = processes.process(pp.pid());
        if (h == null || s == null) return;
        for (Instruction i : pp.sites()) s.process.disable(i.pc(), h);
    }

    @Override
    public void destroy(Probe probe) {
        PidProbe pp = (PidProbe) probe.providerArg();
        if (pp.pid() == 0) return; // every process's: no process, no fasttrap-max count
        sites.addAndGet(-pp.sites().size());
        ProcessState s = processes.process(pp.pid());
        if (s == null) return;
        s.countProbe(probe.provider(), -1);
        processes.letGoIfUnused(s); // grabbed only for these probes: let it go untouched
    }
}
