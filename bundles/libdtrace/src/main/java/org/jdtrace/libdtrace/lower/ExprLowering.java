/*
 * ExprLowering: the expressions of a checked D program (org.jdtrace.libdtrace.ast after
 * DFrontEnd.check) as Ir expressions, the step dt_cg.c's expression half takes from parse tree
 * to DIF. Every D value becomes a JVM long or a String: integers and pointers are longs,
 * computed in 64 bits as DTrace computes them and narrowed with an explicit Ir.Cast where a
 * value takes a narrower type (a store into a narrower variable, a cast); records carry each
 * value's width and signedness, so printing narrows the rest. A string is a String. Variables are resolved to
 * the consumer's slots in DState here, so the generated code indexes arrays and never looks up a
 * name.
 *
 * Invariants the front end guarantees and this class relies on: every node has its type, names
 * are resolved, operand types fit their operators. What the type checker accepts but jdtrace
 * cannot run yet (pointer dereference, struct members, some built-ins and subroutines) is a
 * compile error here, worded as dtrace's and tagged, never a wrong value at run time.
 */
package org.jdtrace.libdtrace.lower;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.Constant;
import org.jdtrace.libdtrace.ast.DFunction;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.ProcfsTypes;
import org.jdtrace.libdtrace.ast.Variable;
import org.jdtrace.libdtrace.codegen.Ir;
import org.jdtrace.libdtrace.codegen.Ir.VKind;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.Mem;
import org.jdtrace.libdtrace.sema.ConstFold;

final class ExprLowering {

    private final DState state;
    /** Translator input variables bound to the lowered input of the xlate being expanded. */
    private final java.util.IdentityHashMap<Variable, Ir.Expr> bindings = new java.util.IdentityHashMap<>();
    /** Clause-local temporaries (whole translations) use this-> slots from here up. */
    private static final int TEMP_SLOTS = 1 << 24;
    private int temps;
    /** Set while the address of an assignment's target is lowered: an associative element is made there. */
    private boolean storing;

    ExprLowering(DState state) {
        this.state = state;
    }

    // ---- entry points ---------------------------------------------------------------------

    /** The expression in its natural representation (String for strings, long otherwise). */
    Ir.Expr lower(Expr e) throws DTraceException {
        return switch (e) {
            case Expr.IntLit i -> new Ir.Const(i.value);
            case Expr.StrLit s -> new Ir.StrConst(s.value);
            case Expr.Ident id -> ident(id);
            case Expr.SelfVar s when byRef(s.var.type) -> address(s);
            case Expr.ThisVar t when byRef(t.var.type) -> address(t);
            case Expr.SelfVar s -> {
                int slot = state.tlsSlot(s.name);
                state.tlsMemory(slot, s.var.type.size()); // what the variable takes of dynvarsize
                if (kind(s.var.type) == VKind.STRING) state.tlsString(slot);
                yield new Ir.Var(Ir.Scope.THREAD, slot, kind(s.var.type));
            }
            case Expr.ThisVar t -> new Ir.Var(Ir.Scope.CLAUSE, t.var.id, kind(t.var.type));
            case Expr.AggRef a -> throw unsupported("aggregation @" + a.name + " used as a value", a.line);
            case Expr.Index x -> index(x);
            case Expr.Member m when m.base instanceof Expr.Xlate x -> translatedMember(x, m);
            case Expr.Member m when ofCurrentProcfs(m) -> {
                // the system translators: the firing process's and thread's /proc, member by member
                String op = ((Expr.Ident) m.base).symbol == BuiltinVariable.CURPSINFO ? "psinfo" : "lwpsinfo";
                if (kind(m.type) == VKind.STRING) {
                    yield new Ir.MemOp(op + "str", List.of(new Ir.StrConst(m.member)), VKind.STRING);
                }
                yield narrow(new Ir.MemOp(op, List.of(new Ir.StrConst(m.member)), VKind.LONG), m.type);
            }
            case Expr.Member m when m.arrow && procfsArg(m.base) >= 0 -> {
                // args[i]->pr_*, args[i] a psinfo_t * or lwpsinfo_t * (the proc provider's): the
                // process or thread the argument names, as the provider recorded it or from /proc
                String op = ((DType.Ptr) m.base.type).target() == ProcfsTypes.PSINFO ? "argpsinfo" : "arglwpsinfo";
                List<Ir.Expr> a = List.of(new Ir.Const(procfsArg(m.base)), new Ir.StrConst(m.member));
                if (kind(m.type) == VKind.STRING) yield new Ir.MemOp(op + "str", a, VKind.STRING);
                yield narrow(new Ir.MemOp(op, a, VKind.LONG), m.type);
            }
            case Expr.Member m -> memValue(address(m), m.type, memberOf(m), throughPointer(m));
            case Expr.Call c -> call(c);
            case Expr.Unary u -> unary(u);
            case Expr.Binary b -> binary(b);
            case Expr.Assign a -> assign(a);
            case Expr.Ternary t -> {
                Ir.Expr cond = lower(t.cond);
                if (kind(t.type) == VKind.STRING) {
                    yield new Ir.Ternary(cond, string(t.then), string(t.otherwise));
                }
                yield new Ir.Ternary(cond, integer(t.then), integer(t.otherwise));
            }
            case Expr.Cast c -> cast(c);
            case Expr.SizeofType s -> new Ir.Const(sizeOf(s));
            case Expr.Offsetof o -> new Ir.Const(o.offset);
            case Expr.Xlate x -> translation(x);
        };
    }

    /** A member of a translated object: xlate's, curpsinfo's, curlwpsinfo's, the proc provider's args[i]. */
    private static boolean translated(Expr e) {
        return e instanceof Expr.Member m
                && (m.base instanceof Expr.Xlate || ofCurrentProcfs(m) || m.arrow && procfsArg(m.base) >= 0);
    }

    /** {@code curpsinfo->m} or {@code curlwpsinfo->m}: a member the system translators give. */
    private static boolean ofCurrentProcfs(Expr.Member m) {
        return m.arrow && m.base instanceof Expr.Ident id
                && (id.symbol == BuiltinVariable.CURPSINFO || id.symbol == BuiltinVariable.CURLWPSINFO);
    }

    /** N when {@code e} is args[N] (a constant N) typed psinfo_t * or lwpsinfo_t *, else -1. */
    static int procfsArg(Expr e) {
        if (e instanceof Expr.Index x && x.base instanceof Expr.Ident id && id.symbol == BuiltinVariable.ARGS
                && ProcfsTypes.isPointer(x.type)
                && x.keys.size() == 1 && ConstFold.value(x.keys.get(0)) instanceof Long n && n >= 0 && n <= 9) {
            return (int) (long) n;
        }
        return -1;
    }

    /** The expression as a string: strings as they are, a {@code char *} read with copyinstr. */
    Ir.Expr string(Expr e) throws DTraceException {
        if (isNull(e)) {
            // a string that is NULL: no string at all (null), kept as such (see Subr)
            return new Ir.Call("nullstr", List.of(), VKind.STRING);
        }
        Expr.Call copyin = copyin(e);
        if (copyin != null) return copyinString(copyin);
        if (e.type != null && e.type.isPointer()) {
            // a char * (or void *) where a string is wanted: the string at that address, in
            // scratch or D storage or the traced process (copyinstr's reading for the latter)
            return new Ir.MemOp("str", List.of(integer(e), new Ir.Const(state.options.strsize())), VKind.STRING);
        }
        Ir.Expr x = lower(e);
        if (x.kind() != VKind.STRING) {
            throw new DTraceException("expression of type " + typeName(e) + " is not a string", "D_OP_INCOMPAT", e.line);
        }
        return x;
    }

    private static boolean isNull(Expr e) {
        return ConstFold.isNull(e);
    }

    /** The expression as a 64-bit integer. */
    Ir.Expr integer(Expr e) throws DTraceException {
        Ir.Expr x = lower(e);
        if (x.kind() == VKind.STRING && e.type != null && e.type.isString()) {
            // a string where the checker let a char * take it (char *s = probeprov): its address
            return new Ir.MemOp("strptr", List.of(x), VKind.LONG);
        }
        if (x.kind() != VKind.LONG) {
            throw new DTraceException("expression of type " + typeName(e) + " is not an integer", "D_OP_INCOMPAT", e.line);
        }
        return x;
    }

    /** The expression in the representation of {@code t}: string for strings, long otherwise. */
    Ir.Expr as(Expr e, DType t) throws DTraceException {
        if (t instanceof DType.Stack && e instanceof Expr.Call c) {
            return new Ir.StackKey(stackKind(c.function), c.args.isEmpty() ? 0 : stackFrames(c));
        }
        if (e instanceof Expr.Call c && c.function != null && c.function.isSymbol()) {
            return symbol(c);
        }
        if (byRef(t) && e.type != null && byRef(e.type)) {
            // a struct or array as a key: its bytes, so that equal contents are one key
            return new Ir.MemOp("keybytes", List.of(address(e), new Ir.Const(t.size())), VKind.STRING);
        }
        return kind(t) == VKind.STRING ? string(e) : integer(e);
    }

    /**
     * usym(pc), ufunc(pc), umod(pc), uaddr(pc), sym(pc), func(pc), mod(pc): the address symbolised
     * at the firing by the table's runtime entry (the process may be gone when the consumer
     * prints), so that ufunc() keys of two pcs in one function are one key, as in DTrace.
     */
    Ir.Expr symbol(Expr.Call c) throws DTraceException {
        return new Ir.Call(c.function.entry, List.of(integer(c.args.get(0))), VKind.STRING);
    }

    static Ir.StackKind stackKind(DFunction f) {
        return switch (f) {
            case STACK -> Ir.StackKind.KERNEL;
            case JSTACK -> Ir.StackKind.JAVA;
            default -> Ir.StackKind.USER;
        };
    }

    /**
     * stack(n), ustack(n[, strsize]): n must be a positive integer constant; so must strsize
     * (D_USTACK_STRSIZE), the space for helper-translated frames, which jdtrace does not use.
     */
    int stackFrames(Expr.Call c) throws DTraceException {
        if (c.function != DFunction.STACK && c.args.size() > 1
                && !(integer(c.args.get(1)) instanceof Ir.Const s && s.value() > 0)) {
            throw new DTraceException(c.function.dname + "( ) argument #2 must be a positive integer constant",
                    "D_USTACK_STRSIZE", c.line);
        }
        if (integer(c.args.get(0)) instanceof Ir.Const k && k.value() > 0 && k.value() <= Integer.MAX_VALUE) {
            return (int) k.value();
        }
        String tag = c.function == DFunction.STACK ? "D_STACK_SIZE" : "D_USTACK_FRAMES";
        throw new DTraceException(c.function.dname + "( ) argument #1 must be a non-zero positive integer constant",
                tag, c.line);
    }

    // ---- types ----------------------------------------------------------------------------

    static VKind kind(DType t) {
        return t instanceof DType.Str || t.isCharArray() ? VKind.STRING : VKind.LONG;
    }

    /** Bytes of a value of type {@code t} in a record (trace, printf, keys): 0 for strings. */
    static int width(DType t) {
        if (t instanceof DType.Int i) return i.size();
        if (kind(t) == VKind.STRING) return 0;
        return 8;
    }

    private int sizeOf(DType t) {
        return t instanceof DType.Str ? state.options.strsize() : Math.max(t.size(), 0);
    }

    /** sizeof (type): the checked type's size; a string's is the strsize option, its arrays' too. */
    private long sizeOf(Expr.SizeofType s) throws DTraceException {
        DType t = s.resolved;
        long n = 1;
        while (t instanceof DType.Array a && a.element().isString()) {
            n *= Math.max(a.length(), 0);
            t = a.element();
        }
        return n * sizeOf(t);
    }

    private static String typeName(Expr e) {
        return e.type == null ? "?" : e.type.name();
    }

    /** C's narrowing of a value to an integer type narrower than 64 bits. */
    static Ir.Expr narrow(Ir.Expr e, DType t) {
        if (t instanceof DType.Int i && i.size() < 8) {
            if (e instanceof Ir.Cast c && c.width() == i.size() && c.signed() == i.signed()) return e;
            return new Ir.Cast(e, i.size(), i.signed());
        }
        return e;
    }

    static boolean isUnsigned(DType t) {
        return unsigned(t);
    }

    private static boolean unsigned(DType t) {
        return t instanceof DType.Ptr || (t instanceof DType.Int i && !i.signed());
    }

    /** The common type of C's usual arithmetic conversions is unsigned. */
    private static boolean unsignedArithmetic(DType a, DType b) {
        int sa = promotedSize(a), sb = promotedSize(b);
        if (sa != sb) return unsigned(sa > sb ? a : b) && Math.max(sa, sb) >= 4;
        return (unsigned(a) && sa >= 4) || (unsigned(b) && sb >= 4);
    }

    private static int promotedSize(DType t) {
        return Math.max(4, t.size());
    }

    static DTraceException unsupported(String what, int line) {
        return new DTraceException(what + " is not supported by jdtrace", "D_UNKNOWN", line);
    }

    // ---- names ----------------------------------------------------------------------------

    private Ir.Expr ident(Expr.Ident id) throws DTraceException {
        return switch (id.symbol) {
            case Constant c when c.expr() != null && byRef(c.type()) -> address(c.expr());
            case Constant c when c.expr() != null && kind(c.type()) == VKind.STRING -> string(c.expr());
            case Constant c when c.expr() != null -> c.type() instanceof DType.Int t && t.size() < 8
                    ? narrow(integer(c.expr()), t) : integer(c.expr());
            case Constant c -> new Ir.Const(c.value());
            case BuiltinVariable b -> builtin(b, id.line);
            case Variable v when bindings.containsKey(v) -> bindings.get(v);
            case Variable v when byRef(v.type) -> address(id);
            case Variable v when memoryCharArray(v) -> new Ir.MemOp("str", List.of(address(id),
                    new Ir.Const(Math.min(v.type.size(), state.options.strsize()))), VKind.STRING);
            case Variable v -> globalScalar(v);
            case null -> throw new DTraceException("failed to resolve " + id.name + ": Unknown variable name",
                    "D_IDENT_UNDEF", id.line);
        };
    }

    private Ir.Var globalScalar(Variable v) {
        VKind k = kind(v.type);
        int slot = k == VKind.LONG ? state.longSlot(v.name) : state.stringSlot(v.name);
        return new Ir.Var(Ir.Scope.GLOBAL, slot, k);
    }

    private Ir.Expr builtin(BuiltinVariable b, int line) throws DTraceException {
        if (b.argIndex() >= 0) {
            return new Ir.BuiltinVar(Ir.Builtin.values()[Ir.Builtin.ARG0.ordinal() + b.argIndex()]);
        }
        if (b.isArray()) throw unsupported("built-in array " + b.dname() + " without an index", line);
        return switch (b.access) {
            case PROBE -> {
                // the table's PROBE rows are the code generator's Ir.Builtin of the same name
                Ir.Builtin ir = Ir.Builtin.valueOf(b.name());
                Ir.Expr e = new Ir.BuiltinVar(ir);
                yield ir.kind() == VKind.LONG ? narrow(e, b.type()) : e;
            }
            case SUBR -> {
                if (b.entry == null) throw unsupported("built-in variable " + b.dname(), line);
                Ir.Expr e = new Ir.Call(b.entry, List.of(), kind(b.type()));
                yield kind(b.type()) == VKind.LONG ? narrow(e, b.type()) : e;
            }
            case KERNEL -> throw unsupported("built-in variable " + b.dname(), line);
        };
    }

    private Ir.Expr index(Expr.Index x) throws DTraceException {
        if (x.base instanceof Expr.Ident id && id.symbol instanceof BuiltinVariable b) {
            Ir.Expr i = integer(x.keys.get(0));
            if (b == BuiltinVariable.ARGS) {
                // args[i] typed from the probes' argument descriptions (sema's ArgTypes): a
                // string is the provider's text for it, a narrower integer is cut to its type
                if (i instanceof Ir.Const c && x.type != null && x.type.isString()) {
                    return new Ir.Call("argstr", List.of(c), VKind.STRING);
                }
                Ir.Expr v = i instanceof Ir.Const c && c.value() >= 0 && c.value() <= 9
                        ? new Ir.BuiltinVar(Ir.Builtin.values()[Ir.Builtin.ARG0.ordinal() + (int) c.value()])
                        : new Ir.ArgN(i);
                return x.type instanceof DType.Int t && t.size() < 8 ? narrow(v, t) : v;
            }
            if (b == BuiltinVariable.UREGS) {
                return new Ir.Call(b.entry, List.of(i), VKind.LONG);
            }
        }
        if (x.base instanceof Expr.Ident id && id.symbol instanceof Variable v && v.inlineBody != null) {
            return inlineArray(v, x.keys);
        }
        if (x.base instanceof Expr.Ident id && id.symbol instanceof Variable v && v.isAssociative()) {
            int slot = state.assocSlot(v.name);
            elementCost(slot, v.keyTypes, v.type, 0);
            return new Ir.AssocRef(slot, keys(x.keys, v.keyTypes), kind(v.type));
        }
        if (x.base instanceof Expr.SelfVar s && s.var != null && s.var.keyTypes != null) {
            // self->a[k]: one dynamic array per name, keyed by the thread first (dtrace's
            // thread-local arrays are per-thread dynamic variables too)
            List<Ir.Expr> keys = new ArrayList<>();
            keys.add(new Ir.BuiltinVar(Ir.Builtin.TID));
            keys.addAll(keys(x.keys, s.var.keyTypes));
            int slot = state.assocSlot("self->" + s.name);
            elementCost(slot, s.var.keyTypes, s.var.type, 1);
            return new Ir.AssocRef(slot, keys, kind(s.var.type));
        }
        if (x.base instanceof Expr.Member m && ofCurrentProcfs(m) && kind(m.type) == VKind.STRING) {
            // curpsinfo->pr_fname[i]: a character of the system translator's string member
            return new Ir.Cast(new Ir.Call("charAt", List.of(string(m), integer(x.keys.get(0))), VKind.LONG), 1, true);
        }
        if (x.base.type instanceof DType.Ptr || x.base.type instanceof DType.Array) {
            return memValue(address(x), x.type, null, throughPointer(x));
        }
        if (x.base.type != null && x.base.type.isString()) {
            // s[i]: the character (a signed char), 0 past the end
            return new Ir.Cast(new Ir.Call("charAt", List.of(string(x.base), integer(x.keys.get(0))), VKind.LONG), 1, true);
        }
        throw unsupported("array and pointer indexing", x.line);
    }

    private List<Ir.Expr> keys(List<Expr> keys, List<DType> proto) throws DTraceException {
        List<Ir.Expr> out = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            out.add(as(keys.get(i), i < proto.size() ? proto.get(i) : keys.get(i).type));
        }
        return out;
    }

    // ---- subroutines ------------------------------------------------------------------------

    /**
     * A subroutine call: its runtime entry from the built-ins table (DFunction.entry, a method of
     * codegen.Subr), string arguments as strings, the others as integers. A string argument that
     * is NULL, or a subroutine's result that may be NULL (strchr of a missing character...), goes
     * to the entry as null, which faults there (BADADDR), as DTrace faults on a NULL string;
     * strtok(NULL, delim) is the call that continues the last string.
     */
    private Ir.Expr call(Expr.Call c) throws DTraceException {
        DFunction f = c.function;
        Ir.Expr mem = memoryCall(c);
        if (mem != null) {
            return mem;
        }
        if (f == null || f.entry == null || f.isAction()) {
            if (f != null && f.isAction()) {
                throw new DTraceException(f.dname + "( ) may not be used in an expression", "D_ACT_SPEC", c.line);
            }
            throw unsupported("subroutine " + c.name + "( )", c.line);
        }
        List<Ir.Expr> args = new ArrayList<>();
        for (int i = 0; i < c.args.size(); i++) {
            Expr a = c.args.get(i);
            // NULL, or an integer constant 0 (which D takes for NULL where a char * is wanted)
            boolean nul = isNull(a) || (a.type != null && a.type.isInteger() && Long.valueOf(0).equals(ConstFold.value(a)));
            if (f == DFunction.STRTOK && i == 0 && nul) {
                continue; // strtok(NULL, delim): the overload without a string
            }
            if (f.param(i) == 's') {
                args.add(nul ? new Ir.Call("nullstr", List.of(), VKind.STRING) : string(a));
            } else {
                args.add(integer(a));
            }
        }
        VKind k = kind(c.type);
        Ir.Expr call = new Ir.Call(f.entry, args, k);
        return k == VKind.LONG ? narrow(call, c.type) : call;
    }

    // ---- copyin ------------------------------------------------------------------------------

    /*
     * copyin(addr, size) returns a pointer to scratch memory holding the bytes (rt.Mem), which
     * *p, p[i] and p->m read. Where a string is wanted (stringof, printf %s, trace, (char *)
     * casts) a copyin() result is read straight from the process instead, without scratch: the
     * bytes up to the first NUL, at most n. A bad address faults (BADADDR), raising dtrace:::ERROR.
     */

    /** The copyin() call under pointer casts of {@code e}, or null. */
    private static Expr.Call copyin(Expr e) {
        while (e instanceof Expr.Cast c && c.type != null && c.type.isPointer()) e = c.operand;
        return e instanceof Expr.Call c && c.function == DFunction.COPYIN ? c : null;
    }

    private Ir.Expr copyinString(Expr.Call c) throws DTraceException {
        return new Ir.Call("copyinbuf", List.of(integer(c.args.get(0)), integer(c.args.get(1))), VKind.STRING);
    }

    // ---- memory (see rt.Mem) -------------------------------------------------------------------

    /**
     * A type whose values live in memory and are handled by their address: structs, unions and
     * arrays other than char arrays (which D variables hold as strings).
     */
    /** f[k1, k2]: inline array f's expression with its parameters bound to the keys. */
    private Ir.Expr inlineArray(Variable f, List<Expr> keys) throws DTraceException {
        List<Ir.Expr> args = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            Variable p = f.inlineParams.get(i);
            args.add(kind(p.type) == VKind.STRING ? string(keys.get(i)) : integer(keys.get(i)));
        }
        List<Ir.Expr> before = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) before.add(bindings.put(f.inlineParams.get(i), args.get(i)));
        try {
            if (kind(f.type) == VKind.STRING) return string(f.inlineBody);
            return f.type instanceof DType.Int t && t.size() < 8 ? narrow(integer(f.inlineBody), t) : integer(f.inlineBody);
        } finally {
            for (int i = 0; i < args.size(); i++) {
                Variable p = f.inlineParams.get(i);
                if (before.get(i) == null) bindings.remove(p);
                else bindings.put(p, before.get(i));
            }
        }
    }

    /**
     * Tells the state what an element of associative array {@code slot} takes of dynvarsize
     * (DState.assocElement): each key and the value, 8-byte aligned, a string as strsize + 1;
     * {@code scalars} more 8-byte keys (a thread-local array's thread).
     */
    private void elementCost(int slot, List<DType> keyTypes, DType value, int scalars) {
        long fixed = 8L * scalars;
        int strings = 0;
        List<DType> parts = new ArrayList<>(keyTypes == null ? List.of() : keyTypes);
        parts.add(value);
        for (DType t : parts) {
            if (kind(t) == VKind.STRING) strings++;
            else fixed += byRef(t) ? (t.size() + 7) & ~7L : 8;
        }
        state.assocElement(slot, fixed, strings);
    }

    /**
     * A declared global char array ({@code char a[6];}) lives in D's global memory, as a struct
     * does: its elements have addresses (&amp;a[i]) and are stored one by one; as a value it is
     * the string its bytes hold, up to its length or strsize. (Char arrays elsewhere stay
     * strings: a variable typed by its first assignment never is one.)
     */
    static boolean memoryCharArray(Variable v) {
        return v.scope == Variable.Scope.GLOBAL && !v.isAssociative() && v.type != null && v.type.isCharArray();
    }

    static boolean byRef(DType t) {
        return t instanceof DType.Sou || (t instanceof DType.Array && kind(t) != VKind.STRING);
    }

    /** An object in memory rather than a dynamic variable: *p, p[i], a[i] of a struct array, s.m, p->m. */
    private static boolean inMemory(Expr e) {
        return switch (e) {
            case Expr.Member m -> true;
            case Expr.Unary u -> u.op == Expr.UnOp.DEREF;
            case Expr.Index x -> x.base.type instanceof DType.Ptr || (x.base.type instanceof DType.Array
                    && !(x.base instanceof Expr.Ident id && id.symbol instanceof Variable v && v.isAssociative()));
            default -> false;
        };
    }

    /** The struct member a Member node names (its base typed by sema). */
    private static DType.Member memberOf(Expr e) {
        if (e instanceof Expr.Member m) {
            DType t = m.base.type instanceof DType.Ptr p ? p.target() : m.base.type;
            return t instanceof DType.Sou s ? s.member(m.member) : null;
        }
        return null;
    }

    /** The address of an object: a by-ref variable's storage, or an object in memory. */
    Ir.Expr address(Expr e) throws DTraceException {
        return switch (e) {
            case Expr.Ident id when id.symbol instanceof Variable v && bindings.containsKey(v) -> bindings.get(v);
            case Expr.Ident id when id.symbol instanceof Constant c && c.expr() != null -> address(c.expr());
            case Expr.Cast c when c.type instanceof DType.Sou -> address(c.operand);
            case Expr.Xlate x -> translation(x);
            case Expr.Ident id when id.symbol instanceof Variable v && (byRef(v.type) || memoryCharArray(v)) ->
                    new Ir.Const(Mem.GLOBAL + state.globalMemoryOffset(v.name, v.type.size()));
            case Expr.ThisVar t when byRef(t.var.type) ->
                    new Ir.Const(Mem.LOCAL + state.localMemoryOffset(t.name, t.var.type.size()));
            case Expr.SelfVar s when byRef(s.var.type) -> {
                int slot = state.tlsSlot(s.name);
                state.tlsMemory(slot, s.var.type.size());
                yield new Ir.MemOp("tls", List.of(new Ir.Const(slot)), VKind.LONG);
            }
            case Expr.Member m -> {
                DType.Member mem = memberOf(m);
                if (mem == null) throw unsupported("member " + m.member, m.line);
                Ir.Expr base = m.arrow ? integer(m.base) : address(m.base);
                yield mem.offset() == 0 ? base : new Ir.Binary(Ir.BinOp.ADD, base, new Ir.Const(mem.offset()), false);
            }
            case Expr.Index x when x.base instanceof Expr.Ident id && id.symbol instanceof Variable v
                    && v.isAssociative() && byRef(v.type) ->
                    // a[k] of a struct or array value: the element's own storage, made by a store
                    new Ir.AssocObj(state.assocSlot(v.name), keys(x.keys, v.keyTypes), v.type.size(), storing);
            case Expr.Index x when x.base.type instanceof DType.Ptr p -> elementAddress(integer(x.base), p.target(), x);
            case Expr.Index x when x.base.type instanceof DType.Array a -> elementAddress(address(x.base), a.element(), x, a.length());
            case Expr.Unary u when u.op == Expr.UnOp.DEREF -> integer(u.operand);
            default -> throw unsupported("the address of " + e, e.line);
        };
    }

    private Ir.Expr elementAddress(Ir.Expr base, DType element, Expr.Index x) throws DTraceException {
        return elementAddress(base, element, x, 0);
    }

    /**
     * The address of {@code x}'s element; an array of {@code length} > 0 elements checks an index
     * not known until the firing (a constant one was checked at compile time, D_ARR_BOUNDS):
     * out of [0, length) it faults with BADINDEX, the index as the fault's value (Oracle's
     * DTRACEFLT_BADINDEX, "index out of bounds in a scalar array").
     */
    private Ir.Expr elementAddress(Ir.Expr base, DType element, Expr.Index x, int length) throws DTraceException {
        Ir.Expr i = integer(x.keys.get(0));
        int size = Math.max(1, element.isString() ? state.options.strsize() : element.size());
        if (length > 0 && !(i instanceof Ir.Const)) {
            i = new Ir.MemOp("bound", List.of(i, new Ir.Const(length)), VKind.LONG);
        }
        if (i instanceof Ir.Const k && k.value() == 0) return base;
        return new Ir.Binary(Ir.BinOp.ADD, base, scale(i, size), false);
    }

    /** The bytes of a string in memory: a string member's laid-out size, else strsize. */
    private long stringMemberSize(DType.Member m) {
        long strsize = state.options.strsize();
        return m != null && m.type().isString() && m.size() > 0 ? Math.min(m.size(), strsize) : strsize;
    }

    /** The value of the object of type {@code t} at {@code addr} (a by-ref type's value is its address). */
    private Ir.Expr memValue(Ir.Expr addr, DType t, DType.Member m) throws DTraceException {
        return memValue(addr, t, m, false);
    }

    /**
     * As above; {@code viaPointer}: the address came from a pointer value ({@code *p}, {@code p[i]},
     * {@code p->m}), whose integer is read at its alignment (Mem.loadptr: DTrace's alignment error
     * for a misaligned pointer); a member or element of a variable is read where libctf put it.
     */
    private Ir.Expr memValue(Ir.Expr addr, DType t, DType.Member m, boolean viaPointer) throws DTraceException {
        String load = viaPointer ? "loadptr" : "load";
        if (m != null && m.isBitfield()) {
            DType.Int i = (DType.Int) t;
            return new Ir.MemOp("loadbits", List.of(addr, new Ir.Const(m.size()), new Ir.Const(m.bitOffset()),
                    new Ir.Const(m.bits()), new Ir.Const(i.signed() ? 1 : 0)), VKind.LONG);
        }
        if (t instanceof DType.Int i && Integer.bitCount(i.size()) == 1 && i.size() <= 8) {
            return new Ir.MemOp(load, List.of(addr, new Ir.Const(i.size()), new Ir.Const(i.signed() ? 1 : 0)), VKind.LONG);
        }
        if (t instanceof DType.Ptr) {
            return new Ir.MemOp(load, List.of(addr, new Ir.Const(8), new Ir.Const(0)), VKind.LONG);
        }
        if (kind(t) == VKind.STRING) {
            long max = t instanceof DType.Array a && a.length() > 0 ? a.length() : stringMemberSize(m);
            return new Ir.MemOp("str", List.of(addr, new Ir.Const(max)), VKind.STRING);
        }
        if (byRef(t)) {
            return addr;
        }
        throw unsupported("a value of type " + t.name() + " in memory", 0);
    }

    /** Whether the object {@code e} names is reached through a pointer value (see memValue). */
    private static boolean throughPointer(Expr e) {
        return switch (e) {
            case Expr.Unary u when u.op == Expr.UnOp.DEREF -> true;
            case Expr.Member m -> m.arrow || throughPointer(m.base);
            case Expr.Index x -> x.base.type instanceof DType.Ptr || throughPointer(x.base);
            default -> false;
        };
    }

    /** Stores {@code v} (already narrowed to t) into the object of type t at addr; yields v. */
    private static Ir.Expr store(Ir.Expr addr, DType t, DType.Member m, Ir.Expr v) {
        int width = t instanceof DType.Int i ? i.size() : 8;
        if (m != null && m.isBitfield()) {
            return new Ir.MemOp("storebits", List.of(addr, new Ir.Const(m.size()), new Ir.Const(m.bitOffset()),
                    new Ir.Const(m.bits()), v), VKind.LONG);
        }
        return new Ir.MemOp("store", List.of(addr, new Ir.Const(width), v), VKind.LONG);
    }

    /** An assignment to an object in memory, or a struct/array copy into a by-ref variable. */
    private Ir.Expr memoryAssign(Expr.Assign a) throws DTraceException {
        DType t = a.target.type;
        Ir.Expr addr;
        storing = true;
        try {
            addr = address(a.target);
        } finally {
            storing = false;
        }
        if (byRef(t)) {
            if (a.op != Expr.AssignOp.ASSIGN) throw unsupported("operator " + a.op.spelling + " on " + t.name(), a.line);
            return new Ir.MemOp("copy", List.of(addr, address(a.value), new Ir.Const(t.size())), VKind.LONG);
        }
        if (kind(t) == VKind.STRING) {
            long size = t instanceof DType.Array ar && ar.length() > 0 ? ar.length() : stringMemberSize(memberOf(a.target));
            return new Ir.MemOp("storestr", List.of(addr, string(a.value), new Ir.Const(size)), VKind.STRING);
        }
        DType.Member m = memberOf(a.target);
        Ir.Expr v;
        if (a.op == Expr.AssignOp.ASSIGN) {
            v = narrow(widened(a.value, t.size()), t);
        } else if (t.isPointer() && (a.op == Expr.AssignOp.ADD || a.op == Expr.AssignOp.SUB)) {
            v = new Ir.Binary(binop(a.op.binary), memValue(addr, t, m), scale(widened(a.value, 8), elementSize(t)), true);
        } else {
            boolean uns = a.op == Expr.AssignOp.SHL || a.op == Expr.AssignOp.SHR ? unsigned(t)
                    : unsignedArithmetic(t, a.value.type);
            v = narrow(new Ir.Binary(binop(a.op.binary), memValue(addr, t, m), widened(a.value, t.size()), uns), t);
        }
        return store(addr, t, m, v);
    }

    // ---- translators ---------------------------------------------------------------------------

    /*
     * A translator is expanded where it is used, as dt_cg_xlate_expand does: xlate<T>(e).m (or
     * xlate<T *>(e)->m) is the member's definition with the input variable bound to e, nothing
     * else computed; a whole xlate<T>(e) (assigned to a struct, or a pointer to it) fills zeroed
     * scratch with every defined member and is its address.
     */

    private Ir.Expr translatedMember(Expr.Xlate x, Expr.Member m) throws DTraceException {
        DType.Member mem = memberOf(m);
        for (var a : x.translator.members()) {
            if (a.member().equals(m.member)) {
                return bound(x, () -> converted(a.value(), mem.type()));
            }
        }
        throw new DTraceException("translator does not define conversion for member: " + m.member,
                "D_XLATE_NOCONV", m.line);
    }

    private Ir.Expr translation(Expr.Xlate x) throws DTraceException {
        DType.Sou sou = (DType.Sou) (x.type instanceof DType.Ptr p ? p.target() : x.type);
        Ir.Var tmp = new Ir.Var(Ir.Scope.CLAUSE, TEMP_SLOTS + temps++, VKind.LONG);
        Ir.Expr result = tmp;
        List<Ir.Expr> stores = new ArrayList<>();
        for (var a : x.translator.members()) {
            DType.Member mem = sou.member(a.member());
            Ir.Expr at = mem.offset() == 0 ? tmp : new Ir.Binary(Ir.BinOp.ADD, tmp, new Ir.Const(mem.offset()), false);
            stores.add(bound(x, () -> {
                DType t = mem.type();
                if (byRef(t)) {
                    return new Ir.MemOp("copy", List.of(at, address(a.value()), new Ir.Const(t.size())), VKind.LONG);
                }
                if (kind(t) == VKind.STRING) {
                    long size = t instanceof DType.Array ar && ar.length() > 0 ? ar.length() : state.options.strsize();
                    return new Ir.MemOp("storestr", List.of(at, string(a.value()), new Ir.Const(size)), VKind.STRING);
                }
                return store(at, t, mem, converted(a.value(), t));
            }));
        }
        for (int i = stores.size() - 1; i >= 0; i--) {
            result = new Ir.Call("seq", List.of(stores.get(i), result), VKind.LONG);
        }
        Ir.Expr alloc = new Ir.Assign(tmp, new Ir.MemOp("alloca", List.of(new Ir.Const(sou.size())), VKind.LONG));
        return new Ir.Call("seq", List.of(alloc, result), VKind.LONG);
    }

    private interface Lowered {
        Ir.Expr get() throws DTraceException;
    }

    /** Lowers with the translator's input variable bound to the xlate's operand (evaluated per use). */
    private Ir.Expr bound(Expr.Xlate x, Lowered body) throws DTraceException {
        Ir.Expr input = byRef(x.operand.type) ? address(x.operand) : lower(x.operand);
        Ir.Expr before = bindings.put(x.input, input);
        try {
            return body.get();
        } finally {
            if (before == null) bindings.remove(x.input);
            else bindings.put(x.input, before);
        }
    }

    /** A value converted to type t: a string for strings and char arrays, else an integer narrowed to t. */
    private Ir.Expr converted(Expr e, DType t) throws DTraceException {
        if (kind(t) == VKind.STRING) return string(e);
        if (byRef(t)) return address(e);
        return narrow(widened(e, Math.max(t.size(), 1)), t);
    }

    /** alloca, copyin, copyinto and bcopy: scratch memory (see rt.Mem); null for other calls. */
    private Ir.Expr memoryCall(Expr.Call c) throws DTraceException {
        if (c.function == null) return null;
        List<Expr> a = c.args;
        return switch (c.function) {
            case ALLOCA -> {
                Long n = ConstFold.value(a.get(0));
                long max = state.options.get("scratchsize");
                if (n != null && Long.compareUnsigned(n, max) > 0) {
                    // the size is a size_t: 0xffffffffffffffff is 18446744073709551615, not -1
                    throw new DTraceException("alloca(" + Long.toUnsignedString(n) + ") size larger than scratchsize " + max,
                            "D_ALLOCA_SIZE", c.line);
                }
                yield new Ir.MemOp("alloca", List.of(integer(a.get(0))), VKind.LONG);
            }
            case COPYIN -> {
                Long n = ConstFold.value(a.get(1));
                long max = state.options.get("scratchsize");
                if (n != null && n > max) {
                    throw new DTraceException("copyin( ) size " + n + " larger than scratchsize " + max, "D_ALLOCA_SIZE",
                            c.line);
                }
                yield new Ir.MemOp("copyin", List.of(integer(a.get(0)), integer(a.get(1))), VKind.LONG);
            }
            case COPYINTO -> new Ir.MemOp("copyinto", List.of(integer(a.get(0)), integer(a.get(1)), integer(a.get(2))),
                    VKind.LONG);
            case BCOPY -> a.get(0).type.isString()
                    ? new Ir.MemOp("bcopystr", List.of(string(a.get(0)), integer(a.get(1)), integer(a.get(2))), VKind.LONG)
                    : new Ir.MemOp("bcopy", List.of(integer(a.get(0)), integer(a.get(1)), integer(a.get(2))), VKind.LONG);
            default -> null;
        };
    }

    // ---- operators --------------------------------------------------------------------------

    private Ir.Expr unary(Expr.Unary u) throws DTraceException {
        return switch (u.op) {
            case PLUS -> integer(u.operand);
            case NEG -> new Ir.Unary(Ir.UnOp.NEG, integer(u.operand));
            case BITNOT -> new Ir.Unary(Ir.UnOp.BITNOT, integer(u.operand));
            case NOT -> u.operand.type.isString()
                    ? new Ir.StrCompare(Ir.BinOp.EQ, string(u.operand), new Ir.StrConst(""))
                    : new Ir.Unary(Ir.UnOp.NOT, integer(u.operand));
            case PRE_INC, PRE_DEC, POST_INC, POST_DEC -> incDec(u);
            case SIZEOF -> new Ir.Const(u.operand instanceof Expr.StrLit s ? s.value.length() + 1 : sizeOf(u.operand.type));
            // stringof(pointer) reads the string it points to (a Java object's handle: its text)
            case STRINGOF -> u.operand.type.isString() || u.operand.type.isPointer() || u.operand.type.isCharArray()
                    || copyin(u.operand) != null
                    ? string(u.operand)
                    : new Ir.Call("lltostr", List.of(integer(u.operand)), VKind.STRING);
            case DEREF -> memValue(integer(u.operand), u.type, null, true);
            case ADDROF -> address(u.operand);
        };
    }

    /** ++x is x = x + 1; x++ is (x = x + 1) - 1, narrowed to x's type. */
    private Ir.Expr incDec(Expr.Unary u) throws DTraceException {
        DType t = u.operand.type;
        if (inMemory(u.operand)) {
            boolean up = u.op == Expr.UnOp.PRE_INC || u.op == Expr.UnOp.POST_INC;
            long by = t instanceof DType.Ptr p && p.target().size() > 0 ? p.target().size() : 1;
            Ir.Expr addr = address(u.operand);
            DType.Member m = memberOf(u.operand);
            Ir.Expr stored = store(addr, t, m, narrow(new Ir.Binary(up ? Ir.BinOp.ADD : Ir.BinOp.SUB,
                    memValue(addr, t, m), new Ir.Const(by), false), t));
            if (u.op == Expr.UnOp.PRE_INC || u.op == Expr.UnOp.PRE_DEC) {
                return stored;
            }
            return narrow(new Ir.Binary(up ? Ir.BinOp.SUB : Ir.BinOp.ADD, stored, new Ir.Const(by), false), t);
        }
        Ir.Expr target = integer(u.operand);
        boolean inc = u.op == Expr.UnOp.PRE_INC || u.op == Expr.UnOp.POST_INC;
        long step = t instanceof DType.Ptr p && p.target().size() > 0 ? p.target().size() : 1;
        Ir.Expr stored = new Ir.Assign(target, narrow(new Ir.Binary(inc ? Ir.BinOp.ADD : Ir.BinOp.SUB, target,
                new Ir.Const(step), false), t));
        if (u.op == Expr.UnOp.PRE_INC || u.op == Expr.UnOp.PRE_DEC) {
            return stored;
        }
        return narrow(new Ir.Binary(inc ? Ir.BinOp.SUB : Ir.BinOp.ADD, stored, new Ir.Const(step), false), t);
    }

    private static boolean stringish(DType t) {
        return t.isString() || t.isCharArrayOrPointer();
    }

    private Ir.Expr binary(Expr.Binary b) throws DTraceException {
        DType lt = b.left.type, rt = b.right.type;
        Expr.BinOp op = b.op;
        if (op == Expr.BinOp.COMMA) {
            Ir.Expr l = lower(b.left), r = lower(b.right);
            return new Ir.Call("seq", List.of(l, r), r.kind());
        }
        if (op.isLogical()) {
            return new Ir.Binary(logical(op), condition(b.left), condition(b.right), false);
        }
        if (op.isComparison()) {
            if ((lt.isString() || rt.isString()) && (stringish(lt) || isNull(b.left)) && (stringish(rt) || isNull(b.right))) {
                return new Ir.StrCompare(binop(op), string(b.left), string(b.right));
            }
            // compared in their common type: a narrower one is compared at its width
            int common = Math.max(promotedSize(lt), promotedSize(rt));
            boolean uns = unsignedArithmetic(lt, rt);
            Ir.Expr l = widened(b.left, common), r = widened(b.right, common);
            if (common < 8) {
                l = narrow(l, common, !uns);
                r = narrow(r, common, !uns);
            }
            return new Ir.Binary(binop(op), l, r, uns);
        }
        if (b.type.isString()) {
            // s + n, n + s, s - n: the string that many characters on (a string is a pointer to them)
            boolean stringLeft = lt.isString();
            Ir.Expr n = integer(stringLeft ? b.right : b.left);
            if (op == Expr.BinOp.SUB) n = new Ir.Binary(Ir.BinOp.SUB, new Ir.Const(0), n, false);
            return new Ir.Call("stroffset", List.of(string(stringLeft ? b.left : b.right), n), VKind.STRING);
        }
        int size = b.type instanceof DType.Int i ? i.size() : 8;
        Ir.Expr l = widened(b.left, size), r = widened(b.right, size);
        if ((op == Expr.BinOp.ADD || op == Expr.BinOp.SUB) && (lt.isPointer() || rt.isPointer())) {
            return pointerArithmetic(op, l, lt, r, rt);
        }
        boolean uns = unsigned(b.type);
        return new Ir.Binary(binop(op), l, r, uns);
    }

    /**
     * An integer operand converted to a type of {@code size} bytes: a value of a narrower type is
     * first normalized to its own type (sign- or zero-extended), as dtrace's type conversions do;
     * arithmetic itself runs in 64 bits.
     */
    private Ir.Expr widened(Expr e, int size) throws DTraceException {
        Ir.Expr x = integer(e);
        return e.type instanceof DType.Int i && i.size() < size ? narrow(x, e.type) : x;
    }

    private static Ir.Expr narrow(Ir.Expr e, int size, boolean signed) {
        return size >= 8 ? e : narrow(e, new DType.Int("", size, signed));
    }

    /** A condition as a long 0/1 (strings: non-empty). */
    private Ir.Expr condition(Expr e) throws DTraceException {
        if (e.type.isString()) {
            return new Ir.StrCompare(Ir.BinOp.NE, string(e), new Ir.StrConst(""));
        }
        return integer(e);
    }

    /** C's pointer arithmetic: the integer is scaled by the pointed-to size; p - q counts elements. */
    private static Ir.Expr pointerArithmetic(Expr.BinOp op, Ir.Expr l, DType lt, Ir.Expr r, DType rt) {
        if (lt.isPointer() && rt.isPointer()) {
            long size = elementSize(lt);
            Ir.Expr diff = new Ir.Binary(Ir.BinOp.SUB, l, r, false);
            return size == 1 ? diff : new Ir.Binary(Ir.BinOp.DIV, diff, new Ir.Const(size), false);
        }
        if (lt.isPointer()) {
            return new Ir.Binary(binop(op), l, scale(r, elementSize(lt)), true);
        }
        return new Ir.Binary(Ir.BinOp.ADD, scale(l, elementSize(rt)), r, true);
    }

    private static long elementSize(DType ptr) {
        return ptr instanceof DType.Ptr p && p.target().size() > 0 ? p.target().size() : 1;
    }

    private static Ir.Expr scale(Ir.Expr e, long by) {
        return by == 1 ? e : new Ir.Binary(Ir.BinOp.MUL, e, new Ir.Const(by), false);
    }

    private static Ir.BinOp logical(Expr.BinOp op) {
        return switch (op) {
            case LAND -> Ir.BinOp.LAND;
            case LOR -> Ir.BinOp.LOR;
            default -> Ir.BinOp.LXOR;
        };
    }

    static Ir.BinOp binop(Expr.BinOp op) {
        return switch (op) {
            case MUL -> Ir.BinOp.MUL;
            case DIV -> Ir.BinOp.DIV;
            case MOD -> Ir.BinOp.MOD;
            case ADD -> Ir.BinOp.ADD;
            case SUB -> Ir.BinOp.SUB;
            case SHL -> Ir.BinOp.SHL;
            case SHR -> Ir.BinOp.SHR;
            case LT -> Ir.BinOp.LT;
            case LE -> Ir.BinOp.LE;
            case GT -> Ir.BinOp.GT;
            case GE -> Ir.BinOp.GE;
            case EQ -> Ir.BinOp.EQ;
            case NE -> Ir.BinOp.NE;
            case BITAND -> Ir.BinOp.AND;
            case BITXOR -> Ir.BinOp.XOR;
            case BITOR -> Ir.BinOp.OR;
            case LAND -> Ir.BinOp.LAND;
            case LXOR -> Ir.BinOp.LXOR;
            case LOR -> Ir.BinOp.LOR;
            case COMMA -> throw new IllegalArgumentException("comma");
        };
    }

    // ---- assignment -------------------------------------------------------------------------

    private Ir.Expr assign(Expr.Assign a) throws DTraceException {
        DType t = a.target.type;
        if (byRef(t) || inMemory(a.target)) {
            return memoryAssign(a);
        }
        Ir.Expr target = lvalue(a.target);
        if (a.op == Expr.AssignOp.ASSIGN) {
            return new Ir.Assign(target, kind(t) == VKind.STRING ? string(a.value)
                    : narrow(widened(a.value, t.size()), t));
        }
        Ir.Expr v = widened(a.value, t.size());
        Ir.Expr value;
        if (t.isPointer() && (a.op == Expr.AssignOp.ADD || a.op == Expr.AssignOp.SUB)) {
            value = new Ir.Binary(binop(a.op.binary), target, scale(v, elementSize(t)), true);
        } else {
            boolean uns = a.op == Expr.AssignOp.SHL || a.op == Expr.AssignOp.SHR ? unsigned(t)
                    : unsignedArithmetic(t, a.value.type);
            value = new Ir.Binary(binop(a.op.binary), target, v, uns);
        }
        return new Ir.Assign(target, narrow(value, t));
    }

    private Ir.Expr lvalue(Expr target) throws DTraceException {
        Ir.Expr e = switch (target) {
            case Expr.Ident id when id.symbol instanceof Variable v -> globalScalar(v);
            case Expr.SelfVar s -> lower(s);
            case Expr.ThisVar t -> lower(t);
            case Expr.Index x -> index(x);
            default -> throw unsupported("assignment to " + target, target.line);
        };
        if (!(e instanceof Ir.Var) && !(e instanceof Ir.AssocRef)) {
            throw new DTraceException("operator = can only be applied to a writable variable", "D_OP_WRITE",
                    target.line);
        }
        return e;
    }

    private Ir.Expr cast(Expr.Cast c) throws DTraceException {
        DType to = c.type;
        if (to instanceof DType.Void) {
            return lower(c.operand);
        }
        if (kind(to) == VKind.STRING) {
            return string(c.operand);
        }
        Ir.Expr v;
        if (c.operand.type instanceof DType.Array) {
            // an array where a scalar is wanted is its first element's address, as in C; a char
            // array a translator gives (curpsinfo->pr_psargs) has no memory of its own: its
            // string is copied to scratch, which lasts until the clause ends
            v = translated(c.operand) && kind(c.operand.type) == VKind.STRING
                    ? new Ir.MemOp("strptr", List.of(string(c.operand)), VKind.LONG)
                    : address(c.operand);
        } else {
            v = widened(c.operand, to.size());
        }
        return to instanceof DType.Int i && i.size() < 8 ? new Ir.Cast(v, i.size(), i.signed()) : v;
    }
}
