/*
 * FbtRuntime: what rewritten code calls (fbt_invop: the trap handler that finds the probe of
 * the patched address and calls dtrace_probe). Rewritten methods reach it through MutableCallSites
 * kept in the system properties under Rewriter.ENTRY_KEY + n (one per arity n = 0..10) and
 * RETURN_KEY, made by the first provider of the JVM and reused by every later one (provider-fbt
 * stopped and started again), so a class rewritten by any incarnation resolves to the current
 * target. An entry site of at most SMALL arguments targets its own method (entry0..entry3:
 * only its arguments are passed and stored); a wider one the wide entry method with its arity and
 * the missing pairs bound to (0L, null).
 * bind() points them at this instance; unbind() at a no-op, so code that still runs rewritten
 * after the provider went (it never should: every class is restored first) calls nothing.
 * bindOnce() binds at the first enable, not when the provider attaches: making the method
 * handles (the wide entries' insertArguments spin LambdaForms) cost ~40 ms of every dtrace start
 * that never enables fbt. Nothing is rewritten before that first enable, so no call site is
 * reached unbound.
 *
 * Sites: each fbt probe has a site number given at its creation; rewritten code passes it, and
 * the site table maps it back to the Probe: an array written under sitesLock and published by
 * the volatile write of its field after each change (copied only to grow). A site whose probe was destroyed, or that is not enabled, returns at once.
 *
 * Probe context: lock-free and allocation-free (the rewritten code passes primitives as longs and
 * references as they are, nothing boxed; the per-thread FbtContext is reused once made); a firing nested on the same thread (a probe in code
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

    /** Entry sites of at most this many arguments have a method of their own (entry0..entry3). */
    static final int SMALL = 3;
    /** The wide entry method: site, arity, then (long, Object) for each of the 10 arguments. */
    static final MethodType ENTRY = entryType(Rewriter.MAX_ARGS).insertParameterTypes(1, int.class);
    static final MethodType RETURN = MethodType.methodType(void.class, int.class, int.class, long.class, Object.class);

    static MethodType entryType(int n) {
        Class<?>[] p = new Class<?>[1 + 2 * n];
        p[0] = int.class;
        for (int i = 0; i < n; i++) {
            p[1 + 2 * i] = long.class;
            p[2 + 2 * i] = Object.class;
        }
        return MethodType.methodType(void.class, p);
    }

    private final ProbeRegistry registry;
    private final ThreadLocal<FbtContext> contexts;
    /**
     * A cache in front of {@code contexts}: slot threadId mod SLOTS holds the context of the last
     * thread that looked there; a firing checks the owner (two loads, no hashing) and asks the
     * ThreadLocal only on a miss. Written plainly: a reader checks the final owner, so a thread
     * never gets another's context.
     */
    private static final int SLOTS = 64;
    private final FbtContext[] byThread = new FbtContext[SLOTS];
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

    /** True once bind() ran (and unbind() did not since); sitesLock. */
    private boolean bound;

    /** Binds the call sites unless they are bound already (the first enable calls it). */
    void bindOnce() {
        synchronized (sitesLock) {
            if (bound) return;
            bind();
            bound = true;
        }
    }

    /** Points the JVM's fbt call sites at this runtime. */
    void bind() {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            MethodHandle entry = l.findVirtual(FbtRuntime.class, "entry", ENTRY).bindTo(this);
            MutableCallSite[] all = new MutableCallSite[Rewriter.MAX_ARGS + 2];
            for (int n = 0; n <= Rewriter.MAX_ARGS; n++) {
                all[n] = callSite(Rewriter.ENTRY_KEY + n, entryType(n));
                if (n <= SMALL) {
                    all[n].setTarget(l.findVirtual(FbtRuntime.class, "entry" + n, entryType(n)).bindTo(this));
                } else {
                    Object[] rest = new Object[2 * (Rewriter.MAX_ARGS - n)];
                    for (int i = 0; i < rest.length; i += 2) rest[i] = 0L;
                    MethodHandle h = MethodHandles.insertArguments(entry, 1, n);
                    all[n].setTarget(MethodHandles.insertArguments(h, 1 + 2 * n, rest));
                }
            }
            all[Rewriter.MAX_ARGS + 1] = callSite(Rewriter.RETURN_KEY, RETURN);
            all[Rewriter.MAX_ARGS + 1].setTarget(l.findVirtual(FbtRuntime.class, "ret", RETURN).bindTo(this));
            MutableCallSite.syncAll(all);
        } catch (ReflectiveOperationException x) {
            throw new IllegalStateException(x);
        }
    }

    /** Unbinds the call sites if bindOnce() bound them. */
    void unbindIfBound() {
        synchronized (sitesLock) {
            if (!bound) return;
            unbind();
            bound = false;
        }
    }

    /** The call sites call nothing any more. */
    void unbind() {
        MutableCallSite[] all = new MutableCallSite[Rewriter.MAX_ARGS + 2];
        for (int n = 0; n <= Rewriter.MAX_ARGS; n++) {
            all[n] = callSite(Rewriter.ENTRY_KEY + n, entryType(n));
            all[n].setTarget(MethodHandles.empty(entryType(n)));
        }
        all[Rewriter.MAX_ARGS + 1] = callSite(Rewriter.RETURN_KEY, RETURN);
        all[Rewriter.MAX_ARGS + 1].setTarget(MethodHandles.empty(RETURN));
        MutableCallSite.syncAll(all);
    }

    // ---- probe context: called by rewritten code ----

    /*
     * Entry sites of up to SMALL arguments have a method each (entry0..entry3), so the firing
     * passes and stores only the method's own arguments: a small frame the JIT can inline into
     * the rewritten method. Wider ones share entry(), told their arity.
     */

    void entry0(int site) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = context();
        if (c.busy) return;
        c.entered(0);
        fire(p, c);
    }

    void entry1(int site, long a0, Object o0) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = context();
        if (c.busy) return;
        c.set(0, a0, o0);
        c.entered(1);
        fire(p, c);
    }

    void entry2(int site, long a0, Object o0, long a1, Object o1) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = context();
        if (c.busy) return;
        c.set(0, a0, o0);
        c.set(1, a1, o1);
        c.entered(2);
        fire(p, c);
    }

    void entry3(int site, long a0, Object o0, long a1, Object o1, long a2, Object o2) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = context();
        if (c.busy) return;
        c.set(0, a0, o0);
        c.set(1, a1, o1);
        c.set(2, a2, o2);
        c.entered(3);
        fire(p, c);
    }

    /**
     * An entry site of {@code n} > SMALL arguments fired: each argument as Rewriter passes it, a
     * long beside null or 0L beside a reference; the pairs past {@code n} are (0L, null).
     */
    void entry(int site, int n, long a0, Object o0, long a1, Object o1, long a2, Object o2, long a3, Object o3,
            long a4, Object o4, long a5, Object o5, long a6, Object o6, long a7, Object o7, long a8, Object o8,
            long a9, Object o9) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = context();
        if (c.busy) return;
        c.set(0, a0, o0);
        c.set(1, a1, o1);
        c.set(2, a2, o2);
        c.set(3, a3, o3);
        c.set(4, a4, o4);
        c.set(5, a5, o5);
        c.set(6, a6, o6);
        c.set(7, a7, o7);
        c.set(8, a8, o8);
        c.set(9, a9, o9);
        c.entered(n);
        fire(p, c);
    }

    /** A return site fired: {@code bci} of the return (-1: a throw), the value (a long beside null, or 0L beside a reference or the Throwable). */
    void ret(int site, int bci, long value, Object ref) {
        Probe p = enabled(site);
        if (p == null) return;
        FbtContext c = context();
        if (c.busy) return;
        c.setReturn(bci, value, ref);
        fire(p, c);
    }

    /** This thread's context. */
    private FbtContext context() {
        Thread me = Thread.currentThread();
        FbtContext c = byThread[(int) me.threadId() & (SLOTS - 1)];
        if (c != null && c.owner == me) return c;
        c = contexts.get();
        assert c.owner == me;
        byThread[(int) me.threadId() & (SLOTS - 1)] = c;
        return c;
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
            c.done();
            c.busy = false;
        }
    }
}
