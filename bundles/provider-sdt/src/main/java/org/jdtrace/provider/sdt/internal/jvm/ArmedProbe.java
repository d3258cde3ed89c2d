/*
 * An enabled static probe's sink (what an armed USDT site calls): set on the StaticProbe by
 * JsdtProvider.enable while the framework's probe has an ECB, cleared by disable. A firing fills
 * the calling thread's JavaContext with the arguments converted to their declared types and
 * fires the framework's probe (dtrace_probe()). Lock-free and allocation-free for Java strings,
 * ints and longs (fireArgs' array is the caller's).
 */
package org.jdtrace.provider.sdt.internal.jvm;

import java.util.List;
import org.jdtrace.sdt.ArgType;
import org.jdtrace.sdt.StaticProbe;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;

final class ArmedProbe implements StaticProbe.Sink {

    private final Probe probe;
    private final ArgType[] types;
    private final ThreadLocal<JavaContext> contexts;
    private final ProbeRegistry registry;

    /** {@code contexts}: the provider's per-thread contexts, made from {@code registry}'s. */
    ArmedProbe(Probe probe, List<ArgType> types, ThreadLocal<JavaContext> contexts, ProbeRegistry registry) {
        this.probe = probe;
        this.types = types.toArray(ArgType[]::new);
        this.contexts = contexts;
        this.registry = registry;
    }

    /** The calling thread's context; made on its first firing (the one allocation a thread sees). */
    private JavaContext context(int n) {
        JavaContext c = contexts.get();
        if (c == null) {
            c = new JavaContext(registry.threadContext());
            contexts.set(c);
        }
        return c.begin(n);
    }

    /** The framework's probe this sink fires. */
    Probe probe() {
        return probe;
    }

    private ArgType type(int i) {
        return i < types.length ? types[i] : null;
    }

    @Override
    public void fire(int n, long a0, long a1, long a2, Object o0, Object o1, Object o2) {
        JavaContext c = context(Math.max(n, types.length));
        if (n > 0) {
            c.set(0, type(0), a0, o0);
            if (n > 1) {
                c.set(1, type(1), a1, o1);
                if (n > 2) {
                    c.set(2, type(2), a2, o2);
                }
            }
        }
        probe.fire(c);
    }

    @Override
    public void fireArgs(Object[] args) {
        int n = args == null ? 0 : Math.min(args.length, StaticProbe.MAX_ARGS);
        JavaContext c = context(Math.max(n, types.length));
        for (int i = 0; i < n; i++) {
            c.set(i, type(i), 0, args[i]);
        }
        probe.fire(c);
    }
}
