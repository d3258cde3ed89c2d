/*
 * The dtrace provider: dtrace:::BEGIN, dtrace:::END and dtrace:::ERROR. It creates the three
 * probes when attached and never fires them itself: the consumer fires BEGIN in go() and END
 * when the run stops, and an ECB owner fires ERROR on a fault, each through
 * EcbOwner.fireOwn so that only that consumer's clauses run (dtrace passes the consumer's state
 * as arg0 of these probes for the same reason). Enabling them therefore starts nothing.
 */
package org.jdtrace.core.providers.dtrace;

import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.osgi.service.component.annotations.Component;

@Component(service = Provider.class, property = "provider.name=dtrace")
public final class DTraceProvider implements Provider {

    public static final String NAME = "dtrace";
    public static final String BEGIN = "BEGIN";
    public static final String END = "END";
    public static final String ERROR = "ERROR";

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return org.jdtrace.spi.ProviderAttributes.DTRACE;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void attach(ProbeRegistry registry) {
        registry.create(NAME, "", "", BEGIN, null);
        registry.create(NAME, "", "", END, null);
        registry.create(NAME, "", "", ERROR, null);
    }

    @Override
    public void enable(Probe probe) {
        // fired by the framework, not by a source that needs starting
    }

    @Override
    public void disable(Probe probe) {
        // nothing to stop
    }
}
