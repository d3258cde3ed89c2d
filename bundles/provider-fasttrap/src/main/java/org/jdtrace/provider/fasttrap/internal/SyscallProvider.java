package org.jdtrace.provider.fasttrap.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.Isa;
import org.jdtrace.provider.fasttrap.internal.proc.SyscallHandler;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The syscall provider, for the processes under jdtrace's control only (there is no kernel
 * module): syscall:vmlinux:<name>:entry and :return for every system call of the ISA's table
 * (Abi.syscallNames, dtrace-utils' names and module), all created when the framework attaches,
 * as DTrace does, whether or not any process is traced.
 *
 * It shares the pid provider's process table (ProcessTable: one ptrace attachment per process,
 * fasttrap_proc_t style). While at least one syscall probe is enabled, every process in the
 * table, and every process that joins it (-c, -p, grabbed for pid probes), gets a
 * SyscallHandler: TracedProcess then resumes its threads with PTRACE_SYSCALL and reports each
 * entry and exit on the process's control thread, where the handler looks the probe up by number
 * in an array (no lock, no allocation) and fires it with the process's SyscallContext. When the
 * last probe is disabled every handler is removed and the processes run under PTRACE_CONT again,
 * exactly as if no syscall probe had ever been enabled.
 *
 * Enabling with no process traced at all warns once (the probes would be silently empty).
 *
 * One syscall provider: where the kernel's events are allowed, the perf-events bundle registers
 * a machine-wide syscall provider (service property provider.scope=machine). While one is
 * present this one makes no probes (it retires those it made when one arrives) and the machine-
 * wide probes answer to syscall:::; when it goes (its bundle stops, or the kernel refuses) this
 * one makes its probes again: the ptrace path only where the kernel's events are not allowed.
 *
 * Locking: enable/disable are serialised on this. The handlers read armed[] without a lock: a
 * slot written by enable is seen at the latest after traceSyscalls() (a hand-off to the control
 * thread); a read racing a disable at worst fires once more, as a probe disabled mid-firing does.
 */
@Component(service = Provider.class, property = "provider.name=syscall")
public final class SyscallProvider implements Provider {

    static final String NAME = "syscall", MODULE = "vmlinux";
    private static final Logger LOG = LoggerFactory.getLogger(SyscallProvider.class);

    @Reference(target = "(isa=amd64)")
    private Isa isa;

    @Reference
    private ProcessTable table;

    private volatile ProbeRegistry registry;
    /** The machine-wide syscall provider while one is registered: this one stands down. */
    private volatile Provider machineWide;
    /** Enabled probes by number: [0] entry, [1] return. */
    private volatile Probe[][] armed = new Probe[2][0];
    private int enabled;
    private final Map<ProcessState, SyscallHandler> handlers = new ConcurrentHashMap<>();
    private final Consumer<ProcessState> follow = this::follow;

    public SyscallProvider() {}

    /** For tests and embedding without DS. */
    public SyscallProvider(Isa isa, ProcessTable table) {
        this.isa = isa;
        this.table = table;
        activate();
    }

    @Activate
    void activate() {
        int max = isa.abi().syscallNames().keySet().stream().mapToInt(Integer::intValue).max().orElse(-1);
        armed = new Probe[2][max + 1];
    }

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return org.jdtrace.spi.ProviderAttributes.SYSCALL;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindMachineWide",
            target = "(&(provider.name=syscall)(provider.scope=machine))")
    void bindMachineWide(Provider p) {
        machineWide = p;
        ProbeRegistry r = registry;
        if (r != null) r.retire(NAME); // not under this' lock: retire calls disable()
    }

    void unbindMachineWide(Provider p) {
        if (machineWide != p) return;
        machineWide = null;
        ProbeRegistry r = registry;
        if (r == null || createProbes(r)) return;
        // the framework has not retired the machine-wide probes yet: make ours once it has
        Thread.ofPlatform().daemon().name("jdtrace-syscall-fallback").start(() -> {
            for (int i = 0; i < 500 && machineWide == null && registry == r; i++) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
                if (createProbes(r)) return;
            }
        });
    }

    @Override
    public void attach(ProbeRegistry registry) {
        this.registry = registry;
        if (machineWide == null) createProbes(registry);
    }

    /** True when every probe exists (a name still held by the machine-wide provider is skipped). */
    private boolean createProbes(ProbeRegistry registry) {
        boolean all = true;
        for (Map.Entry<Integer, String> e : isa.abi().syscallNames().entrySet()) {
            for (boolean entry : new boolean[] {true, false}) {
                try {
                    registry.create(NAME, MODULE, e.getValue(), entry ? "entry" : "return", new SyscallProbe(e.getKey(), entry));
                } catch (IllegalArgumentException clash) {
                    all = false;
                }
            }
        }
        return all;
    }

    @Override
    public synchronized void detach() {
        registry = null;
        if (enabled > 0) stop();
        enabled = 0;
    }

    @Override
    public synchronized void enable(Probe probe) {
        SyscallProbe sp = (SyscallProbe) probe.providerArg();
        armed[sp.entry() ? 0 : 1][sp.number()] = probe;
        if (enabled++ == 0) start();
    }

    @Override
    public synchronized void disable(Probe probe) {
        SyscallProbe sp = (SyscallProbe) probe.providerArg();
        Probe[] slots = armed[sp.entry() ? 0 : 1];
        if (slots[sp.number()] != probe) return;
        slots[sp.number()] = null;
        if (--enabled == 0) stop();
    }

    /** Whether processes are traced for system calls now (some probe is enabled). */
    synchronized boolean active() {
        return enabled > 0;
    }

    private void start() {
        table.addTrackListener(follow);
        boolean none = true;
        for (ProcessState s : table.processes()) {
            follow(s);
            none = false;
        }
        if (none) {
            LOG.warn("the syscall provider sees only processes under dtrace's control (-c, -p, pid probes)");
        }
    }

    private void stop() {
        table.removeTrackListener(follow);
        for (ProcessState s : handlers.keySet()) {
            handlers.remove(s);
            s.process.traceSyscalls(null);
        }
    }

    private void follow(ProcessState s) {
        SyscallContext ctx = new SyscallContext(s, isa.abi());
        Abi abi = isa.abi();
        SyscallHandler h = (hit, entry) -> {
            Probe[] slots = armed[entry ? 0 : 1];
            long nr = abi.syscallNumber(hit.regs());
            Probe p = nr >= 0 && nr < slots.length ? slots[(int) nr] : null;
            if (p != null) p.fire(ctx.at(hit, entry));
        };
        handlers.keySet().removeIf(o -> o.defunct() && o.process.ended());
        if (handlers.putIfAbsent(s, h) == null) s.process.traceSyscalls(h);
    }
}
