package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Firings a provider's kernel ring lost (ProbeRegistry.lost, a whole ring; Probe.lost, one
 * probe's), behind the real framework, consumer, D session and command: each consumer tracing
 * the provider's probes prints them as dtrace prints its drops, "dtrace: 188 drops on CPU 1"
 * (dt_handle_cpudrop), never as a log warning.
 */
class DropReportTest {

    /** "ring": enabling ring:::a loses 188 records of its shared ring on CPU 1, ring:::b one of its own on CPU 3. */
    static final class LossyProvider implements Provider {
        volatile ProbeRegistry registry;

        @Override
        public String name() {
            return "ring";
        }

        @Override
        public void attach(ProbeRegistry registry) {
            this.registry = registry;
            registry.create("ring", "", "", "a", null);
            registry.create("ring", "", "", "b", null);
        }

        @Override
        public void provide(ProbeDescription desc) {}

        @Override
        public void enable(Probe probe) {
            if (probe.name().equals("a")) registry.lost(1, 188);
            else probe.lost(3, 1);
        }

        @Override
        public void disable(Probe probe) {}
    }

    private final RealCommand cmd = new RealCommand(new LossyProvider());

    @AfterEach
    void tearDown() {
        cmd.close();
    }

    @Test
    void lostFiringsAreDropsOnTheirCpu() {
        assertEquals(0, cmd.run("-q", "-n", "ring:::a, ring:::b { } BEGIN { exit(0); }"));
        assertEquals("dtrace: 188 drops on CPU 1\ndtrace: 1 drop on CPU 3\n", cmd.err());
        // a consumer that does not trace the provider hears nothing of it
        assertEquals(0, cmd.run("-q", "-n", "BEGIN { exit(0); }"));
        assertEquals("", cmd.err());
    }
}
