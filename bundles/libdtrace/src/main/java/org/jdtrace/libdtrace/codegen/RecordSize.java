/*
 * RecordSize: what one compiled clause needs of the consumer's buffers, from its lowered form,
 * as dtrace_ecb_resize computes an ECB's dte_needed from its actions' records: the bytes one
 * firing writes to the principal buffer (the record header and every data-recording action,
 * both arms of an if counted, as DTrace lays out every action's record statically) and the
 * bytes one entry of its largest aggregation takes in the aggregation buffer. The sizes are
 * jdtrace's own accounting (rt.Datum.size, rt.Record.HEADER, rt.Aggregation.entryBytes), the
 * same numbers the buffers bound at run time; option-dependent sizes (strsize, the stack
 * depths) are read from the options when asked, so a #pragma applied after compiling counts.
 * A size unknown before the firing (tracemem with a computed size) counts 0.
 *
 * Pure functions of the clause and the options; no state.
 */
package org.jdtrace.libdtrace.codegen;

import java.util.List;
import org.jdtrace.libdtrace.codegen.Ir.Stmt;
import org.jdtrace.libdtrace.codegen.Ir.VKind;
import org.jdtrace.libdtrace.rt.Options;
import org.jdtrace.libdtrace.rt.Record;

public final class RecordSize {

    private RecordSize() {}

    /** The principal-buffer bytes one firing of {@code clause} writes (0 when it records nothing). */
    public static long principal(Ir.Clause clause, Options o) {
        return clause.records() ? Record.HEADER + body(clause.body(), o) : 0;
    }

    /** The bytes of one entry of the clause's largest aggregation (0 when it aggregates nothing). */
    public static long aggregationEntry(Ir.Clause clause, Options o) {
        return aggs(clause.body(), o);
    }

    private static long body(List<Stmt> stmts, Options o) {
        long n = 0;
        for (Stmt s : stmts) n += stmt(s, o);
        return n;
    }

    private static long stmt(Stmt s, Options o) {
        long strsize = o.get("strsize");
        return switch (s) {
            case Ir.Trace t -> t.value().kind() == VKind.STRING ? strsize + 1 : t.width() > 0 ? t.width() : 8;
            case Ir.Printf p -> {
                long n = 0;
                for (Ir.Expr a : p.args()) n += a.kind() == VKind.STRING ? strsize : 8;
                yield n;
            }
            case Ir.Printa p -> 4L * p.aggs().size();
            case Ir.Clear c -> 4;
            case Ir.Trunc t -> 12;
            case Ir.Normalize n -> 12;
            case Ir.Exit e -> 4;
            case Ir.Setopt so -> 8;
            case Ir.Stack st -> 8L * (frames(st, o) + 1);
            case Ir.TraceMem m -> m.size() instanceof Ir.Const c && c.value() > 0 ? c.value() : 0;
            case Ir.Print p -> (p.object() ? 0 : 8L) + p.size();
            case Ir.PrintValue p -> p.size() > 0 ? p.size() : strsize;
            case Ir.If i -> body(i.then(), o) + body(i.otherwise(), o);
            case Ir.Eval e -> 0;
            case Ir.Aggregate a -> 0;
            case Ir.Spec sp -> 0;
        };
    }

    private static long frames(Ir.Stack st, Options o) {
        if (st.frames() > 0) return st.frames();
        return o.get(switch (st.which()) {
            case KERNEL -> "stackframes";
            case USER -> "ustackframes";
            case JAVA -> "jstackframes";
        });
    }

    private static long aggs(List<Stmt> stmts, Options o) {
        long max = 0;
        for (Stmt s : stmts) {
            if (s instanceof Ir.Aggregate a) max = Math.max(max, a.agg().entryBytes(o));
            if (s instanceof Ir.If i) max = Math.max(max, Math.max(aggs(i.then(), o), aggs(i.otherwise(), o)));
        }
        return max;
    }
}
