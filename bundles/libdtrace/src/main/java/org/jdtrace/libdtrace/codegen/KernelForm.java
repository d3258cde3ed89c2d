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
 * other action, no if), its keys and arguments translate as above or are stack() (the kernel
 * stack, as deep as the firing would take it: stack(n), else options stackframes and maxframes)
 * and its function is one of DTrace's nine; its sink is a new rt.KernelCells of the aggregation.
 * ustack() and jstack() keys have no kernel form: the user stack without frame pointers is
 * unwound by CFI in the JVM. Under kernelclauses=force (required) an aggregating clause with no
 * kernel form is offered as KernelClause.jvmOnly, so that a provider that runs kernel clauses
 * refuses it instead of running it in the JVM unseen.
 *
 * Thread-locals in the kernel (residentThreadLocals, run once per program): a thread-local
 * integer scalar lives in the kernel when every clause of the program that mentions it (reads or
 * writes it) is WHOLE: all its probe descriptions match only probes that run its whole form
 * where they fire (ProbeArgs.kernelThreadLocals: the machine-wide syscall provider's; pid and
 * USDT probes on uprobes where every argument it reads is in the captured registers; one
 * per-thread store shared by all of them), it writes no
 * record, and its body is at most one aggregating action followed by stores `self->x = E` to
 * resident thread-locals, its predicate, keys, values and E in the IR above plus resident
 * thread-locals and `timestamp`. The set is the largest fixed point (a clause that is not whole
 * gives all the thread-locals it mentions back to the JVM, which may make other clauses not
 * whole). So each thread-local lives in exactly one place: in the kernel, read and written only
 * by kernel programs (a whole clause runs in the JVM only when its provider gives every whole
 * clause back together, KernelClause), or in the JVM as before; a clause never sees a value from
 * the other side. `timestamp`
 * in a whole clause is the kernel's clock at the event (bpf_ktime_get_ns), which only whole
 * clauses see, so its differences are consistent. Stateless.
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
        return of(state, c, name, required, java.util.Set.of());
    }

    /**
     * As above; {@code resident}: the thread-locals that live in the kernel (residentThreadLocals).
     * A clause that mentions one is whole (see the file comment).
     */
    public static KernelClause of(DState state, Ir.Clause c, String name, boolean required, java.util.Set<Integer> resident) {
        java.util.Set<Integer> mine = threadLocals(c);
        if (!mine.isEmpty() && resident.containsAll(mine)) {
            KernelClause w = whole(state, c, name, required, resident);
            if (w != null) return w;
        }
        boolean aggregating = !c.records() && c.body().size() == 1 && c.body().get(0) instanceof Ir.Aggregate;
        KernelClause.Expr pred = null;
        if (c.predicate() != null) {
            pred = integer(c.predicate());
            if (pred == null) return required && aggregating ? jvmOnly(c, name) : null;
        }
        KernelClause.Aggregation agg = aggregating ? aggregation(state, (Ir.Aggregate) c.body().get(0), java.util.Set.of()) : null;
        if (required && aggregating && agg == null) return jvmOnly(c, name);
        if (pred == null && agg == null) return null;
        return new KernelClause(name, pred, agg, required);
    }

    /** An aggregating clause the kernel cannot run under kernelclauses=force: KernelClause.jvmOnly with why. */
    private static KernelClause jvmOnly(Ir.Clause c, String name) {
        Ir.Aggregate a = (Ir.Aggregate) c.body().get(0);
        boolean user = a.keys().stream().anyMatch(k -> k instanceof Ir.StackKey s && s.which() != Ir.StackKind.KERNEL);
        return KernelClause.jvmOnly(name, user ? "a ustack() or jstack() key is unwound in the JVM"
                : "its predicate, keys or value have no kernel form");
    }

    /** The whole form of {@code c} (see the file comment), or null when it has none. */
    private static KernelClause whole(DState state, Ir.Clause c, String name, boolean required, java.util.Set<Integer> tls) {
        if (c.records()) return null;
        KernelClause.Expr pred = null;
        if (c.predicate() != null && (pred = integer(c.predicate(), tls)) == null) return null;
        KernelClause.Aggregation agg = null;
        List<KernelClause.Store> stores = new ArrayList<>();
        for (int i = 0; i < c.body().size(); i++) {
            Ir.Stmt s = c.body().get(i);
            if (i == 0 && s instanceof Ir.Aggregate a) {
                if ((agg = aggregation(state, a, tls)) == null) return null;
            } else if (s instanceof Ir.Eval(Ir.Assign(Ir.Var(Ir.Scope scope, int slot, Ir.VKind kind), Ir.Expr value))
                    && scope == Ir.Scope.THREAD && kind == Ir.VKind.LONG && tls.contains(slot)) {
                KernelClause.Expr v = integer(value, tls);
                if (v == null) return null;
                stores.add(new KernelClause.Store(new KernelClause.ThreadLocal(slot, state.tlsName(slot)), v));
            } else {
                return null;
            }
        }
        return new KernelClause(name, pred, agg, required, List.copyOf(stores), true, state.kernelDynvarDrops);
    }

    /**
     * The thread-locals that live in the kernel: the largest set of the program's integer
     * thread-locals whose every mentioning clause is whole ({@code runs.test(i, w)}: every probe
     * clause i's descriptions match runs its whole form w); see the file comment.
     */
    public static java.util.Set<Integer> residentThreadLocals(DState state, List<Ir.Clause> clauses,
            java.util.function.BiPredicate<Integer, KernelClause> runs) {
        java.util.Set<Integer> tls = new java.util.HashSet<>();
        for (Ir.Clause c : clauses) tls.addAll(threadLocals(c));
        for (boolean changed = true; changed; ) {
            changed = false;
            for (int i = 0; i < clauses.size(); i++) {
                java.util.Set<Integer> mine = threadLocals(clauses.get(i));
                if (mine.isEmpty() || !tls.containsAll(mine)) {
                    changed |= tls.removeAll(mine);
                    continue;
                }
                KernelClause w = whole(state, clauses.get(i), "", false, tls);
                if (w == null || !runs.test(i, w)) {
                    tls.removeAll(mine);
                    changed = true;
                }
            }
        }
        return tls;
    }

    /** The thread-local slots {@code c} mentions (any kind; a non-integer one is never resident). */
    static java.util.Set<Integer> threadLocals(Ir.Clause c) {
        java.util.Set<Integer> out = new java.util.HashSet<>();
        java.util.Set<Integer> other = new java.util.HashSet<>();
        walk(c, out, other);
        out.addAll(other);
        return out;
    }

    /** Every Ir.Var of scope THREAD under {@code node} (records, lists), by slot. */
    private static void walk(Object node, java.util.Set<Integer> into, java.util.Set<Integer> other) {
        if (node instanceof Ir.Var v) {
            if (v.scope() == Ir.Scope.THREAD) into.add(v.slot());
        } else if (node instanceof List<?> l) {
            for (Object o : l) walk(o, into, other);
        } else if (node instanceof Record r) {
            for (java.lang.reflect.RecordComponent rc : r.getClass().getRecordComponents()) {
                Class<?> t = rc.getType();
                if (t.isPrimitive() || t == String.class || t.isEnum()) continue;
                try {
                    walk(rc.getAccessor().invoke(r), into, other);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private static KernelClause.Aggregation aggregation(DState state, Ir.Aggregate a, java.util.Set<Integer> tls) {
        Aggregation g = a.agg();
        List<KernelClause.Expr> keys = new ArrayList<>();
        for (Ir.Expr k : a.keys()) {
            KernelClause.Expr e = k.kind() == Ir.VKind.STRING ? string(k) : k.kind() == Ir.VKind.LONG ? integer(k, tls)
                    : k instanceof Ir.StackKey s && s.which() == Ir.StackKind.KERNEL
                            ? new KernelClause.Stack(Rt.depth(state, Ir.StackKind.KERNEL.ordinal(), s.frames())) : null;
            if (e == null) return null;
            keys.add(e);
        }
        KernelClause.Expr value = null, incr = null;
        if (g.kind != AggKind.COUNT) {
            if (a.value() == null || (value = integer(a.value(), tls)) == null) return null;
        }
        if (a.incr() != null && (incr = integer(a.incr(), tls)) == null) return null;
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
        return integer(e, java.util.Set.of());
    }

    /**
     * As above, in a whole clause ({@code tls}: the resident thread-locals, empty elsewhere):
     * those thread-locals and timestamp too.
     */
    static KernelClause.Expr integer(Ir.Expr e, java.util.Set<Integer> tls) {
        return switch (e) {
            case Ir.Var v when v.scope() == Ir.Scope.THREAD && v.kind() == Ir.VKind.LONG && tls.contains(v.slot()) ->
                new KernelClause.ThreadLocal(v.slot(), "");
            case Ir.BuiltinVar b when b.which() == Ir.Builtin.TIMESTAMP && !tls.isEmpty() -> new KernelClause.Var(Variable.TIMESTAMP);
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
                KernelClause.Expr o = integer(u.operand(), tls);
                yield o == null ? null : new KernelClause.Unary(KernelClause.UnOp.valueOf(u.op().name()), o);
            }
            case Ir.Binary b when b.op() != Ir.BinOp.DIV && b.op() != Ir.BinOp.MOD -> {
                KernelClause.Expr l = integer(b.left(), tls), r = integer(b.right(), tls);
                yield l == null || r == null ? null
                        : new KernelClause.Binary(KernelClause.BinOp.valueOf(b.op().name()), l, r, b.unsigned());
            }
            case Ir.StrCompare s -> {
                KernelClause.Expr l = string(s.left()), r = string(s.right());
                yield l == null || r == null ? null : new KernelClause.StrCompare(KernelClause.BinOp.valueOf(s.op().name()), l, r);
            }
            case Ir.Cast c -> {
                KernelClause.Expr o = integer(c.operand(), tls);
                yield o == null ? null : new KernelClause.Cast(o, c.width(), c.signed());
            }
            case Ir.Ternary t when t.kind() == Ir.VKind.LONG -> {
                KernelClause.Expr c = integer(t.cond(), tls), th = integer(t.then(), tls), ot = integer(t.otherwise(), tls);
                yield c == null || th == null || ot == null ? null : new KernelClause.Ternary(c, th, ot);
            }
            default -> null;
        };
    }
}
