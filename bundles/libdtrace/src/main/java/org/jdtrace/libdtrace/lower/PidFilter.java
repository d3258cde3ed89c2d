/*
 * The pid filter hint of a clause (Statement.pidFilter): the one process outside which the
 * clause's predicate can never hold, derived from the checked predicate alone. It is found when
 * the predicate is `pid == N` or `N == pid` with N an integer constant (macros such as $target are
 * literals by then), or a conjunction (`&&`) one of whose terms is; anything else (`||`, `!=`, a
 * variable, a constant that is no pid) gives -1, no filter. The hint only lets kernel providers
 * drop other processes' events early: the clause still evaluates its whole predicate, so a missed
 * hint costs speed, never results. Stateless.
 */
package org.jdtrace.libdtrace.lower;

import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.Expr;

public final class PidFilter {

    private PidFilter() {}

    /** The pid {@code predicate} confines its clause to, or -1; a null predicate gives -1. */
    public static long of(Expr predicate) {
        if (!(predicate instanceof Expr.Binary b)) return -1;
        return switch (b.op) {
            case LAND -> {
                long l = of(b.left);
                yield l >= 0 ? l : of(b.right);
            }
            case EQ -> {
                long l = pidEquals(b.left, b.right);
                yield l >= 0 ? l : pidEquals(b.right, b.left);
            }
            default -> -1;
        };
    }

    private static long pidEquals(Expr var, Expr constant) {
        if (var instanceof Expr.Ident id && id.symbol == BuiltinVariable.PID
                && constant instanceof Expr.IntLit lit && lit.value >= 0 && lit.value <= Integer.MAX_VALUE) {
            return lit.value;
        }
        return -1;
    }
}
