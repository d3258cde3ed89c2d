/*
 * The USDT provider (fasttrap's meta provider side, illumos fasttrap_meta_create_probe): the
 * statically defined probes of native processes, from their SystemTap SDT notes, on the
 * processes provider-fasttrap follows (-c, -p, grabbed for pid probes), reached only through
 * fasttrap's exported service API (org.jdtrace.fasttrap) and the ISA's Abi.
 *
 * A description that names a process not followed yet (myapp1234:::, as dtrace's tests use
 * $pid) has it grabbed through Fasttrap.follow (providesPerProcess: the framework offers such
 * descriptions here); the grab is let go when this provider detaches.
 *
 * Probes are made eagerly, as DTrace's USDT helper makes them when a process starts: when a
 * process is followed (or, for processes followed already, when the framework attaches this
 * provider), every object's notes become probes (UsdtScan); a dlopen()ed object's notes become
 * probes while the thread in the dynamic linker is held (TargetListener.objectsChanged), so
 * retained enablings (-Z) fire on them before dlopen returns; an unmapped object's probes
 * retire and their semaphores are forgotten, never written.
 *
 * enable: one hold per site on fasttrap's shared tracepoint at that address (one int3 per
 * address, shared with pid probes there), then +1 on every semaphore of the probe (Semaphores).
 * On the kernel's uprobes a site is taken with its semaphore (TracedTarget.traceCounted) and the
 * kernel counts it (ref_ctr_offset: down again when the link closes, even with dtrace killed);
 * only the semaphores it would not count are ours (UsdtProbe.counted).
 * disable: the holds are closed and our semaphores get their 1 back, unless the object or the
 * process is gone. The hit (probe context: lock-free, allocation-free): Probe.fire with
 * fasttrap's reused context whose args come from the notes' operand specs through the Abi.
 * argDesc: the types a dtrace -h header declared (its .note.jdtrace notes, see UsdtScan), else
 * the operand's size and sign.
 *
 * Every way out: the framework retires every probe of this provider when its service goes
 * (bundle stopped or uninstalled, Fasttrap or Isa gone: static references, so this component
 * goes first and fasttrap's process is still traced while we undo); fasttrap tells `releasing`
 * before it lets a process go (dtrace ends, Ctrl-C, SIGTERM through its shutdown hook) and
 * `defunct` at exec and exit. Retiring USDT probes never makes fasttrap's process state
 * defunct (illumos 6573659): that takes exec or exit (ProcessState.markDefunct in fasttrap).
 */
package org.jdtrace.provider.sdt.internal.usdt;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;

import org.jdtrace.fasttrap.ArgumentReader;
import org.jdtrace.fasttrap.Fasttrap;
import org.jdtrace.fasttrap.Site;
import org.jdtrace.fasttrap.TargetListener;
import org.jdtrace.fasttrap.TargetObject;
import org.jdtrace.fasttrap.TracedTarget;
import org.jdtrace.fasttrap.TracepointRefused;
import org.jdtrace.isa.Abi;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.SdtArgument;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.jdtrace.spi.ProviderException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Component(service = Provider.class, property = "provider.name=usdt")
public final class UsdtProvider implements Provider, TargetListener {

    private static final Logger LOG = LoggerFactory.getLogger(UsdtProvider.class);

    private final Fasttrap fasttrap;
    private final Abi abi;
    private volatile ProbeRegistry registry;
    private final Map<Integer, UsdtProcess> processes = new ConcurrentHashMap<>();
    /** The processes this provider had fasttrap grab for a description, to let go at detach. */
    private final Map<Integer, TracedTarget> grabbed = new ConcurrentHashMap<>();
    /** Bytes of user stack a uprobe hit copies for a probe with ustack() (-x ustackbytes; 8192 as profile's). */
    private volatile int ustackbytes = 8192;

    @Activate
    public UsdtProvider(@Reference Fasttrap fasttrap, @Reference(target = "(isa=amd64)") Isa isa) {
        this.fasttrap = fasttrap;
        this.abi = isa.abi();
        fasttrap.addTargetListener(this);
    }

    @Deactivate
    public void deactivate() {
        fasttrap.removeTargetListener(this);
    }

    @Override
    public String name() {
        return "usdt";
    }

    @Override
    public void attach(ProbeRegistry registry) {
        this.registry = registry;
        for (TracedTarget t : fasttrap.targets()) followed(t);
    }

    @Override
    public void detach() {
        registry = null;
        processes.clear();
        for (TracedTarget t : List.copyOf(grabbed.values())) fasttrap.unfollow(t);
        grabbed.clear();
    }

    @Override
    public boolean providesPerProcess() {
        return true;
    }

    /**
     * A description naming {@code <provider><PID>}: the process is followed (grabbed if it is
     * not yet), which makes its probes. pid<PID> is the pid provider's alone.
     */
    @Override
    public void provide(org.jdtrace.spi.ProbeDescription desc) {
        provide(desc, java.util.Map.of());
    }

    /** As provide(desc); a process grabbed now is traced as the asking consumer's {@code consumerOptions} say (uprobes). */
    @Override
    public void provide(org.jdtrace.spi.ProbeDescription desc, java.util.Map<String, Long> consumerOptions) {
        String p = desc.provider();
        String digits = org.jdtrace.spi.ProbeDescription.processDigits(p);
        if (digits.isEmpty() || p.equals("pid" + digits)) return;
        int pid;
        try {
            pid = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return;
        }
        if (pid <= 0 || processes.containsKey(pid) || grabbed.containsKey(pid)) return;
        try {
            TracedTarget t = fasttrap.follow(pid, consumerOptions);
            if (grabbed.putIfAbsent(pid, t) != null) fasttrap.unfollow(t);
            followed(t); // made already if it was grabbed just now (followed), else now
        } catch (TracepointRefused e) {
            throw new ProviderException(e.getMessage(), "D_PROC_GRAB", e);
        }
    }

    // ------------------------------------------------------------------ fasttrap's events

    @Override
    public void followed(TracedTarget t) {
        if (registry == null || t.defunct()) return;
        UsdtProcess up = processes.computeIfAbsent(t.pid(), k -> new UsdtProcess(t));
        if (up.target != t) return; // a stale pid: the old one's defunct event comes first
        List<? extends TargetObject> objects;
        try {
            objects = t.objects();
        } catch (IOException e) {
            LOG.warn("pid{}: cannot read the objects: {}", t.pid(), e.getMessage());
            return;
        }
        for (TargetObject o : objects) provideObject(up, o);
    }

    @Override
    public void objectsChanged(TracedTarget t, List<? extends TargetObject> added, List<? extends TargetObject> removed) {
        UsdtProcess up = processes.get(t.pid());
        if (up == null || up.target != t) return;
        List<Probe> gone = new ArrayList<>();
        for (TargetObject o : removed) {
            List<Probe> l = up.probes.remove(o);
            up.semaphores.forget(o.start(), o.end());
            if (l == null) continue;
            for (Probe p : l) ((UsdtProbe) p.providerArg()).gone = true;
            gone.addAll(l);
        }
        ProbeRegistry r = registry;
        if (r != null && !gone.isEmpty()) r.retire(gone);
        for (TargetObject o : added) provideObject(up, o);
    }

    @Override
    public void defunct(TracedTarget t) {
        UsdtProcess up = processes.get(t.pid());
        if (up == null || up.target != t) return;
        processes.remove(t.pid(), up);
        List<Probe> all = up.allProbes();
        for (Probe p : all) ((UsdtProbe) p.providerArg()).gone = true;
        up.semaphores.forgetAll();
        retire(all);
    }

    @Override
    public void releasing(TracedTarget t) {
        UsdtProcess up = processes.get(t.pid());
        if (up == null || up.target != t) return;
        processes.remove(t.pid(), up);
        retire(up.allProbes());
    }

    private void retire(List<Probe> probes) {
        ProbeRegistry r = registry;
        if (r != null && !probes.isEmpty()) r.retire(probes);
    }

    private void provideObject(UsdtProcess up, TargetObject o) {
        ProbeRegistry r = registry;
        if (r == null || up.probes.containsKey(o)) return;
        List<UsdtScan.Planned> plan = UsdtScan.plan(up.target, o, abi);
        List<Probe> made = new ArrayList<>();
        up.probes.put(o, made);
        if (plan.isEmpty()) return;
        ToLongFunction<String> symbols = UsdtScan.symbols(o);
        for (UsdtScan.Planned p : plan) {
            SdtArgument[] args = p.args();
            ArgumentReader reader = args == null ? (hit, i) -> 0
                    : (hit, i) -> i < args.length ? abi.sdtArgumentValue(args[i], hit.regs(), hit.memory(), symbols) : 0;
            UsdtProbe u = new UsdtProbe(up, o, p.sites(), args, p.types(), reader);
            Probe probe = r.create(p.provider(), p.module(), p.function(), p.name(), u);
            if (!p.noteName().equals(p.name())) r.aliasName(probe, p.noteName()); // function__entry too
            made.add(probe);
        }
    }

    // ------------------------------------------------------------------ Provider

    @Override
    public void enable(Probe probe) {
        UsdtProbe u = (UsdtProbe) probe.providerArg();
        if (u.gone || u.process.target.defunct()) return;
        ArgumentReader reader = u.reader;
        int stack = stackBytes(probe);
        List<Long> ours = new java.util.ArrayList<>();
        try {
            for (UsdtProbe.SiteSpec s : u.sites) {
                org.jdtrace.fasttrap.SiteHandler h = hit -> probe.fire(hit.context(reader));
                // on uprobes the kernel counts the semaphore (ref_ctr_offset): a killed dtrace leaves it right
                Site site = s.semaphore() == 0 ? null : u.process.target.traceCounted(s.pc(), s.semaphore(), h, stack);
                if (site == null) {
                    site = u.process.target.trace(s.pc(), h, stack);
                    if (s.semaphore() != 0 && !ours.contains(s.semaphore())) ours.add(s.semaphore());
                }
                u.held.add(site);
                site.kernelClauses(probe, kernelArgs(u));
            }
        } catch (TracepointRefused e) {
            closeAll(u);
            throw new ProviderException("failed to enable " + probe.description() + ": " + e.getMessage(), null, e);
        }
        u.counted = List.copyOf(ours);
        for (long sem : u.counted) {
            if (!u.process.semaphores.add(sem, 1)) {
                LOG.warn("pid{}: cannot set the semaphore of {} at 0x{}", u.process.pid(), probe.description(),
                        Long.toHexString(sem));
            }
        }
    }

    /**
     * Thread-locals in the kernel (whole clauses) run at the probe of a process whose sites are
     * the kernel's uprobes, when the clause reads only register operands.
     */
    @Override
    public boolean kernelThreadLocals(Probe probe, org.jdtrace.spi.KernelClause clause) {
        UsdtProbe u = (UsdtProbe) probe.providerArg();
        return !u.gone && !u.process.target.defunct() && u.process.target.kernelRuns(clause, kernelArgs(u));
    }

    /** Where the probe's arguments are in the kernel's register frame at a hit (register operands only; -1 elsewhere). */
    private int[] kernelArgs(UsdtProbe u) {
        int[] out = new int[u.args == null ? 0 : u.args.length];
        for (int i = 0; i < out.length; i++) out[i] = abi.kernelRegsSdtArgument(u.args[i]);
        return out;
    }

    /**
     * The user stack a uprobe hit of {@code probe} copies (Site.stack): option ustackbytes when a
     * clause on it walks the user stack (Probe.userStack), else 0.
     */
    private int stackBytes(Probe probe) {
        return probe.userStack() ? ustackbytes : 0;
    }

    /** -x ustackbytes=N, as the pid provider takes it. */
    @Override
    public void option(String name, long value) {
        if (name.equals("ustackbytes")) ustackbytes = (int) Math.min(65528, Math.max(0, value));
    }

    /**
     * An ECB came or went on an enabled probe: its sites' kernel clauses are registered anew
     * (built at the batch's commit), and a ustack() added or gone changes the stack its hits copy.
     */
    @Override
    public void clausesChanged(Probe probe) {
        UsdtProbe u = (UsdtProbe) probe.providerArg();
        int stack = stackBytes(probe);
        for (Site s : u.held) {
            s.stack(stack);
            try {
                s.kernelClauses(probe, kernelArgs(u));
            } catch (TracepointRefused e) {
                LOG.warn("{}: {}", probe.description(), e.getMessage());
            }
        }
    }

    @Override
    public void disable(Probe probe) {
        UsdtProbe u = (UsdtProbe) probe.providerArg();
        if (u.held.isEmpty()) return;
        closeAll(u);
        if (u.gone || u.process.target.defunct()) return;
        for (long sem : u.counted) u.process.semaphores.add(sem, -1);
        u.counted = List.of();
    }

    private static void closeAll(UsdtProbe u) {
        for (Site s : u.held) s.close();
        u.held.clear();
    }

    @Override
    public ArgDesc argDesc(Probe probe, int index) {
        UsdtProbe u = (UsdtProbe) probe.providerArg();
        if (u.args == null || index < 0 || index >= u.args.length) return null;
        String declared = u.declaredTypes != null ? u.declaredTypes.get(index) : null;
        return new ArgDesc(index, declared != null ? declared : UsdtScan.nativeType(u.args[index]), null);
    }
}
