package org.jdtrace.spi;

/**
 * A DTrace provider (dtrace_pops_t), registered as an OSGi service. The framework tracks the
 * services dynamically: a provider that appears is attached and offered every description that
 * retained enablings hold and every loaded module; one that goes away has all its probes retired
 * (the same path as a module unload), and the enablings wait for it to come back.
 *
 * <p>Service property {@code provider.name} should equal {@link #name()}.
 */
public interface Provider {

    /**
     * The provider's name as it appears in probe descriptions ({@code dtrace}, {@code profile},
     * {@code fbt}), or a prefix for a family of per-process providers ({@code pid}).
     */
    String name();

    /** The framework attaches itself before any other call. */
    void attach(ProbeRegistry registry);

    /** Called after the framework has retired every probe of this provider. */
    default void detach() {}

    /**
     * dtps_provide: create the probes that match {@code desc} that do not exist yet, if this
     * provider makes probes on demand ({@code pid123:libc.so.6:malloc:entry},
     * {@code profile:::tick-97hz}). {@code desc} is never null; its parts may be globs. A
     * description the provider cannot honour (a process it cannot grab, a function that does
     * not exist) throws {@link ProviderException}: the consumer that asked reports it.
     */
    default void provide(ProbeDescription desc) {}

    /** dtps_provide_module: a module (bundle) was loaded; create its probes. */
    default void provideModule(Module module) {}

    /**
     * dtps_enable: the first ECB was enabled on {@code probe}; start firing it. Throws
     * {@link ProviderException} when the probe cannot be armed (the consumer's tracing fails).
     */
    void enable(Probe probe);

    /** dtps_disable: the last ECB on {@code probe} went away; stop firing it. */
    void disable(Probe probe);

    /**
     * Fires now every probe event that happened before this call and is still waiting to be
     * delivered (events drained from kernel rings after the fact). The framework calls it before a
     * consumer stops tracing (before END), from the consumer's thread, without its lock. Providers
     * that fire at the event itself have nothing to do.
     */
    default void sync() {}

        /** dtps_destroy: the probe is gone for good. */
    default void destroy(Probe probe) {}

    /** dtps_getargdesc: the native and translated type of argument {@code index}, or null. */
    default ArgDesc argDesc(Probe probe, int index) {
        return null;
    }
}
