/*
 * A static probe's firing site (a USDT probe site and its is-enabled semaphore in one object).
 *
 * Hot path: every fire method reads the volatile `sink` once and returns when it is null, so a
 * disabled probe costs one load and a branch that the JIT inlines at the call site, before any
 * argument conversion, context or allocation (an object argument is whatever the caller already
 * holds; the ints and longs are passed unboxed). Enabled, the sink (provider-sdt's, set through
 * StaticProbeTable.Binding.arm while the probe has an ECB) builds the probe context of the
 * calling thread and fires the framework's probe. Arguments beyond those given are 0; more
 * than three go through fireArgs, whose varargs array the caller builds: guard it with
 * isEnabled(). Lock-free; allocation-free for up to three arguments.
 *
 * Why a volatile field and not a MutableCallSite/SwitchPoint the JIT folds: a call site's target
 * is folded only where its invoker is a constant, i.e. a static final MethodHandle per probe site
 * (generated code, as invokedynamic would need); an instance field of an object a bundle keeps in
 * a static final is not trusted as constant. The volatile read is a plain load on x86-64 that
 * runs beside the caller's own work (StaticProbeBenchmark: the loop with it and without it).
 */
package org.jdtrace.sdt;

import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A probe of a {@link StaticProvider}: fire it where the event happens. Integer arguments are
 * passed as long (an int widens), strings as objects; a probe declared {@code (STRING, LONG)}
 * is fired {@code probe.fire(name, count)}. For an argument that is expensive to compute, test
 * {@link #isEnabled()} first.
 */
@ProviderType
public final class StaticProbe {

    /** The most arguments a probe has (arg0..arg9). */
    public static final int MAX_ARGS = 10;

    /** Where an armed probe's firings go: provider-sdt's side. */
    @ConsumerType
    public interface Sink {
        /**
         * A firing with {@code n} arguments (0..3): argument i is {@code oi} when that is not
         * null, else {@code ai}.
         */
        void fire(int n, long a0, long a1, long a2, Object o0, Object o1, Object o2);

        /** A firing through {@link StaticProbe#fireArgs}. */
        void fireArgs(Object[] args);
    }

    private final StaticProvider provider;
    private final String name;
    private final List<ArgType> args;
    /** Non-null while the probe is enabled (StaticProbeTable.Binding writes it). */
    volatile Sink sink;

    StaticProbe(StaticProvider provider, String name, List<ArgType> args) {
        this.provider = provider;
        this.name = name;
        this.args = args;
    }

    public StaticProvider provider() {
        return provider;
    }

    /** The probe's name as D spells it ({@code query-start}). */
    public String name() {
        return name;
    }

    /** The declared argument types. */
    public List<ArgType> args() {
        return args;
    }

    /** True while an enabling traces this probe: the is-enabled test (USDT's *_ENABLED()). */
    public boolean isEnabled() {
        return sink != null;
    }

    public void fire() {
        Sink s = sink;
        if (s != null) {
            s.fire(0, 0, 0, 0, null, null, null);
        }
    }

    public void fire(long a0) {
        Sink s = sink;
        if (s != null) {
            s.fire(1, a0, 0, 0, null, null, null);
        }
    }

    public void fire(Object a0) {
        Sink s = sink;
        if (s != null) {
            s.fire(1, 0, 0, 0, a0, null, null);
        }
    }

    public void fire(long a0, long a1) {
        Sink s = sink;
        if (s != null) {
            s.fire(2, a0, a1, 0, null, null, null);
        }
    }

    public void fire(long a0, Object a1) {
        Sink s = sink;
        if (s != null) {
            s.fire(2, a0, 0, 0, null, a1, null);
        }
    }

    public void fire(Object a0, long a1) {
        Sink s = sink;
        if (s != null) {
            s.fire(2, 0, a1, 0, a0, null, null);
        }
    }

    public void fire(Object a0, Object a1) {
        Sink s = sink;
        if (s != null) {
            s.fire(2, 0, 0, 0, a0, a1, null);
        }
    }

    public void fire(long a0, long a1, long a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, a0, a1, a2, null, null, null);
        }
    }

    public void fire(long a0, long a1, Object a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, a0, a1, 0, null, null, a2);
        }
    }

    public void fire(long a0, Object a1, long a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, a0, 0, a2, null, a1, null);
        }
    }

    public void fire(long a0, Object a1, Object a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, a0, 0, 0, null, a1, a2);
        }
    }

    public void fire(Object a0, long a1, long a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, 0, a1, a2, a0, null, null);
        }
    }

    public void fire(Object a0, long a1, Object a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, 0, a1, 0, a0, null, a2);
        }
    }

    public void fire(Object a0, Object a1, long a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, 0, 0, a2, a0, a1, null);
        }
    }

    public void fire(Object a0, Object a1, Object a2) {
        Sink s = sink;
        if (s != null) {
            s.fire(3, 0, 0, 0, a0, a1, a2);
        }
    }

    /** Fires with any number of arguments (at most 10 are kept); guard with {@link #isEnabled()}. */
    public void fireArgs(Object... args) {
        Sink s = sink;
        if (s != null) {
            s.fireArgs(args);
        }
    }

    @Override
    public String toString() {
        return provider.name() + ":::" + name + args;
    }
}
