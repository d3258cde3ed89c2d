package org.jdtrace.spi;

import java.util.List;

/**
 * What the framework offers a provider (the dtrace_probe_create / dtrace_probe_lookup /
 * dtrace_condense side of dtrace(7d)). A provider gets it in {@link Provider#attach}.
 *
 * <p>Probes may be created at any time, from any thread; every retained enabling is matched
 * against a new probe at once, so a probe created while an enabling wants it fires with no
 * new command.
 */
public interface ProbeRegistry {

    /**
     * Creates a probe, or returns the existing one with the same four names created by the
     * same provider. {@code provider} is the probe's provider name: usually the provider's
     * {@link Provider#name()}, or a name the provider owns such as {@code pid1234}. Once the
     * provider is detached (its service unregistered while one of its own threads still makes
     * probes) the probe returned is in no listing and never enabled; nothing is thrown.
     *
     * @throws IllegalArgumentException when another provider owns a probe of these four names
     */
    Probe create(String provider, String module, String function, String name, Object providerArg);

    /**
     * Lets {@code probe} answer also to descriptions whose function part is {@code function}: one
     * piece of code known by several names (a symbol's weak alias, {@code _go} for {@code go})
     * is one probe, which keeps its own name for {@code probefunc}. Retained enablings that the
     * alias now matches get their ECBs at once. A registry that knows no aliases ignores it.
     */
    default void alias(Probe probe, String function) {}

    /**
     * The calling Java thread's context as the framework's own JVM-side probes see it (pid, ppid,
     * tid, execname, cpu of this JVM and thread; one per thread, allocation-free after a thread's
     * first call), for a JVM-side provider (fbt, jsdt) whose context adds arguments or stacks and
     * delegates the rest. Call it on the firing thread only; its arguments are not the caller's to
     * set or read. A registry that has none returns null.
     */
    default ProbeContext threadContext() {
        return null;
    }

    /**
     * Lets {@code probe} answer also to descriptions whose name part is {@code name}: a USDT
     * probe shown as {@code function-entry} is also its note's {@code function__entry}. The
     * probe keeps its own name for {@code probename}. A registry that knows no aliases ignores it.
     *
     * @since 1.3
     */
    default void aliasName(Probe probe, String name) {}

    /**
     * The kernel lost {@code count} firings of this provider's probes that happened on CPU
     * {@code cpu} (its ring of records was full): every consumer with an enabled probe of this
     * provider reports them as drops on that CPU ("dtrace: 188 drops on CPU 1", dt_handle_cpudrop).
     * Called from any thread but probe context.
     *
     * @since 1.9
     */
    default void lost(int cpu, long count) {}

    /** The probe with these four exact names, or null (dtrace_probe_lookup). */
    Probe lookup(String provider, String module, String function, String name);

    /** Every probe created by the calling provider under the provider name {@code provider}. */
    List<Probe> probes(String provider);

    /**
     * Retires every probe of the provider name {@code provider} (module unload /
     * dtrace_unregister): their ECBs are disabled and freed, the enablings that matched them are
     * kept and matched again when such probes are created anew. The provider's
     * {@link Provider#disable} and {@link Provider#destroy} are called for each.
     */
    void retire(String provider);

    /** Retires the given probes only (a module of the provider went away). */
    void retire(List<Probe> probes);
}
