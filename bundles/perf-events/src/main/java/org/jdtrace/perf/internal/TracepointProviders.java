package org.jdtrace.perf.internal;

import java.util.List;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.spi.Provider;

/** The tracepoint-based providers of this bundle (sched, proc, syscall), in registration order. */
final class TracepointProviders {

    private TracepointProviders() {}

    static List<Provider> all(PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi) {
        return List.of();
    }
}
