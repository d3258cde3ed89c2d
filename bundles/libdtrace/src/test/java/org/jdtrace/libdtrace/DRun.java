package org.jdtrace.libdtrace;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.core.context.JvmProbeContext;
import org.jdtrace.engine.DFault;
import org.jdtrace.engine.DProgram;
import org.jdtrace.engine.DSession;
import org.jdtrace.engine.Statement;
import org.jdtrace.spi.Glob;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.spi.ProbeDescription;

/**
 * One D program compiled by a real session (DSessionFactoryImpl) and fired on the calling thread
 * with the real JVM probe context, the way the framework runs it: one ECB per matching probe and
 * statement, in statement order; a fault reported to the session (the default ERROR message) and
 * dtrace:::ERROR fired; BEGIN first, END last, then the session's exit path.
 */
final class DRun {

    record TestProbe(int id, String provider, String module, String function, String name) implements Probe {
        public Object providerArg() { return null; }
        public boolean isEnabled() { return true; }
        public void fire(ProbeContext ctx) { }
    }

    static final Probe BEGIN = new TestProbe(1, "dtrace", "", "", "BEGIN");
    static final Probe END = new TestProbe(2, "dtrace", "", "", "END");
    static final Probe ERROR = new TestProbe(3, "dtrace", "", "", "ERROR");
    static final Probe ENTRY = new TestProbe(4, "test", "libwork.so", "work", "entry");
    static final Probe RETURN = new TestProbe(5, "test", "libwork.so", "work", "return");
    static final List<Probe> PROBES = List.of(BEGIN, END, ERROR, ENTRY, RETURN);

    private record Ecb(int epid, Probe probe, Statement statement) {}

    final DSession session = new DSessionFactoryImpl().create();
    private final List<Ecb> ecbs = new ArrayList<>();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Compiles {@code source} as script "t.d" with $1.. = {@code args} and enables it. */
    static DRun script(String source, String... args) throws DTraceException {
        DRun r = new DRun();
        List<String> macros = new ArrayList<>(List.of("t.d"));
        macros.addAll(List.of(args));
        r.enable(r.session.compile(source, "t.d", macros));
        return r;
    }

    void enable(DProgram p) {
        for (Statement s : p.statements()) {
            for (Probe probe : PROBES) {
                if (s.descriptions().stream().anyMatch(d -> matches(d, probe))) {
                    Ecb e = new Ecb(ecbs.size() + 1, probe, s);
                    ecbs.add(e);
                    session.ecbCreated(e.epid(), probe, s);
                }
            }
        }
    }

    private static boolean matches(ProbeDescription d, Probe p) {
        return field(d.provider(), p.provider()) && field(d.module(), p.module())
                && field(d.function(), p.function()) && field(d.name(), p.name());
    }

    private static boolean field(String pattern, String value) {
        return pattern == null || pattern.isEmpty() || Glob.match(pattern, value);
    }

    /** Starts tracing and fires BEGIN. */
    DRun go() throws DTraceException {
        session.begin(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        fire(BEGIN);
        return this;
    }

    /** Fires {@code probe} with arg0.. on this thread, as a provider would. */
    DRun fire(Probe probe, long... args) {
        JvmProbeContext ctx = JvmProbeContext.current().clear().pinCpu(0);
        for (int i = 0; i < args.length; i++) ctx.arg(i, args[i]);
        return fire(probe, ctx);
    }

    /** Fires {@code probe} on this thread with the given context (a user-level one...). */
    DRun fire(Probe probe, ProbeContext ctx) {
        for (Ecb e : ecbs) {
            if (e.probe() != probe) continue;
            try {
                e.statement().body().fire(ctx, probe, e.epid());
            } catch (DFault f) {
                error(e, f);
            } catch (FaultException f) {
                error(e, new DFault(f.kind(), f.address(), 0, -1));
            }
        }
        return this;
    }

    /**
     * Fires {@code probe} {@code times} times with arg0 = 0, 1, ... and nothing else allocated by
     * this harness (an index loop over the probe's ECBs, found once), for allocation tests.
     */
    DRun fireTimes(Probe probe, int times) {
        Ecb[] mine = ecbs.stream().filter(e -> e.probe() == probe).toArray(Ecb[]::new);
        for (int k = 0; k < times; k++) {
            JvmProbeContext ctx = JvmProbeContext.current().clear().pinCpu(0).arg(0, k);
            for (int i = 0; i < mine.length; i++) {
                mine[i].statement().body().fire(ctx, probe, mine[i].epid());
            }
        }
        return this;
    }

    private void error(Ecb e, DFault f) {
        session.fault(e.epid(), e.probe(), f);
        // as the framework's EcbOwner.fault: arg1 the faulting probe, arg2 its clause
        fire(ERROR, 0, e.probe().id(), session.clauseOf(e.epid()), f.offset, f.kind.code, f.address);
    }

    /** Fires END, runs the exit path (drain, aggregations), and returns stdout. */
    String end() {
        fire(END);
        session.end();
        return out();
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
