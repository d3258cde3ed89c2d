/*
 * The framework: dtrace(7d)'s provider list, probe table, retained enablings and modules, under
 * one lock (dtrace_lock). A DS component; providers are tracked with a dynamic, multiple,
 * greedy reference, so a provider bundle can come and go at any time.
 *
 * Provider arrives: attach(registry) (its probes are created and matched at once), provide(desc)
 * for every retained description that may name it, provideModule(m) for every loaded module.
 * Provider leaves: it delivers the events still in its rings (sync(), outside the lock), then
 * every probe it created retires, then detach(). A probe its own threads
 * still create after that (the service went away under a dlopen worker) is inert: outside the
 * table, never enabled, nothing thrown into that thread.
 *
 * Probe creation (create): the probe enters the table and every retained enabling is matched
 * against it at once; an ECB created for an active owner is installed immediately, so the
 * provider may see enable(probe) before create() returns.
 *
 * Enabling (enable): the enabling is retained first, then provide(desc) runs on the providers
 * the description may name (dtrace_probe_provide), then the table is matched. ECBs are
 * installed on their probes only while their owner is active (between go() and the end of the
 * run): BEGIN fires before anything else and nothing fires after END.
 *
 * Batches: after each batch of enable/disable calls (activate, deactivate, an enabling matched,
 * a provider or module arriving or leaving) every provider's commit() runs, lock held, so a
 * provider that defers the work of enabling (fbt's retransformation) finishes it before the
 * framework returns.
 *
 * Pid filters (Probe.pidFilter): an enabled probe's filter is the one pid all its installed ECBs'
 * statements are confined to, else -1. install() widens it before the new ECB is installed and
 * uninstall() narrows it after, each time telling the provider (filterChanged) if the probe stays
 * enabled; a first enable() reads it. A kernel provider thus never drops an event some ECB wants.
 * Kernel clauses (Probe.kernelClauses) follow the same order, through clausesChanged; an ECB
 * whose clause the provider took (Probe.runInKernel) loses that mark when it is uninstalled.
 *
 * Retire (the one path for provider unregistration, ProbeRegistry.retire and module unload):
 * each probe leaves the table, its ECBs are uninstalled and forgotten (disable called when the
 * last goes), destroy is called; the enablings stay.
 *
 * Provider failures: a provide() or enable() that throws is a failure of the consumer that
 * asked, reported by it as one dtrace line (ProviderException carries the provider's wording
 * and D_* tag; anything else is worded here): match() throws the first provide() failure after
 * every provider has provided; an enable() failure fails the ECB's owner (EcbOwner.enableFailed)
 * and leaves the ECB uninstalled. With no consumer asking (a provider arriving for retained
 * enablings, disable, destroy) the failure is one warning line; stack traces only at debug.
 *
 * Locking: every method takes `lock`; provider callbacks are made with it held, so a provider
 * must not call into the framework from another thread while holding a lock its callbacks
 * need. Probe.fire never takes it.
 */
package org.jdtrace.core.provider;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jdtrace.core.ecb.Ecb;
import org.jdtrace.core.ecb.EcbOwner;
import org.jdtrace.core.ecb.Enabling;
import org.jdtrace.engine.Statement;
import org.jdtrace.core.probe.ProbeImpl;
import org.jdtrace.core.probe.ProbePattern;
import org.jdtrace.core.probe.ProbeTable;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Module;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.Provider;
import org.jdtrace.spi.ProviderException;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Component(service = DTraceFramework.class, immediate = true)
public final class DTraceFramework {

    private static final Logger LOG = LoggerFactory.getLogger(DTraceFramework.class);

    private final Object lock = new Object();
    private final ProbeTable table = new ProbeTable();
    private final Map<Provider, ProviderEntry> providers = new IdentityHashMap<>();
    private final List<ProviderEntry> providerOrder = new ArrayList<>();
    private final List<Enabling> enablings = new ArrayList<>();
    /** The owners between warmUp and deactivate, for lost() (written under the lock, read without). */
    private final List<EcbOwner> activeOwners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<Long, Module> modules = new LinkedHashMap<>();
    private final ExecutorService housekeeping = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jdtrace-housekeeping");
        t.setDaemon(true);
        return t;
    });

    /** Retires every provider's probes and drops every enabling (the framework stops). */
    @Deactivate
    public void deactivate() {
        synchronized (lock) {
            for (ProviderEntry e : List.copyOf(providerOrder)) {
                retireProvider(e.provider()); // no consumer left to deliver to: no sync
            }
            enablings.clear();
        }
        housekeeping.shutdown();
    }

    // ---- providers ----

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "removeProvider")
    public void addProvider(Provider provider) {
        synchronized (lock) {
            if (providers.containsKey(provider)) {
                return;
            }
            ProviderEntry entry = new ProviderEntry(this, provider);
            providers.put(provider, entry);
            providerOrder.add(entry);
            try {
                provider.attach(entry);
            } catch (RuntimeException e) {
                LOG.warn("provider {} failed to attach: {}", safeName(provider), e.toString());
                LOG.debug("provider failure", e);
            }
            Set<List<Object>> asked = new LinkedHashSet<>();
            for (Enabling en : List.copyOf(enablings)) {
                Map<String, Long> options = en.owner().consumerOptions();
                for (ProbePattern p : en.patterns()) {
                    if (asked.add(List.of(p.description(), options))) {
                        ProviderException f = provideOne(entry, p, options);
                        if (f != null) {
                            // no consumer is asking now: one line, the enabling waits on
                            LOG.warn("{}", f.getMessage());
                        }
                    }
                }
            }
            for (Module m : List.copyOf(modules.values())) {
                provideModule(entry, m);
            }
            // probes created before any enabling wanted them are matched in create(); probes
            // made by attach() for enablings created earlier are matched there too
            commitAll();
        }
    }

    /**
     * The provider leaves (its service unregistered): it first delivers the events still waiting
     * in its rings (Provider.sync, outside the lock: it fires probes, which are still enabled),
     * then its probes retire.
     */
    public void removeProvider(Provider provider) {
        assert !Thread.holdsLock(lock);
        boolean known;
        synchronized (lock) {
            known = providers.containsKey(provider);
        }
        if (known) {
            try {
                provider.sync();
            } catch (RuntimeException e) {
                LOG.debug("provider sync failed", e);
            }
        }
        retireProvider(provider);
    }

    /** Retire of every probe of {@code provider}, then its detach(). */
    private void retireProvider(Provider provider) {
        synchronized (lock) {
            ProviderEntry entry = providers.remove(provider);
            if (entry == null) {
                return;
            }
            providerOrder.remove(entry);
            retireProbes(probesOf(entry));
            commit(provider);
            entry.detached();
            try {
                provider.detach();
            } catch (RuntimeException e) {
                LOG.warn("provider {} failed to detach: {}", safeName(provider), e.toString());
                LOG.debug("provider failure", e);
            }
        }
    }

    /**
     * dtps_provide on one provider for a consumer with {@code options} (EcbOwner.consumerOptions);
     * its failure, worded for the user, or null.
     */
    private ProviderException provideOne(ProviderEntry entry, ProbePattern pattern, Map<String, Long> options) {
        String name = safeName(entry.provider());
        if (name != null && (pattern.mayNameProvider(name) || (pattern.namesProcess() && perProcess(entry.provider())))) {
            try {
                entry.provider().provide(pattern.description(), options);
            } catch (ProviderException e) {
                return e;
            } catch (RuntimeException e) {
                LOG.debug("provider {} failed to provide {}", name, pattern, e);
                return new ProviderException("provider " + name + " failed to provide " + pattern + ": " + e, null, e);
            }
        }
        return null;
    }

    private void provideModule(ProviderEntry entry, Module m) {
        try {
            entry.provider().provideModule(m);
        } catch (RuntimeException e) {
            LOG.warn("provider {} failed to provide module {}: {}", safeName(entry.provider()), m.name(), e.toString());
            LOG.debug("provider failure", e);
        }
    }

    /**
     * dtrace_probe_provide: every provider that may make probes for {@code pattern} provides. A
     * provider that fails does not stop the others; the first failure is then thrown for the
     * consumer that asked (lock held, nothing of the table is left half done by it).
     */
    private void provideAll(ProbePattern pattern, Map<String, Long> options) {
        ProviderException first = null;
        for (ProviderEntry e : List.copyOf(providerOrder)) {
            ProviderException f = provideOne(e, pattern, options);
            if (first == null) {
                first = f;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Provider.commit on every provider: the end of a batch of enable/disable calls. Lock held. */
    private void commitAll() {
        for (ProviderEntry e : List.copyOf(providerOrder)) {
            commit(e.provider());
        }
    }

    private static void commit(Provider p) {
        try {
            p.commit();
        } catch (RuntimeException e) {
            LOG.warn("provider {} failed to commit: {}", safeName(p), e.toString());
            LOG.debug("provider failure", e);
        }
    }

    private static boolean perProcess(Provider p) {
        try {
            return p.providesPerProcess();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static String safeName(Provider p) {
        try {
            return p.name();
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ---- probes (ProbeRegistry through ProviderEntry) ----

    Probe create(ProviderEntry entry, String provider, String module, String function, String name, Object arg) {
        synchronized (lock) {
            if (entry.isDetached()) {
                // the provider's service went away while one of its threads (a dlopen worker,
                // a fallback) was still making probes: a probe outside the table, never
                // enabled, that alias and retire pass over (id 0 is no probe's)
                return new ProbeImpl(0, provider, module, function, name, arg, entry.provider());
            }
            ProbeImpl existing = table.lookup(provider, module, function, name);
            if (existing != null) {
                if (existing.owner() != entry.provider()) {
                    throw new IllegalArgumentException("probe " + provider + ":" + module + ":" + function
                            + ":" + name + " belongs to another provider");
                }
                return existing;
            }
            ProbeImpl p = new ProbeImpl(table.nextId(), provider, module, function, name, arg, entry.provider());
            table.add(p);
            for (Enabling en : List.copyOf(enablings)) {
                if (en.matches(p)) {
                    addEcb(en, p);
                }
            }
            return p;
        }
    }

    /** ProbeRegistry.alias: {@code function} names {@code probe} too, for matching. */
    void alias(ProviderEntry entry, Probe probe, String function) {
        alias(entry, probe, ProbePattern.FUNCTION, function);
    }

    /** ProbeRegistry.aliasName: {@code name} names {@code probe} too, for matching. */
    void aliasName(ProviderEntry entry, Probe probe, String name) {
        alias(entry, probe, ProbePattern.NAME, name);
    }

    /** {@code alias} names part {@code part} (FUNCTION or NAME) of {@code probe} too; retained enablings it now satisfies get their ECBs. */
    private void alias(ProviderEntry entry, Probe probe, int part, String alias) {
        synchronized (lock) {
            ProbeImpl p = table.byId(probe.id());
            if (p == null || p.owner() != entry.provider() || !p.addAlias(part, alias)) return;
            table.addAlias(p, part, alias);
            for (Enabling en : List.copyOf(enablings)) {
                if (en.matches(p)) {
                    addEcb(en, p);
                }
            }
        }
    }

    /** The probe with these exact names, or null. */
    public Probe lookup(String provider, String module, String function, String name) {
        synchronized (lock) {
            return table.lookup(provider, module, function, name);
        }
    }

    public Probe byId(int id) {
        synchronized (lock) {
            return table.byId(id);
        }
    }

    List<Probe> probes(ProviderEntry entry, String provider) {
        synchronized (lock) {
            List<Probe> out = new ArrayList<>();
            for (ProbeImpl p : table.withPart(ProbePattern.PROVIDER, provider)) {
                if (p.owner() == entry.provider()) {
                    out.add(p);
                }
            }
            return out;
        }
    }

    void retire(ProviderEntry entry, List<Probe> probes) {
        synchronized (lock) {
            List<ProbeImpl> mine = new ArrayList<>();
            for (Probe p : probes) {
                if (p instanceof ProbeImpl pi && pi.owner() == entry.provider()) {
                    mine.add(pi);
                }
            }
            retireProbes(mine);
            commit(entry.provider());
        }
    }

    /**
     * ProbeRegistry.lost: each active owner with an ECB on one of the provider's probes is told
     * once. Lock-free (the active owners' copy-on-write list, their ECB arrays): the caller, a
     * provider's ring reader, may be what a disable holding the lock waits for (Provider.sync).
     */
    void lost(ProviderEntry entry, int cpu, long count) {
        for (EcbOwner owner : activeOwners) {
            for (org.jdtrace.core.ecb.Ecb ecb : owner.ecbs()) {
                if (ecb.probe() instanceof ProbeImpl p && p.owner() == entry.provider()) {
                    owner.lost(cpu, count);
                    break;
                }
            }
        }
    }

    private List<ProbeImpl> probesOf(ProviderEntry entry) {
        List<ProbeImpl> out = new ArrayList<>();
        for (ProbeImpl p : table.all()) {
            if (p.owner() == entry.provider()) {
                out.add(p);
            }
        }
        return out;
    }

    /** The single retire path (dtrace_unregister, dtrace_condense, module unload). Lock held. */
    private void retireProbes(Collection<ProbeImpl> probes) {
        for (ProbeImpl p : probes) {
            if (!table.remove(p)) {
                continue;
            }
            boolean wasEnabled = p.isEnabled();
            for (Enabling en : enablings) {
                Ecb ecb = en.removeEcb(p);
                if (ecb != null && ecb.isInstalled()) {
                    p.uninstall(ecb);
                    ecb.setInstalled(false);
                    ecb.setInKernel(false); // the retired provider's kernel no longer runs its clause
                }
            }
            if (wasEnabled) {
                safely(() -> p.owner().disable(p), "disable", p);
            }
            safely(() -> p.owner().destroy(p), "destroy", p);
        }
    }

    // ---- enablings ----

    /**
     * Retains an enabling of {@code statement} for {@code owner}, provides and matches it; returns
     * the number of ECBs it has now.
     */
    public int enable(EcbOwner owner, Statement statement) {
        return enable(owner, statement, true);
    }

    /**
     * As {@link #enable(EcbOwner, Statement)}; {@code provide} false skips the provide() calls
     * when the caller has just made them (exec checks every description with match() first).
     * A provide() failure is thrown (ProviderException) and the enabling is not retained.
     */
    public int enable(EcbOwner owner, Statement statement, boolean provide) {
        synchronized (lock) {
            Enabling en = new Enabling(owner, statement);
            enablings.add(en);
            owner.enablings().add(en);
            if (provide) {
                try {
                    for (ProbePattern p : en.patterns()) {
                        provideAll(p, owner.consumerOptions());
                    }
                } catch (ProviderException e) {
                    // not retained: the caller is told, as match() tells it
                    enablings.remove(en);
                    owner.enablings().remove(en);
                    throw e;
                }
            }
            for (ProbePattern p : en.patterns()) {
                for (ProbeImpl probe : table.match(p)) {
                    if (!en.hasEcb(probe)) {
                        addEcb(en, probe);
                    }
                }
            }
            commitAll();
            return en.ecbs().size();
        }
    }

    /** Provides, then returns every probe {@code desc} matches, in ID order (for -l and exec checks). */
    public List<Probe> match(ProbeDescription desc) {
        return match(desc, Map.of());
    }

    /** As {@link #match(ProbeDescription)}, provided for a consumer with {@code options} (EcbOwner.consumerOptions). */
    public List<Probe> match(ProbeDescription desc, Map<String, Long> options) {
        synchronized (lock) {
            ProbePattern p = new ProbePattern(desc);
            try {
                provideAll(p, options);
            } finally {
                commitAll();
            }
            return new ArrayList<>(table.match(p));
        }
    }

    /** Every live probe in ID order. */
    public List<Probe> probes() {
        synchronized (lock) {
            return new ArrayList<>(table.all());
        }
    }

    private void addEcb(Enabling en, ProbeImpl p) {
        Ecb ecb = en.createEcb(p);
        if (ecb != null && en.owner().isActive()) {
            install(ecb);
        }
    }

    /**
     * Installs {@code ecb} on its probe, enabling the probe for its first ECB. A provider that
     * cannot enable it fails the ECB's owner (EcbOwner.failed, as a failing body does): the
     * ECB is taken off again and the consumer reports the provider's message.
     */
    private void install(Ecb ecb) {
        ProbeImpl p = (ProbeImpl) ecb.probe();
        if (ecb.isInstalled()) {
            return;
        }
        ecb.setInstalled(true);
        // widen the probe's pid filter before the new ECB can fire (Probe.pidFilter)
        if (p.setPidFilter(p.filterWith(ecb)) && p.isEnabled()) {
            safely(() -> p.owner().filterChanged(p), "filterChanged", p);
        }
        // and its kernel clause listed (Probe.kernelClauses)
        if (p.setKernelClauses(ecb) && p.isEnabled()) {
            safely(() -> p.owner().clausesChanged(p), "clausesChanged", p);
        }
        if (p.install(ecb)) {
            try {
                p.owner().enable(p);
            } catch (RuntimeException e) {
                p.uninstall(ecb);
                p.setPidFilter(p.filterWith(null));
                p.setKernelClauses(null);
                ecb.setInstalled(false);
                ProviderException f = e instanceof ProviderException pe ? pe
                        : new ProviderException("failed to enable probe " + p + ": " + e, null, e);
                LOG.debug("provider {} failed to enable probe {}", p.provider(), p, e);
                ecb.owner().enableFailed(ecb, f);
            }
        }
    }

    private void uninstall(Ecb ecb) {
        ProbeImpl p = (ProbeImpl) ecb.probe();
        if (!ecb.isInstalled()) {
            return;
        }
        ecb.setInstalled(false);
        ecb.setInKernel(false);
        if (p.uninstall(ecb)) {
            safely(() -> p.owner().disable(p), "disable", p);
            p.setPidFilter(-1);
            p.setKernelClauses(null);
        } else {
            if (p.setPidFilter(p.filterWith(null)) && p.isEnabled()) {
                safely(() -> p.owner().filterChanged(p), "filterChanged", p);
            }
            if (p.setKernelClauses(null) && p.isEnabled()) {
                safely(() -> p.owner().clausesChanged(p), "clausesChanged", p);
            }
        }
    }

    /** Installs every ECB of {@code owner} on its probe and makes them live: tracing starts. */
    public void activate(EcbOwner owner) {
        warmUp(owner);
        goLive(owner);
    }

    /**
     * Installs every ECB of {@code owner} on its probe (providers enabled: tick-N's clock runs,
     * breakpoints are in) without making them live: their probes fire and run nothing, as
     * dtrace_state_go's WARMUP lets only BEGIN fire. The consumer fires BEGIN then, and
     * {@link #goLive} right after it, so that tracing runs from BEGIN on (a tick-N fires within
     * one interval of BEGIN, however long enabling took).
     */
    public void warmUp(EcbOwner owner) {
        synchronized (lock) {
            owner.setActive(true);
            if (!activeOwners.contains(owner)) activeOwners.add(owner);
            for (Enabling en : owner.enablings()) {
                for (Ecb ecb : en.ecbs()) {
                    install(ecb);
                }
            }
            commitAll();
        }
    }

    /**
     * The installed ECBs of {@code owner} run from now on (dtrace_state_go's ACTIVE). Providers
     * that deliver events after the fact first deliver those of the warm-up (syncProviders), which
     * run nothing, so that no event from before BEGIN fires after it.
     */
    public void goLive(EcbOwner owner) {
        syncProviders();
        synchronized (lock) {
            if (owner.isActive()) {
                owner.setLive(true);
            }
        }
    }

    /**
     * Uninstalls every ECB of {@code owner}; nothing of it fires any more except through fireOwn.
     * Providers that deliver events after the fact (kernel rings) first deliver every event that
     * happened before this call (Provider.sync, outside the lock: it fires probes).
     */
    public void deactivate(EcbOwner owner) {
        if (owner.isActive()) {
            syncProviders();
        }
        synchronized (lock) {
            owner.setActive(false);
            owner.setLive(false);
            activeOwners.remove(owner);
            for (Enabling en : owner.enablings()) {
                for (Ecb ecb : en.ecbs()) {
                    uninstall(ecb);
                }
            }
            commitAll();
        }
    }

    /**
     * Every provider delivers the events that happened before this call (Provider.sync), outside
     * the framework lock but for release(): it fires probes.
     */
    private void syncProviders() {
        List<ProviderEntry> all;
        synchronized (lock) {
            all = List.copyOf(providerOrder);
        }
        for (ProviderEntry e : all) {
            try {
                e.provider().sync();
            } catch (RuntimeException ex) {
                LOG.debug("provider sync failed", ex);
            }
        }
    }

    /** Deactivates {@code owner} and drops its enablings and ECBs (the consumer closes). */
    public void release(EcbOwner owner) {
        synchronized (lock) {
            deactivate(owner);
            for (Enabling en : List.copyOf(owner.enablings())) {
                for (Ecb ecb : en.ecbs()) {
                    en.removeEcb(ecb.probe());
                }
                enablings.remove(en);
            }
            owner.enablings().clear();
        }
    }

    /** Deactivates {@code owner} off the calling thread (a failing body must not take the lock). */
    public void deactivateAsync(EcbOwner owner) {
        try {
            housekeeping.execute(() -> deactivate(owner));
        } catch (RuntimeException e) {
            LOG.warn("cannot schedule the disabling of a failed consumer", e);
        }
    }

    /** The argument types of {@code probe} (dtps_getargdesc for 0..9 until the first null). */
    public List<ArgDesc> argDescs(Probe probe) {
        synchronized (lock) {
            List<ArgDesc> out = new ArrayList<>();
            if (probe instanceof ProbeImpl p) {
                for (int i = 0; i < 10; i++) {
                    ArgDesc d;
                    try {
                        d = p.owner().argDesc(p, i);
                    } catch (RuntimeException e) {
                        d = null;
                    }
                    if (d == null) {
                        break;
                    }
                    out.add(d);
                }
            }
            return out;
        }
    }

    /** The stability attributes the provider of {@code probe} declares (dtrace_probe_info's pattr). */
    public org.jdtrace.spi.ProviderAttributes attributes(Probe probe) {
        if (probe instanceof ProbeImpl p) {
            try {
                org.jdtrace.spi.ProviderAttributes a = p.owner().attributes();
                if (a != null) {
                    return a;
                }
            } catch (RuntimeException e) {
                // a provider that cannot say declares nothing
            }
        }
        return org.jdtrace.spi.ProviderAttributes.UNDECLARED;
    }

    /** Provider.capturedStrings of {@code probe}: null when its firings read the process's memory themselves. */
    public java.util.Set<Integer> capturedStrings(Probe probe) {
        return askOwner(probe, Provider::capturedStrings, null);
    }

    /** Provider.kernelThreadLocals of {@code probe} for {@code clause}. */
    public boolean kernelThreadLocals(Probe probe, org.jdtrace.spi.KernelClause clause) {
        return askOwner(probe, (owner, p) -> owner.kernelThreadLocals(p, clause), false);
    }

    /** {@code question} of the provider of {@code probe}, under the lock; {@code none} for a foreign probe or a provider that throws. */
    private <T> T askOwner(Probe probe, java.util.function.BiFunction<Provider, Probe, T> question, T none) {
        synchronized (lock) {
            if (!(probe instanceof ProbeImpl p)) return none;
            try {
                return question.apply(p.owner(), p);
            } catch (RuntimeException e) {
                return none;
            }
        }
    }

    /** A provider option a consumer set (-x fbt-max=N): told to every provider. */
    public void providerOption(String name, long value) {
        synchronized (lock) {
            for (ProviderEntry e : List.copyOf(providerOrder)) {
                try {
                    e.provider().option(name, value);
                } catch (RuntimeException x) {
                    LOG.warn("provider {} failed to take option {}: {}", safeName(e.provider()), name, x.toString());
                }
            }
        }
    }

    /** Number of retained enablings (all owners). */
    public int enablingCount() {
        synchronized (lock) {
            return enablings.size();
        }
    }

    // ---- modules ----

    /** A bundle resolved (dtrace_module_loaded): offered to every provider. */
    public void moduleLoaded(Module m) {
        synchronized (lock) {
            if (modules.putIfAbsent(m.id(), m) != null) {
                return;
            }
            for (ProviderEntry e : List.copyOf(providerOrder)) {
                provideModule(e, m);
            }
            commitAll();
        }
    }

    /** A bundle went away (dtrace_module_unloaded): the probes of that module retire. */
    public void moduleUnloaded(Module m) {
        synchronized (lock) {
            if (modules.remove(m.id()) == null) {
                return;
            }
            TreeMap<Integer, ProbeImpl> gone = new TreeMap<>();
            for (ProbeImpl p : table.withPart(ProbePattern.MODULE, m.name())) {
                gone.put(p.id(), p);
            }
            retireProbes(gone.values());
            commitAll();
        }
    }

    public List<Module> modules() {
        synchronized (lock) {
            return List.copyOf(modules.values());
        }
    }

    private static void safely(Runnable r, String what, ProbeImpl p) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("provider {} failed to {} probe {}: {}", p.provider(), what, p, e.toString());
            LOG.debug("provider failure", e);
        }
    }
}
