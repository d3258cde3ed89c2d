/*
 * The compile-time half of the kernel-event probes' memory rule (Provider.capturedStrings). A
 * probe of the kernel's events (perf-events' syscall, proc, sched) fires after the event, from
 * what a BPF program recorded at it: by then the process may have written over its memory or
 * exited. What is captured at the event is the user strings of the arguments the provider names
 * (copyinstr(arg1) at syscall::openat:entry, the path at proc:::exec). A clause matching such a
 * probe that would read the process's memory in any other way is refused here, with one line
 * naming the probe and the expression, rather than faulting at every firing:
 *   - copyinstr(E [, n]) where E is not argN or args[N] (casts allowed) of a captured argument:
 *     a pointer saved at an earlier probe (self->p), computed, or read out of other memory
 *     (unless the probe captured its call's entry strings by address, Provider.ENTRY_STRINGS:
 *     then the firing serves such a pointer, or faults);
 *   - copyin and copyinto (only strings are captured), copyout and copyoutstr (the write would
 *     come after the event, into whatever the memory holds by then);
 *   - *E, E->m, E[i], tracemem(E, ..), inet_ntoa(E).. where the pointer E is made from an
 *     argument, uregs[] or a constant, directly or through a cast of an integer (plus an offset):
 *     an object in the process's memory.
 * A pointer held in a D variable may point into D's own storage (alloca(), copyin()'s scratch),
 * so its dereference is left to the firing, which faults (BADADDR) for the process's memory.
 * As for args[] typing, only the probes a clause matches when it is compiled are checked.
 * Pure function of the checked AST and the framework's answer; runs once, after the checker.
 */
package org.jdtrace.libdtrace.sema;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.engine.ProbeArgs;
import org.jdtrace.libdtrace.ast.AstPrinter;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.DFunction;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.ProbeSpec;
import org.jdtrace.libdtrace.ast.ProcfsTypes;
import org.jdtrace.libdtrace.ast.Script;
import org.jdtrace.libdtrace.ast.Stmt;

public final class CapturedReads {

    private final ProbeArgs lookup;
    private final Clause clause;
    /**
     * The clause's probes that fire after the event, each with its captured string arguments;
     * asked of the framework at the clause's first read of process memory (most clauses make
     * none, and a description such as syscall:::entry matches hundreds of probes).
     */
    private Map<String, Set<Integer>> probes;

    private CapturedReads(ProbeArgs lookup, Clause clause) {
        this.lookup = lookup;
        this.clause = clause;
    }

    private Map<String, Set<Integer>> probes() {
        if (probes == null) {
            probes = new LinkedHashMap<>();
            for (ProbeSpec s : clause.probes()) {
                try {
                    probes.putAll(lookup.capturedStrings(s.description()));
                } catch (RuntimeException e) {
                    // the framework could not say: nothing to check (the firing faults if need be)
                }
            }
        }
        return probes;
    }

    /** In strings(): the arguments copyinstr reads (nothing is refused then). */
    private java.util.Set<Integer> collected;

    /**
     * The arguments N the clause reads with copyinstr(argN) (or args[N], under casts), for a
     * provider that can read them at the event (Statement.userStrings).
     */
    public static java.util.Set<Integer> strings(Clause c) {
        CapturedReads r = new CapturedReads(null, c);
        r.collected = new java.util.TreeSet<>();
        try {
            if (c.predicate() != null) r.expr(c.predicate());
            if (c.body() != null) r.stmts(c.body());
        } catch (DTraceException e) {
            throw new IllegalStateException(e); // nothing is refused while collecting
        }
        return java.util.Set.copyOf(r.collected);
    }

    /** Refuses the first read of process memory a kernel-event probe cannot answer; see above. */
    static void check(Script script, ProbeArgs lookup) throws DTraceException {
        if (lookup == null) return;
        for (Clause c : script.clauses()) {
            CapturedReads r = new CapturedReads(lookup, c);
            if (c.predicate() != null) r.expr(c.predicate());
            if (c.body() != null) r.stmts(c.body());
        }
    }

    private void stmts(List<Stmt> body) throws DTraceException {
        for (Stmt s : body) {
            switch (s) {
                case Stmt.ExprStmt e -> expr(e.expr());
                case Stmt.If i -> {
                    expr(i.cond());
                    stmts(i.then());
                    stmts(i.otherwise());
                }
                case Stmt.Empty e -> { }
            }
        }
    }

    private void expr(Expr e) throws DTraceException {
        if (e == null) return;
        switch (e) {
            case Expr.Call c -> {
                call(c);
                for (Expr a : c.args) expr(a);
            }
            case Expr.Unary u -> {
                if (u.op == Expr.UnOp.DEREF && inProcess(u.operand)) refuse(u, "reads the process's memory");
                if (u.op != Expr.UnOp.SIZEOF) expr(u.operand);
            }
            case Expr.Member m -> {
                // args[i]->pr_* of a psinfo_t * or lwpsinfo_t * argument reads no process memory
                if (m.arrow && inProcess(m.base) && !procfs(m.base)) refuse(m, "reads the process's memory");
                expr(m.base);
            }
            case Expr.Index x -> {
                if (x.base.type instanceof DType.Ptr && !isBuiltinArray(x.base) && inProcess(x.base)) {
                    refuse(x, "reads the process's memory");
                }
                expr(x.base);
                for (Expr k : x.keys) expr(k);
            }
            case Expr.AggRef a -> {
                if (a.keys != null) for (Expr k : a.keys) expr(k);
            }
            case Expr.Binary b -> {
                expr(b.left);
                expr(b.right);
            }
            case Expr.Assign a -> {
                expr(a.target);
                expr(a.value);
            }
            case Expr.Ternary t -> {
                expr(t.cond);
                expr(t.then);
                expr(t.otherwise);
            }
            case Expr.Cast c -> expr(c.operand);
            case Expr.Xlate x -> expr(x.operand);
            default -> { }
        }
    }

    private void call(Expr.Call c) throws DTraceException {
        DFunction f = c.function;
        if (f == null) return;
        switch (f) {
            case COPYINSTR -> {
                int arg = argIndex(c.args.get(0));
                if (collected != null) {
                    if (arg >= 0) collected.add(arg);
                    return;
                }
                for (Map.Entry<String, Set<Integer>> p : probes().entrySet()) {
                    // a return probe that captured its entry's strings by address takes any pointer
                    if (!p.getValue().contains(arg >= 0 ? arg : org.jdtrace.spi.Provider.ENTRY_STRINGS)) {
                        throw new DTraceException(AstPrinter.print(c) + " reads what " + p.getKey()
                                + " cannot capture at the event (" + captured(p.getValue()) + ")", null, c.line);
                    }
                }
            }
            case COPYIN, COPYINTO -> refuse(c, "reads the process's memory");
            case COPYOUT, COPYOUTSTR -> refuse(c, "writes the process's memory");
            case TRACEMEM, INET_NTOA, INET_NTOA6 -> {
                if (inProcess(c.args.get(0))) refuse(c, "reads the process's memory");
            }
            case INET_NTOP, LINK_NTOP -> {
                if (c.args.size() > 1 && inProcess(c.args.get(1))) refuse(c, "reads the process's memory");
            }
            default -> { }
        }
    }

    /** Refuses {@code e} when the clause matches a probe that fires after the event. */
    private void refuse(Expr e, String what) throws DTraceException {
        if (collected != null || probes().isEmpty()) return;
        Map.Entry<String, Set<Integer>> p = probes().entrySet().iterator().next();
        throw new DTraceException(AstPrinter.print(e) + " " + what + ", which " + p.getKey()
                + " cannot capture at the event (" + captured(p.getValue()) + ")", null, e.line);
    }

    /** What the probe does capture, for the refusal: "only copyinstr(arg1)" or "no user memory". */
    private static String captured(Set<Integer> args) {
        if (args.isEmpty()) return "it fires after the event and captures no user memory";
        return "it fires after the event and captures only "
                + String.join(", ", args.stream().sorted().map(i -> i == org.jdtrace.spi.Provider.ENTRY_STRINGS
                        ? "the strings its call's entry passed" : "copyinstr(arg" + i + ")").toList());
    }

    /** argN or args[N] (under casts): N, else -1. */
    private static int argIndex(Expr e) {
        e = uncast(e);
        if (e instanceof Expr.Ident id && id.symbol instanceof BuiltinVariable b && b.argIndex() >= 0) {
            return b.argIndex();
        }
        if (e instanceof Expr.Index x && x.base instanceof Expr.Ident id && id.symbol == BuiltinVariable.ARGS
                && x.keys.size() == 1 && x.keys.get(0) instanceof Expr.IntLit n) {
            return (int) n.value;
        }
        return -1;
    }

    /**
     * True when pointer expression {@code e} addresses the process's memory for certain: made,
     * under casts and offsets, from an argument, uregs[], a constant, or an integer cast to a
     * pointer (D's own storage is reached only through pointers: alloca(), &x, a variable).
     */
    private static boolean inProcess(Expr e) {
        while (true) {
            if (e instanceof Expr.Binary b && (b.op == Expr.BinOp.ADD || b.op == Expr.BinOp.SUB)) {
                e = b.left.type instanceof DType.Ptr || !(b.right.type instanceof DType.Ptr) ? b.left : b.right;
            } else if (e instanceof Expr.Cast c) {
                if (c.operand.type != null && !(c.operand.type instanceof DType.Ptr)
                        && !(c.operand.type instanceof DType.Array) && !(c.operand.type instanceof DType.Str)) {
                    return true; // an integer made into an address
                }
                e = c.operand;
            } else {
                break;
            }
        }
        if (e instanceof Expr.IntLit) return true;
        if (argIndex(e) >= 0) return true;
        return e instanceof Expr.Index x && x.base instanceof Expr.Ident id && id.symbol == BuiltinVariable.UREGS;
    }

    /** args[i] typed psinfo_t * or lwpsinfo_t * (the proc provider's translated arguments). */
    private static boolean procfs(Expr e) {
        return e instanceof Expr.Index x && x.base instanceof Expr.Ident id && id.symbol == BuiltinVariable.ARGS
                && ProcfsTypes.isPointer(x.type);
    }

    private static Expr uncast(Expr e) {
        while (e instanceof Expr.Cast c) e = c.operand;
        return e;
    }

    private static boolean isBuiltinArray(Expr e) {
        return e instanceof Expr.Ident id && id.symbol instanceof BuiltinVariable b && b.isArray();
    }
}
