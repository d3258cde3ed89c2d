/*
 * IntegerFolding: the value of an integer constant expression, as dt_node_op1, dt_node_op2 and
 * dt_node_op3 fold DT_NODE_INT operands: literals and the operators over them, with 64-bit
 * wrap-around. What a leaf means (an identifier, a cast, sizeof) is the caller's: the parser knows
 * only the integer inlines it has read (parse-time folding, which decides which branch of a
 * constant ?: is kept), the type checker every resolved constant (sema.ConstFold). Pure functions.
 */
package org.jdtrace.libdtrace.ast;

import java.util.function.Function;

public final class IntegerFolding {

    private IntegerFolding() {}

    /**
     * D's signed modulus, as dtrace computes it: the remainder of the magnitudes, negative when the
     * operands' signs differ (19 % -5 is -4, -19 % -5 is 4). {@code b} is not 0.
     */
    public static long modulus(long a, long b) {
        // Math.abs(Long.MIN_VALUE) is 2^63 read as unsigned, its true magnitude
        long r = Long.remainderUnsigned(Math.abs(a), Math.abs(b));
        return (a < 0) != (b < 0) ? -r : r;
    }

    /**
     * The value of {@code e} if it is an integer constant expression, else null. {@code leaf}
     * gives the value of any node other than a literal, a unary or binary operator or a ?:
     * (null: not a constant).
     */
    public static Long value(Expr e, Function<Expr, Long> leaf) {
        return switch (e) {
            case Expr.IntLit i -> i.value;
            case Expr.Unary u -> {
                Long v = value(u.operand, leaf);
                if (v == null) {
                    yield null;
                }
                yield switch (u.op) {
                    case NEG -> -v;
                    case PLUS -> v;
                    case BITNOT -> ~v;
                    case NOT -> v == 0 ? 1L : 0L;
                    default -> null;
                };
            }
            case Expr.Binary b -> {
                Long l = value(b.left, leaf);
                Long r = value(b.right, leaf);
                if (l == null || r == null) {
                    yield null;
                }
                yield switch (b.op) {
                    case ADD -> l + r;
                    case SUB -> l - r;
                    case MUL -> l * r;
                    case DIV -> r == 0 ? null : l / r;
                    case MOD -> r == 0 ? null : modulus(l, r);
                    case SHL -> l << r;
                    case SHR -> l >> r;
                    case BITAND -> l & r;
                    case BITOR -> l | r;
                    case BITXOR -> l ^ r;
                    case LT -> l < r ? 1L : 0L;
                    case LE -> l <= r ? 1L : 0L;
                    case GT -> l > r ? 1L : 0L;
                    case GE -> l >= r ? 1L : 0L;
                    case EQ -> l.equals(r) ? 1L : 0L;
                    case NE -> l.equals(r) ? 0L : 1L;
                    case LAND -> l != 0 && r != 0 ? 1L : 0L;
                    case LOR -> l != 0 || r != 0 ? 1L : 0L;
                    case LXOR -> (l != 0) != (r != 0) ? 1L : 0L;
                    case COMMA -> r;
                };
            }
            case Expr.Ternary t -> {
                Long c = value(t.cond, leaf);
                yield c == null ? null : c != 0 ? value(t.then, leaf) : value(t.otherwise, leaf);
            }
            default -> leaf.apply(e);
        };
    }
}
