package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.perf.EventSet;
import org.jdtrace.perf.EventSpec;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.RecordHandler;
import org.jdtrace.perf.Sample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The service on the real kernel: cpu-clock samples of a real process, a tracepoint, cleanup. */
class PerfEventsTest {

    PerfEventsImpl perf;

    @BeforeEach
    void start() {
        perf = new PerfEventsImpl(new Amd64Isa());
    }

    @AfterEach
    void stop() {
        perf.close();
    }

    static String bin(String name) {
        return Path.of("../../fixtures/target/bin", name).toAbsolutePath().normalize().toString();
    }

    @Test
    void cpuClockSamplesTheBusyProcessWithItsUserFrames() throws Exception {
        Map<String, Integer> frames = new ConcurrentHashMap<>();
        AtomicLong mine = new AtomicLong();
        UserSymbols syms = new UserSymbols();
        int[] target = {-1};
        RecordHandler h = s -> {
            if (s.pid != target[0]) return;
            mine.incrementAndGet();
            if (s.userDepth > 0) {
                String f = syms.lookup(s.pid, s.userChain[0]);
                if (f != null) frames.merge(f.replaceAll("\\+0x.*", ""), 1, Integer::sum);
            }
        };
        EventSpec spec = new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_CPU_CLOCK, 1_000_000, false,
                EventSpec.SAMPLE_IP | EventSpec.SAMPLE_TID | EventSpec.SAMPLE_CPU | EventSpec.SAMPLE_CALLCHAIN,
                EventSpec.FLAG_COMM, 0, 64, -1, true);
        try (EventSet set = perf.open(spec, h)) {
            assertEquals(perf.cpus(), set.fds().length);
            Process p = new ProcessBuilder(bin("ft_burn"), "1").start();
            target[0] = (int) p.pid();
            set.enable();
            p.waitFor();
            Thread.sleep(50);
        }
        // ~1000 samples a second of CPU the target gets (a loaded machine gives it less), never none
        assertTrue(mine.get() > 20, "samples of the target: " + mine.get());
        int a = frames.getOrDefault("ft_burn`hot_a", 0), b = frames.getOrDefault("ft_burn`hot_b", 0);
        assertTrue(a > b && b > 0, "frames " + frames);
    }

    @Test
    void aMissingTracepointIsRefusedWithItsName() {
        PerfException e = org.junit.jupiter.api.Assertions.assertThrows(PerfException.class,
                () -> perf.tracepoint("sched", "no_such_event"));
        assertEquals("tracepoint sched:no_such_event does not exist", e.getMessage());
        assertTrue(perf.tracepoint("sched", "sched_switch").id() > 0);
        assertTrue(perf.tracepoint("raw_syscalls", "sys_enter").offset("id") == 8);
    }

    @Test
    void kallsymsNamesKernelText() {
        String s = perf.ksym(0xffffffffffffffffL);
        assertTrue(s != null && s.contains("`"), "last symbol: " + s);
    }

    @Test
    void closingTheServiceClosesEveryEvent() throws Exception {
        long before = perfFds();
        EventSpec spec = new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_CPU_CLOCK, 10_000_000, false,
                EventSpec.SAMPLE_IP, 0, 0, 8, -1, false);
        perf.open(spec, s -> { });
        perf.open(spec, s -> { });
        assertEquals(before + 2L * perf.cpus(), perfFds());
        perf.close();
        assertEquals(before, perfFds());
    }

    @Test
    void theDrainThreadSleepsWhileNothingHappensAndDrainsAtMostEveryDrainPeriod() throws Exception {
        // nothing open: parked for good
        Thread.sleep(300);
        assertEquals(Thread.State.WAITING, perf.drainer.getState());
        assertEquals(0, perf.drains);
        // an event that never fires (BPF output, no program writes to it): blocked in poll
        EventSpec quiet = new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_BPF_OUTPUT, 1, false,
                EventSpec.SAMPLE_RAW, 0, 0, 8, -1, false);
        try (EventSet set = perf.open(quiet, s -> { })) {
            Thread.sleep(100);
            long d0 = perf.drains;
            Thread.sleep(700);
            assertTrue(perf.drains - d0 <= 1, "drains while nothing happens: " + (perf.drains - d0));
        }
        // a 1 ms clock on every CPU (the idle task too): a sample wakes it, a drain every 5 ms at most
        AtomicLong samples = new AtomicLong();
        EventSpec clock = new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_CPU_CLOCK, 1_000_000, false,
                EventSpec.SAMPLE_IP | EventSpec.SAMPLE_TIME, 0, 0, 8, -1, false);
        long d0, d1, t0, t1;
        try (EventSet set = perf.open(clock, s -> samples.incrementAndGet())) {
            Thread.sleep(100);
            d0 = perf.drains;
            t0 = System.nanoTime();
            Thread.sleep(500);
            d1 = perf.drains;
            t1 = System.nanoTime();
        }
        long most = (t1 - t0) / PerfEventsImpl.DRAIN_NANOS + 2;
        assertTrue(samples.get() > 100, "samples: " + samples.get());
        assertTrue(d1 - d0 > 5 && d1 - d0 <= most, "drains in 500 ms: " + (d1 - d0) + " (at most " + most + ")");
        Thread.sleep(100);
        assertEquals(Thread.State.WAITING, perf.drainer.getState(), "parked again once nothing is open");
    }

    /** This JVM's descriptors that are perf events (anon_inode:[perf_event] in /proc/self/fd). */
    static long perfFds() throws Exception {
        try (var s = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            return s.filter(f -> {
                try {
                    return java.nio.file.Files.readSymbolicLink(f).toString().contains("perf_event");
                } catch (Exception e) {
                    return false;
                }
            }).count();
        }
    }
}
