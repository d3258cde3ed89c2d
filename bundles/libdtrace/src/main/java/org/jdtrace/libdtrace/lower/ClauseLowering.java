/*
 * ClauseLowering: one checked clause (predicate and statements) as an Ir.Clause, the statement
 * half of dt_cg.c / dt_stmt: each D statement becomes one action (trace, printf, printa, exit,
 * clear, trunc, an aggregation, or an expression evaluated for its effect), in source order, so
 * action numbers in fault reports are dtrace's ("in action #2").
 *
 * Aggregations are created in the consumer's DState on first lowering, with the key widths and
 * lquantize() parameters of their first use; later clauses and later programs of the same
 * consumer share them by name, as dtrace's aggregation identifiers are shared.
 *
 * A clause records (writes a principal-buffer record, and so prints its CPU/ID/FUNCTION:NAME
 * line when not quiet) when it has a data-recording action (trace, printf, exit...): a clause
 * that only assigns variables, aggregates, commits or discards writes nothing, as in dtrace, and
 * a clause without statements gets the default action (the probe line).
 *
 * printa's %a and %A of an integer key (dt_printf.c's pfprint_addr and pfprint_uaddr) print
 * the key as a symbol. dtrace looks the address up when it prints; here the process may be
 * gone by then, so, as printf's %a/%A, the key is symbolised at the firing by sym()'s and
 * uaddr()'s runtime entries: formats() reads every printa format of the program before
 * lowering, and aggregate() keys such a position by its symbol (module`function+0xoff, which
 * keeps distinct addresses distinct). A position that another printa prints otherwise (%d,
 * %x ...) stays an integer, which %a/%A print in hex.
 */
package org.jdtrace.libdtrace.lower;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.DFunction;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.Stmt;
import org.jdtrace.libdtrace.ast.Variable;
import org.jdtrace.libdtrace.codegen.Ir;
import org.jdtrace.libdtrace.codegen.Ir.VKind;
import org.jdtrace.libdtrace.print.PrintfFormat;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.LogLinear;
import org.jdtrace.libdtrace.sema.ConstFold;

public final class ClauseLowering {

    private final DState state;
    private final ExprLowering exprs;
    private boolean destructive;
    /** Per aggregation, the %a/%A conversion of each key position every printa gives it, else 0. */
    private final Map<String, char[]> symbolKeys = new HashMap<>();
    /** The checker's parse of each format (an identity map, as the checker's). */
    private final Map<Expr.Call, PrintfFormat> formats = new IdentityHashMap<>();

    public ClauseLowering(DState state) {
        this.state = state;
        this.exprs = new ExprLowering(state);
    }

    /** Lowers one clause of a program that DFrontEnd.check accepted. */
    public Ir.Clause lower(Clause c) throws DTraceException {
        Ir.Expr pred = c.predicate() == null ? null : exprs.lower(c.predicate());
        if (c.body() == null) {
            return new Ir.Clause(pred, List.of(), true);
        }
        List<Ir.Stmt> body = statements(c.body(), new ActionOrder());
        return new Ir.Clause(pred, body, body.isEmpty() || records(body));
    }

    /**
     * Takes the formats the checker parsed (each printf/printa/system/freopen call's), before any
     * clause is lowered, and reads the program's printa calls: a key position that every printa
     * of its aggregation converts with %a (or every one with %A) is keyed by its symbol.
     */
    public void formats(Map<Expr.Call, PrintfFormat> parsed) throws DTraceException {
        formats.putAll(parsed);
        Map<String, char[]> seen = new HashMap<>();
        for (Expr.Call c : parsed.keySet()) {
            if (c.function != DFunction.PRINTA) continue;
            int first = c.args.get(0) instanceof Expr.StrLit ? 1 : 0;
            char[] conv = first == 1 ? keyConversions(format(c)) : new char[0];
            for (Expr a : c.args.subList(first, c.args.size())) {
                if (!(a instanceof Expr.AggRef ar) || ar.var == null) continue;
                int n = ar.var.keyTypes == null ? 0 : ar.var.keyTypes.size();
                char[] mine = Arrays.copyOf(conv, n);
                char[] all = seen.putIfAbsent(ar.var.name, mine);
                if (all != null) {
                    for (int i = 0; i < n; i++) if (all[i] != mine[i]) all[i] = 0;
                }
            }
        }
        seen.forEach((name, conv) -> {
            for (int i = 0; i < conv.length; i++) if (conv[i] != 'a' && conv[i] != 'A') conv[i] = 0;
            symbolKeys.put(name, conv);
        });
    }

    /** The conversion that takes each key of a printa format: its non-%@ conversions in order. */
    private static char[] keyConversions(PrintfFormat fmt) {
        List<Character> keys = new ArrayList<>();
        for (PrintfFormat.Conversion k : fmt.conversions()) {
            if (!k.agg()) keys.add(k.conv());
        }
        char[] conv = new char[keys.size()];
        for (int i = 0; i < conv.length; i++) conv[i] = keys.get(i);
        return conv;
    }

    /** True once a lowered clause used a destructive action (tracing then needs -w). */
    public boolean destructive() {
        return destructive;
    }

    private static boolean records(List<Ir.Stmt> body) {
        for (Ir.Stmt s : body) {
            if (s instanceof Ir.If i ? records(i.then()) || records(i.otherwise())
                    : !(s instanceof Ir.Aggregate) && !(s instanceof Ir.Eval)
                    && !(s instanceof Ir.Spec sp && sp.op() != Ir.SpecOp.SPECULATE)) {
                return true;
            }
        }
        return false;
    }

    private List<Ir.Stmt> statements(List<Stmt> body, ActionOrder order) throws DTraceException {
        List<Ir.Stmt> out = new ArrayList<>();
        for (Stmt s : body) {
            switch (s) {
                case Stmt.ExprStmt es -> {
                    order.check(es.expr());
                    out.add(statement(es.expr()));
                }
                case Stmt.Empty e -> { }
                case Stmt.If i -> out.add(new Ir.If(exprs.lower(i.cond()), statements(i.then(), order),
                        statements(i.otherwise(), order)));
            }
        }
        return out;
    }

    /**
     * dtrace's rules on the order of a clause's actions around speculate() and commit()
     * (dt_stmt_append's checks): speculate first, commit before any data, no aggregation,
     * destructive action or exit() in a speculative clause, no data after commit. An assignment
     * (a D expression of void result) and a destructive action record no data: they may come
     * before speculate() or commit() and after commit().
     */
    private static final class ActionOrder {
        private boolean speculate, commit, data;

        void check(Expr e) throws DTraceException {
            int line = e.line;
            if (e instanceof Expr.Assign a && a.target instanceof Expr.AggRef) {
                if (speculate) throw order("aggregating actions may not follow speculate( )", "D_AGG_SPEC", line);
                if (commit) throw order("aggregating actions may not follow commit( )", "D_AGG_COMM", line);
                return;
            }
            if (!(e instanceof Expr.Call c) || c.function == null || !c.function.isAction()) {
                return;
            }
            switch (c.function) {
                case SPECULATE -> {
                    if (commit) throw order("speculate( ) may not follow commit( )", "D_SPEC_COMM", line);
                    if (speculate) throw order("speculate( ) may not follow speculate( )", "D_SPEC_SPEC", line);
                    if (data) throw order("speculate( ) may not follow data-recording action(s)", "D_SPEC_DREC", line);
                    speculate = true;
                }
                case COMMIT -> {
                    if (speculate) throw order("commit( ) may not follow speculate( )", "D_COMM_SPEC", line);
                    if (data) throw order("commit( ) may not follow data-recording action(s)", "D_COMM_DREC", line);
                    commit = true;
                }
                case DISCARD -> { }
                default -> {
                    boolean destructive = c.function.kind == DFunction.Kind.DESTRUCTIVE;
                    if (destructive && speculate) {
                        throw order("destructive actions may not follow speculate( )", "D_ACT_SPEC", line);
                    }
                    if (c.function == DFunction.EXIT && speculate) {
                        throw order("exit( ) may not follow speculate( )", "D_EXIT_SPEC", line);
                    }
                    if (destructive) return; // dt_stmt_append: a destructive action records no data
                    if (commit) throw order("data-recording actions may not follow commit( )", "D_DREC_COMM", line);
                    if (!speculate) data = true;
                }
            }
        }

        private static DTraceException order(String message, String tag, int line) {
            return new DTraceException(message, tag, line);
        }
    }

    private Ir.Stmt statement(Expr e) throws DTraceException {
        if (e instanceof Expr.Assign a && a.target instanceof Expr.AggRef ar) {
            return aggregate(ar, (Expr.Call) a.value);
        }
        if (e instanceof Expr.Call c && c.function != null && c.function.isAction()) {
            return action(c);
        }
        return new Ir.Eval(exprs.lower(e));
    }

    // ---- actions ------------------------------------------------------------------------------

    private Ir.Stmt action(Expr.Call c) throws DTraceException {
        List<Expr> args = c.args;
        return switch (c.function) {
            case TRACE -> {
                Expr v = args.get(0);
                if (ExprLowering.byRef(v.type)) {
                    // a struct, union or array is recorded as its bytes and printed as a byte
                    // stream, as tracemem() prints (dt_print_trace of a non-scalar)
                    yield new Ir.TraceMem(exprs.address(v), new Ir.Const(v.type.size()), new Ir.Const(-1));
                }
                yield ExprLowering.kind(v.type) == VKind.STRING ? new Ir.Trace(exprs.string(v), 0)
                        : new Ir.Trace(exprs.integer(v), ExprLowering.width(v.type), !ExprLowering.isUnsigned(v.type));
            }
            case PRINTF -> printf(c, Ir.PrintfUse.PRINTF);
            case SYSTEM -> {
                destructive = true;
                yield printf(c, Ir.PrintfUse.SYSTEM);
            }
            case FREOPEN -> {
                String path = ((Expr.StrLit) args.get(0)).value;
                if (path.equals(".") || path.equals("..")) {
                    throw new DTraceException("freopen( ) argument #1 cannot be \"" + path + "\"", "D_FREOPEN_INVALID",
                            c.line);
                }
                destructive = true;
                yield printf(c, Ir.PrintfUse.FREOPEN);
            }
            case PRINTA -> printa(c);
            case EXIT -> new Ir.Exit(exprs.integer(args.get(0)));
            case PRINT -> {
                Expr v = args.get(0);
                int layout = state.printLayout(c.printLayout);
                if (v.type instanceof DType.Ptr) yield new Ir.Print(exprs.integer(v), c.printLayout.size(), layout, false);
                if (ExprLowering.byRef(v.type)) yield new Ir.Print(exprs.address(v), v.type.size(), layout, true);
                yield ExprLowering.kind(v.type) == VKind.STRING ? new Ir.PrintValue(exprs.string(v), v.type.size(), layout)
                        : new Ir.PrintValue(exprs.integer(v), v.type.size(), layout);
            }
            case TRACEMEM -> new Ir.TraceMem(exprs.integer(args.get(0)), exprs.integer(args.get(1)),
                    args.size() > 2 ? exprs.integer(args.get(2)) : new Ir.Const(-1));
            case STACK, USTACK, JSTACK -> new Ir.Stack(ExprLowering.stackKind(c.function),
                    args.isEmpty() ? 0 : exprs.stackFrames(c));
            // usym/ufunc/umod/uaddr(pc): symbolised at the firing (the process may be gone at
            // drain time) and printed as dt_print_usym/umod print them, "  %-50s"
            case USYM, UFUNC, UMOD, UADDR, SYM, FUNC, MOD -> new Ir.Printf(USYM_FORMAT, List.of(exprs.symbol(c)),
                    new int[] {0});
            case SETOPT -> new Ir.Setopt(exprs.string(args.get(0)), args.size() > 1 ? exprs.string(args.get(1)) : null);
            case SPECULATE -> new Ir.Spec(Ir.SpecOp.SPECULATE, exprs.integer(args.get(0)));
            case COMMIT -> new Ir.Spec(Ir.SpecOp.COMMIT, exprs.integer(args.get(0)));
            case DISCARD -> new Ir.Spec(Ir.SpecOp.DISCARD, exprs.integer(args.get(0)));
            case CLEAR -> new Ir.Clear(aggregationOf(args.get(0)));
            case TRUNC -> new Ir.Trunc(aggregationOf(args.get(0)), args.size() > 1 ? exprs.integer(args.get(1)) : null);
            case NORMALIZE -> new Ir.Normalize(aggregationOf(args.get(0)), exprs.integer(args.get(1)));
            case DENORMALIZE -> new Ir.Normalize(aggregationOf(args.get(0)), new Ir.Const(1));
            case RAISE, CHILL -> destructive(new Ir.Call(c.function.dname, List.of(exprs.integer(args.get(0))), VKind.LONG));
            case STOP -> destructive(new Ir.Call("stop", List.of(), VKind.LONG));
            case COPYOUT -> destructive(new Ir.Call("copyout", List.of(exprs.integer(args.get(0)),
                    exprs.integer(args.get(1)), exprs.integer(args.get(2))), VKind.LONG));
            case COPYOUTSTR -> destructive(new Ir.Call("copyoutstr", List.of(exprs.string(args.get(0)),
                    exprs.integer(args.get(1)), exprs.integer(args.get(2))), VKind.LONG));
            default -> throw ExprLowering.unsupported(c.function.dname + "( )", c.line);
        };
    }

    private static final PrintfFormat USYM_FORMAT = PrintfFormat.parse("  %-50s");

    /** A destructive action run in probe context: tracing will need -w. */
    private Ir.Stmt destructive(Ir.Call call) {
        destructive = true;
        return new Ir.Eval(call);
    }

    /** The call's format, as the checker parsed it (parsed here for a call lowered without it). */
    private PrintfFormat format(Expr.Call c) throws DTraceException {
        PrintfFormat f = formats.get(c);
        return f != null ? f : PrintfFormat.parse(((Expr.StrLit) c.args.get(0)).value, c.line);
    }

    private Ir.Stmt printf(Expr.Call c, Ir.PrintfUse use) throws DTraceException {
        PrintfFormat fmt = format(c);
        List<Expr> args = c.args.subList(1, c.args.size());
        // which conversion each argument feeds: '*' arguments are integers, %s takes a string
        char[] conv = new char[args.size()];
        int next = 0;
        for (PrintfFormat.Conversion k : fmt.conversions()) {
            for (int i = 0; i < k.argCount() && next < conv.length; i++, next++) {
                conv[next] = i == k.argCount() - 1 ? k.conv() : 'd';
            }
        }
        List<Ir.Expr> values = new ArrayList<>();
        int[] widths = new int[args.size()];
        for (int i = 0; i < args.size(); i++) {
            Expr a = args.get(i);
            if ((conv[i] == 'a' || conv[i] == 'A') && ExprLowering.kind(a.type) == VKind.LONG) {
                values.add(symbolAt(conv[i], exprs.integer(a)));
                continue; // widths[i] = 0: a string
            }
            boolean str = ExprLowering.kind(a.type) == VKind.STRING
                    || ((conv[i] == 's' || conv[i] == 'S') && a.type.isPointer());
            values.add(str ? exprs.string(a) : exprs.integer(a));
            widths[i] = str ? 0 : ExprLowering.isUnsigned(a.type) ? -ExprLowering.width(a.type) : ExprLowering.width(a.type);
        }
        return new Ir.Printf(fmt, values, widths, use);
    }

    /**
     * %a (a kernel address) and %A (a user address) of an integer: symbolised at the firing, by
     * the runtime entries of sym() and uaddr(), since the process may be gone at drain time.
     */
    private static Ir.Expr symbolAt(char conv, Ir.Expr address) {
        DFunction by = conv == 'a' ? DFunction.SYM : DFunction.UADDR;
        return new Ir.Call(by.entry, List.of(address), VKind.STRING);
    }

    private Ir.Stmt printa(Expr.Call c) throws DTraceException {
        PrintfFormat fmt = c.args.get(0) instanceof Expr.StrLit ? format(c) : null;
        List<Aggregation> aggs = new ArrayList<>();
        for (Expr a : c.args.subList(fmt == null ? 0 : 1, c.args.size())) {
            aggs.add(aggregationOf(a));
        }
        return new Ir.Printa(fmt, aggs);
    }

    private Aggregation aggregationOf(Expr e) throws DTraceException {
        if (!(e instanceof Expr.AggRef ar) || ar.var == null) {
            throw new DTraceException("expected an aggregation", "D_PROTO_ARG", e.line);
        }
        Aggregation a = state.findAggregation(ar.var.name);
        if (a == null) {
            // used (printa, clear...) before any clause aggregates into it: dtrace prints it empty
            a = create(ar.var, null);
        }
        return a;
    }

    // ---- aggregations -------------------------------------------------------------------------

    private Ir.Stmt aggregate(Expr.AggRef ar, Expr.Call fn) throws DTraceException {
        Variable v = ar.var;
        Aggregation agg = state.findAggregation(v.name);
        if (agg == null) {
            agg = create(v, fn);
        } else if (agg.kind == AggKind.LLQUANTIZE && fn.function == DFunction.LLQUANTIZE) {
            LogLinear p = llquantizeParameters(fn);
            llmatches(p.factor, agg.llq.factor, 1, "D_LLQUANT_MATCHFACTOR", fn.line);
            llmatches(p.low, agg.llq.low, 2, "D_LLQUANT_MATCHLMAG", fn.line);
            llmatches(p.high, agg.llq.high, 3, "D_LLQUANT_MATCHHMAG", fn.line);
            llmatches(p.nsteps, agg.llq.nsteps, 4, "D_LLQUANT_MATCHSTEPS", fn.line);
        } else if (agg.kind == AggKind.LQUANTIZE && fn.function == DFunction.LQUANTIZE) {
            long[] p = lquantizeParameters(fn);
            matches(p[0], agg.lqBase, "base (argument #2)", "D_LQUANT_MATCHBASE", fn.line);
            matches(p[1], agg.lqBase + (long) agg.lqLevels * agg.lqStep, "limit (argument #3)", "D_LQUANT_MATCHLIM", fn.line);
            matches(p[2], agg.lqStep, "step (argument #4)", "D_LQUANT_MATCHSTEP", fn.line);
        }
        List<Ir.Expr> keys = new ArrayList<>();
        if (ar.keys != null) {
            char[] sym = symbolKeys.getOrDefault(v.name, new char[0]);
            for (int i = 0; i < ar.keys.size(); i++) {
                Expr k = ar.keys.get(i);
                Ir.Expr key = exprs.as(k, v.keyTypes.get(i));
                if (i < sym.length && sym[i] != 0 && key.kind() == VKind.LONG) {
                    // printa's %a/%A of this key: its symbol, taken now as printf's %a/%A take it
                    key = symbolAt(sym[i], key);
                }
                keys.add(key);
            }
        }
        List<Expr> args = fn.args;
        Ir.Expr value = args.isEmpty() ? null : exprs.integer(args.get(0));
        Ir.Expr incr = switch (fn.function) {
            case QUANTIZE -> args.size() > 1 ? exprs.integer(args.get(1)) : null;
            case LQUANTIZE -> args.size() > 4 ? exprs.integer(args.get(4)) : null;
            case LLQUANTIZE -> args.size() > 5 ? exprs.integer(args.get(5)) : null;
            default -> null;
        };
        return new Ir.Aggregate(agg, keys, value, incr);
    }

    private Aggregation create(Variable v, Expr.Call fn) throws DTraceException {
        DFunction f = fn != null ? fn.function : v.function;
        int line = fn != null ? fn.line : v.line;
        if (f == DFunction.LLQUANTIZE) {
            if (fn == null) {
                throw ExprLowering.unsupported("llquantize( ) aggregation used before its first value", line);
            }
            return state.llquantizeAggregation(v.name, keySizes(v), llquantizeParameters(fn));
        }
        AggKind kind = switch (f) {
            case COUNT -> AggKind.COUNT;
            case SUM -> AggKind.SUM;
            case MIN -> AggKind.MIN;
            case MAX -> AggKind.MAX;
            case AVG -> AggKind.AVG;
            case STDDEV -> AggKind.STDDEV;
            case QUANTIZE -> AggKind.QUANTIZE;
            case LQUANTIZE -> AggKind.LQUANTIZE;
            default -> throw ExprLowering.unsupported(f.dname + "( )", line);
        };
        long base = 0, limit = 0, step = 1;
        if (kind == AggKind.LQUANTIZE) {
            if (fn == null) {
                throw ExprLowering.unsupported("lquantize( ) aggregation used before its first value", line);
            }
            long[] p = lquantizeParameters(fn);
            base = p[0];
            limit = p[1];
            step = p[2];
        }
        return state.aggregation(v.name, kind, keySizes(v), base, limit, step);
    }

    private static int[] keySizes(Variable v) {
        List<DType> kt = v.keyTypes == null ? List.of() : v.keyTypes;
        int[] keySizes = new int[kt.size()];
        for (int i = 0; i < keySizes.length; i++) {
            keySizes[i] = ExprLowering.width(kt.get(i));
        }
        return keySizes;
    }

    /** lquantize(value, base, limit[, step]): {base, limit, step}, checked as dtrace checks them. */
    private static long[] lquantizeParameters(Expr.Call fn) throws DTraceException {
        long base = constant(fn.args.get(1));
        long limit = constant(fn.args.get(2));
        long step = fn.args.size() > 3 ? constant(fn.args.get(3)) : 1;
        if (step > 0 && limit - base < step) {
            throw new DTraceException("lquantize( ) step (argument #4) too large: must have at least one bucket",
                    "D_LQUANT_STEPLARGE", fn.line);
        }
        if (step > 0 && (limit - base) / step > 0xffff) {
            throw new DTraceException("lquantize( ) step (argument #4) too small: too many buckets",
                    "D_LQUANT_STEPSMALL", fn.line);
        }
        return new long[] {base, limit, step};
    }

    /**
     * llquantize(value, factor, low, high, nsteps): the parameters, checked as dtrace checks them
     * (16-bit quantities, 2 <= factor, low <= high, factor^(high+1) within 64 bits, steps that
     * divide the factor or are multiples of it dividing the magnitudes).
     */
    private static LogLinear llquantizeParameters(Expr.Call fn) throws DTraceException {
        int line = fn.line;
        long factor = constant(fn.args.get(1)), low = constant(fn.args.get(2)), high = constant(fn.args.get(3));
        long steps = constant(fn.args.get(4));
        if (factor > 0xffff) throw llq16(1, "D_LLQUANT_FACTORVAL", line);
        if (factor < 2) throw llq("factor (argument #1) must be two or more", "D_LLQUANT_FACTORVAL", line);
        if (low < 0 || low > 0xffff) throw llq16(2, "D_LLQUANT_LMAGVAL", line);
        if (high < 0 || high > 0xffff) throw llq16(3, "D_LLQUANT_HMAGVAL", line);
        if (high < low) {
            // DTrace on Linux refuses a high below the low magnitude (D_LLQUANT_HMAGVAL) and takes
            // equal ones, both of which its suite checks; illumos refuses both (D_LLQUANT_MAGRANGE)
            throw llq("high magnitude (argument #3) must be greater than low magnitude (argument #2)",
                    "D_LLQUANT_HMAGVAL", line);
        }
        java.math.BigInteger top = java.math.BigInteger.valueOf(factor).pow((int) high + 1);
        if (top.bitLength() > 63) {
            throw llq("factor (" + factor + ") raised to power of high magnitude (" + high + ") plus 1 overflows 64-bits",
                    "D_LLQUANT_HMAGVAL", line);
        }
        if (steps <= 0) {
            throw llq("argument #4 (linear steps per magnitude) must be a non-zero positive integer", "D_LLQUANT_STEPTYPE",
                    line);
        }
        if (steps > 0xffff) throw llq16(4, "D_LLQUANT_STEPVAL", line);
        // DTrace on Linux's rules (its suite checks them): steps below the factor divide it, steps
        // above it are a multiple of it that divides factor^(low+1) (factor^2 when low is 0)
        boolean ok = steps < factor ? factor % steps == 0
                : steps % factor == 0 && java.math.BigInteger.valueOf(factor).pow((int) Math.max(low + 1, 2))
                        .mod(java.math.BigInteger.valueOf(steps)).signum() == 0;
        if (!ok) {
            throw llq("linear steps per magnitude (argument #4) must evenly divide the factor (argument #1) when below "
                    + "it, or be a multiple of it that divides the factor to the power of the low magnitude plus one",
                    "D_LLQUANT_STEPVAL", line);
        }
        // and illumos': above the factor, the steps also divide the first power of the factor
        // that reaches them (llquantize(v, 6, 2, 4, 24): 36 is not a multiple of 24)
        long power = factor;
        while (power < steps) power *= factor;
        if (power % steps != 0) {
            throw llq("factor (argument #1) must evenly divide the number of steps per magnitude (argument #4), and the "
                    + "number of steps per magnitude must evenly divide a power of the factor", "D_LLQUANT_FACTOREVEN", line);
        }
        return new LogLinear(factor, low, high, steps);
    }

    /** illumos' refusal of an llquantize() parameter (argument #i after the value) past 16 bits. */
    private static DTraceException llq16(int i, String tag, int line) {
        return llq("argument #" + i + " (" + DFunction.LLQUANTIZE_PARAMETERS.get(i - 1)
                + ") must be an unsigned 16-bit quantity", tag, line);
    }

    private static DTraceException llq(String what, String tag, int line) {
        return new DTraceException("llquantize( ) " + what, tag, line);
    }

    private static void llmatches(long found, long expected, int i, String tag, int line) throws DTraceException {
        if (found != expected) {
            throw new DTraceException("llquantize( ) " + DFunction.LLQUANTIZE_PARAMETERS.get(i - 1) + " (argument #" + i
                    + ") doesn't match previous declaration: expected "
                    + expected + ", found " + found, tag, line);
        }
    }

    private static void matches(long found, long expected, String what, String tag, int line) throws DTraceException {
        if (found != expected) {
            throw new DTraceException("lquantize( ) " + what + " doesn't match previous declaration: expected "
                    + expected + ", found " + found, tag, line);
        }
    }

    private static long constant(Expr e) throws DTraceException {
        Long v = ConstFold.value(e);
        if (v == null) {
            throw new DTraceException("quantization parameters must be integer constants", "D_LQUANT_BASETYPE", e.line);
        }
        return v;
    }
}
