package org.jdtrace.spi;

/**
 * A probe created by a provider through {@link ProbeRegistry#create} (dtrace_probe_t). The
 * framework owns it; the provider keeps it to fire it and gets it back in enable/disable/destroy.
 *
 * <p>{@link #fire(ProbeContext)} is the hot path (dtrace_probe()): it runs every ECB enabled on
 * the probe, in enabling order, with the context the firing provider supplies. When no ECB is
 * enabled it returns after one volatile read.
 */
public interface Probe {

    /** The probe's ID, unique for the life of the framework, never reused. Starts at 1. */
    int id();

    String provider();

    String module();

    String function();

    String name();

    /** The provider-private argument given at creation (dtrace_probe_arg). */
    Object providerArg();

    /** True while at least one ECB is enabled on the probe. */
    boolean isEnabled();

    /** Fires the probe: runs its ECBs with {@code ctx}. Never throws. */
    void fire(ProbeContext ctx);

    /**
     * The kernel lost {@code count} firings of this probe on CPU {@code cpu} before they could
     * be delivered: each consumer with this probe enabled reports them as drops on that CPU
     * (dt_handle_cpudrop). Not called in probe context. See also ProbeRegistry.lost, for losses
     * of a provider's shared ring.
     *
     * @since 1.9
     */
    default void lost(int cpu, long count) {}

    /**
     * The one process (pid) that every ECB enabled on the probe is confined to by its predicate
     * (Statement.pidFilter: {@code /pid == $target/}), or -1 when some ECB may fire in any
     * process. A provider that can drop other processes' events before they cost anything (a BPF
     * program, a perf event of one process) may do so; the predicates still run, so ignoring it
     * is always correct. Read it in {@link Provider#enable}; changes while the probe is enabled
     * come through {@link Provider#filterChanged}: widened before an ECB that needs more is
     * installed, narrowed after one is removed.
     *
     * @since 1.4
     */
    default long pidFilter() {
        return -1;
    }

    /**
     * The kernel forms of the clauses of the ECBs installed on the probe (Statement.kernel), one
     * entry per ECB, null for an ECB that has none (its events must always reach the JVM). See
     * {@link KernelClause}. Read it in {@link Provider#enable}; changes while the probe is enabled
     * come through {@link Provider#clausesChanged}: an added clause is listed before its ECB can
     * fire, a removed one after it stopped.
     *
     * @since 1.9
     */
    default java.util.List<KernelClause> kernelClauses() {
        return java.util.List.of();
    }

    /**
     * The provider runs {@code clause} (one of kernelClauses' with an aggregation, or a whole one) in the kernel
     * for this probe ({@code inKernel} true): its ECB on this probe runs nothing in the JVM; false
     * gives the clause back to the JVM. Ignored for a clause no installed ECB has.
     *
     * @since 1.9
     */
    default void runInKernel(KernelClause clause, boolean inKernel) {}

    /**
     * Whether the ECB of {@code clause}'s statement on this probe belongs to a consumer that is
     * live (past its go-live, DTraceFramework.goLive): an event now is its own. False during its
     * warm-up (between enabling and BEGIN), where a provider that keeps the clause's aggregation
     * in the kernel drops what it gathered at the go-live sync (Provider.sync), and false for a
     * clause no installed ECB has. A store made while it is live (a provider that came back
     * mid-trace) keeps everything from its making. Called with the framework's lock held.
     *
     * @since 1.12
     */
    default boolean live(KernelClause clause) {
        return false;
    }

    /**
     * The kernel would not run the program the provider made with {@code clause} (one of
     * kernelClauses'): the verifier refused it, or it could not be encoded. The clause runs in the
     * JVM from now on (a taken one is given back with runInKernel false). {@code reason} says
     * why, in one line. The clause's consumer prints one warning line naming the clause, or, for a
     * required clause (kernelclauses=force), fails its enabling with the reason. Call it once per
     * clause, on any probe with an ECB of the clause's statement.
     *
     * @since 1.10
     */
    default void kernelRefused(KernelClause clause, String reason) {}

    /**
     * The arguments whose user strings the installed ECBs' clauses read with copyinstr(argN)
     * (Statement.userStrings, their union), read with {@link #kernelClauses()}: a provider that
     * fires after the event may read them at the event (a uprobe's BPF program) so that the
     * clause sees the string as it was there. Changes come through Provider.clausesChanged.
     *
     * @since 1.10
     */
    default java.util.Set<Integer> userStrings() {
        return java.util.Set.of();
    }

    /**
     * True when some ECB installed on the probe walks the firing thread's user stack (its
     * statement's Statement.userStack: ustack(), jstack(), ucaller, ustackdepth). A provider that
     * fires after the event from what it captured there copies a larger top of the user stack
     * (option ustackbytes) while this holds. Read it in {@link Provider#enable}; changes while
     * the probe is enabled come through {@link Provider#clausesChanged}, before the ECB that
     * needs the stack can fire.
     *
     * @since 1.10
     */
    default boolean userStack() {
        return false;
    }

    /**
     * True when some ECB installed on the probe acts on the firing process: stop(), raise(),
     * copyout() or copyoutstr() (its statement's Statement.procDestructive). A provider that fires
     * after the event from what it captured there holds the hitting process at the event while
     * this holds, so that such an action takes effect before the thread runs on, as in DTrace.
     * Read it in {@link Provider#enable}; changes while the probe is enabled come through
     * {@link Provider#clausesChanged}, before the ECB that needs it can fire.
     *
     * @since 1.11
     */
    default boolean procDestructive() {
        return false;
    }

    /**
     * True when some ECB installed on the probe reads the kernel stack (its statement's
     * Statement.kernelStack: stack(), stackdepth, caller): a provider whose probes fire after the
     * event takes the kernel stack at the event while this holds. Read and changed as
     * {@link #userStack()}.
     *
     * @since 1.11
     */
    default boolean kernelStack() {
        return false;
    }

    /** The description of this exact probe. */
    default ProbeDescription description() {
        return new ProbeDescription(provider(), module(), function(), name());
    }
}
