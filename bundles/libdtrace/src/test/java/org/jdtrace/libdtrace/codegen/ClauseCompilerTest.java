package org.jdtrace.libdtrace.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.libdtrace.DSessionImpl;
import org.jdtrace.libdtrace.codegen.Ir.*;
import org.jdtrace.libdtrace.print.PrintfFormat;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.engine.DFault;
import org.jdtrace.engine.EcbBody;
import org.jdtrace.engine.Statement;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.junit.jupiter.api.Test;

/** Clauses compiled to classes and fired with a real (JVM-thread) probe context. */
class ClauseCompilerTest {

    /** The probe context of the calling Java thread, as the JVM-side providers give it. */
    record FixedContext(long[] args, int cpu) implements ProbeContext {
        public long arg(int i) { return i < args.length ? args[i] : 0; }
        public long pid() { return ProcessHandle.current().pid(); }
        public long ppid() { return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L); }
        public long tid() { return Thread.currentThread().threadId(); }
        public String execname() { return "java"; }
        public int cpu() { return cpu; }
    }

    record SimpleProbe(int id, String provider, String module, String function, String name) implements Probe {
        public Object providerArg() { return null; }
        public boolean isEnabled() { return true; }
        public void fire(ProbeContext ctx) { }
    }

    private static final Probe BEGIN = new SimpleProbe(1, "dtrace", "", "", "BEGIN");
    private static final Probe END = new SimpleProbe(2, "dtrace", "", "", "END");
    private static final ProbeContext CTX = new FixedContext(new long[] {7, 3}, 0);

    private final DSessionImpl session = (DSessionImpl) new DSessionFactoryImpl().create();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private EcbBody clause(int epid, Probe probe, Expr pred, boolean records, Stmt... body) {
        EcbBody b = session.compileClause(new Ir.Clause(pred, List.of(body), records));
        session.ecbCreated(epid, probe, new Statement(List.of(probe.description()), probe.toString(), b));
        return b;
    }

    private void begin() {
        try {
            session.begin(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        } catch (org.jdtrace.consumer.DTraceException e) {
            throw new AssertionError(e);
        }
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void traceAndPrintfWithProbeLines() {
        EcbBody b = clause(1, BEGIN, null, true,
                new Trace(new Const(1), 4),
                new Trace(new StrConst("this"), 0),
                new Printf(PrintfFormat.parse(" x=%d %s\n"), List.of(new BuiltinVar(Builtin.ARG0), new BuiltinVar(Builtin.PROBENAME)), new int[] {8, 0}),
                new Exit(new Const(3)));
        begin();
        b.fire(CTX, BEGIN, 1);
        assertTrue(session.exitRequested());
        assertEquals(3, session.exitStatus());
        session.end();
        assertEquals("CPU     ID                    FUNCTION:NAME\n"
                + "  0      1                           :BEGIN           1  this                              x=7 BEGIN\n\n\n", out());
    }

    @Test
    void quietPredicateVariablesAndAggregationsPrintedAtEnd() throws Exception {
        session.setOption("quiet", null);
        DSessionImpl s = session;
        int x = s.state().longSlot("x");
        int self = s.state().tlsSlot("n");
        Aggregation cnt = s.state().aggregation("c", AggKind.COUNT, new int[] {0}, 0, 0, 0);
        Aggregation sum = s.state().aggregation("s", AggKind.SUM, new int[0], 0, 0, 0);
        Var gx = new Var(Scope.GLOBAL, x, VKind.LONG);
        Var tn = new Var(Scope.THREAD, self, VKind.LONG);
        Var local = new Var(Scope.CLAUSE, 0, VKind.LONG);
        // x += arg1 * 2; this->v = x % 5; self->n++; @c[probename] = count(); @s = sum(this->v) when x < 20
        EcbBody b = clause(1, BEGIN, new Binary(BinOp.LT, gx, new Const(20), false), false,
                new Eval(new Assign(gx, new Binary(BinOp.ADD, gx, new Binary(BinOp.MUL, new BuiltinVar(Builtin.ARG1), new Const(2), false), false))),
                new Eval(new Assign(local, new Binary(BinOp.MOD, gx, new Const(5), false))),
                new Eval(new Assign(tn, new Binary(BinOp.ADD, tn, new Const(1), false))),
                new Aggregate(cnt, List.of(new BuiltinVar(Builtin.PROBENAME)), null, null),
                new Aggregate(sum, List.of(), local, null));
        EcbBody e = clause(2, END, null, true,
                new Printf(PrintfFormat.parse("x=%d n=%d (char)300=%d\n"),
                        List.of(gx, tn, new Cast(new Const(300), 1, true)), new int[] {8, 8, 1}));
        begin();
        for (int i = 0; i < 5; i++) b.fire(CTX, BEGIN, 1);
        e.fire(CTX, END, 2);
        session.end();
        // x: 6, 12, 18, 24 (stops: x < 20 fails); x%5: 1, 2, 3, 4 -> sum 10; 4 firings counted
        assertEquals("x=24 n=4 (char)300=44\n\n  BEGIN                                                             4\n"
                + "               10\n", out());
    }

    @Test
    void aFaultIsLocatedAtTheOffsetOfItsCallInTheGeneratedCode() {
        // two divisions: each faults at its own invokestatic, the later one further into fire()
        EcbBody b = clause(1, BEGIN, null, true,
                new Trace(new Binary(BinOp.DIV, new Const(1), new Binary(BinOp.SUB, new BuiltinVar(Builtin.ARG0), new Const(7), false), false), 8),
                new Trace(new Binary(BinOp.DIV, new Const(1), new Binary(BinOp.SUB, new BuiltinVar(Builtin.ARG1), new Const(3), false), false), 8));
        begin();
        DFault first = assertThrows(DFault.class, () -> b.fire(CTX, BEGIN, 1));
        DFault second = assertThrows(DFault.class, () -> b.fire(new FixedContext(new long[] {8, 3}, 0), BEGIN, 1));
        assertEquals(1, first.action);
        assertEquals(2, second.action);
        assertTrue(first.offset > 0 && second.offset > first.offset, first.offset + " " + second.offset);
    }

    @Test
    void divideByZeroFaultsWithActionAndOffsetAndIsReported() {
        EcbBody b = clause(1, BEGIN, null, true,
                new Trace(new Const(1), 8),
                new Trace(new Binary(BinOp.DIV, new Const(1), new Binary(BinOp.SUB, new BuiltinVar(Builtin.ARG1), new Const(3), false), false), 8));
        begin();
        DFault f = assertThrows(DFault.class, () -> b.fire(CTX, BEGIN, 1));
        assertEquals(FaultException.Kind.DIVZERO, f.kind);
        assertEquals(2, f.action);
        session.fault(1, BEGIN, f);
        session.drain();
        assertEquals("", out());
        assertEquals("dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): divide-by-zero at BPF pc "
                + f.offset + "\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void fullBufferDropsAndReportsPerCpu() throws Exception {
        // room for one record (12 + a 256-byte string and its NUL, in a perf record), not two
        session.setOption("bufsize", "300");
        session.setOption("quiet", "yes");
        EcbBody b = clause(1, BEGIN, null, true, new Trace(new StrConst("hello\n"), 0));
        begin();
        for (int i = 0; i < 5; i++) b.fire(CTX, BEGIN, 1);
        session.drain();
        assertEquals("hello\n", out());
        assertEquals("dtrace: 4 drops on CPU 0\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void exitStopsOtherProbesButNotEnd() {
        Probe tick = new SimpleProbe(9, "profile", "", "", "tick-1s");
        EcbBody t = clause(3, tick, null, true, new Exit(new Const(0)));
        EcbBody e = clause(2, END, null, true);
        begin();
        t.fire(CTX, tick, 3);
        t.fire(CTX, tick, 3);
        e.fire(CTX, END, 2);
        session.end();
        assertEquals("CPU     ID                    FUNCTION:NAME\n"
                + "  0      9                         :tick-1s \n"
                + "  0      2                             :END \n\n", out());
    }

    @Test
    void stringsAssocsAndPrintaDefault() throws Exception {
        session.setOption("quiet", null);
        int arr = session.state().assocSlot("a");
        Aggregation q = session.state().aggregation("q", AggKind.LQUANTIZE, new int[0], 0, 10, 5);
        AssocRef ref = new AssocRef(arr, List.of(new StrConst("k"), new Const(1)), VKind.STRING);
        EcbBody b = clause(1, BEGIN, null, true,
                new Eval(new Assign(ref, new Call("strjoin", List.of(new BuiltinVar(Builtin.EXECNAME), new StrConst("!")), VKind.STRING))),
                new Printf(PrintfFormat.parse("%s %d %s\n"), List.of(ref, new Call("strlen", List.of(ref), VKind.LONG),
                        new Call("substr", List.of(ref, new Const(1), new Const(2)), VKind.STRING)), new int[] {0, 8, 0}),
                new Aggregate(q, List.of(), new Const(6), null),
                new Printa(null, List.of(q)));
        begin();
        b.fire(CTX, BEGIN, 1);
        session.end();
        String hdr = "\n           value  ------------- Distribution ------------- count    \n";
        assertEquals("java! 5 av\n\n" + hdr
                + "               0 |                                         0        \n"
                + "               5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n"
                + "           >= 10 |                                         0        \n\n\n", out());
        assertTrue(Map.of().isEmpty());
    }
}
