/*
 * FbtRuntime: what rewritten code calls (fbt_invop: the trap handler that finds the probe of
 * the patched address and calls dtrace_probe). Rewritten methods reach it through two
 * MutableCallSites kept in the system properties under Rewriter.ENTRY_KEY and RETURN_KEY, made
 * by the first provider of the JVM and reused by every later one (provider-fbt stopped and
 * started again), so a class rewritten by any incarnation resolves to the current target.
 * bind() points them at this instance; unbind() at a no-op, so code that still runs rewritten
 * after the provider went (it never should: every class is restored first) calls nothing.
 *
 * Sites: each fbt probe has a site number given at its creation; rewritten code passes it, and
 * the site table maps it back to the Probe: an array written under sitesLock and published by
 * the volatile write of its field after each change (copied only to grow). A site whose probe was destroyed, or that is not enabled, returns at once.
 *
 * Probe context: lock-free and allocation-free apart from what the rewritten code boxes for
 * it: the per-thread FbtContext is reused; a firing nested on the same thread (a probe in code
 * the firing path called) is dropped by its busy flag, so fbt can never recurse.
 */
package org.jdtrace.provider.fbt.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import java.util.Arrays;
import java.util.Properties;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;

final class FbtRuntime {

    static final MethodType ENTRY = MethodType.methodType(void.class, int.class, Object[].class);
    static final MethodType RETURN = MethodType.methodType(void.class, int.class, int.class, Object.class);

    private final ProbeRegistry registry;
    private final ThreadLocal<FbtContext> contexts;
    private volatile Probe[] sites = new Probe[1024];
    private final Object sitesLock = new Object();
    private int nextSite;

    FbtRuntime(ProbeRegistry registry) {
        this.registry = registry;
        this.contexts = ThreadLocal.withInitial(() -> new FbtContext(this.registry.threadContext()));
    }

    // ---- sites ----

    /** A new site, fired by nothing until bound. */
    int reserveSite() {
        synchronized (sitesLock) {
            int s = nextSite++;
            if (s >= sites.length) {
                sites = Arrays.copyOf(sites, sites.length * 2);
            }
            return s;
        }
    }

    /** Site {@code site} fires {@code probe}. */
    void bindSite(int site, Probe probe) {
        synchronized (sitesLock) {
            Probe[] a = sites;
            a[site] = probe;
            sites = a; // the volatile write publishes the element
        }
    }

    void removeSite(int site) {
        synchronized (sitesLock) {
            Probe[] a = sites;
            if (site >= 0 && site < a.length) {
                a[site] = null;
            }
            sites = a;
        }
    }

    // ---- the call sites ----

    private static MutableCallSite callSite(String key, MethodType type) {
        Properties props = System.getProperties();
        Object o = props.get(key);
        if (o instanceof MutableCallSite cs && cs.type().equals(type)) {
            return cs;
        }
        MutableCallSite cs = new MutableCallSite(MethodHandles.empty(type));
        Object prev = props.putIfAbsent(key, cs);
        return prev instanceof MutableCallSite p ? p : cs;
    }

    /** Points the JVM's fbt call sites at this runtime. */
    void bind() {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            MutableCallSite e = callSite(Rewriter.ENTRY_KEY, ENTRY);
            MutableCallSite r = callSite(Rewriter.RETURN_KEY, RETURN);
            e.setTarget(l.findVirtual(FbtRuntime.class, "entry", ENTRY).bindTo(this));
            r.setTarget(l.findVirtual(FbtRuntime.class, "ret", RETURN).bindTo(this));
            MutableCallSite.syncAll(new MutableCallSite[] {e, r});
        } catch (ReflectiveOperationException x) {
            throw new IllegalStateException(x);
        }
    }

    /** The call sites call nothing any more. */
    void unbind() {
        MutableCallSite e = callSite(Rewriter.ENTRY_KEY, ENTRY);
        MutableCallSite r = callSite(Rewriter.RETURN_KEY, RETURN);
        MethodHandle noEntry = MethodHandles.empty(ENTRY);
        MethodHandle noReturn = MethodHandles.empty(RETURN);
        e.setTarget(noEntry);
        r.setTarget(noReturn);
        MutableCallSite.syncAll(new MutableCallSite[] {e, r});
    }

    // ---- probe context: called by rewritten code ----

    /** An entry site fired: {@code args} as Rewriter passes them (null when none). */
    void entry(int site, Object[] args) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = contexts.get();
        if (c.busy) return;
        c.setArgs(args, 0);
        fire(p, c);
    }

    /** A return site fired: {@code bci} of the return (-1: a throw), the value boxed or the Throwable. */
    void ret(int site, int bci, Object value) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = contexts.get();
        if (c.busy) return;
        c.setReturn(bci, value);
        fire(p, c);
    }

    /** The probe of {@code site} if it is enabled, else null. */
    private Probe enabled(int site) {
        Probe[] a = sites;
        if (site < 0 || site >= a.length) return null;
        Probe p = a[site];
        return p != null && p.isEnabled() ? p : null;
    }

    private static void fire(Probe p, FbtContext c) {
        c.busy = true;
        try {
            p.fire(c);
        } finally {
            c.busy = false;
        }
    }
}
