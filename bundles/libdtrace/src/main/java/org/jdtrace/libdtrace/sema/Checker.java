package org.jdtrace.libdtrace.sema;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.Constant;
import org.jdtrace.libdtrace.ast.DFunction;
import org.jdtrace.libdtrace.ast.DVersion;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.Decl;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.Expr.AssignOp;
import org.jdtrace.libdtrace.ast.Expr.BinOp;
import org.jdtrace.libdtrace.ast.Pragma;
import org.jdtrace.libdtrace.ast.ProcfsTypes;
import org.jdtrace.libdtrace.ast.Script;
import org.jdtrace.libdtrace.ast.Stmt;
import org.jdtrace.libdtrace.ast.TopLevel;
import org.jdtrace.libdtrace.ast.Translator;
import org.jdtrace.libdtrace.ast.Variable;
import org.jdtrace.libdtrace.print.PrintfFormat;

/**
 * The type checker (dt_cook_* and dt_node_* checks of dt_parser.c). Walks the program in source
 * order, as dtrace does, so a variable's type is fixed by its declaration or first assignment and
 * a use before that is an error; associative arrays and aggregations get their key signature from
 * first use. Every expression gets its {@link DType}; identifiers, self->/this-> and @ references
 * get their {@link Variable}/{@link BuiltinVariable}/{@link Constant}; calls their {@link DFunction}.
 * Errors use dtrace's D_* tags and wording. One instance per program; not thread-safe.
 */
final class Checker {

    private final Script script;
    private final Types types = new Types();
    private final Map<String, Variable> globals = new LinkedHashMap<>();
    private final Map<String, Variable> tls = new LinkedHashMap<>();
    private final Map<String, Variable> locals = new LinkedHashMap<>();
    private final Map<String, Variable> aggs = new LinkedHashMap<>();
    private final Map<String, Constant> constants = new LinkedHashMap<>();
    /** The names of the constants that are inlines (the rest are enumerators). */
    private final java.util.Set<String> inlines = new java.util.HashSet<>();
    private final Map<String, String> options = new LinkedHashMap<>();
    private final Map<Expr.Call, PrintfFormat> formats = new IdentityHashMap<>();
    private final Builtins builtins = new Builtins();
    private ArgTypes argTypes = new ArgTypes(null);
    private Clause clause;
    /** The translators declared so far, with their output and input types and input variable. */
    private final List<Xlator> translators = new ArrayList<>();
    /** The input variable of the translator whose members are being checked, else null. */
    private Variable xlateInput;
    /** The parameters of the inline array whose definition is being checked (name -> variable). */
    private final Map<String, Variable> inlineScope = new java.util.HashMap<>();

    private record Xlator(Translator decl, DType.Sou output, DType input, Variable var) {}

    /** The number of uregs[] registers (one past the largest number of the ISA's names); 0 without an ISA. */
    private final int uregCount;

    Checker(Script script, java.util.Map<String, Integer> registers) {
        this.script = script;
        // libdtrace's hard-wired "inline long NULL = 0": the integer constant 0 where it is used
        // (sizeof(NULL) is 4, printf("%u", NULL) takes it), a null pointer constant beside pointers and strings
        constants.put("NULL", new Constant("NULL", DType.INT, 0));
        String[] faults = {"UNKNOWN", "BADADDR", "BADALIGN", "ILLOP", "DIVZERO", "NOSCRATCH", "KPRIV", "UPRIV",
            "TUPOFLOW", "BADSTACK", "BADSIZE", "BADINDEX"};
        for (int i = 0; i < faults.length; i++) {
            constants.put("DTRACEFLT_" + faults[i], new Constant("DTRACEFLT_" + faults[i], DType.INT, i));
        }
        constants.put("DTRACEFLT_LIBRARY", new Constant("DTRACEFLT_LIBRARY", DType.INT, 1000));
        // the system D library: signal.d and errno.d
        SystemInlines.SIGNALS.forEach((name, number) -> constants.put(name, new Constant(name, DType.INT, number)));
        SystemInlines.ERRNOS.forEach((name, number) -> constants.put(name, new Constant(name, DType.INT, number)));
        SystemInlines.NET.forEach((name, number) -> constants.put(name, new Constant(name, DType.INT, number)));
        SystemInlines.PROCFS.forEach((name, number) -> constants.put(name, new Constant(name, DType.CHAR, number)));
        // uregs[] indices: the ISA's register names and numbers (its regs.d), given by the ISA service
        registers.forEach((name, number) -> constants.put(name, new Constant(name, DType.INT, number)));
        uregCount = registers.values().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
    }

    /** args[] typed from the probes each clause matches (see ArgTypes). */
    Checker probeArgs(org.jdtrace.engine.ProbeArgs lookup) {
        argTypes = new ArgTypes(lookup);
        return this;
    }

    /** Option zdefs: a description may match no probe (else D_PDESC_ZERO, see ArgTypes). */
    Checker zdefs(boolean on) {
        zdefs = on;
        return this;
    }

    private boolean zdefs;

    /**
     * The D version the program asked for (option version, ast.DVersion): built-ins introduced
     * after it are unknown names, as dt_reduce leaves them.
     */
    Checker version(int v) {
        version = v;
        return this;
    }

    private int version = DVersion.LATEST;

    CheckedProgram check() throws DTraceException {
        // an empty program (no item at all) is the parser's D_EMPTY
        for (TopLevel t : script.items()) {
            switch (t) {
                case Pragma p -> pragma(p);
                case Decl d -> declaration(d);
                case Clause c -> clause(c);
                case Translator x -> translator(x);
            }
        }
        for (var e : unboundAttributes.entrySet()) {
            if (!declared(e.getKey())) {
                throw new DTraceException("unused #pragma attributes", "D_PRAGMA_UNUSED", e.getValue());
            }
        }
        return new CheckedProgram(script, script.clauses(), options, List.copyOf(globals.values()),
                List.copyOf(tls.values()), List.copyOf(locals.values()), List.copyOf(aggs.values()), formats);
    }

    // ---- control lines and declarations -------------------------------------------------------

    /** #pragma D attributes naming an identifier not declared yet: its line (dt_idpragma). */
    private final Map<String, Integer> unboundAttributes = new LinkedHashMap<>();

    private boolean declared(String name) {
        return globals.containsKey(name) || tls.containsKey(name) || aggs.containsKey(name)
                || constants.containsKey(name);
    }

    /** dtrace_str2attr: {@code name[/name[/class]]}, case-insensitive (the SPI's one parser). */
    private static boolean attributes(String a) {
        return org.jdtrace.spi.Attributes.parse(a) != null;
    }

    private static String unquoted(String word) {
        return word.length() >= 2 && word.startsWith("\"") && word.endsWith("\"")
                ? word.substring(1, word.length() - 1) : word;
    }

    /** strsize as the program's #pragma D option has set it so far (256 by default, in bytes). */
    private int stringSize() {
        String v = options.get("strsize");
        if (v == null) return 256;
        try {
            long n = Long.parseLong(v.strip());
            return n > 0 && n <= (1 << 20) ? (int) n : 256;
        } catch (NumberFormatException e) {
            return 256;
        }
    }

    private void pragma(Pragma p) throws DTraceException {
        List<String> w = p.words();
        if (w.isEmpty()) return;
        String directive = w.get(0);
        if (!directive.equals("pragma")) {
            // dt_pragma: #line and cpp's "# N file" markers, #ident; anything else (#if, #define
            // in a program not run through cpp) is an error
            if (directive.equals("line") || directive.equals("ident") || directive.chars().allMatch(Character::isDigit)) {
                return;
            }
            throw new DTraceException("invalid control directive: #" + directive, "D_PRAGCTL_INVAL", p.line());
        }
        if (w.size() < 2 || !w.get(1).equals("D")) {
            return; // #pragma ident, non-D pragmas: ignored as dtrace does
        }
        if (w.size() < 3) {
            throw new DTraceException("malformed #pragma D", "D_PRAGMA_MALFORM", p.line());
        }
        switch (w.get(2)) {
            case "option" -> {
                if (w.size() != 4) {
                    throw new DTraceException(w.size() < 4 ? "malformed #pragma option"
                            : "superfluous arguments specified for #pragma option", "D_PRAGMA_MALFORM", p.line());
                }
                String[] nv = p.option();
                options.put(nv[0], nv[1]);
            }
            case "error" -> {
                // dt_pragma_error: each token and a space; a string token is its text
                String rest = String.join(" ", w.subList(3, w.size()));
                throw new DTraceException("#error: " + (rest.isEmpty() ? "" : unquoted(rest) + " "), "D_PRAGERR",
                        p.line());
            }
            case "depends_on" -> {
                if (w.size() != 5) {
                    throw new DTraceException("malformed #pragma depends_on <class> <name>", "D_PRAGMA_MALFORM", p.line());
                }
                switch (w.get(3)) {
                    // only a library (-L, a .d file of definitions) may depend on another one
                    case "library" -> throw new DTraceException("main program may not explicitly depend on a library",
                            "D_PRAGMA_DEPEND", p.line());
                    case "provider", "module" -> { }
                    default -> throw new DTraceException("invalid class " + w.get(3)
                            + " specified by #pragma depends_on", "D_PRAGMA_INVAL", p.line());
                }
            }
            case "attributes" -> {
                // <attr> <ident>, or a provider definition's <attr> provider <name> <part>
                boolean provider = w.size() == 7 && w.get(4).equals("provider");
                if (w.size() != 5 && !provider) {
                    throw new DTraceException("malformed #pragma attributes <attributes> <ident>", "D_PRAGMA_MALFORM",
                            p.line());
                }
                if (!attributes(w.get(3))) {
                    throw new DTraceException("invalid attributes specified by #pragma attributes", "D_PRAGMA_INVAL",
                            p.line());
                }
                if (provider) {
                    if (!List.of("provider", "module", "function", "name", "args").contains(w.get(6))) {
                        throw new DTraceException("invalid field specified by #pragma attributes: " + w.get(6),
                                "D_PRAGMA_INVAL", p.line());
                    }
                    return;
                }
                String ident = w.get(4);
                // provider attributes (name:...) are the provider's business; an identifier must be
                // declared by the end of the program
                if (ident.indexOf(':') < 0 && !declared(ident)) unboundAttributes.putIfAbsent(ident, p.line());
            }
            case "binding", "ident", "line", "pragma" -> { }
            default -> throw new DTraceException("invalid control directive: #pragma D " + w.get(2),
                    "D_PRAGMA_INVAL", p.line());
        }
    }

    private void declaration(Decl d) throws DTraceException {
        defineTag(d);
        if (d.name() == null) {
            return;
        }
        DType t = types.resolve(d.type(), d.line());
        switch (d.storage()) {
            case TYPEDEF -> {
                if (types.isTypedef(d.name())) {
                    throw new DTraceException("typedef redeclared: " + d.name(), "D_DECL_IDRED", d.line());
                }
                types.typedef(d.name(), t);
            }
            case INLINE -> {
                String previous = identifierKind(d.name());
                if (previous != null) {
                    // dt_node_inline: an inline may not reuse any name D knows
                    throw new DTraceException("identifier redefined: " + d.name() + "\n\t current: inline definition"
                            + "\n\tprevious: " + previous, "D_DECL_IDRED", d.line());
                }
                inlines.add(d.name());
                if (d.keys() != null) {
                    inlineArray(d, t);
                    return;
                }
                DType vt = type(d.init());
                if (!argCompatible(t, d.init(), vt)) throw inlineIncompatible(d, t, vt);
                Long v = ConstFold.value(d.init());
                if (v == null) {
                    // not a constant: each use stands for the expression (probename, pid != 0, a struct...)
                    constants.put(d.name(), new Constant(d.name(), t, 0, d.init()));
                } else {
                    defineConstant(d.name(), t, v, d.line());
                }
            }
            case SELF, THIS, NONE, EXTERN, STATIC -> {
                Map<String, Variable> table = d.storage() == Decl.Storage.SELF ? tls
                        : d.storage() == Decl.Storage.THIS ? locals : globals;
                Variable.Scope scope = d.storage() == Decl.Storage.SELF ? Variable.Scope.THREAD_LOCAL
                        : d.storage() == Decl.Storage.THIS ? Variable.Scope.CLAUSE_LOCAL : Variable.Scope.GLOBAL;
                if (table.containsKey(d.name()) || (scope == Variable.Scope.GLOBAL && constants.containsKey(d.name()))) {
                    throw new DTraceException("identifier redeclared: " + d.name(), "D_DECL_IDRED", d.line());
                }
                if (scope == Variable.Scope.GLOBAL && (BuiltinVariable.byName(d.name(), version) != null
                        || DFunction.byName(d.name(), version) != null)) {
                    throw new DTraceException("identifier redefined: " + d.name(), "D_DECL_IDRED", d.line());
                }
                if (d.keys() != null && scope == Variable.Scope.CLAUSE_LOCAL) {
                    throw new DTraceException("associative arrays may not be declared as local variables: "
                            + d.name(), "D_DECL_LOCASSC", d.line());
                }
                Variable v = new Variable(d.name(), scope, table.size(), d.line());
                v.type = t;
                v.declared = true;
                if (d.keys() != null) {
                    List<DType> keys = new ArrayList<>();
                    for (var k : d.keys()) {
                        keys.add(types.resolve(k, d.line()));
                    }
                    v.keyTypes = keys;
                }
                table.put(d.name(), v);
            }
            default -> { }
        }
    }

    /**
     * The struct, union or enum body a declaration carries, if any (dt_decl_sou, dt_decl_member,
     * dt_decl_enumerator): a struct or union is laid out and completed once, an enum's
     * enumerators become int constants numbered from 0 or their given values.
     */
    private void defineTag(Decl d) throws DTraceException {
        String base = d.type().base();
        if (d.body().isEmpty()) {
            types.tagOf(base); // 'struct foo;' or a first mention: a forward tag
            return;
        }
        if (base.startsWith("enum ")) {
            long next = 0;
            java.util.Set<String> mine = new java.util.HashSet<>();
            for (Decl e : d.body()) {
                if (!mine.add(e.name())) {
                    throw new DTraceException("failed to define enumerator '" + e.name()
                            + "': Duplicate member or variable name", "D_UNKNOWN", e.line());
                }
                if (e.init() != null) {
                    type(e.init());
                    Long v = ConstFold.value(e.init());
                    if (v == null) {
                        throw new DTraceException("enumerator '" + e.name()
                                + "' must be assigned to an integral constant expression", "D_DECL_ENCONST", e.line());
                    }
                    if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
                        throw new DTraceException("enumerator '" + e.name() + "' value overflows INT_MAX ("
                                + Integer.MAX_VALUE + ")", "D_DECL_ENOFLOW", e.line());
                    }
                    next = v;
                }
                defineConstant(e.name(), new DType.Int(base, 4, true), next, e.line());
                next++;
            }
            return;
        }
        DType.Sou sou = types.tagOf(base);
        if (sou == null) {
            return;
        }
        if (sou.isComplete()) {
            throw new DTraceException("type redeclared: " + sou.name(), "D_DECL_TYPERED", d.line());
        }
        List<String> names = new ArrayList<>();
        List<DType> memberTypes = new ArrayList<>();
        List<Integer> widths = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Decl m : d.body()) {
            defineTag(m);
            DType t = types.resolve(m.type(), m.line());
            String id = m.name() == null ? "(anon)" : m.name();
            DType inner = t;
            while (inner instanceof DType.Array a) {
                inner = a.element();
            }
            if (inner instanceof DType.Sou s && !s.isComplete()) {
                throw new DTraceException("incomplete struct/union/enum " + s.name() + ": " + id, "D_DECL_INCOMPLETE", m.line());
            }
            if (t instanceof DType.Void) {
                throw new DTraceException("cannot have void member: " + id, "D_DECL_VOIDOBJ", m.line());
            }
            int width = 0;
            if (m.init() != null) {
                type(m.init());
                Long v = ConstFold.value(m.init());
                if (m.name() == null && v != null && v == 0) {
                    continue; // ': 0' ends the storage unit; like CTF, ignored
                }
                if (v == null || v <= 0) {
                    throw new DTraceException("positive integral constant expression expected as bit-field size",
                            "D_DECL_BFCONST", m.line());
                }
                if (!(t instanceof DType.Int)) {
                    throw new DTraceException("invalid type for bit-field: " + id, "D_DECL_BFTYPE", m.line());
                }
                if (v > t.size() * 8L) {
                    throw new DTraceException("bit-field too big for type: " + id, "D_DECL_BFSIZE", m.line());
                }
                width = (int) (long) v;
            }
            if (m.name() != null && !seen.add(id)) {
                throw new DTraceException("failed to define member '" + id + "': Duplicate member or variable name",
                        "D_UNKNOWN", m.line());
            }
            names.add(m.name());
            memberTypes.add(t);
            widths.add(width);
        }
        sou.layOut(names, memberTypes, widths, stringSize());
    }

    /**
     * A translator declaration (dt_xlator_create's checks): the output must be a complete struct
     * or union, the pair of types new, each member one of the output's, each definition
     * assignable to it; the members are typed with the input named as declared.
     */
    private void translator(Translator t) throws DTraceException {
        DType out = types.resolve(t.output(), t.endLine());
        if (!(out instanceof DType.Sou sou)) {
            throw new DTraceException("translator output type must be a struct or union", "D_XLATE_SOU", t.endLine());
        }
        if (!sou.isComplete()) {
            throw new DTraceException("incomplete struct/union/enum " + sou.name(), "D_XLATE_SOU", t.endLine());
        }
        DType in = types.resolve(t.input(), t.endLine());
        for (Xlator x : translators) {
            if (x.output() == sou && x.input().sameAs(in)) {
                throw new DTraceException("translator from " + in.name() + " to " + sou.name()
                        + " has already been declared", "D_XLATE_REDECL", t.endLine());
            }
        }
        Variable v = new Variable(t.inputName(), Variable.Scope.GLOBAL, -1, t.endLine());
        v.type = in;
        v.declared = true;
        xlateInput = v;
        try {
            for (Translator.Assignment a : t.members()) {
                DType.Member m = sou.member(a.member());
                if (m == null) {
                    throw new DTraceException("translator member " + a.member() + " is not a member of " + sou.name(),
                            "D_XLATE_MEMB", t.endLine());
                }
                DType vt = type(a.value());
                if (!argCompatible(m.type(), a.value(), vt)) {
                    throw new DTraceException("translator member " + a.member() + " definition uses incompatible types: \""
                            + m.type().name() + "\" = \"" + vt.name() + "\"", "D_XLATE_INCOMPAT", t.endLine());
                }
            }
        } finally {
            xlateInput = null;
        }
        translators.add(new Xlator(t, sou, in, v));
    }

    /** xlate &lt;T&gt; (e) and xlate &lt;T *&gt; (e): the translator to T whose input type e has. */
    private DType xlate(Expr.Xlate x) throws DTraceException {
        DType to = types.resolve(x.target, x.line);
        DType from = type(x.operand);
        DType out = to instanceof DType.Ptr p ? p.target() : to;
        if (!(out instanceof DType.Sou)) {
            throw new DTraceException("translator output type must be a struct or union", "D_XLATE_SOU", x.line);
        }
        for (Xlator t : translators) {
            DType in = t.input();
            if (t.output() == out && (in.sameAs(from) || (in.isInteger() && from.isInteger())
                    || (in.isPointer() && isNull(x.operand)))) {
                x.translator = t.decl();
                x.input = t.var();
                return to;
            }
        }
        throw new DTraceException("cannot translate from \"" + from.name() + "\" to \"" + out.name() + "\"",
                "D_XLATE_NONE", x.line);
    }

    /** dt_idkind_name of what {@code name} already names, with " inline" for an inline (null: nothing). */
    private String identifierKind(String name) {
        if (constants.containsKey(name)) {
            return inlines.contains(name) ? "scalar inline" : "enumerator ";
        }
        if (globals.containsKey(name)) {
            return globals.get(name).keyTypes != null ? "associative array " : "scalar ";
        }
        DFunction f = DFunction.byName(name, version);
        if (f != null) {
            return switch (f.kind) {
                case AGGREGATING -> "aggregating function ";
                case ACTION, DESTRUCTIVE -> "tracing function ";
                default -> "function ";
            };
        }
        BuiltinVariable b = BuiltinVariable.byName(name, version);
        if (b != null) {
            return b.isArray() ? "associative array " : "scalar ";
        }
        return null;
    }

    private void defineConstant(String name, DType t, long v, int line) throws DTraceException {
        if (constants.containsKey(name) || globals.containsKey(name)) {
            throw new DTraceException("identifier redeclared: " + name, "D_DECL_IDRED", line);
        }
        constants.put(name, new Constant(name, t, v));
    }

    // ---- clauses and statements -------------------------------------------------------------

    /**
     * A clause is checked as dt_compile_one_clause cooks it: the actions first, so that a variable
     * they declare ('x++') may be read by the predicate; when the actions name something undefined
     * and there is a predicate, once more with the predicate first (it may declare it).
     */
    private void clause(Clause c) throws DTraceException {
        clause = c;
        argTypes.checkMatches(c, zdefs);
        if (c.predicate() == null || c.body() == null) {
            predicate(c);
            if (c.body() != null) {
                statements(c.body());
            }
            return;
        }
        try {
            statements(c.body());
        } catch (DTraceException e) {
            if (!"D_IDENT_UNDEF".equals(e.tag()) && !"D_VAR_UNDEF".equals(e.tag())) {
                throw e;
            }
            predicate(c);
            statements(c.body());
            return;
        }
        predicate(c);
    }

    private void predicate(Clause c) throws DTraceException {
        if (c.predicate() != null) {
            DType t = type(c.predicate());
            notTranslatedPointer(c.predicate());
            if (!t.isScalar() && !t.isString()) {
                // dt_compile_one_clause checks it once the whole clause is read: at its end
                throw new DTraceException("predicate result must be of scalar type", "D_PRED_SCALAR", c.endLine());
            }
        }
    }

    private void statements(List<Stmt> body) throws DTraceException {
        for (Stmt s : body) {
            switch (s) {
                case Stmt.ExprStmt es -> statement(es.expr());
                case Stmt.Empty e -> { }
                case Stmt.If i -> {
                    DType t = type(i.cond());
                    if (!t.isScalar() && !t.isString()) {
                        throw new DTraceException("if condition must be of scalar type", "D_OP_SCALAR", i.line());
                    }
                    statements(i.then());
                    statements(i.otherwise());
                }
            }
        }
    }

    private void statement(Expr e) throws DTraceException {
        if (e instanceof Expr.AggRef ar && (ar.keys != null || aggs.containsKey(ar.name))) {
            // dt_cg_agg: an aggregation with no aggregating function applied does nothing (a name
            // never seen without keys is undefined; its keys alone declare it, as dt_idcook_assc does)
            throw new DTraceException("expression has null effect: @" + ar.name, "D_AGG_NULL", ar.line);
        }
        if (e instanceof Expr.Assign a && a.target instanceof Expr.Index ix && ix.base instanceof Expr.AggRef ar
                && ar.keys != null) {
            throw new DTraceException("improper attempt to reference @" + ar.name + " as a multi-dimensional array",
                    "D_AGG_MDIM", ix.line);
        }
        if (e instanceof Expr.Call c) {
            call(c, true);
        } else if (e instanceof Expr.Assign a && a.target instanceof Expr.AggRef ar) {
            aggregation(a, ar);
        } else {
            type(e);
            notTranslatedPointer(e);
        }
    }

    /**
     * dt_cg: the value of a D expression compiled on its own (a statement, a predicate, an
     * action's argument, an aggregation's key or value) may not be a translated pointer,
     * {@code xlate <T *> (e)} that no member access or dereference follows.
     */
    private static void notTranslatedPointer(Expr e) throws DTraceException {
        if (e instanceof Expr.Xlate && e.type instanceof DType.Ptr) {
            throw new DTraceException("expression cannot evaluate to result of a translated pointer", "D_CG_DYN", e.line);
        }
    }

    // ---- aggregations -----------------------------------------------------------------------

    private void aggregation(Expr.Assign a, Expr.AggRef ar) throws DTraceException {
        String shown = "@" + ar.name;
        if (a.op == AssignOp.ASSIGN && a.value instanceof Expr.Call undef && DFunction.byName(undef.name, version) == null) {
            throw new DTraceException("undefined function name: " + undef.name, "D_FUNC_UNDEF", undef.line);
        }
        if (a.op != AssignOp.ASSIGN || !(a.value instanceof Expr.Call call)
                || DFunction.byName(call.name, version) == null
                || DFunction.byName(call.name, version).kind != DFunction.Kind.AGGREGATING) {
            throw new DTraceException(shown + " must be assigned the result of an aggregating function",
                    "D_AGG_FUNC", a.line);
        }
        DFunction f = DFunction.byName(call.name, version);
        call.function = f;
        checkCount(call, f);
        for (int i = 0; i < call.args.size(); i++) {
            DType t = type(call.args.get(i));
            notTranslatedPointer(call.args.get(i));
            if (!t.isScalar() && i == 0) {
                // dt_cg_agg: the value aggregated is a number
                throw new DTraceException(f.dname + "( ) argument #1 must be of scalar type", "D_AGG_SCALAR", a.line);
            }
            if (!t.isScalar()) {
                throw protoArg(f.dname + "( )", i + 1, "int64_t", t, a.line);
            }
        }
        builtins.checkAggregatingArgs(call);
        call.type = DType.VOID;
        List<Expr> keys = ar.keys == null ? List.of() : ar.keys;
        tupleRegisters(keys);
        for (Expr k : keys) {
            DType kt = key(k);
            if (translated(k)) {
                // dt_idcook_assc: translated data has no storage of its own to copy into a key
                throw new DTraceException("translated data expression may not be used as aggregation index: key #"
                        + (keys.indexOf(k) + 1), "D_KEY_TYPE", k.line);
            }
            if (kt instanceof DType.Void || kt instanceof DType.Agg) {
                throw new DTraceException("aggregation key #" + (keys.indexOf(k) + 1) + " may not be of type "
                        + kt.name(), "D_KEY_TYPE", k.line);
            }
        }
        Variable v = aggs.get(ar.name);
        if (v == null) {
            v = new Variable(ar.name, Variable.Scope.AGGREGATION, aggs.size(), ar.line);
            v.function = f;
            v.type = DType.INT64;
            v.keyTypes = keys.stream().map(k -> k.type).toList();
            aggs.put(ar.name, v);
        } else {
            if (v.function != f) {
                throw new DTraceException("aggregation redefined: " + shown + "\n\t current: " + f.dname
                        + "( )\n\tprevious: " + v.function.dname + "( )", "D_AGG_REDEF", a.line);
            }
            checkKeys(shown, v, keys, a.line);
        }
        ar.var = v;
        ar.type = DType.AGG;
        a.type = DType.VOID;
    }

    /** Translated data: xlate's result, or the system translators' curpsinfo and curlwpsinfo themselves. */
    private static boolean translated(Expr e) {
        return e instanceof Expr.Xlate || (e instanceof Expr.Ident id
                && (id.symbol == BuiltinVariable.CURPSINFO || id.symbol == BuiltinVariable.CURLWPSINFO));
    }

    /** An aggregation key: stack(), ustack() and jstack() are stacks there, else as {@link #type}. */
    private DType key(Expr k) throws DTraceException {
        if (k instanceof Expr.Call c && DFunction.byName(c.name, version) instanceof DFunction f
                && (f == DFunction.STACK || f == DFunction.USTACK || f == DFunction.JSTACK)) {
            call(c, false);
            c.type = DType.STACK;
            return DType.STACK;
        }
        if (k instanceof Expr.Call c && DFunction.byName(c.name, version) instanceof DFunction f && f.isSymbol()) {
            return call(c, false); // the symbol of the address: the key's type is the table's _usymaddr / _symaddr
        }
        return type(k);
    }

    // ---- expressions ------------------------------------------------------------------------

    /** Types {@code e} as an rvalue, sets {@code e.type}, and returns it. */
    DType type(Expr e) throws DTraceException {
        DType t = compute(e);
        e.type = t;
        return t;
    }

    private DType compute(Expr e) throws DTraceException {
        return switch (e) {
            case Expr.IntLit i -> Types.constantType(i.value, i.form);
            case Expr.StrLit s -> DType.STRING;
            case Expr.Ident id -> identifier(id);
            case Expr.SelfVar s -> {
                Variable v = tls.get(s.name);
                if (v == null) {
                    throw undefined("self->" + s.name, s.line);
                }
                if (v.keyTypes != null) {
                    throw new DTraceException("associative array 'self->" + s.name + "' may not be referenced as scalar",
                            "D_IDENT_BADREF", s.line);
                }
                s.var = v;
                v.referenced = true;
                yield v.type;
            }
            case Expr.ThisVar s -> {
                Variable v = locals.get(s.name);
                if (v == null) {
                    throw undefined("this->" + s.name, s.line);
                }
                s.var = v;
                v.referenced = true;
                yield v.type;
            }
            case Expr.AggRef a -> {
                Variable v = aggs.get(a.name);
                if (v == null) {
                    throw undefined("@" + a.name, a.line);
                }
                if (a.keys != null) {
                    for (Expr k : a.keys) {
                        type(k);
                    }
                    checkKeys("@" + a.name, v, a.keys, a.line);
                }
                a.var = v;
                yield DType.AGG;
            }
            case Expr.Index x -> index(x, false);
            case Expr.Member m -> member(m);
            case Expr.Call c -> call(c, false);
            case Expr.Unary u -> unary(u);
            case Expr.Binary b -> binary(b);
            case Expr.Assign a -> {
                if (a.target instanceof Expr.AggRef) {
                    throw new DTraceException("aggregation assignment may only be used as a statement", "D_AGG_SCALAR", a.line);
                }
                yield assign(a);
            }
            case Expr.Ternary t -> ternary(t);
            case Expr.Cast c -> cast(c);
            case Expr.SizeofType s -> {
                DType t = types.resolve(s.target, s.line);
                if (t instanceof DType.Void || (!t.isString() && t.size() == 0)) {
                    throw new DTraceException("cannot apply sizeof to an operand of unknown size", "D_SIZEOF_TYPE", s.line);
                }
                s.resolved = t;
                yield BuiltinTypesHolder.SIZE_T;
            }
            case Expr.Offsetof o -> {
                DType t = types.resolve(o.target, o.line);
                if (!(t instanceof DType.Sou sou) || !sou.isComplete()) {
                    throw new DTraceException("offsetof operand must be a struct or union type", "D_OFFSETOF_TYPE", o.line);
                }
                DType.Member m = sou.member(o.member);
                if (m == null) {
                    throw new DTraceException("failed to determine offset of " + o.member + ": Member name not found",
                            "D_UNKNOWN", o.line);
                }
                if (m.isBitfield()) {
                    throw new DTraceException("cannot take offset of a bit-field: " + o.member, "D_OFFSETOF_BITFIELD", o.line);
                }
                o.offset = m.offset();
                yield BuiltinTypesHolder.SIZE_T;
            }
            case Expr.Xlate x -> xlate(x);
        };
    }

    private static final class BuiltinTypesHolder {
        static final DType SIZE_T = new DType.Int("size_t", 8, false);
    }

    private DType identifier(Expr.Ident id) throws DTraceException {
        if (xlateInput != null && id.name.equals(xlateInput.name)) {
            id.symbol = xlateInput;
            return xlateInput.type;
        }
        Variable param = inlineScope.get(id.name);
        if (param != null) {
            id.symbol = param;
            return param.type;
        }
        BuiltinVariable b = BuiltinVariable.byName(id.name, version);
        if (b != null) {
            if (b.access == BuiltinVariable.Access.KERNEL) {
                throw new DTraceException(b.dname() + " is not available in a user-space DTrace: it is "
                        + b.entry, "D_VAR_UNSUPP", id.line);
            }
            if (b.isArray()) {
                throw new DTraceException("array '" + b.dname() + "' may not be referenced as scalar", "D_IDENT_BADREF",
                        id.line);
            }
            id.symbol = b;
            return b.type();
        }
        Constant c = constants.get(id.name);
        if (c != null) {
            id.symbol = c;
            return c.type();
        }
        Variable v = globals.get(id.name);
        if (v == null) {
            throw undefined(id.name, id.line);
        }
        if (v.keyTypes != null) {
            throw new DTraceException("associative array '" + id.name + "' may not be referenced as scalar",
                    "D_IDENT_BADREF", id.line);
        }
        id.symbol = v;
        v.referenced = true;
        return v.type;
    }

    private static DTraceException undefined(String name, int line) {
        return new DTraceException("failed to resolve " + name + ": Unknown variable name", "D_IDENT_UNDEF", line);
    }

    /** {@code base[keys]} as an rvalue (or, with {@code creating}, the target of an assignment). */
    private DType index(Expr.Index x, boolean creatingWith) throws DTraceException {
        if (x.base instanceof Expr.AggRef ar && ar.keys != null) {
            throw new DTraceException("improper attempt to reference @" + ar.name + " as a multi-dimensional array",
                    "D_AGG_MDIM", x.line);
        }
        for (Expr k : x.keys) {
            type(k);
        }
        if (x.base instanceof Expr.Ident id) {
            BuiltinVariable b = BuiltinVariable.byName(id.name, version);
            if (b != null && b.isArray()) {
                id.symbol = b;
                id.type = b.type();
                if (x.keys.size() != 1) {
                    throw new DTraceException(id.name + "[ ] prototype mismatch: " + x.keys.size() + " "
                            + plural(x.keys.size(), "arg") + " passed, 1 expected", "D_PROTO_LEN", x.line);
                }
                Expr k = x.keys.get(0);
                if (b == BuiltinVariable.UREGS && ConstFold.value(k) == null) {
                    throw new DTraceException("uregs[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: "
                            + k.type.name(), "D_PROTO_ARG", x.line);
                }
                if (b == BuiltinVariable.UREGS && uregCount > 0 && (ConstFold.value(k) < 0 || ConstFold.value(k) >= uregCount)) {
                    // past the ISA's last register (its regs.d), as DTrace on Linux refuses it
                    throw new DTraceException("uregs[]: index out of bounds (" + ConstFold.value(k) + ")", "D_UNKNOWN", x.line);
                }
                if (!k.type.isInteger()) {
                    throw protoArg(id.name + "[ ]", 1, "int", k.type, x.line);
                }
                Long at = b == BuiltinVariable.ARGS ? ConstFold.value(k) : null;
                DType typed = at == null ? null : argTypes.type(clause, (int) Math.min(at, Integer.MAX_VALUE), x.line);
                return typed != null ? typed : b.type();
            }
            if (b != null) {
                return element(type(x.base), x); // a scalar built-in: execname[0] is a character
            }
            Variable v = globals.get(id.name);
            if (v == null) {
                throw undefined(id.name, id.line);
            }
            if (v.keyTypes == null && (!indexable(v.type) || x.keys.size() != 1)) {
                throw new DTraceException("cannot access scalar " + id.name + " as an associative array",
                        "D_ARR_BADREF", x.line);
            }
            id.symbol = v;
            v.referenced |= !creatingWith;
            if (v.keyTypes == null) {
                id.type = v.type;
                return element(v.type, x);
            }
            id.type = v.type;
            checkKeys(id.name, v, x.keys, x.line);
            tupleRegisters(x.keys);
            return v.type;
        }
        if (x.base instanceof Expr.ThisVar t && !locals.containsKey(t.name)) {
            // a new this-> variable indexed: D has no clause-local associative arrays
            throw new DTraceException("local variables may not be used as associative arrays: " + t.name,
                    "D_ARR_LOCAL", x.line);
        }
        if (x.base instanceof Expr.SelfVar s) {
            Variable v = tls.get(s.name);
            if (v == null) {
                throw undefined("self->" + s.name, s.line);
            }
            if (v.keyTypes == null && !indexable(v.type)) {
                throw new DTraceException("cannot access scalar self->" + s.name + " as an associative array",
                        "D_ARR_BADREF", x.line);
            }
            s.var = v;
            v.referenced |= !creatingWith;
            if (v.keyTypes == null) {
                s.type = v.type;
                return element(v.type, x);
            }
            s.type = v.type;
            checkKeys("self->" + s.name, v, x.keys, x.line);
            tupleRegisters(x.keys);
            return v.type;
        }
        return element(type(x.base), x);
    }

    /**
     * A key of at most ten members: dtrace assembles a tuple in its DIF tuple registers
     * (DIF_DTR_NREGS, 8), and dt_cg_arglist gives up past index 8 with EDT_NOTUPREG.
     */
    private static void tupleRegisters(List<Expr> keys) throws DTraceException {
        if (keys.size() > 9) {
            throw new DTraceException("Insufficient tuple registers to generate code");
        }
    }

    /** A scalar variable that [ ] indexes: a string (its characters), an array or a pointer. */
    private static boolean indexable(DType t) {
        return t instanceof DType.Array || t instanceof DType.Str || t instanceof DType.Ptr;
    }

    private DType element(DType bt, Expr.Index x) throws DTraceException {
        if (x.keys.size() != 1 || !x.keys.get(0).type.isInteger()) {
            throw new DTraceException("operator [ ] requires an integral index", "D_OP_INT", x.line);
        }
        if (bt instanceof DType.Ptr p) {
            return p.target();
        }
        if (bt instanceof DType.Array a) {
            Long i = ConstFold.value(x.keys.get(0));
            if (i != null && a.length() > 0 && (i < 0 || i >= a.length())) {
                throw new DTraceException("index outside array bounds: " + i + ", max is " + a.length(),
                        "D_ARR_BOUNDS", x.line);
            }
            return a.element();
        }
        if (bt instanceof DType.Str) {
            return DType.CHAR;
        }
        throw new DTraceException("operator [ ] may not be applied to operand of type \"" + bt.name() + "\"",
                "D_OP_ARRFUN", x.line);
    }

    private void checkKeys(String shown, Variable v, List<Expr> keys, int line) throws DTraceException {
        List<DType> proto = v.keyTypes;
        if (keys.size() != proto.size()) {
            throw new DTraceException(shown + "[ ] prototype mismatch: " + keys.size() + " "
                    + plural(keys.size(), "key") + " passed, " + proto.size() + " expected", "D_PROTO_LEN", line);
        }
        for (int i = 0; i < keys.size(); i++) {
            DType k = keys.get(i).type;
            if (!keyCompatible(proto.get(i), k)) {
                throw new DTraceException(shown + "[ ] key #" + (i + 1) + " is incompatible with prototype:\n\tprototype: "
                        + proto.get(i).name() + "\n\t      key: " + k.name(), "D_PROTO_ARG", line);
            }
        }
    }

    private static boolean keyCompatible(DType proto, DType k) {
        if (proto.isInteger() || proto.isPointer()) {
            return k.isInteger() || k.isPointer();
        }
        if (proto.isString()) {
            return k.isString() || k.isCharArrayOrPointer();
        }
        return proto.sameAs(k);
    }

    private static String plural(int n, String word) {
        return n == 1 ? word : word + "s";
    }

    private DType member(Expr.Member m) throws DTraceException {
        DType bt = type(m.base);
        DType sou;
        if (m.arrow) {
            if (!(bt instanceof DType.Ptr p)) {
                throw new DTraceException("operator -> must be applied to a pointer", "D_OP_PTR", m.line);
            }
            if (!(p.target() instanceof DType.Tagged) && !(p.target() instanceof DType.Sou)) {
                throw new DTraceException("operator -> cannot be applied to pointer to type \"" + p.target().name()
                        + "\"; must be applied to a struct or union pointer", "D_OP_SOU", m.line);
            }
            sou = p.target();
        } else if (!(bt instanceof DType.Tagged) && !(bt instanceof DType.Sou)) {
            throw new DTraceException("operator . cannot be applied to type \"" + bt.name()
                    + "\"; must be applied to a struct or union", "D_OP_SOU", m.line);
        } else {
            sou = bt;
        }
        if (sou instanceof DType.Sou fwd && !fwd.isComplete()) {
            throw new DTraceException("operator " + (m.arrow ? "->" : ".") + " cannot be applied to a forward declaration: no "
                    + fwd.name() + " definition is available", "D_OP_INCOMPLETE", m.line);
        }
        DType.Member mem = sou instanceof DType.Sou s ? s.member(m.member) : null;
        if (mem == null) {
            throw new DTraceException(m.member + " is not a member of " + sou.name(), "D_TYPE_MEMBER", m.line);
        }
        if ((m.base instanceof Expr.Xlate x && x.translator.members().stream().noneMatch(a -> a.member().equals(m.member)))
                || (translated(m.base) && !ProcfsTypes.converts(sou, m.member))) {
            throw new DTraceException("translator does not define conversion for member: " + m.member,
                    "D_XLATE_NOCONV", m.line);
        }
        return mem.type();
    }

    /** The member {@code m} names, once typed; null for other expressions. */
    static DType.Member memberOf(Expr e) {
        if (e instanceof Expr.Member m && m.base.type != null) {
            DType t = m.base.type instanceof DType.Ptr p ? p.target() : m.base.type;
            return t instanceof DType.Sou s ? s.member(m.member) : null;
        }
        return null;
    }

    /** An object in memory (not a dynamic variable): *p, p[i], p->m, and members and elements of those. */
    private static boolean inMemory(Expr o) {
        return switch (o) {
            case Expr.Unary u -> u.op == Expr.UnOp.DEREF;
            case Expr.Member m -> m.arrow || inMemory(m.base) || declaredObject(m.base);
            case Expr.Index x -> x.base.type instanceof DType.Ptr
                    || (x.base.type instanceof DType.Array && (inMemory(x.base) || declaredObject(x.base)));
            default -> false;
        };
    }

    /**
     * A variable whose value is an object in D's memory (a struct, union or non-char array, not
     * an associative array): the variable itself is no lvalue for &amp; (D_ADDROF_VAR), but its
     * members and elements are objects with addresses (&amp;a[0], &amp;s.m), as in DTrace.
     */
    private static boolean declaredObject(Expr e) {
        Variable v = switch (e) {
            case Expr.Ident id when id.symbol instanceof Variable var -> var;
            case Expr.ThisVar t -> t.var;
            case Expr.SelfVar t -> t.var;
            default -> null;
        };
        if (v == null || v.keyTypes != null) {
            return false;
        }
        // a declared global char array too (ExprLowering.memoryCharArray): &a[i] is its element's address
        return v.type instanceof DType.Sou || v.type instanceof DType.Array && (!v.type.isCharArray() || e instanceof Expr.Ident);
    }

    // ---- operators ----------------------------------------------------------------------------

    private DType unary(Expr.Unary u) throws DTraceException {
        String op = u.op.spelling;
        switch (u.op) {
            case SIZEOF -> {
                DType t = type(u.operand);
                DType.Member bf = memberOf(u.operand);
                if (bf != null && bf.isBitfield()) {
                    throw new DTraceException("cannot apply sizeof to a bit-field", "D_SIZEOF_BITFIELD", u.line);
                }
                if (t instanceof DType.Void || t.size() == 0 && !t.isString()) {
                    throw new DTraceException("cannot apply sizeof to an operand of unknown size", "D_SIZEOF_TYPE", u.line);
                }
                return BuiltinTypesHolder.SIZE_T;
            }
            case STRINGOF -> {
                DType t = type(u.operand);
                // dt_cook_op1: a scalar, a pointer, or what is string-compatible (a string, a char array)
                if (!t.isScalar() && !t.isString() && !t.isCharArray()) {
                    throw new DTraceException("cannot apply stringof to a value of type " + t.name(), "D_STRINGOF_TYPE", u.line);
                }
                return DType.STRING;
            }
            case PRE_INC, PRE_DEC, POST_INC, POST_DEC -> {
                DType t = lvalueType(u.operand, op);
                if (!t.isScalar()) {
                    throw new DTraceException("operator " + op + " requires operand of scalar type", "D_OP_SCALAR", u.line);
                }
                return t;
            }
            case NOT -> {
                DType t = type(u.operand);
                if (!t.isScalar()) {
                    throw new DTraceException("operator ! requires an operand of scalar type", "D_OP_SCALAR", u.line);
                }
                return DType.INT;
            }
            case BITNOT -> {
                DType t = type(u.operand);
                if (!(t instanceof DType.Int i)) {
                    throw new DTraceException("operator ~ requires an operand of integral type", "D_OP_INT", u.line);
                }
                return i;
            }
            case NEG, PLUS -> {
                DType t = type(u.operand);
                if (!(t instanceof DType.Int i)) {
                    throw new DTraceException("operator " + op + " requires an operand of arithmetic type", "D_OP_ARITH", u.line);
                }
                return i;
            }
            case DEREF -> {
                DType t = type(u.operand);
                if (t instanceof DType.Ptr p) {
                    if (p.target() instanceof DType.Void) {
                        throw new DTraceException("cannot dereference pointer to void", "D_DEREF_VOID", u.line);
                    }
                    return p.target();
                }
                if (t instanceof DType.Array a) {
                    return a.element();
                }
                throw new DTraceException("cannot dereference non-pointer type", "D_DEREF_NONPTR", u.line);
            }
            case ADDROF -> {
                Expr o = u.operand;
                DType t = type(o);
                DType.Member field = memberOf(o);
                if (field != null && field.isBitfield()) {
                    throw new DTraceException("cannot take address of bit-field", "D_ADDROF_BITFIELD", u.line);
                }
                if (!inMemory(o) && (o instanceof Expr.Ident || o instanceof Expr.SelfVar || o instanceof Expr.ThisVar
                        || o instanceof Expr.AggRef
                        || (o instanceof Expr.Index ix && (ix.base instanceof Expr.Ident || ix.base instanceof Expr.SelfVar)))) {
                    throw new DTraceException("cannot take address of dynamic variable", "D_ADDROF_VAR", u.line);
                }
                if (!inMemory(o)) {
                    if (o instanceof Expr.Member || o instanceof Expr.Index) {
                        throw new DTraceException("cannot take address of dynamic variable", "D_ADDROF_VAR", u.line);
                    }
                    throw new DTraceException("unacceptable operand for unary & operator", "D_ADDROF_LVAL", u.line);
                }
                return new DType.Ptr(t);
            }
        }
        throw new IllegalStateException(u.op.toString());
    }

    /** The type of an existing modifiable variable, for ++/-- and compound assignment. */
    private DType lvalueType(Expr o, String op) throws DTraceException {
        if (o instanceof Expr.Ident id && (BuiltinVariable.byName(id.name, version) != null || constants.containsKey(id.name))) {
            type(o);
            throw new DTraceException("operator " + op + " can only be applied to a writable variable", "D_OP_WRITE", o.line);
        }
        if (!(o instanceof Expr.Ident || o instanceof Expr.SelfVar || o instanceof Expr.ThisVar
                || o instanceof Expr.Index || o instanceof Expr.Member
                || (o instanceof Expr.Unary du && du.op == Expr.UnOp.DEREF))) {
            type(o);
            throw new DTraceException("operator " + op + " requires modifiable lvalue as an operand", "D_OP_LVAL", o.line);
        }
        if (o instanceof Expr.Index ix && ix.base instanceof Expr.Ident bid && BuiltinVariable.byName(bid.name, version) != null) {
            type(o);
            throw new DTraceException("operator " + op + " can only be applied to a writable variable", "D_OP_WRITE", o.line);
        }
        // ++ and -- declare a variable not seen before as an int64_t, as dtrace does (dt_cook_op1 cooks
        // the operand without DT_IDFLG_REF); a compound assignment reads it first (dt_cook_op2 cooks
        // its left with DT_IDFLG_REF | DT_IDFLG_MOD), so there a variable never assigned is D_VAR_UNDEF
        if (!op.equals("++") && !op.equals("--")) {
            String undeclared = switch (o) {
                case Expr.Ident id when !globals.containsKey(id.name) -> id.name;
                case Expr.SelfVar sv when !tls.containsKey(sv.name) -> "self->" + sv.name;
                case Expr.ThisVar tv when !locals.containsKey(tv.name) -> "this->" + tv.name;
                case Expr.Index ix when ix.base instanceof Expr.Ident bid && !globals.containsKey(bid.name) -> bid.name;
                default -> null;
            };
            if (undeclared != null) {
                throw new DTraceException(undeclared + " has not yet been declared or assigned", "D_VAR_UNDEF", o.line);
            }
        }
        switch (o) {
            case Expr.Ident id when !globals.containsKey(id.name) ->
                    newVariable(globals, id.name, Variable.Scope.GLOBAL, id.line, DType.INT64);
            case Expr.SelfVar sv when !tls.containsKey(sv.name) ->
                    newVariable(tls, sv.name, Variable.Scope.THREAD_LOCAL, sv.line, DType.INT64);
            case Expr.ThisVar tv when !locals.containsKey(tv.name) ->
                    newVariable(locals, tv.name, Variable.Scope.CLAUSE_LOCAL, tv.line, DType.INT64);
            case Expr.Index ix when ix.base instanceof Expr.Ident bid && !globals.containsKey(bid.name) -> {
                for (Expr k : ix.keys) {
                    type(k);
                }
                Variable v = newVariable(globals, bid.name, Variable.Scope.GLOBAL, ix.line, DType.INT64);
                v.keyTypes = ix.keys.stream().map(k -> k.type).map(Checker::keyType).toList();
            }
            default -> { }
        }
        return type(o);
    }

    private DType binary(Expr.Binary b) throws DTraceException {
        DType l = type(b.left);
        DType r = type(b.right);
        String op = b.op.spelling;
        switch (b.op) {
            case COMMA -> {
                return r;
            }
            case LAND, LOR, LXOR -> {
                if (!l.isScalar() || !r.isScalar()) {
                    throw new DTraceException("operator " + op + " requires operands of scalar type", "D_OP_SCALAR", b.line);
                }
                return DType.INT;
            }
            case LT, LE, GT, GE, EQ, NE -> {
                boolean ok = (l.isScalar() && r.isScalar())
                        || ((l.isString() || l.isCharArrayOrPointer()) && (r.isString() || r.isCharArrayOrPointer()))
                        || (l.isString() && isNull(b.right)) || (r.isString() && isNull(b.left));
                if (!ok) {
                    throw incompatible(l, op, r, b.line);
                }
                return DType.INT;
            }
            case MOD, SHL, SHR, BITAND, BITOR, BITXOR -> {
                if (!(l instanceof DType.Int li) || !(r instanceof DType.Int ri)) {
                    throw new DTraceException("operator " + op + " requires operands of integral type", "D_OP_INT", b.line);
                }
                checkDivisor(b);
                return Types.arithmetic(li, ri);
            }
            case MUL, DIV -> {
                if (!(l instanceof DType.Int li) || !(r instanceof DType.Int ri)) {
                    throw new DTraceException("operator " + op + " requires operands of arithmetic type", "D_OP_ARITH", b.line);
                }
                checkDivisor(b);
                return Types.arithmetic(li, ri);
            }
            case ADD, SUB -> {
                if (l instanceof DType.Int li && r instanceof DType.Int ri) {
                    return Types.arithmetic(li, ri);
                }
                // dt_cook_op2 treats a string as a pointer to its characters: s + n is the string n on
                if ((l.isString() && r.isInteger()) || (b.op == BinOp.ADD && l.isInteger() && r.isString())) {
                    return DType.STRING;
                }
                if (l instanceof DType.Ptr p && r.isInteger()) {
                    if (p.target() instanceof DType.Void) {
                        throw incompatible(l, op, r, b.line);
                    }
                    return l;
                }
                if (b.op == BinOp.ADD && l.isInteger() && r instanceof DType.Ptr p && !(p.target() instanceof DType.Void)) {
                    return r;
                }
                if (b.op == BinOp.SUB && l instanceof DType.Ptr && r instanceof DType.Ptr && l.sameAs(r)) {
                    return DType.LONG;
                }
                // dt_cook_op2: + and - on anything else are operands of incompatible types
                throw incompatible(l, op, r, b.line);
            }
        }
        throw new IllegalStateException(b.op.toString());
    }

    private static void checkDivisor(Expr.Binary b) throws DTraceException {
        if ((b.op == BinOp.DIV || b.op == BinOp.MOD) && Long.valueOf(0).equals(ConstFold.value(b.right))) {
            throw new DTraceException("expression contains division by zero",
                    "D_DIV_ZERO", b.line);
        }
    }

    private static DTraceException incompatible(DType l, String op, DType r, int line) {
        return new DTraceException("operands have incompatible types: \"" + l.name() + "\" " + op + " \"" + r.name() + "\"",
                "D_OP_INCOMPAT", line);
    }

    private DType ternary(Expr.Ternary t) throws DTraceException {
        DType c = type(t.cond);
        if (!c.isScalar()) {
            throw new DTraceException("operator ?: expression must be of scalar type", "D_OP_SCALAR", t.line);
        }
        // both sides are cooked (their own errors first), then checked for actions (dt_cook_op3)
        DType a = type(t.then);
        DType b = type(t.otherwise);
        for (Expr branch : List.of(t.then, t.otherwise)) {
            if (branch instanceof Expr.Call call && DFunction.byName(call.name, version) != null
                    && DFunction.byName(call.name, version).isAction()) {
                throw new DTraceException("action cannot be used in a conditional context", "D_OP_ACT", t.line);
            }
        }
        if (a instanceof DType.Int ai && b instanceof DType.Int bi) {
            return Types.arithmetic(ai, bi);
        }
        if (a.isString() && b.isString() || a.sameAs(b)) {
            return a;
        }
        if ((a.isString() || a.isCharArrayOrPointer()) && (b.isString() || b.isCharArrayOrPointer())) {
            return DType.STRING;
        }
        // a pointer or a string beside a null pointer constant (p ? p : NULL)
        if ((a.isPointer() || a.isString()) && isNull(t.otherwise)) return a;
        if ((b.isPointer() || b.isString()) && isNull(t.then)) return b;
        throw new DTraceException("operator ?: operands must have compatible types", "D_OP_INCOMPAT", t.line);
    }

    private DType cast(Expr.Cast c) throws DTraceException {
        DType to = types.resolve(c.target, c.line);
        DType from = type(c.operand);
        if (c.operand instanceof Expr.Xlate && !(to instanceof DType.Void)) {
            // translated data has no storage of its own: it cannot be reinterpreted (dt_cook_op2's cast check)
            throw new DTraceException("invalid cast expression: \"" + (from.isPointer() ? "pointer to translated data"
                    : "translated data") + "\" to \"" + to.name() + "\"", "D_CAST_INVAL", c.line);
        }
        // (string) of a void * (an alloca()'d buffer, say) reads the string it points to, as of a char *
        boolean ok = (to.isScalar() && from.isScalar()) || (to.isString() && (from.isString() || from.isCharArrayOrPointer()
                        || (from instanceof DType.Ptr vp && vp.target() instanceof DType.Void)))
                || (to.isPointer() && from instanceof DType.Array)
                || (to instanceof DType.Sou && to.sameAs(from))
                || to instanceof DType.Void;
        if (!ok) {
            throw new DTraceException("invalid cast expression: \"" + from.name() + "\" to \"" + to.name() + "\"",
                    "D_CAST_INVAL", c.line);
        }
        return to;
    }

    // ---- assignment ---------------------------------------------------------------------------

    private DType assign(Expr.Assign a) throws DTraceException {
        String op = a.op.spelling;
        if (a.op != AssignOp.ASSIGN) {
            DType t = lvalueType(a.target, op);
            DType v = type(a.value);
            boolean ok = (t.isInteger() && v.isInteger())
                    || (t.isPointer() && v.isInteger() && (a.op == AssignOp.ADD || a.op == AssignOp.SUB));
            // dt_cook_op2's += and -=: unless both are integers, the left must be a pointer to
            // an object of known size (no string, no void *)
            boolean additive = a.op == AssignOp.ADD || a.op == AssignOp.SUB;
            if (additive && !t.isString() && !v.isString() && !(t.isInteger() && v.isInteger())
                    && (!t.isPointer() || (t instanceof DType.Ptr p && p.target() instanceof DType.Void))) {
                throw new DTraceException("operator " + op + " requires left-hand scalar operand of known size",
                        "D_OP_VFPTR", a.line);
            }
            if (!ok) {
                throw incompatible(t, op, v, a.line);
            }
            return t;
        }
        DType v = type(a.value);
        if (v instanceof DType.Void || v instanceof DType.Agg) {
            throw new DTraceException("operator = requires an operand of non-void type", "D_OP_VOID", a.line);
        }
        Expr target = a.target;
        switch (target) {
            case Expr.Ident id -> {
                if (BuiltinVariable.byName(id.name, version) != null || constants.containsKey(id.name)) {
                    throw new DTraceException("operator = can only be applied to a writable variable", "D_OP_WRITE", a.line);
                }
                Variable var = globals.get(id.name);
                if (var == null) {
                    var = newVariable(globals, id.name, Variable.Scope.GLOBAL, id.line, v);
                } else if (var.keyTypes != null) {
                    throw new DTraceException("associative array '" + id.name + "' may not be referenced as scalar",
                            "D_IDENT_BADREF", id.line);
                }
                retype(var, a.value, v);
                id.symbol = var;
                DType t = store(target, a.value, var.type, v, a.line);
                allocaStore(var, id.name, a);
                return t;
            }
            case Expr.SelfVar s -> {
                Variable var = tls.computeIfAbsent(s.name, n -> fresh(n, Variable.Scope.THREAD_LOCAL, tls.size(), s.line, v));
                retype(var, a.value, v);
                s.var = var;
                DType t = store(target, a.value, var.type, v, a.line);
                allocaStore(var, "self->" + s.name, a);
                return t;
            }
            case Expr.ThisVar s -> {
                Variable var = locals.computeIfAbsent(s.name, n -> fresh(n, Variable.Scope.CLAUSE_LOCAL, locals.size(), s.line, v));
                retype(var, a.value, v);
                s.var = var;
                DType t = store(target, a.value, var.type, v, a.line);
                allocaStore(var, "this->" + s.name, a);
                return t;
            }
            case Expr.Index x when x.base instanceof Expr.Ident || x.base instanceof Expr.SelfVar -> {
                String name = x.base instanceof Expr.Ident id ? id.name : ((Expr.SelfVar) x.base).name;
                boolean self = x.base instanceof Expr.SelfVar;
                Map<String, Variable> table = self ? tls : globals;
                if (!self && (BuiltinVariable.byName(name, version) != null
                        || (table.get(name) instanceof Variable iv && iv.inlineBody != null))) {
                    throw new DTraceException("operator = can only be applied to a writable variable", "D_OP_WRITE", a.line);
                }
                if (!table.containsKey(name)) {
                    for (Expr k : x.keys) {
                        DType kt = type(k);
                        if (kt instanceof DType.Void || kt instanceof DType.Agg) {
                            throw new DTraceException("associative array key may not be of type " + kt.name(), "D_KEY_TYPE", k.line);
                        }
                    }
                    Variable var = fresh(name, self ? Variable.Scope.THREAD_LOCAL : Variable.Scope.GLOBAL, table.size(), x.line, v);
                    var.keyTypes = x.keys.stream().map(k -> k.type).map(Checker::keyType).toList();
                    table.put(name, var);
                }
                DType et = index(x, true);
                x.type = et;
                return store(target, a.value, et, v, a.line);
            }
            default -> {
                DType t = type(target);
                if (!(target instanceof Expr.Unary du && du.op == Expr.UnOp.DEREF) && !(target instanceof Expr.Index)
                        && !(target instanceof Expr.Member)) {
                    throw new DTraceException("operator = requires modifiable lvalue as an operand", "D_OP_LVAL", a.line);
                }
                return store(target, a.value, t, v, a.line);
            }
        }
    }

    /**
     * An inline array ({@code inline int f[int x, int y] = x + y;}): a name whose uses
     * {@code f[1, 2]} stand for the expression with the parameters bound to the keys, checked
     * against the parameter types as an associative array's keys are (D_PROTO_LEN, D_PROTO_ARG).
     * The expression is typed once, with the parameters of their declared types.
     */
    private void inlineArray(Decl d, DType t) throws DTraceException {
        Variable v = new Variable(d.name(), Variable.Scope.GLOBAL, -1, d.line());
        v.type = t;
        v.declared = true;
        v.keyTypes = new ArrayList<>();
        v.inlineParams = new ArrayList<>();
        for (int i = 0; i < d.keys().size(); i++) {
            DType kt = types.resolve(d.keys().get(i), d.line());
            v.keyTypes.add(kt);
            String pname = d.params() == null ? null : d.params().get(i);
            Variable p = new Variable(pname == null ? "" : pname, Variable.Scope.GLOBAL, -1, d.line());
            p.type = kt;
            p.declared = true;
            v.inlineParams.add(p);
            if (pname != null) inlineScope.put(pname, p);
        }
        DType vt;
        try {
            vt = type(d.init());
        } finally {
            inlineScope.clear();
        }
        if (!argCompatible(t, d.init(), vt)) throw inlineIncompatible(d, t, vt);
        v.inlineBody = d.init();
        globals.put(d.name(), v);
    }

    private static DTraceException inlineIncompatible(Decl d, DType t, DType vt) {
        return new DTraceException("inline " + d.name() + " definition uses incompatible types: \""
                + t.name() + "\" = \"" + vt.name() + "\"", "D_OP_INCOMPAT", d.line());
    }

    /** The enumerators of enum type {@code name} ({@code enum eh}) by value, as declared. */
    java.util.Map<Long, String> enumerators(String name) {
        java.util.Map<Long, String> m = new java.util.HashMap<>();
        for (Constant c : constants.values()) {
            if (!inlines.contains(c.name()) && c.type() instanceof DType.Int i && i.name().equals(name)) {
                m.putIfAbsent(c.value(), c.name());
            }
        }
        return m;
    }

    /** Where a pointer value comes from, for D_ALLOCA_INCOMPAT (see allocaStore). */
    private enum Origin { ALLOCA, OTHER, NONE, MIXED }

    /**
     * DTrace on Linux keeps alloca()'d memory apart from every other: a variable that holds an
     * alloca() pointer may not hold any other pointer, nor the other way round, in any clause
     * (NULL fits both), and a ?: whose one branch is an alloca() pointer and the other another
     * pointer cannot be stored in a variable at all: both are D_ALLOCA_INCOMPAT at the store.
     */
    private static void allocaStore(Variable var, String name, Expr.Assign a) throws DTraceException {
        if (a.value.type == null || !a.value.type.isPointer()) return;
        Origin o = origin(a.value);
        if (o == Origin.MIXED) {
            throw new DTraceException("ternary conditional with alloca and non-alloca branches cannot be assigned to a variable",
                    "D_ALLOCA_INCOMPAT", a.line);
        }
        if (o == Origin.NONE) return;
        boolean alloca = o == Origin.ALLOCA;
        if (var.alloca == null) {
            var.alloca = alloca;
        } else if (var.alloca != alloca) {
            throw new DTraceException(name + ": cannot reuse the same identifier for both alloca and non-alloca allocations",
                    "D_ALLOCA_INCOMPAT", a.line);
        }
    }

    private static Origin origin(Expr e) {
        Object c = ConstFold.value(e);
        if (Long.valueOf(0).equals(c)) return Origin.NONE; // NULL, or another 0
        return switch (e) {
            case Expr.Call call when call.name.equals("alloca") -> Origin.ALLOCA;
            case Expr.Cast x -> origin(x.operand);
            case Expr.Assign x -> origin(x.value);
            case Expr.Ident id when id.symbol instanceof Variable v && v.alloca != null -> v.alloca ? Origin.ALLOCA : Origin.OTHER;
            case Expr.SelfVar s when s.var != null && s.var.alloca != null -> s.var.alloca ? Origin.ALLOCA : Origin.OTHER;
            case Expr.ThisVar s when s.var != null && s.var.alloca != null -> s.var.alloca ? Origin.ALLOCA : Origin.OTHER;
            case Expr.Ident id when id.symbol instanceof Variable -> Origin.NONE;
            case Expr.SelfVar s -> Origin.NONE;
            case Expr.ThisVar s -> Origin.NONE;
            case Expr.Binary b when (b.op == Expr.BinOp.ADD || b.op == Expr.BinOp.SUB) ->
                    b.left.type != null && b.left.type.isPointer() ? origin(b.left) : origin(b.right);
            case Expr.Unary u when u.op == Expr.UnOp.ADDROF && u.operand instanceof Expr.Index x -> origin(x.base);
            case Expr.Unary u when u.op == Expr.UnOp.ADDROF && u.operand instanceof Expr.Member m && m.arrow -> origin(m.base);
            case Expr.Ternary t -> {
                Origin l = origin(t.then), r = origin(t.otherwise);
                if (l == r || r == Origin.NONE) yield l;
                if (l == Origin.NONE) yield r;
                yield Origin.MIXED;
            }
            default -> Origin.OTHER;
        };
    }

    private static DType keyType(DType t) {
        return t.isCharArrayOrPointer() && !(t instanceof DType.Ptr) ? DType.STRING : t;
    }

    private Variable newVariable(Map<String, Variable> table, String name, Variable.Scope scope, int line, DType v) {
        Variable var = fresh(name, scope, table.size(), line, v);
        table.put(name, var);
        return var;
    }

    /**
     * dt_cook_op2's assignment to a variable dt_ident_unref finds unreferenced (made by an
     * assignment, not declared, not read since): its type becomes the value's. Here among
     * integers and pointers, whose values share one 64-bit slot, so that the stores already
     * checked keep their meaning; any other variable keeps the type its first value gave it, and
     * a pointer stays one when NULL is stored in it (the alloca() tests' {@code s = NULL; *s = 4;}).
     * Scalars only: an associative array keeps the type of its first element's value, as the
     * suite's err.D_OP_INCOMPAT.dupgtype has it ({@code x[123] = curthread; x[456] = pid;}).
     */
    private static void retype(Variable var, Expr valueExpr, DType value) {
        if (!var.declared && !var.referenced && var.inlineBody == null && scalarSlot(var.type) && scalarSlot(value)
                && !(var.type.isPointer() && isNull(valueExpr))) {
            var.type = value;
        }
    }

    private static boolean scalarSlot(DType t) {
        return t != null && (t.isInteger() || t.isPointer());
    }

    private static Variable fresh(String name, Variable.Scope scope, int id, int line, DType valueType) {
        Variable var = new Variable(name, scope, id, line);
        var.type = valueType.isCharArray() ? DType.STRING : valueType;
        return var;
    }

    private DType store(Expr target, Expr value, DType t, DType v, int line) throws DTraceException {
        target.type = t;
        if (t instanceof DType.Array) {
            throw new DTraceException("operator = may not be applied to operand of type \"" + t.name() + "\"", "D_OP_ARRFUN", line);
        }
        if (!assignable(t, value, v)) {
            throw incompatible(t, "=", v, line);
        }
        return t;
    }

    private static boolean isNull(Expr e) {
        return ConstFold.isNull(e);
    }

    /** assignable(), or a null pointer constant given to a pointer or a string. */
    private static boolean assignable(DType to, Expr value, DType from) {
        return assignable(to, from) || ((to.isString() || to.isPointer()) && isNull(value));
    }

    /**
     * dt_node_is_argcompat, which an inline's definition and a translator member's expression
     * must satisfy (D_OP_INCOMPAT, D_XLATE_INCOMPAT): integers with integers, strings with
     * strings, char arrays and char pointers, a struct or union with the same one, and otherwise
     * pointers as dt_node_is_ptrcompat has them: the pointed-to types the same (void * with any),
     * an array as the pointer to its first element, an integer only as the constant 0.
     */
    private static boolean argCompatible(DType to, Expr value, DType from) {
        if (to.isInteger() && from.isInteger()) return true;
        if (stringCompatible(to) && stringCompatible(from)) return true;
        if (to instanceof DType.Stack || to instanceof DType.Agg || to.isSou()) return to.sameAs(from);
        DType lt = pointee(to), rt = pointee(from);
        if (lt == null) return to.sameAs(from) || (to.isString() && isNull(value));
        if (rt == null) return from.isInteger() && isNull(value);
        return lt.sameAs(rt) || lt instanceof DType.Void || rt instanceof DType.Void;
    }

    /** dt_node_is_strcompat: a string, or a char array or pointer. */
    private static boolean stringCompatible(DType t) {
        return t.isString() || t.isCharArrayOrPointer();
    }

    /** What a pointer points to, or an array's element (its decayed pointer's target); null for others. */
    private static DType pointee(DType t) {
        return t instanceof DType.Ptr p ? p.target() : t instanceof DType.Array a ? a.element() : null;
    }

    private static boolean assignable(DType to, DType from) {
        if (to.isInteger()) {
            return from.isInteger();
        }
        if (to.isString()) {
            // void * covers NULL, which leaves the string empty
            return from.isString() || from.isCharArrayOrPointer()
                    || (from instanceof DType.Ptr p && p.target() instanceof DType.Void);
        }
        if (to.isPointer()) {
            // an array is the address of its first element (K&R A7.1); a string is compatible
            // with a char * (dt_node_is_argcompat: both are dt_node_is_strcompat)
            return from.isPointer() || from.isInteger() || from instanceof DType.Array
                    || (from.isString() && to.isCharArrayOrPointer());
        }
        return to.sameAs(from);
    }

    // ---- calls ----------------------------------------------------------------------------------

    private DType call(Expr.Call c, boolean statement) throws DTraceException {
        DFunction f = DFunction.byName(c.name, version);
        if (f == null) {
            throw new DTraceException("undefined function name: " + c.name, "D_FUNC_UNDEF", c.line);
        }
        c.function = f;
        if (f.kind == DFunction.Kind.AGGREGATING && statement) {
            // dt_cg_call_subr: a statement of its own is code for a D expression
            throw new DTraceException("aggregating function " + f.dname + "( ) may not be called from a D expression "
                    + "(D program context required)", "D_CG_EXPR", c.line);
        }
        if (f.kind == DFunction.Kind.AGGREGATING) {
            throw new DTraceException(f.dname + "( ) may only be used as the value of an aggregation", "D_AGG_FUNC", c.line);
        }
        checkCount(c, f);
        if (f.kind == DFunction.Kind.KERNEL) {
            // an argument of the wrong type is refused as cooking refuses it (D_PROTO_ARG); any
            // other trouble with the arguments (a name of the kernel's) gives way to the refusal
            try {
                builtins.check(this, c, formats);
            } catch (DTraceException e) {
                if ("D_PROTO_ARG".equals(e.tag())) throw e;
            }
            throw new DTraceException(f.dname + "( ) is not available in a user-space DTrace: it reads "
                    + f.kernelObject, "D_FUNC_UNDEF", c.line);
        }
        if (!statement && (f == DFunction.PRINTF || f == DFunction.SYSTEM || f == DFunction.FREOPEN)) {
            // an action used as a value is only cooked (dt_cook_func): its arguments typed, its
            // format left unchecked (dt_action_printf validates statements), its value void
            for (Expr a : c.args) {
                type(a);
            }
            c.type = DType.VOID;
            return DType.VOID;
        }
        DType t = builtins.check(this, c, formats);
        c.type = t;
        if (statement && (f.kind == DFunction.Kind.ACTION || f.kind == DFunction.Kind.DESTRUCTIVE)) {
            for (Expr a : c.args) notTranslatedPointer(a);
        }
        return t;
    }

    static void checkCount(Expr.Call c, DFunction f) throws DTraceException {
        int n = c.args.size();
        if (n >= f.minArgs && (f.maxArgs < 0 || n <= f.maxArgs)) {
            return;
        }
        String expected;
        if (f.minArgs == f.maxArgs) {
            expected = Integer.toString(f.minArgs);
        } else if (n < f.minArgs) {
            expected = "at least " + f.minArgs;
        } else {
            expected = "at most " + f.maxArgs;
        }
        throw new DTraceException(f.dname + "( ) prototype mismatch: " + n + " " + plural(n, "arg") + " passed, "
                + expected + " expected", "D_PROTO_LEN", c.line);
    }

    static DTraceException protoArg(String fn, int argNo, String proto, DType got, int line) {
        return new DTraceException(fn + " argument #" + argNo + " is incompatible with prototype:\n\tprototype: "
                + proto + "\n\t argument: " + ctfName(got), "D_PROTO_ARG", line);
    }

    /** A type's name as ctf_type_name gives it: an anonymous struct or union is "struct ". */
    static String ctfName(DType t) {
        return t.ctfName();
    }
}
