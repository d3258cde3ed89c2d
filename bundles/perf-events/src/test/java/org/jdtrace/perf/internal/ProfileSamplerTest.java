package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * profile-N's in-kernel pid filter on the real kernel: with Probe.pidFilter set, the samples of
 * every other process are dropped by the events' BPF program and never reach the JVM; a
 * filterChanged to -1 lets every process's samples through again.
 */
class ProfileSamplerTest {

    final Amd64Isa isa = new Amd64Isa();
    final PerfEventsImpl perf = new PerfEventsImpl(isa);
    Process a, b;

    @AfterEach
    void tearDown() {
        for (Process p : new Process[] {a, b}) if (p != null) p.destroyForcibly();
        perf.close();
    }

    /** A probe as the framework hands it to the sampler, counting the pids of its firings. */
    static class CountingProbe implements Probe {
        volatile long filter;
        final Map<Long, Integer> pids = new ConcurrentHashMap<>();

        @Override public int id() { return 1; }
        @Override public String provider() { return "profile"; }
        @Override public String module() { return ""; }
        @Override public String function() { return ""; }
        @Override public String name() { return "profile-997"; }
        @Override public Object providerArg() { return null; }
        @Override public boolean isEnabled() { return true; }
        @Override public long pidFilter() { return filter; }
        @Override public void fire(ProbeContext ctx) { pids.merge(ctx.pid(), 1, Integer::sum); }
    }

    @Test
    void aFilteredProfileProbeGetsOnlyThatProcesssSamples() throws Exception {
        a = new ProcessBuilder(PerfEventsTest.bin("ft_burn"), "6").start();
        b = new ProcessBuilder(PerfEventsTest.bin("ft_burn"), "6").start();
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
        CountingProbe probe = new CountingProbe();
        probe.filter = a.pid();
        try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
            Thread.sleep(1500);
            perf.drain();
            assertEquals(java.util.Set.of(a.pid()), probe.pids.keySet(), "only A's samples: " + probe.pids);
            assertTrue(probe.pids.get(a.pid()) > 20, "A sampled: " + probe.pids);

            probe.filter = -1;
            sampler.filterChanged(probe);
            Thread.sleep(1500);
            perf.drain();
            assertTrue(probe.pids.getOrDefault(b.pid(), 0) > 5, "unfiltered, B's samples arrive: " + probe.pids);
            assertTrue(probe.pids.size() > 2, "and the rest of the machine's (idle, pid 0): " + probe.pids);
        }
    }

    @Test
    void samplesGiveTheParentAtTheEventForAProcessGoneSince() throws Exception {
        a = new ProcessBuilder("sh", "-c", "read x; " + PerfEventsTest.bin("ft_burn") + " 1; read y").start();
        ProfileSampler sampler = new ProfileSampler(perf, new Comms(), new UserSymbols(), isa.abi());
        Map<Long, Integer> ppids = new ConcurrentHashMap<>();
        CountingProbe probe = new CountingProbe() {
            @Override
            public void fire(ProbeContext ctx) {
                if (!"ft_burn".equals(ctx.execname())) return;
                // hold the drain thread until the sampled process is gone: every sample of it
                // still in the rings is read after its end
                for (int i = 0; i < 300 && ProcessHandle.of(ctx.pid()).isPresent(); i++) {
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                ppids.merge(ctx.ppid(), 1, Integer::sum);
            }
        };
        probe.filter = -1;
        try (AutoCloseable h = sampler.sample(probe, 1_000_000_000L / 997)) {
            a.getOutputStream().write('\n');
            a.getOutputStream().flush();
            for (int i = 0; i < 500 && ppids.isEmpty(); i++) Thread.sleep(10);
            Thread.sleep(500);
            perf.drain();
        }
        assertTrue(ppids.getOrDefault(a.pid(), 0) > 2, "samples read after the process ended: " + ppids);
        assertEquals(java.util.Set.of(a.pid()), ppids.keySet(), "each names the parent it had: " + ppids);
    }
}
