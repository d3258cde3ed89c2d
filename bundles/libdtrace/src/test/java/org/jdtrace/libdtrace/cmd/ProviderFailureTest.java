package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.jdtrace.spi.ProviderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A provider that fails in provide() or enable(), behind the real framework, consumer, D
 * session and dtrace(1M) command: the user gets one dtrace line and exit status 1, with the
 * provider's words (and its D_* tag under -xerrtags), and the framework stays usable.
 */
class ProviderFailureTest {

    /** "bad": provide(bad:::grab) fails as a pid provider does; bad:::arm is made but cannot be enabled. */
    static final class FailingProvider implements Provider {
        final AtomicInteger enables = new AtomicInteger();
        volatile ProbeRegistry registry;

        @Override
        public String name() {
            return "bad";
        }

        @Override
        public void attach(ProbeRegistry registry) {
            this.registry = registry;
            registry.create("bad", "", "", "arm", null);
            registry.create("bad", "", "", "ok", null);
        }

        @Override
        public void provide(ProbeDescription desc) {
            switch (desc.name()) {
                case "grab" -> throw new ProviderException("failed to grab pid 42: No such process", "D_PROC_GRAB");
                case "bug" -> throw new NullPointerException("oops");
                default -> { }
            }
        }

        @Override
        public void enable(Probe probe) {
            enables.incrementAndGet();
            if (probe.name().equals("arm")) {
                throw new ProviderException("failed to enable bad:::arm: Input/output error");
            }
        }

        @Override
        public void disable(Probe probe) {}
    }

    private final FailingProvider bad = new FailingProvider();
    private final RealCommand cmd = new RealCommand(bad);
    private final DTraceFramework fw = cmd.fw;

    @AfterEach
    void tearDown() {
        cmd.close();
    }

    private int run(String... argv) {
        return cmd.run(argv);
    }

    private String err() {
        return cmd.err();
    }

    @Test
    void provideFailureIsOneInvalidProbeSpecifierLine() {
        assertEquals(1, run("-n", "bad:::grab { exit(0); }"));
        assertEquals("dtrace: invalid probe specifier bad:::grab { exit(0); }: failed to grab pid 42: No such process\n", err());
        assertEquals(1, run("-xerrtags", "-n", "bad:::grab"));
        assertEquals("dtrace: invalid probe specifier bad:::grab: [D_PROC_GRAB] failed to grab pid 42: No such process\n", err());
    }

    @Test
    void provideFailureInAListingIsOneLine() {
        assertEquals(1, run("-l", "-n", "bad:::grab"));
        assertEquals("dtrace: invalid probe specifier bad:::grab: failed to grab pid 42: No such process\n", err());
    }

    @Test
    void anUnexpectedExceptionIsWordedByTheFrameworkWithoutATrace() {
        assertEquals(1, run("-n", "bad:::bug"));
        assertEquals("dtrace: invalid probe specifier bad:::bug: provider bad failed to provide bad:::bug: "
                + "java.lang.NullPointerException: oops\n", err());
    }

    @Test
    void unmatchedDescriptionCarriesItsTag() {
        assertEquals(1, run("-xerrtags", "-n", "nosuch:::x"));
        assertEquals("dtrace: invalid probe specifier nosuch:::x: [D_PDESC_ZERO] probe description nosuch:::x does not match any probes\n",
                err());
    }

    @Test
    void enableFailureStopsTracingWithOneLine() {
        assertEquals(1, run("-q", "-n", "bad:::arm, bad:::ok { exit(0); }"));
        assertEquals("dtrace: could not enable tracing: failed to enable bad:::arm: Input/output error\n", err());
        assertTrue(bad.enables.get() >= 1);
        assertFalse(fw.lookup("bad", "", "", "arm").isEnabled(), "the failed probe is left disabled");
        assertFalse(fw.lookup("bad", "", "", "ok").isEnabled(), "the consumer's other probes are disabled too");
        assertEquals(0, fw.enablingCount(), "the failed consumer's enablings are gone");
    }

    @Test
    void theFrameworkStaysUsableAfterAFailure() {
        assertEquals(1, run("-n", "bad:::grab"));
        assertEquals(0, run("-q", "-n", "BEGIN { printf(\"ok\\n\"); exit(0); }"));
        assertTrue(cmd.out().startsWith("ok\n"), cmd.out());
        assertEquals("", err());
    }
}
