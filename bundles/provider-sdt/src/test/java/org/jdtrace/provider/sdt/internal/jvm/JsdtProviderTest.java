package org.jdtrace.provider.sdt.internal.jvm;

import static org.jdtrace.sdt.ArgType.INT;
import static org.jdtrace.sdt.ArgType.LONG;
import static org.jdtrace.sdt.ArgType.STRING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.ProbeInfo;
import org.jdtrace.consumer.Program;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.sdt.StaticProbe;
import org.jdtrace.sdt.StaticProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Java static probes through the real framework, D compiler and consumer (no OSGi: the declaring
 * class is outside any bundle, so its probes' module is "java" and they exist while provider-sdt
 * is attached). Each test declares providers of its own names: the table is the JVM's.
 */
class JsdtProviderTest {

    private final DTraceFramework fw = new DTraceFramework();
    private final DTraceService dtrace = new DTraceService(fw, new DSessionFactoryImpl());
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private JsdtProvider sdt;

    @BeforeEach
    void setUp() {
        sdt = new JsdtProvider(null);
        fw.addProvider(sdt);
    }

    @AfterEach
    void tearDown() {
        fw.removeProvider(sdt);
        sdt.deactivate();
        fw.deactivate();
    }

    private Consumer trace(String d) throws Exception {
        Consumer c = dtrace.open();
        c.setOption("quiet", null);
        c.setOption("zdefs", null);
        Program p = c.compile(d, "test.d", List.of("test.d"));
        c.exec(p);
        c.go(out, out);
        return c;
    }

    private String finish(Consumer c) throws Exception {
        c.stop();
        for (int i = 0; i < 1000 && c.work() != Consumer.Status.DONE; i++) {
            // END and the drain
        }
        c.close();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private List<ProbeInfo> list(String desc) throws Exception {
        try (Consumer c = dtrace.open()) {
            c.setOption("zdefs", null); // as dtrace -l: a description that matches nothing lists nothing
            return c.list(c.compileDescription(Consumer.DescriptionKind.NAME, desc));
        }
    }

    @Test
    void declaredProbesAreListedWithTheirTypes() throws Exception {
        StaticProvider p = StaticProvider.define(JsdtProviderTest.class, "unitlist");
        p.probe("query__start", STRING, INT);
        p.probe("done");
        List<ProbeInfo> l = list("unitlist:::");
        assertEquals(2, l.size());
        ProbeInfo q = l.get(0);
        assertEquals(List.of("unitlist", "java", "", "query-start"), List.of(q.provider(), q.module(), q.function(), q.name()));
        assertEquals(List.of("string", "int"), q.args());
        assertEquals(List.of(), l.get(1).args());
        assertSame(p, StaticProvider.define(JsdtProviderTest.class, "unitlist"), "declaring again gives the same provider");
        assertSame(p.probes().get(0), p.probe("query-start", STRING, INT), "and the same probe");
    }

    @Test
    void badDeclarationsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> StaticProvider.define(JsdtProviderTest.class, "my-app"));
        assertThrows(IllegalArgumentException.class, () -> StaticProvider.define(JsdtProviderTest.class, "1app"));
        assertThrows(IllegalArgumentException.class, () -> StaticProvider.define(JsdtProviderTest.class, "dtrace"));
        assertThrows(IllegalArgumentException.class, () -> StaticProvider.define(JsdtProviderTest.class, "python3"));
        StaticProvider p = StaticProvider.define(JsdtProviderTest.class, "unitbad");
        p.probe("x", LONG);
        assertThrows(IllegalArgumentException.class, () -> p.probe("x", STRING), "same name, other types");
        assertThrows(IllegalArgumentException.class, () -> p.probe("a:b"));
        assertThrows(IllegalArgumentException.class, () -> p.probe("many", new org.jdtrace.sdt.ArgType[11]));
    }

    @Test
    void anEnabledProbeFiresItsTypedArgumentsAndADisabledOneNothing() throws Exception {
        StaticProbe tick = StaticProvider.define(JsdtProviderTest.class, "unitfire").probe("tick", STRING, INT, LONG);
        tick.fire("before", 1, 1);
        assertFalse(tick.isEnabled());
        Consumer c = trace("unitfire:::tick { printf(\"%s %d %d %s\\n\", copyinstr(arg0), arg1, arg2, probemod); }");
        assertTrue(tick.isEnabled());
        tick.fire("a", 0x1_0000_0005L, -7L);
        tick.fire("bb", 2, 3);
        tick.fireArgs("c", 4L, 5, "ignored");
        tick.fire(12345L, 6, 7); // a long where a string is declared: its digits
        assertEquals("a 5 -7 java\nbb 2 3 java\nc 4 5 java\n12345 6 7 java\n\n", finish(c));
        assertFalse(tick.isEnabled(), "disarmed when the consumer is gone");
    }

    @Test
    void aStringArgumentIsADStringInArgs() throws Exception {
        StaticProbe q = StaticProvider.define(JsdtProviderTest.class, "unitargs").probe("query", STRING, INT, LONG);
        Consumer c = trace("unitargs:::query { printf(\"%s|%s|%d|%d|%d\\n\", args[0], stringof(args[0]), args[1],"
                + " sizeof (args[1]), args[2]); @[args[0]] = count(); }");
        q.fire("select 1", -2, -3L);
        q.fire("select 1", 7, 1L << 40);
        q.fire("select 2", 0, 0);
        String o = finish(c);
        assertTrue(o.contains("select 1|select 1|-2|4|-3\n"), o);
        assertTrue(o.contains("select 1|select 1|7|4|1099511627776\n"), o);
        // the aggregation keyed by the string, printed at the end (no END here: no dtrace provider)
        assertTrue(o.matches("(?s).*\n  select 1 +2\n.*") && o.matches("(?s).*\n  select 2 +1\n.*"), o);
    }

    @Test
    void aStringHandleReadsOnlyItsOwnStringAndAWildAddressFaults() throws Exception {
        StaticProbe p = StaticProvider.define(JsdtProviderTest.class, "unitfault").probe("ev", STRING, LONG);
        Consumer c = trace("unitfault:::ev { printf(\"%s\\n\", copyinstr(arg0, 2)); }\n"
                + "unitfault:::ev { printf(\"%s\\n\", copyinstr(arg1)); }");
        p.fire("xyz", 4096);
        String o = finish(c);
        assertTrue(o.startsWith("xy\n"), o);
        assertTrue(o.contains("invalid address (0x1000)"), o);
    }

    @Test
    void aProbeDeclaredAfterTheEnablingMatchesAtOnce() throws Exception {
        Consumer c = trace("unitlate:::ev { printf(\"late %d\\n\", arg0); }");
        StaticProbe ev = StaticProvider.define(JsdtProviderTest.class, "unitlate").probe("ev", LONG);
        assertTrue(ev.isEnabled());
        ev.fire(42);
        assertEquals("late 42\n\n", finish(c));
    }

    @Test
    void theProviderLeavingRetiresTheProbesAndItsReturnMatchesTheRetainedEnabling() throws Exception {
        StaticProbe ev = StaticProvider.define(JsdtProviderTest.class, "unitret").probe("ev", LONG);
        Consumer c = trace("unitret:::ev { printf(\"ev %d\\n\", arg0); }");
        ev.fire(1);
        fw.removeProvider(sdt);
        sdt.deactivate();
        assertFalse(ev.isEnabled());
        assertEquals(List.of(), list("unitret:::ev"));
        ev.fire(2);
        sdt = new JsdtProvider(null);
        fw.addProvider(sdt);
        assertTrue(ev.isEnabled(), "the retained enabling matched the probe again");
        ev.fire(3);
        assertEquals("ev 1\nev 3\n\n", finish(c));
    }

    @Test
    void onlyOneImplementationBindsTheTable() {
        assertThrows(IllegalStateException.class, () -> new JsdtProvider(null));
    }
}
