package org.jdtrace.libdtrace.sema;

import org.jdtrace.libdtrace.ast.Constant;
import org.jdtrace.libdtrace.ast.Expr;

/** Folds integer constant expressions (literals, inlines, enumerators, operators on them); 64-bit wrap-around. */
public final class ConstFold {

    private ConstFold() {}

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
     * A null pointer constant: NULL or another integer (or pointer) constant 0, which a pointer
     * or a string may be compared with or set to (dt_node_is_ptrcompat's zero DT_NODE_INT).
     */
    public static boolean isNull(Expr e) {
        return e.type != null && (e.type.isPointer() || e.type.isInteger()) && Long.valueOf(0).equals(value(e));
    }

    /** The value of {@code e} if it is an integer constant expression, else null. */
    public static Long value(Expr e) {
        return switch (e) {
            case Expr.IntLit i -> i.value;
            case Expr.Ident id when id.symbol instanceof Constant c && c.expr() == null -> c.value();
            case Expr.Cast c -> value(c.operand);
            case Expr.Offsetof o when o.type != null -> (long) o.offset;
            case Expr.SizeofType z when z.resolved != null && !z.resolved.isString() -> (long) z.resolved.size();
            case Expr.Unary u -> {
                Long v = value(u.operand);
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
                Long l = value(b.left);
                Long r = value(b.right);
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
                Long c = value(t.cond);
                yield c == null ? null : c != 0 ? value(t.then) : value(t.otherwise);
            }
            default -> null;
        };
    }
}
