package org.jdtrace.core.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdtrace.core.ecb.EcbOwner;
import org.jdtrace.engine.DFault;
import org.jdtrace.engine.EcbBody;
import org.jdtrace.engine.Statement;
import org.jdtrace.core.testsession.TestProvider;
import org.jdtrace.spi.Module;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DTraceFrameworkTest {

    private final DTraceFramework fw = new DTraceFramework();

    /** Owner recording which probes its ECBs fired on. */
    static final class Owner extends EcbOwner {
        final List<String> fired = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        protected void report(int epid, Probe probe, DFault fault) {}

        @Override
        protected void onFailure(Throwable t) {}

        Statement statement(String... descs) {
            EcbBody body = (ctx, p, epid) -> fired.add(p.name() + "/" + ctx.arg(0));
            return new Statement(java.util.Arrays.stream(descs).map(ProbeDescription::parse).toList(),
                    String.join(",", descs), body);
        }
    }

    @AfterEach
    void tearDown() {
        fw.deactivate();
    }

    @Test
    void aProbesPidFilterIsWidenedBeforeAnUnfilteredEcbAndNarrowedAfterIt() {
        TestProvider t = new TestProvider("test", "m:f:foo");
        fw.addProvider(t);
        Probe foo = fw.lookup("test", "m", "f", "foo");
        Owner o = new Owner(), o2 = new Owner(), o3 = new Owner();
        EcbBody body = (ctx, p, epid) -> {};
        fw.enable(o, new Statement(List.of(foo.description()), "foo", body, 42));
        fw.enable(o2, new Statement(List.of(foo.description()), "foo", body));
        fw.enable(o3, new Statement(List.of(foo.description()), "foo", body, 42));
        fw.activate(o);
        assertEquals(42, foo.pidFilter());
        assertTrue(t.calls.contains("enable foo pid 42"), t.calls.toString());
        fw.activate(o3);
        assertFalse(t.calls.stream().anyMatch(c -> c.startsWith("filter")), "same pid: no change");
        fw.activate(o2);
        assertEquals(-1, foo.pidFilter());
        assertEquals("filter foo -1", t.calls.getLast());
        fw.deactivate(o2);
        assertEquals(42, foo.pidFilter());
        assertEquals("filter foo 42", t.calls.getLast());
        fw.deactivate(o);
        fw.deactivate(o3);
        assertEquals(-1, foo.pidFilter());
        assertEquals("disable foo", t.calls.getLast());
    }

    @Test
    void providerProbesAreCreatedAndLookedUp() {
        TestProvider t = new TestProvider("test", "m:f:foo1", "m:f:foo2", "m:g:bar");
        fw.addProvider(t);
        Probe foo1 = fw.lookup("test", "m", "f", "foo1");
        assertNotNull(foo1);
        assertEquals("test:m:f:foo1", foo1.description().toString());
        assertEquals(3, t.registry.probes("test").size());
        assertEquals(List.of("test:m:f:foo1", "test:m:f:foo2"),
                fw.match(ProbeDescription.parse("test:::foo*")).stream().map(p -> p.description().toString()).toList());
        assertSame(foo1, t.registry.create("test", "m", "f", "foo1", null), "create is idempotent");
        assertEquals(2, fw.argDescs(foo1).size());
        assertEquals("char *", fw.argDescs(foo1).get(1).nativeType());
    }

    @Test
    void aProviderCannotTakeAnothersProbe() {
        TestProvider a = new TestProvider("test", "m:f:x");
        TestProvider b = new TestProvider("other");
        fw.addProvider(a);
        fw.addProvider(b);
        assertThrows(IllegalArgumentException.class, () -> b.registry.create("test", "m", "f", "x", null));
    }

    @Test
    void anAliasedFunctionNameMatchesTheProbeWhichKeepsItsOwnName() {
        TestProvider t = new TestProvider("test", "m:go:entry");
        fw.addProvider(t);
        Owner o = new Owner();
        // retained with no match yet (-Z), then the provider says _go is another name of go
        assertEquals(0, fw.enable(o, o.statement("test:m:_go:entry")));
        Probe go = fw.lookup("test", "m", "go", "entry");
        t.registry.alias(go, "_go");
        assertEquals(List.of(go), fw.match(new org.jdtrace.spi.ProbeDescription("test", "m", "_go", "entry")));
        assertEquals(List.of(go), fw.match(new org.jdtrace.spi.ProbeDescription("test", "", "_g*", "")));
        assertEquals(List.of(), fw.match(new org.jdtrace.spi.ProbeDescription("test", "m", "_go", "return")));
        // a second description of the same probe in another statement: one more ECB on it
        assertEquals(1, fw.enable(o, o.statement("test:m:go:entry")));
        fw.activate(o);
        t.fire("m", "go", "entry", 3);
        assertEquals(List.of("entry/3", "entry/3"), o.fired, "both statements fire, on the probe named go");
        assertEquals("go", go.function());
        fw.release(o);
        t.registry.retire("test");
        assertEquals(List.of(), fw.match(new org.jdtrace.spi.ProbeDescription("test", "m", "_go", "entry")),
                "a retired probe is gone under its aliases too");
    }

    @Test
    void ecbsAreInstalledOnlyWhileTheOwnerIsActiveAndDisabledWithTheLast() {
        TestProvider t = new TestProvider("test", "m:f:foo1", "m:f:foo2", "m:g:bar");
        fw.addProvider(t);
        Owner o = new Owner();
        assertEquals(2, fw.enable(o, o.statement("test:::foo*")));
        Probe foo1 = fw.lookup("test", "m", "f", "foo1");
        assertFalse(foo1.isEnabled());
        t.fire("m", "f", "foo1", 1);
        assertEquals(List.of(), o.fired, "nothing fires before activation");

        fw.activate(o);
        assertTrue(foo1.isEnabled());
        assertTrue(t.calls.contains("enable foo1"));
        assertTrue(t.calls.contains("enable foo2"));
        assertFalse(t.calls.contains("enable bar"));
        t.fire("m", "f", "foo1", 7);
        t.fire("m", "g", "bar", 8);
        assertEquals(List.of("foo1/7"), o.fired);

        Owner o2 = new Owner();
        fw.enable(o2, o2.statement("test::f:foo1"));
        fw.activate(o2);
        assertEquals(1, t.calls.stream().filter("enable foo1"::equals).count(), "enable only for the first ECB");
        fw.release(o);
        assertFalse(t.calls.contains("disable foo1"), "o2 still has an ECB on foo1");
        assertTrue(t.calls.contains("disable foo2"));
        fw.release(o2);
        assertTrue(t.calls.contains("disable foo1"));
        assertFalse(foo1.isEnabled());
        assertEquals(0, fw.enablingCount());
    }

    @Test
    void aProbeEnabledFirstFiresNothingUntilTheWholeActivationIsInstalled() {
        // a provider whose probe fires the moment it is enabled (a syscall probe on a busy
        // process): that firing must not run before the owner's later ECBs are in place
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Owner o = new Owner();
        org.jdtrace.spi.Provider eager = new org.jdtrace.spi.Provider() {
            @Override public String name() { return "eager"; }
            @Override public void attach(org.jdtrace.spi.ProbeRegistry r) {
                r.create("eager", "m", "f", "a", null);
                r.create("eager", "m", "f", "b", null);
            }
            @Override public void enable(Probe p) {
                seen.add("enable " + p.name());
                p.fire(org.jdtrace.core.context.JvmProbeContext.current().clear().arg(0, seen.size()));
            }
            @Override public void disable(Probe p) {}
        };
        fw.addProvider(eager);
        fw.enable(o, o.statement("eager:::a"));
        fw.enable(o, o.statement("eager:::b"));
        fw.activate(o);
        assertEquals(List.of("enable a", "enable b"), seen);
        assertEquals(List.of(), o.fired, "no ECB fired while the activation was still installing");
        fw.lookup("eager", "m", "f", "a").fire(org.jdtrace.core.context.JvmProbeContext.current().clear().arg(0, 9));
        assertEquals(List.of("a/9"), o.fired, "and every one fires once it is complete");
    }

    @Test
    void oneEcbPerProbeAndStatementWithEpidsFromOne() {
        fw.addProvider(new TestProvider("test", "m:f:foo1"));
        Owner o = new Owner();
        assertEquals(1, fw.enable(o, o.statement("test:::foo1", "test:m::", ":::foo*")));
        assertEquals(1, fw.enable(o, o.statement("test:::foo1")));
        assertEquals(1, o.ecbs()[0].epid());
        assertEquals(2, o.ecbs()[1].epid());
    }

    @Test
    void enablingIsRetainedAcrossProviderUnregistrationAndMatchedAgain() {
        TestProvider t = new TestProvider("test", "m:f:foo1", "m:f:foo2", "m:g:bar");
        fw.addProvider(t);
        Owner o = new Owner();
        fw.enable(o, o.statement("test:::foo*"));
        fw.activate(o);
        Probe oldFoo1 = fw.lookup("test", "m", "f", "foo1");

        fw.removeProvider(t);
        assertNull(fw.lookup("test", "m", "f", "foo1"), "probes are gone");
        assertTrue(fw.match(ProbeDescription.parse("test:::")).isEmpty());
        assertTrue(t.calls.containsAll(List.of("disable foo1", "destroy foo1", "destroy bar", "detach")));
        assertEquals(0, o.ecbs().length, "their ECBs are gone");
        assertEquals(1, fw.enablingCount(), "the enabling is kept");
        oldFoo1.fire(null);  // a stale probe fires nothing

        TestProvider again = new TestProvider("test", "m:f:foo1", "m:f:foo2", "m:g:bar");
        fw.addProvider(again);
        Probe newFoo1 = fw.lookup("test", "m", "f", "foo1");
        assertNotEquals(oldFoo1.id(), newFoo1.id(), "probe IDs are never reused");
        assertTrue(newFoo1.isEnabled(), "matched again with no new command");
        assertTrue(again.calls.contains("enable foo1"));
        again.fire("m", "f", "foo2", 3);
        again.fire("m", "g", "bar", 4);
        assertEquals(List.of("foo2/3"), o.fired);
        assertTrue(again.calls.contains("provide test:::foo*"), "retained descriptions are offered to provide()");
    }

    @Test
    void aProbeMadeAfterItsProviderWasUnregisteredIsInertAndNothingIsThrown() {
        // a provider's own thread (a dlopen worker, a fallback) may still make probes while its
        // service goes away: no exception into that thread, no probe in the table, no ECB
        TestProvider t = new TestProvider("late", "m:f:a");
        fw.addProvider(t);
        Owner o = new Owner();
        fw.enable(o, o.statement("late:::"));
        fw.activate(o);
        ProbeRegistry stale = t.registry;
        fw.removeProvider(t);
        Probe p = stale.create("late", "m", "f", "b", null);
        assertNotNull(p);
        assertFalse(p.isEnabled(), "the retained enabling late::: does not take it");
        stale.alias(p, "g");
        stale.aliasName(p, "c");
        assertNull(fw.lookup("late", "m", "f", "b"));
        assertTrue(fw.match(ProbeDescription.parse("late:::")).isEmpty(), "in no listing");
        p.fire(org.jdtrace.core.context.JvmProbeContext.current().clear().arg(0, 1));
        assertEquals(List.of(), o.fired);
        stale.retire(List.of(p));
        assertEquals(1, fw.enablingCount(), "the enabling is still kept for the provider's return");
    }

    @Test
    void provideMakesProbesOnDemandAndLaterProbesMatchRetainedEnablings() {
        TestProvider t = new TestProvider("test");
        fw.addProvider(t);
        TestProvider other = new TestProvider("other");
        fw.addProvider(other);
        Owner o = new Owner();
        assertEquals(1, fw.enable(o, o.statement("test:::demand-1")));
        assertTrue(t.calls.contains("provide test:::demand-1"));
        assertFalse(other.calls.stream().anyMatch(c -> c.startsWith("provide")), "only providers the description names");
        fw.activate(o);
        assertTrue(t.fire("", "", "demand-1", 5));
        assertEquals(List.of("demand-1/5"), o.fired);

        Owner o2 = new Owner();
        assertEquals(0, fw.enable(o2, o2.statement("test:::late*")));
        fw.activate(o2);
        t.registry.create("test", "", "", "late1", null);  // a probe appears on its own
        assertTrue(fw.lookup("test", "", "", "late1").isEnabled());
        t.fire("", "", "late1", 9);
        assertEquals(List.of("late1/9"), o2.fired);
    }

    @Test
    void retireByProviderNameOrByProbesKeepsEnablings() {
        TestProvider t = new TestProvider("test", "m:f:foo1", "m:f:foo2");
        fw.addProvider(t);
        Owner o = new Owner();
        fw.enable(o, o.statement("test:::"));
        fw.activate(o);
        t.registry.retire(List.of(fw.lookup("test", "m", "f", "foo1")));
        assertNull(fw.lookup("test", "m", "f", "foo1"));
        assertNotNull(fw.lookup("test", "m", "f", "foo2"));
        assertEquals(1, o.ecbs().length);
        t.registry.retire("test");
        assertEquals(0, o.ecbs().length);
        assertEquals(1, fw.enablingCount());
        t.registry.create("test", "m", "f", "foo1", null);
        assertTrue(fw.lookup("test", "m", "f", "foo1").isEnabled());
    }

    record TestModule(String name, long id) implements Module {
        @Override
        public Object handle() {
            return null;
        }
    }

    @Test
    void modulesAreOfferedAndTheirProbesRetireOnUnload() {
        TestProvider t = new TestProvider("test");
        Module m = new TestModule("org.example.bundle", 12);
        fw.moduleLoaded(m);
        fw.addProvider(t);
        assertTrue(t.calls.contains("module org.example.bundle"), "a provider registering later is offered loaded modules");
        Owner o = new Owner();
        assertEquals(1, fw.enable(o, o.statement("test:org.example.*::load")));
        fw.activate(o);

        fw.moduleUnloaded(m);
        assertNull(fw.lookup("test", "org.example.bundle", "", "load"));
        assertTrue(t.calls.contains("disable load"));
        assertTrue(t.calls.contains("destroy load"));
        assertEquals(1, fw.enablingCount());

        fw.moduleLoaded(new TestModule("org.example.bundle", 13));
        assertTrue(fw.lookup("test", "org.example.bundle", "", "load").isEnabled(), "the module came back: matched again");
    }

    @Test
    void probesMayBeCreatedConcurrentlyWithFiring() throws Exception {
        TestProvider t = new TestProvider("test");
        fw.addProvider(t);
        Owner o = new Owner();
        fw.enable(o, o.statement("test:::p*"));
        fw.activate(o);
        Set<Integer> ids = ConcurrentHashMap.newKeySet();
        Thread[] threads = new Thread[4];
        for (int i = 0; i < threads.length; i++) {
            int k = i;
            threads[i] = new Thread(() -> {
                for (int j = 0; j < 50; j++) {
                    Probe p = t.registry.create("test", "", "t" + k, "p" + j, null);
                    ids.add(p.id());
                    t.fire("", "t" + k, "p" + j, j);
                }
            });
            threads[i].start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(200, ids.size());
        assertEquals(200, o.fired.size());
    }
}
