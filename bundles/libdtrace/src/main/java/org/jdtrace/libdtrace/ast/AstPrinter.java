package org.jdtrace.libdtrace.ast;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Prints the AST in a canonical, fully parenthesised form, for tests and debugging:
 * {@code a + b * c} prints as {@code (a + (b * c))}, {@code -x} as {@code (-x)}, {@code x++} as
 * {@code (x++)}, calls as {@code f(a, b)}, casts as {@code ((int)x)}, aggregations as {@code @a[k]}.
 */
public final class AstPrinter {

    private AstPrinter() {}

    public static String print(Expr e) {
        return switch (e) {
            case Expr.IntLit i -> i.form != null && i.form.character() ? Long.toString(i.value)
                    : i.form != null && i.form.unsignedSuffix() ? Long.toUnsignedString(i.value) : Long.toString(i.value);
            case Expr.StrLit s -> quote(s.value);
            case Expr.Ident id -> id.name;
            case Expr.SelfVar s -> "self->" + s.name;
            case Expr.ThisVar t -> "this->" + t.name;
            case Expr.AggRef a -> "@" + a.name + (a.keys == null ? "" : "[" + list(a.keys) + "]");
            case Expr.Index x -> print(x.base) + "[" + list(x.keys) + "]";
            case Expr.Member m -> "(" + print(m.base) + (m.arrow ? "->" : ".") + m.member + ")";
            case Expr.Call c -> c.name + "(" + list(c.args) + ")";
            case Expr.Unary u -> switch (u.op) {
                case POST_INC, POST_DEC -> "(" + print(u.operand) + u.op.spelling + ")";
                case SIZEOF, STRINGOF -> "(" + u.op.spelling + " " + print(u.operand) + ")";
                default -> "(" + u.op.spelling + print(u.operand) + ")";
            };
            case Expr.Binary b -> "(" + print(b.left) + (b.op == Expr.BinOp.COMMA ? ", " : " " + b.op.spelling + " ")
                    + print(b.right) + ")";
            case Expr.Assign a -> "(" + print(a.target) + " " + a.op.spelling + " " + print(a.value) + ")";
            case Expr.Ternary t -> "(" + print(t.cond) + " ? " + print(t.then) + " : " + print(t.otherwise) + ")";
            case Expr.Cast c -> "((" + c.target + ")" + print(c.operand) + ")";
            case Expr.SizeofType s -> "sizeof(" + s.target + ")";
            case Expr.Offsetof o -> "offsetof(" + o.target + ", " + o.member + ")";
            case Expr.Xlate x -> "xlate<" + x.target + ">(" + print(x.operand) + ")";
        };
    }

    public static String print(Stmt s) {
        return switch (s) {
            case Stmt.ExprStmt es -> print(es.expr()) + ";";
            case Stmt.Empty em -> ";";
            case Stmt.If i -> "if (" + print(i.cond()) + ") {" + block(i.then()) + "}"
                    + (i.otherwise().isEmpty() ? "" : " else {" + block(i.otherwise()) + "}");
        };
    }

    public static String print(Clause c) {
        StringBuilder sb = new StringBuilder(c.probes().stream().map(p -> p.description().toString())
                .collect(Collectors.joining(", ")));
        if (c.predicate() != null) {
            sb.append(" /").append(print(c.predicate())).append("/");
        }
        if (c.body() != null) {
            sb.append(" {").append(block(c.body())).append("}");
        }
        return sb.toString();
    }

    private static String block(List<Stmt> stmts) {
        return stmts.stream().map(AstPrinter::print).collect(Collectors.joining(" ", " ", " "));
    }

    private static String list(List<Expr> es) {
        return es.stream().map(AstPrinter::print).collect(Collectors.joining(", "));
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
