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

    /**
     * dtps_provide on behalf of one consumer: {@code consumerOptions} are that consumer's options
     * that travel with its descriptions rather than being told to every provider for the whole
     * JVM (see {@link #option}): {@code uprobes} (0: -x uprobes=off, 1: on) says how a process
     * the description names is traced when this call is what follows it. Absent names take the
     * provider's default. The default implementation calls {@link #provide(ProbeDescription)}.
     *
     * @since 1.11
     */
    default void provide(ProbeDescription desc, java.util.Map<String, Long> consumerOptions) {
        provide(desc);
    }

    /**
     * True for a provider of per-process probes whose provider names it cannot know in advance
     * (USDT: {@code myapp1234}, named by the process's own notes): provide() is then offered
     * also every description whose provider part is a name ending in a process id, so that it
     * can follow that process, as dtrace grabs the process such a description names.
     *
     * @since 1.3
     */
    default boolean providesPerProcess() {
        return false;
    }

    /**
     * The stability of this provider's probe descriptions and arguments (the dtrace_pattr_t it
     * would give dtrace_register): dtrace -lv prints them and the D compiler derives a clause's
     * attributes from them (dtrace -v, {@code -x amin}). A provider that declares nothing is
     * Unstable/Unstable/Common throughout.
     *
     * @since 1.5
     */
    default ProviderAttributes attributes() {
        return ProviderAttributes.UNDECLARED;
    }

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
     * The framework has finished a batch of {@link #enable}/{@link #disable} calls (a consumer's
     * go or end, a provider or module arriving or leaving, an enabling matched): a provider that
     * defers the costly part of enabling (fbt retransforms all the classes of a batch at once)
     * does it now, before the framework returns to the consumer. Called with the framework's
     * lock held, whether or not this provider's probes were touched.
     */
    default void commit() {}

    /**
     * Fires now every probe event that happened before this call and is still waiting to be
     * delivered (events drained from kernel rings after the fact). The framework calls it before a
     * consumer stops tracing (before END), from the consumer's thread, and before this provider's
     * probes retire as it leaves, without its lock. Providers
     * that fire at the event itself have nothing to do.
     */
    default void sync() {}

    /**
     * The {@link Probe#pidFilter()} of an enabled probe changed (another consumer's ECB came or
     * went). Called with the framework's lock held; a provider that filters in the kernel
     * re-arms the probe's filter, one that does not ignores it.
     *
     * @since 1.4
     */
    default void filterChanged(Probe probe) {}

    /**
     * The {@link Probe#kernelClauses()} of an enabled probe changed (an ECB came or went while the
     * probe stays enabled). Called with the framework's lock held; a provider that runs clauses in
     * the kernel rebuilds what it runs, one that does not ignores it.
     *
     * @since 1.9
     */
    default void clausesChanged(Probe probe) {}

    /** dtps_destroy: the probe is gone for good. */
    default void destroy(Probe probe) {}

    /**
     * A consumer set a provider option ({@code -x fbt-max=N}, {@code #pragma D option}): the
     * framework's option parser has checked and parsed {@code value}; every provider is told, and
     * one that does not know {@code name} ignores it. The options meant for providers are declared
     * once, with the consumer's own, in the D runtime's option table.
     */
    default void option(String name, long value) {}

    /**
     * What a firing of {@code probe} can read of the memory of the process it fires in. Null (the
     * default): the firing reads it itself, at the event (a stopped thread of a traced process,
     * the JVM). Otherwise the probe fires after the event from what the kernel recorded there,
     * and only the user strings of the arguments in the returned set were captured at the event
     * ({@code copyinstr(argN)}); every other read of the process's memory would fault, and the
     * compiler refuses a clause that makes one (ProbeArgs.capturedStrings). ENTRY_STRINGS in the
     * set (since 1.10, a return probe): the strings the call's entry passed were captured by
     * address, so copyinstr() of any expression is allowed (a pointer saved at the entry in
     * self->p); one that is no such address faults at the firing.
     *
     * @since 1.5
     */
    /** @since 1.10 see capturedStrings */
    int ENTRY_STRINGS = -1;

    default java.util.Set<Integer> capturedStrings(Probe probe) {
        return null;
    }

    /**
     * Whether {@code probe} runs {@code clause} (a whole one, KernelClause.whole: thread-locals that
     * live in the kernel) where it fires, its every expression readable there: its provider then
     * takes it at enable, and keeps the variables in one per-thread store shared with every other
     * such probe of the machine (a variable written at one is read at another). The compiler keeps
     * a thread-local in the kernel only when every probe of every clause that mentions it answers
     * true for that clause (ProbeArgs.kernelThreadLocals). False (the default): the probe's clauses
     * with thread-locals run in the JVM.
     *
     * @since 1.11
     */
    default boolean kernelThreadLocals(Probe probe, KernelClause clause) {
        return false;
    }

    /** dtps_getargdesc: the native and translated type of argument {@code index}, or null. */
    default ArgDesc argDesc(Probe probe, int index) {
        return null;
    }
}
