package org.jdtrace.libdtrace.sema;

import org.jdtrace.libdtrace.ast.Constant;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.IntegerFolding;

/** Folds integer constant expressions (literals, inlines, enumerators, operators on them); 64-bit wrap-around. */
public final class ConstFold {

    private ConstFold() {}

    /**
     * A null pointer constant: NULL or another integer (or pointer) constant 0, which a pointer
     * or a string may be compared with or set to (dt_node_is_ptrcompat's zero DT_NODE_INT).
     */
    public static boolean isNull(Expr e) {
        return e.type != null && (e.type.isPointer() || e.type.isInteger()) && Long.valueOf(0).equals(value(e));
    }

    /** The value of {@code e} if it is an integer constant expression, else null. */
    public static Long value(Expr e) {
        return IntegerFolding.value(e, ConstFold::leaf);
    }

    /** The leaves sema resolved: constant identifiers (enumerators, integer inlines), casts, offsetof, sizeof. */
    private static Long leaf(Expr e) {
        return switch (e) {
            case Expr.Ident id when id.symbol instanceof Constant c && c.expr() == null -> c.value();
            case Expr.Cast c -> value(c.operand);
            case Expr.Offsetof o when o.type != null -> (long) o.offset;
            case Expr.SizeofType z when z.resolved != null && !z.resolved.isString() -> (long) z.resolved.size();
            default -> null;
        };
    }
}
