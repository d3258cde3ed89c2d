package org.jdtrace.core.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.Consumer.DescriptionKind;
import org.jdtrace.consumer.Consumer.Status;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.consumer.ProbeInfo;
import org.jdtrace.consumer.Program;
import org.jdtrace.engine.DFault;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.core.providers.profile.ProfileProvider;
import org.jdtrace.core.testsession.LineSession;
import org.jdtrace.core.testsession.TestProvider;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConsumerTest {

    private DTraceFramework fw;
    private DTraceService dtrace;
    private final List<LineSession> sessions = new ArrayList<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true);

    @BeforeEach
    void setUp() {
        fw = new DTraceFramework();
        fw.addProvider(new DTraceProvider());
        fw.addProvider(new ProfileProvider());
        dtrace = new DTraceService(fw, () -> {
            LineSession s = new LineSession();
            sessions.add(s);
            return s;
        });
    }

    @AfterEach
    void tearDown() {
        dtrace.deactivate();
        fw.deactivate();
    }

    private LineSession session() {
        return sessions.get(sessions.size() - 1);
    }

    /** Runs work() until DONE (at most {@code maxCalls} times). */
    private static int runToEnd(Consumer c, int maxCalls) throws DTraceException {
        for (int i = 1; i <= maxCalls; i++) {
            if (c.work() == Status.DONE) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void beginExitEndsTheRunAndEndFiresAfterBegin() throws Exception {
        try (Consumer c = dtrace.open()) {
            Program p = c.compile("BEGIN => print begin; exit 3\nEND => print end\nprofile:::tick-1000 => print tick", "t.d", List.of());
            assertEquals(3, c.exec(p));
            c.go(out, out);
            assertEquals(1, runToEnd(c, 1), "exit() in BEGIN: the first work() ends the run");
            assertEquals(List.of("begin", "end", "<end>"), session().printed());
            assertEquals(3, c.exitStatus());
            assertFalse(fw.lookup("profile", "", "", "tick-1000").isEnabled(), "nothing else was ever enabled");
            assertEquals("begin\nend\n", bytes.toString());
        }
    }

    @Test
    void stopFiresEndThenDone() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("switchrate", "50ms");
            c.exec(c.compile("BEGIN => print begin\nEND => print end", "t.d", List.of()));
            c.go(out, out);
            assertEquals(Status.OK, c.work(), "no exit: work returns after a switchrate period");
            assertEquals(List.of("begin"), session().printed());
            c.stop();
            assertEquals(Status.DONE, c.work());
            assertEquals(Status.DONE, c.work(), "DONE stays DONE");
            assertEquals(List.of("begin", "end", "<end>"), session().printed());
        }
    }

    @Test
    void stopFromAnotherThreadWakesWork() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("switchrate", "1h");
            c.exec(c.compile("END => print end", "t.d", List.of()));
            c.go(out, out);
            Thread stopper = new Thread(() -> {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ignored) {
                }
                c.stop();
            });
            stopper.start();
            assertEquals(Status.DONE, c.work());
            stopper.join();
            assertEquals(List.of("end", "<end>"), session().printed());
        }
    }

    @Test
    void noMatchFailsAsDtraceDoes() throws Exception {
        try (Consumer c = dtrace.open()) {
            Program p = c.compile("BEGIN => print x\nfoo:::bar* => count", "t.d", List.of());
            DTraceException e = assertThrows(DTraceException.class, () -> c.exec(p));
            assertEquals("invalid probe specifier foo:::bar*: probe description foo:::bar* does not match any probes",
                    e.getMessage());
            assertEquals(0, fw.enablingCount(), "nothing of a failed exec stays enabled");

            DTraceException e2 = assertThrows(DTraceException.class,
                    () -> c.exec(c.compileDescription(DescriptionKind.PROVIDER, "nosuch")));
            assertEquals("invalid probe specifier nosuch:::: probe description nosuch::: does not match any probes",
                    e2.getMessage());
        }
    }

    @Test
    void zdefsSetToAnOffWordIsNotSet() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("zdefs", "no");
            assertThrows(DTraceException.class, () -> c.exec(c.compile("nosuch:::x => count", "t.d", List.of())));
        }
    }

    @Test
    void zdefsRetainsAnEnablingThatMatchesNothingYet() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("zdefs", "");
            c.setOption("switchrate", "10ms");
            assertEquals(0, c.exec(c.compile("test:::late => print late-fired", "t.d", List.of())));
            c.go(out, out);
            TestProvider t = new TestProvider("test", "m:f:late");
            fw.addProvider(t);
            assertTrue(fw.lookup("test", "m", "f", "late").isEnabled());
            t.fire("m", "f", "late", 0);
            c.work();
            assertEquals(List.of("late-fired"), session().printed());
        }
        assertEquals(0, fw.enablingCount(), "close releases the retained enabling");
    }

    @Test
    void faultFiresErrorWithDtracesArgumentsAndTracingGoesOn() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.exec(c.compile("BEGIN => print before; fault\nBEGIN => print next\nERROR => args; fault\nBEGIN => faultx",
                    "t.d", List.of()));
            c.go(out, out);
            c.stop();
            c.work();
            LineSession s = session();
            // ERROR's arg1 = the faulting probe (BEGIN, ID 1), arg2 = the clause (LineSession: its line)
            assertEquals(List.of("before", "args 1 1 8 1 16", "next", "args 1 4 -1 4 0", "<end>"), s.printed());
            // four faults reported: BEGIN's, the ERROR clause's own (no recursion), the DIVZERO, ERROR's again
            assertEquals(4, s.faults().size());
            LineSession.Fault first = s.faults().get(0);
            assertEquals(1, first.epid());
            assertEquals("BEGIN", first.probe().name());
            assertEquals(FaultException.Kind.BADADDR, first.fault().kind);
            assertEquals("ERROR", s.faults().get(1).probe().name(), "a fault inside ERROR is reported but does not refire ERROR");
            assertEquals(FaultException.Kind.DIVZERO, s.faults().get(2).fault().kind);
            assertEquals(-1, s.faults().get(2).fault().offset);
            assertEquals("ERROR", s.faults().get(3).probe().name());
        }
    }

    @Test
    void errorFiresOnlyForTheConsumerThatFaulted() throws Exception {
        try (Consumer a = dtrace.open(); Consumer b = dtrace.open()) {
            LineSession sa = sessions.get(0);
            LineSession sb = sessions.get(1);
            a.exec(a.compile("BEGIN => fault\nERROR => print a-error", "a.d", List.of()));
            b.exec(b.compile("ERROR => print b-error\nBEGIN => print b-begin", "b.d", List.of()));
            a.go(out, out);
            a.stop();
            a.work();
            b.go(out, out);
            b.stop();
            b.work();
            assertEquals(List.of("a-error", "<end>"), sa.printed());
            assertEquals(List.of("b-begin", "<end>"), sb.printed());
        }
    }

    @Test
    void probesAreEnabledBeforeBeginAndRunNothingUntilBeginHasFired() throws Exception {
        // dtrace_state_go: ECBs installed (WARMUP: only BEGIN fires), BEGIN, then ACTIVE
        TestProvider t = new TestProvider("test", "m:f:p");
        List<Long> countedAtEnable = new ArrayList<>();
        t.onEnable = p -> {
            countedAtEnable.add(session().count());
            p.fire(org.jdtrace.core.context.JvmProbeContext.current().clear()); // an event of the warm-up
        };
        fw.addProvider(t);
        try (Consumer c = dtrace.open()) {
            c.exec(c.compile("BEGIN => count\ntest:::p => count", "t.d", List.of()));
            c.go(out, out);
            assertEquals(List.of(0L), countedAtEnable, "the probe was enabled before BEGIN fired");
            assertEquals(1, session().count(), "BEGIN ran; the warm-up's firing ran nothing");
            t.fire("m", "f", "p", 0);
            assertEquals(2, session().count(), "after BEGIN the probe's ECB runs");
        }
    }

    @Test
    void aFailingBodyNeverKillsTheFiringThreadAndDisablesTheConsumer() throws Exception {
        TestProvider t = new TestProvider("test", "m:f:p");
        fw.addProvider(t);
        try (Consumer bad = dtrace.open(); Consumer good = dtrace.open()) {
            bad.exec(bad.compile("test:::p => bug", "bad.d", List.of()));
            good.exec(good.compile("test:::p => count", "good.d", List.of()));
            LineSession goodSession = sessions.get(1);
            bad.go(out, out);
            good.go(out, out);
            assertTrue(t.fire("m", "f", "p", 0), "the firing returns normally");
            t.fire("m", "f", "p", 0);
            assertEquals(2, goodSession.count(), "the other consumer's ECB still ran");
            DTraceException e = assertThrows(DTraceException.class, bad::work);
            assertTrue(e.getMessage().startsWith("internal error"), e.getMessage());
            Probe p = fw.lookup("test", "m", "f", "p");
            assertEquals(1, ((org.jdtrace.core.probe.ProbeImpl) p).ecbs().length, "only the good consumer's ECB is left");
        }
        assertFalse(fw.lookup("test", "m", "f", "p").isEnabled());
    }

    @Test
    void tickFiresRepeatedlyWhileEnabledAndStopsAfter() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("switchrate", "100ms");
            assertEquals(1, c.exec(c.compile("profile:::tick-100hz => count", "t.d", List.of())));
            Probe tick = fw.lookup("profile", "", "", "tick-100hz");
            assertNotNull(tick, "made on demand by provide()");
            c.go(out, out);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (session().count() < 10 && System.nanoTime() < deadline) {
                c.work();
            }
            assertTrue(session().count() >= 10, "tick-100hz fired " + session().count() + " times");
            c.stop();
            c.work();
            long after = session().count();
            Thread.sleep(100);
            assertEquals(after, session().count(), "the timer stopped with the run");
            assertFalse(tick.isEnabled());
        }
    }

    @Test
    void profileFiresOncePerCpuIndex() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("switchrate", "50ms");
            c.exec(c.compile("profile:::profile-200 => cpu", "t.d", List.of()));
            c.go(out, out);
            int cpus = Runtime.getRuntime().availableProcessors();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline
                    && session().printed().stream().distinct().count() < cpus) {
                c.work();
            }
            c.stop();
            c.work();
            for (int i = 0; i < cpus; i++) {
                assertTrue(session().printed().contains("cpu " + i), "a firing reported cpu " + i);
            }
        }
    }

    @Test
    void listProvidesAndReportsArgumentTypes() throws Exception {
        TestProvider t = new TestProvider("test", "m:f:foo");
        fw.addProvider(t);
        try (Consumer c = dtrace.open()) {
            List<ProbeInfo> l = c.list(c.compileDescription(DescriptionKind.NAME, "profile:::tick-7s"));
            assertEquals(1, l.size());
            assertEquals("tick-7s", l.get(0).name());
            List<ProbeInfo> all = c.list(c.compileDescription(DescriptionKind.PROVIDER, "dtrace"));
            assertEquals(List.of("BEGIN", "END", "ERROR"), all.stream().map(ProbeInfo::name).toList());
            ProbeInfo foo = c.list(c.compileDescription(DescriptionKind.FUNCTION, "m:f")).get(0);
            assertEquals(List.of("int", "char *"), foo.args());
            ProbeInfo byId = c.list(c.compileDescription(DescriptionKind.ID, Integer.toString(foo.id()))).get(0);
            assertEquals(foo, byId);
            assertEquals(0, fw.enablingCount(), "listing enables nothing");
        }
    }

    @Test
    void descriptionOptionsAreCompletedElementByElement() throws Exception {
        try (Consumer c = dtrace.open()) {
            ConsumerImpl impl = (ConsumerImpl) c;
            assertEquals(List.of("syscall:::", "profile:::"), impl.fullDescriptions(DescriptionKind.PROVIDER, "syscall, profile"));
            assertEquals(List.of(":libc::", "pid1:libc::"), impl.fullDescriptions(DescriptionKind.MODULE, "libc,pid1:libc"));
            assertEquals(List.of("::foo:", ":a:b:"), impl.fullDescriptions(DescriptionKind.FUNCTION, "foo,a:b"));
            assertEquals(List.of(":::tick-[1,2]"), impl.fullDescriptions(DescriptionKind.NAME, "tick-[1,2]"));
            assertEquals(List.of("dtrace:::BEGIN"), impl.fullDescriptions(DescriptionKind.ID, "1"));
            DTraceException e = assertThrows(DTraceException.class, () -> impl.fullDescriptions(DescriptionKind.ID, "99999"));
            assertEquals("invalid probe specifier 99999: probe description 99999 does not match any probes", e.getMessage());
            assertThrows(DTraceException.class, () -> impl.fullDescriptions(DescriptionKind.MODULE, "a:b:c"));
        }
    }

    @Test
    void optionsGoToTheSession() throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("quiet", null);
            assertEquals("", c.getOption("quiet"));
            assertNotNull(assertThrows(DTraceException.class, () -> c.setOption("bogus", "1")));
        }
    }

    @Test
    void closeDisablesEverythingAndIsIdempotent() throws Exception {
        TestProvider t = new TestProvider("test", "m:f:p");
        fw.addProvider(t);
        Consumer c = dtrace.open();
        c.exec(c.compile("test:::p => count", "t.d", List.of()));
        c.go(out, out);
        assertTrue(fw.lookup("test", "m", "f", "p").isEnabled());
        c.close();
        c.close();
        assertFalse(fw.lookup("test", "m", "f", "p").isEnabled());
        assertTrue(t.calls.contains("disable p"));
        assertEquals(0, fw.enablingCount());
        assertThrows(DTraceException.class, () -> c.exec(c.compile("BEGIN => count", "t.d", List.of())));
    }

    @Test
    void serviceCloseClosesOpenConsumers() throws Exception {
        Consumer c = dtrace.open();
        c.exec(c.compile("profile:::tick-1000 => count", "t.d", List.of()));
        c.go(out, out);
        assertTrue(fw.lookup("profile", "", "", "tick-1000").isEnabled());
        dtrace.deactivate();
        assertFalse(fw.lookup("profile", "", "", "tick-1000").isEnabled());
    }

    @Test
    void dfaultCarriesItsPosition() {
        DFault f = new DFault(FaultException.Kind.BADADDR, 16, 2, 40);
        assertSame(FaultException.Kind.BADADDR, f.kind);
    }
}
