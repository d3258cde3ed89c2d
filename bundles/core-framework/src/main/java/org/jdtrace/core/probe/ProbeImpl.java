/*
 * A probe (dtrace_probe_t) and its firing hot path (dtrace_probe()).
 *
 * The ECBs enabled on the probe live in a copy-on-write array held in one volatile field.
 * fire() reads that field once and calls each ECB in enabling order: no lock, no allocation,
 * nothing but the bodies' own work. When nothing is enabled the array is empty and fire()
 * costs one volatile read. Writers (install/uninstall) run under the framework lock and
 * publish a new array; a firing that already read the old array finishes with it, which is
 * harmless because a removed ECB's body is still valid code (dtrace_sync's role is played by
 * the memory model plus the fact that bodies never free anything). An ECB whose owner is not live
 * yet (go() still enabling its probes one by one) does not fire: dts_activity's role. An ECB
 * whose clause the provider runs in the kernel (runInKernel) is skipped: the kernel did its work.
 */
package org.jdtrace.core.probe;

import java.util.Arrays;
import java.util.List;
import org.jdtrace.core.ecb.Ecb;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.spi.Provider;

public final class ProbeImpl implements Probe {

    private final int id;
    private final String provider;
    private final String module;
    private final String function;
    private final String name;
    private final Object providerArg;
    private final Provider owner;
    private volatile Ecb[] ecbs = Ecb.NONE;
    /** Probe.pidFilter: set by the framework (lock held) from the installed ECBs' statements. */
    private volatile long pidFilter = -1;
    /** Probe.kernelClauses: set by the framework (lock held) from the installed ECBs' statements. */
    private volatile List<org.jdtrace.spi.KernelClause> kernelClauses = List.of();
    /** Probe.userStrings: the installed ECBs' statements' userStrings, set with kernelClauses. */
    private volatile java.util.Set<Integer> userStrings = java.util.Set.of();
    /** Probe.userStack: set with kernelClauses (lock held) from the installed ECBs' statements. */
    private volatile boolean userStack;
    /** Probe.procDestructive: set with kernelClauses (lock held) from the installed ECBs' statements. */
    private volatile boolean procDestructive;
    /** Probe.kernelStack: set with userStack. */
    private volatile boolean kernelStack;
    /** Other names of the function part, for matching only (ProbeRegistry.alias); framework lock. */
    private volatile List<String> functionAliases = List.of();
    /** Other names of the name part, for matching only (ProbeRegistry.aliasName); framework lock. */
    private volatile List<String> nameAliases = List.of();

    public ProbeImpl(int id, String provider, String module, String function, String name,
            Object providerArg, Provider owner) {
        this.id = id;
        this.provider = provider;
        this.module = module;
        this.function = function;
        this.name = name;
        this.providerArg = providerArg;
        this.owner = owner;
    }

    @Override
    public int id() {
        return id;
    }

    /** The other names descriptions may give the function part. */
    public List<String> functionAliases() {
        return functionAliases;
    }

    /** The other names descriptions may give the name part. */
    public List<String> nameAliases() {
        return nameAliases;
    }

    /**
     * Adds another name of part {@code part} (ProbePattern.FUNCTION or NAME); false when it is
     * the part's own name or already known (framework lock).
     */
    public boolean addAlias(int part, String alias) {
        boolean fn = part == ProbePattern.FUNCTION;
        if (!fn && part != ProbePattern.NAME) throw new IllegalArgumentException("part " + part);
        List<String> now = fn ? functionAliases : nameAliases;
        if (alias.equals(fn ? function : name) || now.contains(alias)) return false;
        List<String> l = new java.util.ArrayList<>(now);
        l.add(alias);
        if (fn) functionAliases = List.copyOf(l);
        else nameAliases = List.copyOf(l);
        return true;
    }

    @Override
    public String provider() {
        return provider;
    }

    @Override
    public String module() {
        return module;
    }

    @Override
    public String function() {
        return function;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Object providerArg() {
        return providerArg;
    }

    /** The provider that created the probe (it gets enable/disable/destroy for it). */
    public Provider owner() {
        return owner;
    }

    @Override
    public boolean isEnabled() {
        return ecbs.length != 0;
    }

    @Override
    public void fire(ProbeContext ctx) {
        Ecb[] e = ecbs;
        for (int i = 0; i < e.length; i++) {
            if (e[i].owner().isLive() && !e[i].inKernel()) e[i].fire(ctx);
        }
    }

    @Override
    public void lost(int cpu, long count) {
        Ecb[] e = ecbs;
        for (int i = 0; i < e.length; i++) {
            boolean first = true;
            for (int j = 0; j < i && first; j++) first = e[j].owner() != e[i].owner();
            if (first) e[i].owner().lost(cpu, count);
        }
    }

    @Override
    public long pidFilter() {
        return pidFilter;
    }

    /**
     * The filter the installed ECBs allow, with {@code adding} also installed (null: none added):
     * their statements' common pidFilter, or -1 when one has none or two differ (framework lock).
     */
    public long filterWith(Ecb adding) {
        long f = adding == null ? -2 : adding.statement().pidFilter();
        for (Ecb e : ecbs) {
            long g = e.statement().pidFilter();
            if (f == -2) f = g;
            else if (g != f) return -1;
        }
        return f < 0 ? -1 : f;
    }

    /** Sets the filter; true when it changed (framework lock). */
    public boolean setPidFilter(long f) {
        boolean changed = pidFilter != f;
        pidFilter = f;
        return changed;
    }

    @Override
    public List<org.jdtrace.spi.KernelClause> kernelClauses() {
        return kernelClauses;
    }

    /**
     * Sets the kernel clauses to the installed ECBs' with {@code adding} also installed (null:
     * none added), in ECB order, userStack and kernelStack to whether one of them walks that stack
     * and procDestructive to whether one acts on the firing process; true when any changed
     * (framework lock).
     */
    public boolean setKernelClauses(Ecb adding) {
        java.util.ArrayList<org.jdtrace.spi.KernelClause> l = new java.util.ArrayList<>();
        boolean stack = false, kstack = false, proc = false;
        for (Ecb e : ecbs) {
            if (e == adding) continue;
            l.add(e.statement().kernel());
            stack |= e.statement().userStack();
            proc |= e.statement().procDestructive();
            kstack |= e.statement().kernelStack();
        }
        if (adding != null) {
            l.add(adding.statement().kernel());
            stack |= adding.statement().userStack();
            proc |= adding.statement().procDestructive();
            kstack |= adding.statement().kernelStack();
        }
        List<org.jdtrace.spi.KernelClause> n = java.util.Collections.unmodifiableList(l);
        java.util.Set<Integer> s = new java.util.TreeSet<>();
        for (Ecb e : ecbs) if (e != adding) s.addAll(e.statement().userStrings());
        if (adding != null) s.addAll(adding.statement().userStrings());
        boolean changed = !n.equals(kernelClauses) || !s.equals(userStrings) || stack != userStack
                || kstack != kernelStack || proc != procDestructive;
        kernelClauses = n;
        userStrings = java.util.Collections.unmodifiableSet(s);
        userStack = stack;
        kernelStack = kstack;
        procDestructive = proc;
        return changed;
    }

    @Override
    public java.util.Set<Integer> userStrings() {
        return userStrings;
    }

    @Override
    public boolean userStack() {
        return userStack;
    }

    @Override
    public boolean procDestructive() {
        return procDestructive;
    }

    @Override
    public boolean kernelStack() {
        return kernelStack;
    }

    @Override
    public void runInKernel(org.jdtrace.spi.KernelClause clause, boolean inKernel) {
        for (Ecb e : ecbs) {
            if (e.statement().kernel() == clause && (clause.aggregation() != null || clause.whole())) e.setInKernel(inKernel);
        }
    }

    @Override
    public boolean live(org.jdtrace.spi.KernelClause clause) {
        for (Ecb e : ecbs) {
            if (e.statement().kernel() == clause && e.owner().isLive()) return true;
        }
        return false;
    }

    /**
     * Tells the owner of each ECB of {@code clause}'s statement here, once each: a failed enabling
     * for a required clause, else its warning (framework lock held: providers call it from commit).
     */
    @Override
    public void kernelRefused(org.jdtrace.spi.KernelClause clause, String reason) {
        java.util.Set<org.jdtrace.core.ecb.EcbOwner> told = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Ecb e : ecbs) {
            if (e.statement().kernel() != clause || !told.add(e.owner())) continue;
            if (clause.required()) {
                e.owner().enableFailed(e, new org.jdtrace.spi.ProviderException("clause " + clause.name() + ": " + reason
                        + " (kernelclauses=force)"));
            } else {
                e.owner().kernelRefused(clause.name(), reason);
            }
        }
    }

    /** The ECBs installed now (a snapshot). */
    public Ecb[] ecbs() {
        return ecbs;
    }

    /** Adds an ECB (framework lock held). Returns true if it is the first: enable the probe. */
    public boolean install(Ecb ecb) {
        Ecb[] old = ecbs;
        Ecb[] n = Arrays.copyOf(old, old.length + 1);
        n[old.length] = ecb;
        ecbs = n;
        return old.length == 0;
    }

    /** Removes an ECB (framework lock held). Returns true if it was the last: disable the probe. */
    public boolean uninstall(Ecb ecb) {
        Ecb[] old = ecbs;
        int at = -1;
        for (int i = 0; i < old.length; i++) {
            if (old[i] == ecb) {
                at = i;
                break;
            }
        }
        if (at < 0) {
            return false;
        }
        Ecb[] n = new Ecb[old.length - 1];
        System.arraycopy(old, 0, n, 0, at);
        System.arraycopy(old, at + 1, n, at, old.length - at - 1);
        ecbs = n.length == 0 ? Ecb.NONE : n;
        return n.length == 0;
    }

    @Override
    public String toString() {
        return id + " " + provider + ":" + module + ":" + function + ":" + name;
    }
}
