package org.jdtrace.libdtrace.ast;

import java.util.List;
import org.jdtrace.libdtrace.lex.Token;

/**
 * A D expression node. The parser builds the tree; the type checker
 * ({@link org.jdtrace.libdtrace.sema.DFrontEnd}) then fills the {@code type} of every node and the
 * resolved reference of the nodes that name something ({@link Ident#symbol},
 * {@link SelfVar#var}, {@link ThisVar#var}, {@link AggRef#var}, {@link Call#function}).
 * Children are final; only those sema attributes are mutable. Match with a pattern switch:
 * the hierarchy is sealed.
 *
 * <p>Conventions the code generator can rely on after a successful check:
 * <ul>
 *   <li>{@code self->x} is a {@link SelfVar}, {@code this->x} a {@link ThisVar}, never a Member.</li>
 *   <li>{@code a[k1, k2]} on a global associative array is an {@link Index} whose base is an
 *       {@link Ident} resolved to a {@link Variable} with {@link Variable#keyTypes} non-null;
 *       {@code self->a[k]} an Index over a SelfVar; {@code args[n]} and {@code uregs[n]} an Index
 *       over an Ident resolved to the {@link BuiltinVariable}.</li>
 *   <li>{@code @a[k] = f(x)} is an {@link Assign} whose target is an {@link AggRef} and whose
 *       value is a {@link Call} with an {@link DFunction.Kind#AGGREGATING} function.</li>
 *   <li>Macros ($1, $$1, $target, $pid) are already replaced by literals or identifiers.</li>
 * </ul>
 */
public abstract sealed class Expr permits Expr.IntLit, Expr.StrLit, Expr.Ident, Expr.SelfVar,
        Expr.ThisVar, Expr.AggRef, Expr.Index, Expr.Member, Expr.Call, Expr.Unary, Expr.Binary,
        Expr.Assign, Expr.Ternary, Expr.Cast, Expr.SizeofType, Expr.Offsetof, Expr.Xlate {

    /**
     * Source line (1-based) of the node's first token; for binary nodes and casts the line dtrace
     * gives them, that of the token after them (yacc reduces them when it has read it).
     */
    public final int line;

    /** The node's D type; null until the type checker ran. */
    public DType type;

    protected Expr(int line) {
        this.line = line;
    }

    @Override
    public String toString() {
        return AstPrinter.print(this);
    }

    /** An integer or character constant. {@code value} holds the 64 bits (unsigned constants too). */
    public static final class IntLit extends Expr {
        public final long value;
        public final Token.IntForm form;

        public IntLit(int line, long value, Token.IntForm form) {
            super(line);
            this.value = value;
            this.form = form;
        }
    }

    /** A string literal, escapes decoded. */
    public static final class StrLit extends Expr {
        public final String value;

        public StrLit(int line, String value) {
            super(line);
            this.value = value;
        }
    }

    /** A name: built-in variable, global variable or array, inline constant, or {@code self}/{@code this} alone. */
    public static final class Ident extends Expr {
        public final String name;
        /** Set by sema: a {@link Variable}, a {@link BuiltinVariable} or a {@link Constant}. */
        public Symbol symbol;

        public Ident(int line, String name) {
            super(line);
            this.name = name;
        }
    }

    /** {@code self->name}: a thread-local variable. */
    public static final class SelfVar extends Expr {
        public final String name;
        public Variable var;

        public SelfVar(int line, String name) {
            super(line);
            this.name = name;
        }
    }

    /** {@code this->name}: a clause-local variable. */
    public static final class ThisVar extends Expr {
        public final String name;
        public Variable var;

        public ThisVar(int line, String name) {
            super(line);
            this.name = name;
        }
    }

    /**
     * {@code @name}, {@code @name[k, ...]}, {@code @}, {@code @[k]}. {@code name} is "" for the
     * anonymous aggregation; {@code keys} is null when no brackets were written.
     */
    public static final class AggRef extends Expr {
        public final String name;
        public final List<Expr> keys;
        public Variable var;

        public AggRef(int line, String name, List<Expr> keys) {
            super(line);
            this.name = name;
            this.keys = keys == null ? null : List.copyOf(keys);
        }
    }

    /** {@code base[k1, k2...]}: associative array lookup, args[]/uregs[], or array/pointer indexing. */
    public static final class Index extends Expr {
        public final Expr base;
        public final List<Expr> keys;

        public Index(int line, Expr base, List<Expr> keys) {
            super(line);
            this.base = base;
            this.keys = List.copyOf(keys);
        }
    }

    /** {@code base.member} or {@code base->member} (other than self->/this->). */
    public static final class Member extends Expr {
        public final Expr base;
        public final String member;
        public final boolean arrow;

        public Member(int line, Expr base, String member, boolean arrow) {
            super(line);
            this.base = base;
            this.member = member;
            this.arrow = arrow;
        }
    }

    /** {@code name(args)}: an action, subroutine or aggregating function. */
    public static final class Call extends Expr {
        public final String name;
        public final List<Expr> args;
        /** Set by sema. */
        public DFunction function;
        /** print()'s argument's pointed-to type as print() shows it; set by sema. */
        public PrintLayout printLayout;

        public Call(int line, String name, List<Expr> args) {
            super(line);
            this.name = name;
            this.args = List.copyOf(args);
        }
    }

    public enum UnOp {
        NEG("-"), PLUS("+"), NOT("!"), BITNOT("~"), DEREF("*"), ADDROF("&"),
        PRE_INC("++"), PRE_DEC("--"), POST_INC("++"), POST_DEC("--"), SIZEOF("sizeof"), STRINGOF("stringof");

        public final String spelling;

        UnOp(String s) {
            spelling = s;
        }

        public boolean isIncDec() {
            return this == PRE_INC || this == PRE_DEC || this == POST_INC || this == POST_DEC;
        }
    }

    public static final class Unary extends Expr {
        public final UnOp op;
        public final Expr operand;

        public Unary(int line, UnOp op, Expr operand) {
            super(line);
            this.op = op;
            this.operand = operand;
        }
    }

    public enum BinOp {
        MUL("*"), DIV("/"), MOD("%"), ADD("+"), SUB("-"), SHL("<<"), SHR(">>"),
        LT("<"), LE("<="), GT(">"), GE(">="), EQ("=="), NE("!="),
        BITAND("&"), BITXOR("^"), BITOR("|"), LAND("&&"), LXOR("^^"), LOR("||"), COMMA(",");

        public final String spelling;

        BinOp(String s) {
            spelling = s;
        }

        public boolean isComparison() {
            return this == LT || this == LE || this == GT || this == GE || this == EQ || this == NE;
        }

        public boolean isLogical() {
            return this == LAND || this == LXOR || this == LOR;
        }
    }

    public static final class Binary extends Expr {
        public final BinOp op;
        public final Expr left;
        public final Expr right;

        public Binary(int line, BinOp op, Expr left, Expr right) {
            super(line);
            this.op = op;
            this.left = left;
            this.right = right;
        }
    }

    public enum AssignOp {
        ASSIGN("=", null), ADD("+=", BinOp.ADD), SUB("-=", BinOp.SUB), MUL("*=", BinOp.MUL),
        DIV("/=", BinOp.DIV), MOD("%=", BinOp.MOD), AND("&=", BinOp.BITAND), OR("|=", BinOp.BITOR),
        XOR("^=", BinOp.BITXOR), SHL("<<=", BinOp.SHL), SHR(">>=", BinOp.SHR);

        public final String spelling;
        /** The arithmetic of a compound assignment; null for plain '='. */
        public final BinOp binary;

        AssignOp(String s, BinOp b) {
            spelling = s;
            binary = b;
        }
    }

    public static final class Assign extends Expr {
        public final AssignOp op;
        public final Expr target;
        public final Expr value;

        public Assign(int line, AssignOp op, Expr target, Expr value) {
            super(line);
            this.op = op;
            this.target = target;
            this.value = value;
        }
    }

    /** {@code cond ? then : otherwise}. */
    public static final class Ternary extends Expr {
        public final Expr cond;
        public final Expr then;
        public final Expr otherwise;

        public Ternary(int line, Expr cond, Expr then, Expr otherwise) {
            super(line);
            this.cond = cond;
            this.then = then;
            this.otherwise = otherwise;
        }
    }

    /** {@code (type) operand}. */
    public static final class Cast extends Expr {
        public final TypeName target;
        public final Expr operand;

        public Cast(int line, TypeName target, Expr operand) {
            super(line);
            this.target = target;
            this.operand = operand;
        }
    }

    /** {@code sizeof (type)}; {@code sizeof expr} is a {@link Unary} with {@link UnOp#SIZEOF}. */
    public static final class SizeofType extends Expr {
        public final TypeName target;
        /** Set by sema: the type named. */
        public DType resolved;

        public SizeofType(int line, TypeName target) {
            super(line);
            this.target = target;
        }
    }

    /** {@code offsetof(type, member)}. */
    public static final class Offsetof extends Expr {
        public final TypeName target;
        public final String member;
        /** Set by sema: the member's byte offset. */
        public int offset;

        public Offsetof(int line, TypeName target, String member) {
            super(line);
            this.target = target;
            this.member = member;
        }
    }

    /** {@code xlate <type> (operand)}. */
    public static final class Xlate extends Expr {
        public final TypeName target;
        public final Expr operand;
        /** Set by sema: the translator chosen, and the variable its member expressions name the input by. */
        public Translator translator;
        public Variable input;

        public Xlate(int line, TypeName target, Expr operand) {
            super(line);
            this.target = target;
            this.operand = operand;
        }
    }
}
