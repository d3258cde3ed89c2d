package org.jdtrace.engine;

import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

/**
 * The code of one statement: its predicate, then its actions (the DIF of an ECB's predicate and
 * actions), generated to JVM bytecode by the D compiler. One instance serves every ECB made from
 * the statement, on any thread, for any kind of probe context.
 */
@org.osgi.annotation.versioning.ProviderType
public interface EcbBody {

    /**
     * Runs the predicate and, if it holds, the actions, for one firing of {@code probe} through
     * the ECB whose enabled-probe ID is {@code epid}. A fault is thrown as
     * {@link org.jdtrace.spi.FaultException} (or {@link DFault}, which says which action); the
     * caller then fires dtrace:::ERROR.
     */
    void fire(ProbeContext ctx, Probe probe, int epid);
}
