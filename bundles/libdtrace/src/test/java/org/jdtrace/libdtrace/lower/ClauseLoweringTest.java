package org.jdtrace.libdtrace.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.codegen.Ir;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.sema.DFrontEnd;
import org.junit.jupiter.api.Test;

/**
 * The lowering pass alone: checked clauses in, Ir out. Subroutine calls take their runtime entry
 * from the built-ins table, strings stay strings, integers are narrowed to their D type, a
 * clause that records nothing is marked so, and what the checker accepts but the lowering
 * cannot run is a D error, not a wrong value.
 */
class ClauseLoweringTest {

    private static List<Ir.Clause> lower(String src) throws DTraceException {
        ClauseLowering l = new ClauseLowering(new DState());
        List<Ir.Clause> out = new java.util.ArrayList<>();
        for (var c : DFrontEnd.check(src, "t.d", List.of()).clauses()) out.add(l.lower(c));
        return out;
    }

    private static Ir.Expr evaluated(Ir.Clause c, int i) {
        return assertInstanceOf(Ir.Eval.class, c.body().get(i)).expr();
    }

    @Test
    void subroutineCallsUseTheTablesEntryAndNarrowToTheResultType() throws DTraceException {
        Ir.Clause c = lower("BEGIN { x = htons(1); s = strjoin(\"a\", \"b\"); }").get(0);
        Ir.Assign x = assertInstanceOf(Ir.Assign.class, evaluated(c, 0));
        Ir.Cast narrowed = assertInstanceOf(Ir.Cast.class, x.value());
        assertEquals(2, narrowed.width()); // uint16_t
        assertFalse(narrowed.signed());
        assertEquals(new Ir.Call("htons", List.of(new Ir.Const(1)), Ir.VKind.LONG), narrowed.operand());
        Ir.Assign s = assertInstanceOf(Ir.Assign.class, evaluated(c, 1));
        assertEquals(new Ir.Call("strjoin", List.of(new Ir.StrConst("a"), new Ir.StrConst("b")), Ir.VKind.STRING), s.value());
        assertFalse(c.records(), "assignments alone record nothing");
    }

    @Test
    void strtokOfNullIsTheContinuingEntryAndNullStringsAreNull() throws DTraceException {
        Ir.Clause c = lower("BEGIN { s = strtok(NULL, \",\"); n = strlen(NULL); }").get(0);
        Ir.Assign s = assertInstanceOf(Ir.Assign.class, evaluated(c, 0));
        assertEquals(new Ir.Call("strtok", List.of(new Ir.StrConst(",")), Ir.VKind.STRING), s.value());
        Ir.Assign n = assertInstanceOf(Ir.Assign.class, evaluated(c, 1));
        assertEquals(new Ir.Call("strlen", List.of(new Ir.Call("nullstr", List.of(), Ir.VKind.STRING)), Ir.VKind.LONG),
                n.value());
    }

    @Test
    void builtinVariablesReadTheProbeOrTheirEntry() throws DTraceException {
        Ir.Clause c = lower("BEGIN { a = pid; b = errno; d = cwd; }").get(0);
        Ir.Cast pid = assertInstanceOf(Ir.Cast.class, assertInstanceOf(Ir.Assign.class, evaluated(c, 0)).value());
        assertEquals(new Ir.BuiltinVar(Ir.Builtin.PID), pid.operand());
        Ir.Expr errno = assertInstanceOf(Ir.Assign.class, evaluated(c, 1)).value();
        assertEquals(new Ir.Call("errno", List.of(), Ir.VKind.LONG), errno instanceof Ir.Cast k ? k.operand() : errno);
        assertEquals(new Ir.Call("cwd", List.of(), Ir.VKind.STRING),
                assertInstanceOf(Ir.Assign.class, evaluated(c, 2)).value());
    }

    @Test
    void predicatesAndTheDefaultAction() throws DTraceException {
        List<Ir.Clause> cs = lower("BEGIN /1/ { } END { trace(1); }");
        assertEquals(new Ir.Const(1), cs.get(0).predicate());
        assertTrue(cs.get(0).records(), "an empty clause gets the default action");
        assertNull(cs.get(1).predicate());
        assertInstanceOf(Ir.Trace.class, cs.get(1).body().get(0));
    }

    @Test
    void symbolActionsAreNotValues() {
        DTraceException e = assertThrows(DTraceException.class, () -> lower("BEGIN { x = usym(0); }"));
        assertEquals("D_ACT_SPEC", e.tag());
    }
}
