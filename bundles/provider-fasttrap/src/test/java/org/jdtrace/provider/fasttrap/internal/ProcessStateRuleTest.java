package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.fasttrap.TargetListener;
import org.jdtrace.fasttrap.TracedTarget;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rule of ProcessState (illumos bug 6573659): only exit and exec make the shared
 * per-process state defunct. Retiring every probe of a provider name (pid, or another provider's
 * sites through the Fasttrap API) leaves it alive and tracing; exec and exit each make it defunct
 * and tell the Fasttrap listeners so.
 */
class ProcessStateRuleTest {

    private final PidProvider provider = new PidProvider(new Amd64Isa(), 250_000, null);
    private final TestRegistry registry = new TestRegistry(provider);
    private final List<TargetProcess> targets = new ArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    ProcessStateRuleTest() {
        provider.control().addTargetListener(new TargetListener() {
            @Override
            public void followed(TracedTarget t) {
                events.add("followed");
            }

            @Override
            public void defunct(TracedTarget t) {
                events.add("defunct");
            }
        });
    }

    @AfterEach
    void cleanUp() {
        for (TargetProcess t : targets) t.close();
        provider.deactivate();
    }

    private static String bin(String name) {
        return Path.of("../../fixtures/target/bin", name).toAbsolutePath().normalize().toString();
    }

    private TargetProcess create(String... argv) throws Exception {
        TargetProcess t = provider.control().create(List.of(argv), org.jdtrace.proc.ProcessControl.Stdio.INHERIT);
        targets.add(t);
        return t;
    }

    private ProcessState state(TargetProcess t) {
        return provider.control().targets().stream().filter(s -> s.pid() == t.pid()).findFirst().orElseThrow();
    }

    @Test
    void retiringProvidersNeverMakesTheStateDefunctButExitDoes() throws Exception {
        TargetProcess t = create(bin("ft_threads"), "20000");
        ProcessState s = state(t);
        provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:tick:entry"));
        provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:tick:0"));
        AtomicLong entries = new AtomicLong(), offsets = new AtomicLong(), sites = new AtomicLong();
        registry.enable(registry.probe("a.out", "tick", "entry"), c -> entries.incrementAndGet());
        // another provider's hold on the same address, through the exported API
        long tick = ((PidProbe) registry.probe("a.out", "tick", "entry").providerArg()).functionStart();
        org.jdtrace.fasttrap.Site site = s.trace(tick, hit -> sites.incrementAndGet());
        t.go();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (entries.get() < 500 && System.nanoTime() < deadline) Thread.sleep(2);
        registry.retire("pid" + t.pid()); // every pid probe of the process retires
        assertFalse(s.defunct(), "retiring the pid provider's probes");
        provider.provide(ProbeDescription.parse("pid" + t.pid() + ":a.out:tick:0"));
        registry.enable(registry.probe("a.out", "tick", "0"), c -> offsets.incrementAndGet());
        site.close(); // the other provider's hold goes too; the pid probe keeps the int3
        assertFalse(s.defunct(), "closing another provider's sites");
        long before = offsets.get();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (offsets.get() < before + 100 && System.nanoTime() < deadline) Thread.sleep(2);
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS), "no SIGTRAP: the process ends normally");
        assertTrue(offsets.get() > 0, "a pid probe made after the retirements fires");
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!s.defunct() && System.nanoTime() < deadline) Thread.sleep(2);
        assertTrue(s.defunct(), "exit");
        assertEquals(List.of("followed", "defunct"), events);
    }

    @Test
    void execMakesTheStateDefunct() throws Exception {
        TargetProcess t = create("/bin/sh", "-c", "exec /bin/true");
        ProcessState s = state(t);
        assertFalse(s.defunct());
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS));
        assertTrue(s.defunct());
        assertEquals(List.of("followed", "defunct", "defunct"), events, "exec, then exit");
    }
}
