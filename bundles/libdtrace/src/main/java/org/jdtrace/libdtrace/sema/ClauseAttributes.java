/*
 * The stability attributes of a compiled program (libdtrace's dt_node_attr_assign over the parse
 * tree, and dtrace_program_info's minimum description and statement attributes).
 *
 * A clause's description attributes are those dt_probe_info gives each of its probe
 * descriptions: when the provider part is empty or a glob, Unstable/Unstable/Common (what a
 * provider that declares nothing has, _dtrace_prvdesc); else the provider attributes of the
 * provider of the first probe the description matches (Provider.attributes through the
 * framework's ProbeArgs), lowered by each of the module, function and name parts that is
 * neither empty nor a glob. A description that matches nothing yet (-Z) gets the undeclared
 * provider's. A statement's attributes are the minimum over the identifiers its predicate and
 * actions use: built-in variables and functions from the one built-ins table's attribute
 * column, args[] also by the argument attributes of the clause's providers, user variables
 * Stable/Stable/Common; `#pragma D attributes A ident` sets an identifier's (dt_pragma_attributes).
 * Constants and operators are Stable/Stable/Common and lower nothing.
 *
 * With -x amin=A (the minimum attributes), the first clause whose description attributes, or
 * identifier whose attributes, fall below A is refused with D_ATTR_MIN in dtrace's words; the
 * clause is checked before its body, as dtrace assigns its attributes before cooking the body.
 *
 * Compiler thread only, after the semantic pass; pure function of its inputs.
 */
package org.jdtrace.libdtrace.sema;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.Pragma;
import org.jdtrace.libdtrace.ast.ProbeSpec;
import org.jdtrace.libdtrace.ast.Stmt;
import org.jdtrace.spi.Attributes;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProviderAttributes;

public final class ClauseAttributes {

    /** dtrace_program_info's dpi_descattr and dpi_stmtattr: the minimum over the program's clauses. */
    public record Report(Attributes description, Attributes statement) {}

    private final org.jdtrace.engine.ProbeArgs probeArgs;
    private final Attributes amin;
    private final Map<String, Attributes> pragmas = new HashMap<>();

    private ClauseAttributes(org.jdtrace.engine.ProbeArgs probeArgs, Attributes amin) {
        this.probeArgs = probeArgs;
        this.amin = amin;
    }

    /**
     * The program's minimum description and statement attributes; with {@code amin} not null,
     * refuses the first clause or identifier below it (D_ATTR_MIN). {@code probeArgs} null: no
     * provider is known (every description is undeclared).
     */
    public static Report of(CheckedProgram program, org.jdtrace.engine.ProbeArgs probeArgs, Attributes amin)
            throws DTraceException {
        ClauseAttributes a = new ClauseAttributes(probeArgs, amin);
        for (Pragma p : program.script().pragmas()) {
            List<String> w = p.words();
            if (w.size() == 5 && w.get(0).equals("pragma") && w.get(1).equals("D") && w.get(2).equals("attributes")) {
                Attributes attr = Attributes.parse(w.get(3));
                if (attr != null) {
                    a.pragmas.put(w.get(4), attr);
                }
            }
        }
        Attributes desc = null;
        Attributes stmt = null;
        for (Clause c : program.clauses()) {
            Attributes d = a.description(c);
            if (amin != null && d.below(amin)) {
                throw new DTraceException("attributes for clause (" + d + ") are less than predefined minimum",
                        "D_ATTR_MIN", c.line());
            }
            Attributes s = a.statement(c);
            desc = desc == null ? d : desc.min(d);
            stmt = stmt == null ? s : stmt.min(s);
        }
        return new Report(desc == null ? Attributes.STABLE_COMMON : desc, stmt == null ? Attributes.STABLE_COMMON : stmt);
    }

    // ---- descriptions ----

    private Attributes description(Clause c) {
        Attributes min = null;
        for (ProbeSpec spec : c.probes()) {
            Attributes a = of(spec.description(), provider(spec.description()));
            min = min == null ? a : min.min(a);
        }
        return min == null ? ProviderAttributes.UNDECLARED.provider() : min;
    }

    private ProviderAttributes provider(ProbeDescription d) {
        ProviderAttributes p = null;
        if (probeArgs != null) {
            try {
                p = probeArgs.attributes(d);
            } catch (RuntimeException e) {
                p = null; // the provider's trouble is reported when the program is enabled
            }
        }
        return p == null ? ProviderAttributes.UNDECLARED : p;
    }

    /** dt_probe_info's attributes of one description whose first match's provider declares {@code p}. */
    public static Attributes of(ProbeDescription d, ProviderAttributes p) {
        ProviderAttributes base = isGlob(d.provider()) ? ProviderAttributes.UNDECLARED : p;
        Attributes a = base.provider();
        if (!isGlob(d.module())) a = a.min(base.module());
        if (!isGlob(d.function())) a = a.min(base.function());
        if (!isGlob(d.name())) a = a.min(base.name());
        return a;
    }

    /** strisglob, or empty: the part does not name one thing. */
    static boolean isGlob(String part) {
        return part.isEmpty() || part.chars().anyMatch(ch -> ch == '*' || ch == '?' || ch == '[' || ch == '\\');
    }

    // ---- statements ----

    private Clause clause;
    private Attributes acc;
    /** Where the walk is, as dtrace prefixes an action's D_ATTR_MIN ("in action list: "). */
    private String context;

    private Attributes statement(Clause c) throws DTraceException {
        clause = c;
        acc = Attributes.STABLE_COMMON;
        context = "";
        if (c.predicate() != null) expr(c.predicate());
        context = "in action list: ";
        for (Stmt s : c.body()) stmt(s);
        return acc;
    }

    private void stmt(Stmt s) throws DTraceException {
        if (s instanceof Stmt.ExprStmt e) {
            expr(e.expr());
        } else if (s instanceof Stmt.If i) {
            expr(i.cond());
            for (Stmt t : i.then()) stmt(t);
            if (i.otherwise() != null) for (Stmt t : i.otherwise()) stmt(t);
        }
    }

    private void use(String kind, String name, Attributes declared, int line) throws DTraceException {
        Attributes a = pragmas.getOrDefault(name, declared);
        if (amin != null && a.below(amin)) {
            throw new DTraceException(context + "attributes for " + kind + " " + name + " (" + a
                    + ") are less than predefined minimum", "D_ATTR_MIN", line);
        }
        acc = acc.min(a);
    }

    private void expr(Expr e) throws DTraceException {
        if (e == null) return;
        if (e instanceof Expr.Ident id) {
            if (id.symbol instanceof BuiltinVariable bv) {
                Attributes a = bv.attributes();
                if (bv == BuiltinVariable.ARGS) {
                    for (ProbeSpec spec : clause.probes()) a = a.min(provider(spec.description()).args());
                }
                use(bv.kindName(), bv.dname(), a, id.line);
            } else {
                use("scalar", id.name, Attributes.STABLE_COMMON, id.line);
            }
        } else if (e instanceof Expr.Call call) {
            if (call.function != null) {
                use(call.function.kindName(), call.name, call.function.attributes(), call.line);
            }
            for (Expr a : call.args) expr(a);
        } else if (e instanceof Expr.AggRef agg) {
            if (agg.keys != null) for (Expr k : agg.keys) expr(k);
        } else if (e instanceof Expr.Index ix) {
            expr(ix.base);
            for (Expr k : ix.keys) expr(k);
        } else if (e instanceof Expr.Member m) {
            expr(m.base);
        } else if (e instanceof Expr.Unary u) {
            expr(u.operand);
        } else if (e instanceof Expr.Binary b) {
            expr(b.left);
            expr(b.right);
        } else if (e instanceof Expr.Assign as) {
            expr(as.target);
            expr(as.value);
        } else if (e instanceof Expr.Ternary t) {
            expr(t.cond);
            expr(t.then);
            expr(t.otherwise);
        } else if (e instanceof Expr.Cast c) {
            expr(c.operand);
        } else if (e instanceof Expr.Xlate x) {
            expr(x.operand);
        }
        // literals, self->/this-> variables, sizeof and offsetof are Stable/Stable/Common
    }
}
