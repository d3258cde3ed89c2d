package org.jdtrace.engine;

import java.util.List;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.ProbeDescription;

/**
 * What the D compiler asks the framework while it types a clause (dtrace_probe_info): the
 * argument descriptions of every probe a description matches now, one list per probe (each in
 * index order, as the providers' dtps_getargdesc give them). Implemented by the framework; called
 * on the compiler's thread, never in probe context.
 */
@FunctionalInterface
public interface ProbeArgs {

    /** One list per matched probe; empty when the description matches nothing (yet). */
    List<List<ArgDesc>> argDescs(ProbeDescription description);

    /**
     * The stability attributes the provider of the first probe {@code description} matches now
     * declares (dt_probe_info's pattr), or null when it matches nothing (yet).
     *
     * @since 1.2
     */
    default org.jdtrace.spi.ProviderAttributes attributes(ProbeDescription description) {
        return null;
    }

    /**
     * The probes {@code description} matches now that fire after the event from what the kernel
     * recorded there (Provider.capturedStrings not null), by name ({@code provider:module:function:name}),
     * each with the arguments whose user strings were captured at the event. Empty when every
     * matched probe reads the process's memory at the firing.
     *
     * @since 1.2
     */
    default java.util.Map<String, java.util.Set<Integer>> capturedStrings(ProbeDescription description) {
        return java.util.Map.of();
    }

    /**
     * Whether {@code description} matches probes now and every one of them runs {@code clause} (a
     * whole one: thread-locals in the kernel) where it fires (Provider.kernelThreadLocals).
     *
     * @since 1.6
     */
    default boolean kernelThreadLocals(ProbeDescription description, org.jdtrace.spi.KernelClause clause) {
        return false;
    }

    /**
     * Whether {@code description} matches a probe now (dt_setcontext's question, which the
     * compiler asks of each clause's descriptions before it checks the clause: D_PDESC_ZERO).
     * True when that cannot be told, as when a provider cannot make its probes (enabling the
     * program reports that with the provider's own words).
     *
     * @since 1.4
     */
    default boolean matches(ProbeDescription description) {
        return true;
    }
}
