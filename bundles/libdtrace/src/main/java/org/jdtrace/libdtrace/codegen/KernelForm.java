/*
 * KernelForm: the form of a lowered clause a provider may run in the kernel
 * (org.jdtrace.spi.KernelClause), or null when it has none. Written per statement by DCompiler
 * when option kernelclauses is not "off".
 *
 * The predicate is translated when every node of it is one the kernel can evaluate at the event:
 * integer constants (inlines and macros are constants by now), arg0..arg9, pid, tid, ppid, uid,
 * errno, execname and probefunc (in string comparisons), the integer operators but division and
 * remainder (a division by zero must raise dtrace:::ERROR), string comparisons, casts, ?:. Anything
 * else (a variable, a subroutine, a memory read) leaves the clause without a kernel form: its
 * events always reach the JVM. A clause without a predicate and without a kernel aggregation has no
 * kernel form either (it wants every event).
 *
 * The aggregation is offered when the clause is exactly one aggregating action (no record, no
 * other action, no if), its keys and arguments translate as above and its function is one of
 * DTrace's nine; its sink is a new rt.KernelCells of the aggregation. Stateless.
 */
package org.jdtrace.libdtrace.codegen;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.spi.KernelClause;
import org.jdtrace.spi.KernelClause.Variable;

public final class KernelForm {

    private KernelForm() {}

    /** {@code name}: the clause as its warnings name it (its probe descriptions as written). */
    public static KernelClause of(DState state, Ir.Clause c, String name, boolean required) {
        KernelClause.Expr pred = null;
        if (c.predicate() != null) {
            pred = integer(c.predicate());
            if (pred == null) return null;
        }
        KernelClause.Aggregation agg = c.records() || c.body().size() != 1
                || !(c.body().get(0) instanceof Ir.Aggregate a) ? null : aggregation(state, a);
        if (pred == null && agg == null) return null;
        return new KernelClause(name, pred, agg, required);
    }

    private static KernelClause.Aggregation aggregation(DState state, Ir.Aggregate a) {
        Aggregation g = a.agg();
        List<KernelClause.Expr> keys = new ArrayList<>();
        for (Ir.Expr k : a.keys()) {
            KernelClause.Expr e = k.kind() == Ir.VKind.STRING ? string(k) : k.kind() == Ir.VKind.LONG ? integer(k) : null;
            if (e == null) return null;
            keys.add(e);
        }
        KernelClause.Expr value = null, incr = null;
        if (g.kind != AggKind.COUNT) {
            if (a.value() == null || (value = integer(a.value())) == null) return null;
        }
        if (a.incr() != null && (incr = integer(a.incr())) == null) return null;
        long[] params = switch (g.kind) {
            case LQUANTIZE -> new long[] {g.lqBase, g.lqStep, g.lqLevels};
            case LLQUANTIZE -> llquantize(g);
            default -> new long[0];
        };
        return new KernelClause.Aggregation(g.name, KernelClause.Function.valueOf(g.kind.name()), List.copyOf(keys),
                value, incr, params, g.identity().length, state.kernelCells(g));
    }

    /** factor, low, high, nsteps, then the buckets' bounds (LogLinear.bounds; none when it has none). */
    private static long[] llquantize(Aggregation g) {
        long[] b = g.llq.bounds();
        long[] p = java.util.Arrays.copyOf(new long[] {g.llq.factor, g.llq.low, g.llq.high, g.llq.nsteps}, 4 + (b == null ? 0 : b.length));
        if (b != null) System.arraycopy(b, 0, p, 4, b.length);
        return p;
    }

    /** A string operand: a constant, execname or probefunc; null otherwise. */
    private static KernelClause.Expr string(Ir.Expr e) {
        return switch (e) {
            case Ir.StrConst s -> new KernelClause.Str(s.value());
            case Ir.BuiltinVar b when b.which() == Ir.Builtin.EXECNAME -> new KernelClause.Var(Variable.EXECNAME);
            case Ir.BuiltinVar b when b.which() == Ir.Builtin.PROBEFUNC -> new KernelClause.Var(Variable.PROBEFUNC);
            default -> null;
        };
    }

    /** An integer expression the kernel can evaluate, or null. */
    static KernelClause.Expr integer(Ir.Expr e) {
        return switch (e) {
            case Ir.Const c -> new KernelClause.Const(c.value());
            case Ir.BuiltinVar b -> switch (b.which()) {
                case ARG0, ARG1, ARG2, ARG3, ARG4, ARG5, ARG6, ARG7, ARG8, ARG9 ->
                    new KernelClause.Arg(b.which().ordinal() - Ir.Builtin.ARG0.ordinal());
                case PID -> new KernelClause.Var(Variable.PID);
                case TID -> new KernelClause.Var(Variable.TID);
                case PPID -> new KernelClause.Var(Variable.PPID);
                default -> null;
            };
            case Ir.Call c when c.args().isEmpty() && c.name().equals("uid") -> new KernelClause.Var(Variable.UID);
            case Ir.Call c when c.args().isEmpty() && c.name().equals("errno") -> new KernelClause.Var(Variable.ERRNO);
            case Ir.Unary u -> {
                KernelClause.Expr o = integer(u.operand());
                yield o == null ? null : new KernelClause.Unary(KernelClause.UnOp.valueOf(u.op().name()), o);
            }
            case Ir.Binary b when b.op() != Ir.BinOp.DIV && b.op() != Ir.BinOp.MOD -> {
                KernelClause.Expr l = integer(b.left()), r = integer(b.right());
                yield l == null || r == null ? null
                        : new KernelClause.Binary(KernelClause.BinOp.valueOf(b.op().name()), l, r, b.unsigned());
            }
            case Ir.StrCompare s -> {
                KernelClause.Expr l = string(s.left()), r = string(s.right());
                yield l == null || r == null ? null : new KernelClause.StrCompare(KernelClause.BinOp.valueOf(s.op().name()), l, r);
            }
            case Ir.Cast c -> {
                KernelClause.Expr o = integer(c.operand());
                yield o == null ? null : new KernelClause.Cast(o, c.width(), c.signed());
            }
            case Ir.Ternary t when t.kind() == Ir.VKind.LONG -> {
                KernelClause.Expr c = integer(t.cond()), th = integer(t.then()), ot = integer(t.otherwise());
                yield c == null || th == null || ot == null ? null : new KernelClause.Ternary(c, th, ot);
            }
            default -> null;
        };
    }
}
