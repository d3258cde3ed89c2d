/*
 * A consumer's framework-side state: its ECBs and what their faults and failures do. Faults go
 * to the consumer's DSession (the D half prints dtrace's "error on enabled probe ID ..." when no
 * ERROR clause says otherwise); a failure (a body throwing a non-fault) disables every ECB of
 * the consumer on the framework's housekeeping thread and wakes the consumer, whose next
 * work() reports it.
 */
package org.jdtrace.core.consumer;

import org.jdtrace.core.ecb.Ecb;
import org.jdtrace.core.ecb.EcbOwner;
import org.jdtrace.engine.DFault;
import org.jdtrace.engine.DSession;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.spi.Probe;

final class ConsumerState extends EcbOwner {

    private final DTraceFramework framework;
    private final DSession session;
    private final Runnable wake;
    /** The consumer's options that travel with its descriptions (DSession.consumerOption). */
    private final java.util.Map<String, Long> consumerOptions = new java.util.concurrent.ConcurrentHashMap<>();

    ConsumerState(DTraceFramework framework, DSession session, Runnable wake) {
        this.framework = framework;
        this.session = session;
        this.wake = wake;
    }

    @Override
    public java.util.Map<String, Long> consumerOptions() {
        return java.util.Map.copyOf(consumerOptions);
    }

    void consumerOption(String name, long value) {
        consumerOptions.put(name, value);
    }

    @Override
    protected void report(int epid, Probe probe, DFault fault) {
        session.fault(epid, probe, fault);
    }

    @Override
    protected int clauseOf(int epid) {
        return session.clauseOf(epid);
    }

    @Override
    public void lost(int cpu, long count) {
        session.lost(cpu, count);
    }

    @Override
    public void kernelRefused(String clause, String reason) {
        session.kernelRefused(clause, reason);
    }

    @Override
    protected void created(Ecb ecb) {
        session.ecbCreated(ecb.epid(), ecb.probe(), ecb.statement());
    }

    @Override
    protected void onFailure(Throwable t) {
        framework.deactivateAsync(this);
        wake.run();
    }
}
