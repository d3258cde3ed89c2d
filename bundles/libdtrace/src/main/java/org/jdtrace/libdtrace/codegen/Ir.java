/*
 * Ir: the typed, lowered form of a D clause that the bytecode generator consumes (the role DIF
 * plays between dt_cg.c and the DTrace VM). The front end's checked AST is lowered to it:
 * every value is either a 64-bit integer (D's integers and pointers, narrowed by explicit Cast
 * nodes to C semantics) or a string; variables are resolved to slots; aggregations, formats and
 * other constants are resolved objects. No parsing or type checking happens here.
 */
package org.jdtrace.libdtrace.codegen;

import java.util.List;
import org.jdtrace.libdtrace.print.PrintfFormat;
import org.jdtrace.libdtrace.rt.Aggregation;

public final class Ir {

    private Ir() {}

    /** The JVM representation of a D value (STACK: a StackFrames, only ever an aggregation key). */
    public enum VKind { LONG, STRING, STACK }

    /** Whose stack: stack() the kernel's, ustack() the user's, jstack() the user's for a JVM. */
    public enum StackKind { KERNEL, USER, JAVA }

    public sealed interface Expr {
        VKind kind();
    }

    public record Const(long value) implements Expr {
        public VKind kind() { return VKind.LONG; }
    }

    public record StrConst(String value) implements Expr {
        public VKind kind() { return VKind.STRING; }
    }

    /** Built-in variables read from the probe context, the probe or the clock. */
    public enum Builtin {
        ARG0, ARG1, ARG2, ARG3, ARG4, ARG5, ARG6, ARG7, ARG8, ARG9, PID, PPID, TID, CPU, ID, EPID,
        TIMESTAMP, WALLTIMESTAMP, VTIMESTAMP, EXECNAME, PROBEPROV, PROBEMOD, PROBEFUNC, PROBENAME;

        public VKind kind() {
            return switch (this) {
                case EXECNAME, PROBEPROV, PROBEMOD, PROBEFUNC, PROBENAME -> VKind.STRING;
                default -> VKind.LONG;
            };
        }
    }

    public record BuiltinVar(Builtin which) implements Expr {
        public VKind kind() { return which.kind(); }
    }

    /** args[i] / arg(i) with a computed index. */
    public record ArgN(Expr index) implements Expr {
        public VKind kind() { return VKind.LONG; }
    }

    public enum Scope { GLOBAL, THREAD, CLAUSE }

    /** A scalar variable: global slot, self-> slot, or this-> local number. */
    public record Var(Scope scope, int slot, VKind kind) implements Expr {}

    /** A global associative array element. */
    public record AssocRef(int slot, List<Expr> keys, VKind kind) implements Expr {}

    public enum UnOp { NEG, NOT, BITNOT }

    public record Unary(UnOp op, Expr operand) implements Expr {
        public VKind kind() { return VKind.LONG; }
    }

    public enum BinOp { ADD, SUB, MUL, DIV, MOD, SHL, SHR, AND, OR, XOR, LT, LE, GT, GE, EQ, NE, LAND, LOR, LXOR }

    /** Integer arithmetic; {@code unsigned} selects udiv/urem/ushr/unsigned compares. */
    public record Binary(BinOp op, Expr left, Expr right, boolean unsigned) implements Expr {
        public VKind kind() { return VKind.LONG; }
    }

    /** String comparison (strcmp) producing 0/1. */
    public record StrCompare(BinOp op, Expr left, Expr right) implements Expr {
        public VKind kind() { return VKind.LONG; }
    }

    /** A conversion to an integer type of {@code width} bytes (C truncation / extension). */
    public record Cast(Expr operand, int width, boolean signed) implements Expr {
        public VKind kind() { return VKind.LONG; }
    }

    public record Ternary(Expr cond, Expr then, Expr otherwise) implements Expr {
        public VKind kind() { return then.kind(); }
    }

    /** Assignment as an expression: stores and yields the value. */
    public record Assign(Expr target, Expr value) implements Expr {
        public VKind kind() { return target.kind(); }
    }

    /** stack(), ustack(n), jstack(n) as an aggregation key; {@code frames} 0: the option's default. */
    public record StackKey(StackKind which, int frames) implements Expr {
        public VKind kind() { return VKind.STACK; }
    }

    /**
     * The address of the struct or array that is element {@code keys} of associative array
     * {@code slot} (rt.Mem's ASSOC region, {@code size} bytes); with {@code create}, the element
     * is made (zeroed) if it does not exist, else a missing element's address is 0, as DTrace's
     * lookup of a missing dynamic variable yields 0.
     */
    public record AssocObj(int slot, List<Expr> keys, int size, boolean create) implements Expr {
        public VKind kind() { return VKind.LONG; }
    }

    /** A D subroutine implemented by a static method of Subr with the given name. */
    public record Call(String name, List<Expr> args, VKind kind) implements Expr {}

    /**
     * An operation of D's memory model: {@code rt.Mem.op(DThread, ProbeContext, args...)} with
     * long or String arguments (load, loadbits, store, storebits, alloca, copyin, copyinto, bcopy,
     * copy, str, storestr, tls). A clause holding one resets its scratch when it starts.
     */
    public record MemOp(String op, List<Expr> args, VKind kind) implements Expr {}

    // ---- statements (actions)

    public sealed interface Stmt {}

    /** An expression evaluated for its effect (a DIFEXPR action). */
    public record Eval(Expr expr) implements Stmt {}

    /** trace(): integers with their width in bytes and signedness (strings: width 0). */
    public record Trace(Expr value, int width, boolean signed) implements Stmt {
        public Trace(Expr value, int width) {
            this(value, width, true);
        }
    }

    /** What a printf-formatted text is for: output, a shell command, a file to send output to. */
    public enum PrintfUse { PRINTF, SYSTEM, FREOPEN }

    /** printf(), system() or freopen(): the text is formatted by the consumer. */
    public record Printf(PrintfFormat format, List<Expr> args, int[] widths, PrintfUse use) implements Stmt {
        public Printf(PrintfFormat format, List<Expr> args, int[] widths) {
            this(format, args, widths, PrintfUse.PRINTF);
        }
    }

    public record Printa(PrintfFormat format, List<Aggregation> aggs) implements Stmt {}

    public record Aggregate(Aggregation agg, List<Expr> keys, Expr value, Expr incr) implements Stmt {}

    public record Clear(Aggregation agg) implements Stmt {}

    /** trunc(@a) when {@code keep} is null, else trunc(@a, keep). */
    public record Trunc(Aggregation agg, Expr keep) implements Stmt {}

    /** normalize(@a, normal); denormalize(@a) is normal 1. */
    public record Normalize(Aggregation agg, Expr normal) implements Stmt {}

    public record Exit(Expr status) implements Stmt {}

    /** tracemem(addr, size, dsize): records the bytes (rt.Mem.tracemem); dsize &lt; 0 when not given. */
    public record TraceMem(Expr addr, Expr size, Expr dsize) implements Stmt {}

    /**
     * print(addr): records the address and the {@code size} bytes there, shown as layout
     * {@code layout} (DState.printLayout); {@code object}: print() of the struct, union or array
     * at addr itself (illumos' form, print.ObjectPrint), not of what a pointer points to.
     */
    public record Print(Expr addr, int size, int layout, boolean object) implements Stmt {}

    /**
     * print(value) of an integer, enum, or string: records its {@code size} bytes (a string's:
     * strsize when size is 0), shown as layout {@code layout} in illumos' form.
     */
    public record PrintValue(Expr value, int size, int layout) implements Stmt {}

    /**
     * stack(n), ustack(n), jstack(n) actions: the stack of the firing, {@code frames} deep (0:
     * option stackframes, ustackframes or jstackframes).
     */
    public record Stack(StackKind which, int frames) implements Stmt {}

    /** setopt(name) when {@code value} is null, else setopt(name, value). */
    public record Setopt(Expr name, Expr value) implements Stmt {}

    public enum SpecOp { SPECULATE, COMMIT, DISCARD }

    /** speculate(id), commit(id), discard(id). */
    public record Spec(SpecOp op, Expr id) implements Stmt {}

    public record If(Expr cond, List<Stmt> then, List<Stmt> otherwise) implements Stmt {}

    /** A clause: optional predicate and its actions; {@code records} says whether a firing writes a record. */
    public record Clause(Expr predicate, List<Stmt> body, boolean records) {}

    /**
     * True when {@code c} walks the firing thread's user stack: a ustack() or jstack() action or
     * key, ucaller or ustackdepth (Statement.userStack). Walks every node of the clause.
     */
    public static boolean walksUserStack(Clause c) {
        return any(c.predicate(), Ir::walksStack) || any(c.body(), Ir::walksStack);
    }

    /**
     * True when {@code c} reads the kernel stack: a stack() action or key, stackdepth or caller
     * (Statement.kernelStack).
     */
    public static boolean walksKernelStack(Clause c) {
        return any(c.predicate(), Ir::readsKernelStack) || any(c.body(), Ir::readsKernelStack);
    }

    private static boolean readsKernelStack(Object node) {
        return switch (node) {
            case Stack s -> s.which() == StackKind.KERNEL;
            case StackKey k -> k.which() == StackKind.KERNEL;
            case Call c -> c.name().equals("caller") || c.name().equals("stackdepth");
            default -> false;
        };
    }

    /**
     * True when {@code c} acts on the firing process: stop(), raise(), copyout() or copyoutstr()
     * (Statement.procDestructive), anywhere in its body.
     */
    public static boolean actsOnProcess(Clause c) {
        return any(c.body(), n -> n instanceof Call k && PROC_DESTRUCTIVE.contains(k.name()));
    }

    /** The runtime entries of the actions that act on the firing process. */
    private static final java.util.Set<String> PROC_DESTRUCTIVE = java.util.Set.of("stop", "raise", "copyout", "copyoutstr");

    private static boolean walksStack(Object node) {
        return switch (node) {
            case Stack s -> s.which() != StackKind.KERNEL;
            case StackKey k -> k.which() != StackKind.KERNEL;
            case Call c -> c.name().equals("ucaller") || c.name().equals("ustackdepth");
            default -> false;
        };
    }

    /** Whether {@code node} or a node under it (lists and this file's records, walked whole) passes {@code test}. */
    private static boolean any(Object node, java.util.function.Predicate<Object> test) {
        if (node == null) return false;
        if (test.test(node)) return true;
        return switch (node) {
            case List<?> l -> l.stream().anyMatch(x -> any(x, test));
            case Record r when r.getClass().getEnclosingClass() == Ir.class -> {
                for (java.lang.reflect.RecordComponent rc : r.getClass().getRecordComponents()) {
                    if (rc.getType().isPrimitive() || rc.getType() == String.class) continue;
                    try {
                        if (any(rc.getAccessor().invoke(r), test)) yield true;
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException(e);
                    }
                }
                yield false;
            }
            default -> false;
        };
    }
}
