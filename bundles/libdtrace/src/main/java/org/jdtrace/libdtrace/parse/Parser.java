package org.jdtrace.libdtrace.parse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.BuiltinTypes;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.Decl;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.Expr.AssignOp;
import org.jdtrace.libdtrace.ast.Expr.BinOp;
import org.jdtrace.libdtrace.ast.Expr.UnOp;
import org.jdtrace.libdtrace.ast.IntegerFolding;
import org.jdtrace.libdtrace.ast.Pragma;
import org.jdtrace.libdtrace.ast.ProbeSpec;
import org.jdtrace.libdtrace.ast.Script;
import org.jdtrace.libdtrace.ast.Stmt;
import org.jdtrace.libdtrace.ast.TopLevel;
import org.jdtrace.libdtrace.ast.Translator;
import org.jdtrace.libdtrace.ast.TypeName;
import org.jdtrace.libdtrace.lex.Lexer;
import org.jdtrace.libdtrace.lex.Macros;
import org.jdtrace.libdtrace.lex.Token;
import org.jdtrace.libdtrace.lex.TokenKind;
import org.jdtrace.libdtrace.rt.Options;
import org.jdtrace.spi.ProbeDescription;

/**
 * The D parser (dt_grammar.y's job): recursive descent with C's precedence, one token of
 * lookahead, building the {@link org.jdtrace.libdtrace.ast} tree.
 *
 * <p>Grammar, lowest precedence first (all binary levels left-associative):
 * <pre>
 * program     := (control-line | declaration | clause)*
 * clause      := pspec (',' pspec)* ['/' expression '/'] ['{' statements '}']
 * statements  := (';' | expression (';' | before '}') | 'if' '(' expr ')' stmt-or-block ['else' ...])*
 * expression  := assignment (',' assignment)*
 * assignment  := conditional | unary ASSIGN-OP assignment          (right-associative)
 * conditional := lor ['?' expression ':' conditional]
 * lor := lxor ('||' lxor)*   lxor := land ('^^' land)*   land := bor ('&&' bor)*
 * bor := bxor ('|' ...)* ; bxor ('^') ; band ('&') ; equality (== !=) ; relational (&lt; &lt;= &gt; &gt;=) ;
 * shift (&lt;&lt; &gt;&gt;) ; additive (+ -) ; multiplicative (* / %) ; cast
 * cast        := '(' type-name ')' cast | unary
 * unary       := ('++'|'--') unary | ('&amp;'|'*'|'+'|'-'|'~'|'!') cast | 'sizeof' unary
 *              | 'sizeof' '(' type-name ')' | 'stringof' unary | postfix
 * postfix     := primary ('[' args ']' | '(' args ')' | '.' id | '->' id | '++' | '--')*
 * primary     := id | int | char | string | '@'[name] | 'self' | 'this' | '(' expression ')'
 *              | 'offsetof' '(' type-name ',' id ')' | 'xlate' '&lt;' type-name '&gt;' '(' expression ')'
 * </pre>
 * As in dtrace, a '/' inside a predicate ends it when the next non-blank character is end of input,
 * ';', '{' or '/'; otherwise it divides. In a script read from a file a clause must have a predicate
 * or a body ("expected predicate and/or actions following probe description"); from -n strings it
 * need not. Errors are {@link DTraceException}s with tag D_SYNTAX and dtrace's wording
 * ({@code syntax error near "}"}, {@code syntax error near end of input}).
 *
 * <p>As dt_node_op3 does, a {@code ?:} whose condition is an integer constant when it is parsed
 * (literals, macro arguments, the operators over them, integer inlines declared before it) is
 * the branch it selects: the other is dropped unchecked, so {@code OPT ? printf("y") : 1;} is
 * the action statement {@code printf("y");} when OPT is 1. A {@code #pragma D option} takes
 * effect where it stands, as dt_pragma_option sets it while the lexer reads the program: it is
 * set on the session's options then, and the compile-time ones the lexer and parser read
 * (defaultargs, pspec, empty) apply from the next token on.
 */
public final class Parser {

    private static final Set<String> RESERVED = Set.of("auto", "break", "case", "char", "const",
            "continue", "counter", "default", "do", "double", "else", "enum", "extern", "float", "for",
            "goto", "if", "import", "inline", "int", "long", "offsetof", "probe", "provider", "register",
            "restrict", "return", "self", "short", "signed", "sizeof", "static", "string", "stringof",
            "struct", "switch", "this", "translator", "typedef", "union", "unsigned", "void", "volatile",
            "while", "xlate");

    private static final Set<String> TYPE_KEYWORDS = Set.of("void", "char", "short", "int", "long",
            "float", "double", "signed", "unsigned", "string", "struct", "union", "enum", "const",
            "volatile", "restrict");

    private final String sourceName;
    private final boolean fromFile;
    private final Set<String> typedefs = new HashSet<>();
    /** struct and union tags given a body so far ("struct s"), for the translator checks. */
    private final Set<String> definedTags = new HashSet<>();
    /** How many struct, union and enum bodies have been parsed (typeName's test for one). */
    private int tagBodies;
    /** Whether specifiers() is reading a type name's (typeName). */
    private boolean inTypeName;
    private final Lexer lexer;
    private Lexer.Mode mode = Lexer.Mode.TOP;
    private Token tok;
    /** The mode tok was lexed in, and the two tokens before it with prev's mode (endOfInput()). */
    private Lexer.Mode tokMode = Lexer.Mode.TOP, prevMode;
    private Token prev, prev2;
    /**
     * Identifiers dtrace's lexer has interned as such so far (pcb_idents): one followed by =, [,
     * ;, ++ or --, which its peek takes for a variable being made (see endOfInput()).
     */
    private final Set<String> interned = new HashSet<>();
    private boolean inPredicate;
    /** Control lines met inside clause bodies; they join the program after the clause. */
    private final List<Pragma> innerPragmas = new ArrayList<>();
    /**
     * Structs, unions and enums defined inside a type name ({@code sizeof (struct { int a; })},
     * a cast): D's type_name takes a struct_or_union_specifier with its body, which dt_decl adds
     * to the program's types as any declaration does. Declared before the item they occur in.
     */
    private final List<Decl> typeNameTags = new ArrayList<>();
    private int anonymousTags;
    private final Set<Expr> parenthesized = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The branches kept by a ?: folded at parse time (not unary-expressions, unless parenthesized after). */
    private final Set<Expr> folded = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The integer inlines declared so far whose value folds when they are parsed (dt_node_ident's INT clone). */
    private final java.util.Map<String, Long> inlineValues = new java.util.HashMap<>();
    /** The options #pragma D option sets (the session's, or this parse's own). */
    private final Options options;
    /** defaultargs as the caller's macros have it (the session's option, or a test's macros). */
    private final boolean defaultArgs;

    /**
     * @param fromFile true for a script file (-s), false for a program given as a string (-n/-P
     *        or compile(String)); only files insist that a clause has a predicate or a body
     */
    public Parser(String source, String sourceName, Macros macros, boolean fromFile) {
        this(source, sourceName, macros, fromFile, new Options());
    }

    /** {@code options}: the session's, which pragmas set and whose compile-time options the parse follows. */
    public Parser(String source, String sourceName, Macros macros, boolean fromFile, Options options) {
        this.sourceName = sourceName;
        this.fromFile = fromFile;
        this.lexer = new Lexer(source, macros, this::isTypeName);
        this.options = options;
        this.defaultArgs = macros.defaultArgs();
        compileFlags();
    }

    /** Parses a whole program. */
    public static Script parse(String source, String sourceName, Macros macros, boolean fromFile)
            throws DTraceException {
        return new Parser(source, sourceName, macros, fromFile).program();
    }

    /**
     * Parses a whole program under the session's {@code options}: its pragmas set them, and it
     * follows the compile-time ones (pspec, defaultargs, empty: one with nothing in it is no error).
     */
    public static Script parse(String source, String sourceName, Macros macros, boolean fromFile, Options options)
            throws DTraceException {
        return new Parser(source, sourceName, macros, fromFile, options).program();
    }

    /** The compile-time options the lexer reads, from the options as they stand (see Lexer.compileFlags). */
    private void compileFlags() {
        lexer.compileFlags(options.isSet("pspec"), defaultArgs || options.isSet("defaultargs"));
    }

    /**
     * A control line met by the parser: a well-formed {@code #pragma D option name[=value]} is set
     * now (dt_pragma_option), refused as dtrace refuses it; a malformed one is the checker's.
     */
    private Pragma control() throws DTraceException {
        Pragma p = control(tok);
        String[] nv = p.option();
        if (nv != null && p.words().size() == 4) {
            try {
                options.setFromProgram(nv[0], nv[1]);
            } catch (DTraceException e) {
                throw new DTraceException("failed to set option '" + nv[0] + "'"
                        + (nv[1] == null ? "" : " to '" + nv[1] + "'") + ": " + e.getMessage(), "D_PRAGMA_OPTSET",
                        p.line());
            }
            compileFlags();
        }
        return p;
    }

    /** Parses one expression (for tests and tools); the whole input must be the expression. */
    public static Expr parseExpression(String source) throws DTraceException {
        Parser p = new Parser(source, "<expr>", Macros.of("<expr>", List.of()), false);
        p.mode = Lexer.Mode.EXPR;
        p.advance();
        Expr e = p.expression();
        if (!p.tok.is(TokenKind.EOF)) {
            throw p.syntaxError();
        }
        return e;
    }

    boolean isTypeName(String w) {
        return typedefs.contains(w) || BuiltinTypes.isTypedefName(w);
    }

    // ---- token plumbing ----------------------------------------------------------------------

    private void advance() throws DTraceException {
        prev2 = prev;
        prev = tok;
        prevMode = tokMode;
        tok = lexer.next(mode);
        tokMode = mode;
        if (prev != null && prev.is(TokenKind.IDENT) && (tok.is(TokenKind.ASSIGN) || tok.is(TokenKind.LBRAC)
                || tok.is(TokenKind.SEMI) || tok.is(TokenKind.INC) || tok.is(TokenKind.DEC))) {
            interned.add(prev.text());
        }
    }

    /**
     * dtrace's lexer, meeting an identifier inside an expression or declaration that is no known
     * variable (id_or_type), peeks past it, over blanks, to the next character, to tell a
     * variable being made from a type name, and puts back what it read. Two of its messages show
     * that peek (see endOfInput() and nearText()). True when {@code t} is such an identifier:
     * lexed in an expression ({@code mode}), not a member name (after -> or .), not a tag (after
     * struct, union or enum: {@code before}), none of dtrace's globals (a built-in variable, a
     * subroutine or action, a D library constant: signal.d's, errno.d's, regs.d's and the
     * DTRACEFLT_ ones, all in capitals) nor one interned before (a declared variable is: its
     * declaration's ';', '=' or '[' interned it).
     */
    private boolean peekedAfter(Token t, Token before, Lexer.Mode m) {
        if (t == null || !t.is(TokenKind.IDENT) || m != Lexer.Mode.EXPR) return false;
        String name = t.text();
        if (RESERVED.contains(name) || interned.contains(name) || BuiltinVariable.byName(name) != null
                || org.jdtrace.libdtrace.ast.DFunction.byName(name) != null || name.matches("[A-Z][A-Z0-9_]*")) {
            return false;
        }
        return before == null || !(before.is(TokenKind.ARROW) || before.is(TokenKind.DOT) || before.isWord("struct")
                || before.isWord("union") || before.isWord("enum"));
    }

    /**
     * At the end of the input the peek after such an identifier puts back a NUL, which the lexer
     * then reports itself: "syntax error near end-of-input", where the parser's own wording at
     * the end is "near end of input". True when the token before the end is such an identifier
     * followed by nothing but blanks.
     */
    private boolean endOfInput() {
        return tok.is(TokenKind.EOF) && peekedAfter(prev, prev2, prevMode)
                && lexer.onlyBlanksAfter(prev.offset() + prev.text().length());
    }

    /**
     * What "syntax error near ..." quotes of the token the parser stopped at: dtrace prints
     * yytext cut at a newline. After the peek past an identifier, yytext runs on from the
     * identifier through what the peek put back (its blanks as spaces, with the newlines it
     * crossed nearest the next character) to the rest of the line: "near "new_int;"".
     */
    private String nearText() {
        if (!peekedAfter(tok, prev, tokMode)) return tok.near();
        return "\"" + lexer.afterPeek(tok.offset(), tok.text().length()) + "\"";
    }

    private Token expect(TokenKind k) throws DTraceException {
        if (!tok.is(k)) {
            throw syntaxError();
        }
        Token t = tok;
        advance();
        return t;
    }

    private DTraceException syntaxError() {
        if (endOfInput()) {
            return new DTraceException("syntax error near end-of-input", "D_SYNTAX", tok.line());
        }
        if (inPredicate && tok.is(TokenKind.SLASH)) {
            try {
                endsPredicate(); // a '/' closing the predicate too early has its own wording
            } catch (DTraceException e) {
                return e;
            }
        }
        if (tok.is(TokenKind.IDENT)) {
            return new DTraceException("syntax error near " + nearText(), "D_SYNTAX", tok.line());
        }
        return syntaxError(tok);
    }

    private static DTraceException syntaxError(Token t) {
        if (t.is(TokenKind.CONTROL) && control(t).lexicalError() instanceof DTraceException e) {
            return e; // dtrace's lexer acts on a #pragma line before its parser meets the error
        }
        return new DTraceException("syntax error near " + t.near(), "D_SYNTAX", t.line());
    }

    private String identifier() throws DTraceException {
        if (!tok.is(TokenKind.IDENT)) {
            throw syntaxError();
        }
        String s = tok.text();
        advance();
        return s;
    }

    // ---- program -----------------------------------------------------------------------------

    private Script program() throws DTraceException {
        List<TopLevel> items = new ArrayList<>();
        mode = Lexer.Mode.TOP;
        advance();
        while (!tok.is(TokenKind.EOF)) {
            int at = items.size();
            switch (tok.kind()) {
                case CONTROL -> {
                    items.add(control());
                    advance();
                }
                case PSPEC -> {
                    items.add(clause());
                    items.addAll(innerPragmas);
                    innerPragmas.clear();
                }
                case IDENT -> {
                    if (!isDeclStart(tok)) {
                        throw syntaxError();
                    }
                    mode = Lexer.Mode.EXPR;
                    if (tok.isWord("translator")) {
                        items.add(translator());
                        mode = Lexer.Mode.TOP;
                        advance();
                        continue;
                    }
                    List<Decl> decls = declaration();
                    items.addAll(decls);
                    for (Decl d : decls) {
                        if (d.storage() == Decl.Storage.INLINE && d.keys() == null && d.init() != null
                                && parseTimeValue(d.init()) instanceof Long v) {
                            inlineValues.put(d.name(), v);
                        }
                    }
                    if (!tok.is(TokenKind.SEMI)) {
                        throw syntaxError();
                    }
                    mode = Lexer.Mode.TOP;
                    advance();
                }
                default -> throw syntaxError();
            }
            // a struct, union or enum defined inside a type name is declared before what uses it
            items.addAll(at, typeNameTags);
            typeNameTags.clear();
        }
        if (items.isEmpty() && !options.isSet("empty")) {
            // at end-of-input, where dtrace's parser meets it
            throw new DTraceException("empty D program translation unit", "D_EMPTY", tok.line());
        }
        return new Script(sourceName, items);
    }

    private static Pragma control(Token t) {
        String body = t.string();
        List<String> words = new ArrayList<>();
        for (String w : body.split("[ \t]+")) {
            if (!w.isEmpty()) {
                words.add(w);
            }
        }
        return new Pragma(t.line(), words);
    }

    private boolean isDeclStart(Token t) {
        return t.is(TokenKind.IDENT) && (Lexer.isDeclarationKeyword(t.text()) || isTypeName(t.text()));
    }

    private Clause clause() throws DTraceException {
        int line = tok.line();
        List<ProbeSpec> probes = new ArrayList<>();
        while (true) {
            Token p = tok;
            ProbeDescription d;
            try {
                d = ProbeDescription.parse(p.string());
            } catch (IllegalArgumentException e) {
                throw new DTraceException("invalid probe description \"" + p.string() + "\": Overspecified probe description",
                        "D_PDESC_INVAL", p.line());
            }
            probes.add(new ProbeSpec(p.line(), p.text(), p.string(), d));
            mode = Lexer.Mode.TOP;
            advance();
            if (tok.is(TokenKind.COMMA)) {
                advance();
                if (!tok.is(TokenKind.PSPEC)) {
                    throw syntaxError();
                }
                continue;
            }
            break;
        }
        Expr pred = null;
        List<Stmt> body = null;
        if (tok.is(TokenKind.SLASH)) {
            mode = Lexer.Mode.EXPR;
            inPredicate = true;
            advance();
            pred = expression();
            if (!tok.is(TokenKind.SLASH)) {
                throw syntaxError();
            }
            inPredicate = false;
            mode = Lexer.Mode.TOP;
            advance();
        }
        int end = tok.line();
        if (tok.is(TokenKind.LBRACE)) {
            mode = Lexer.Mode.EXPR;
            advance();
            body = statements();
            mode = Lexer.Mode.TOP;
            end = tok.line();
            expect(TokenKind.RBRACE);
        } else if (pred == null && fromFile) {
            throw new DTraceException("expected predicate and/or actions following probe description",
                    "D_SYNTAX", line);
        }
        return new Clause(line, probes, pred, body, end);
    }

    /** Statements up to (not including) the closing '}'. */
    private List<Stmt> statements() throws DTraceException {
        List<Stmt> out = new ArrayList<>();
        while (!tok.is(TokenKind.RBRACE)) {
            if (tok.is(TokenKind.EOF)) {
                throw syntaxError();
            }
            if (tok.is(TokenKind.SEMI)) {
                out.add(new Stmt.Empty(tok.line()));
                advance();
                continue;
            }
            if (tok.is(TokenKind.CONTROL)) {
                innerPragmas.add(control());
                advance();
                continue;
            }
            if (tok.isWord("if")) {
                out.add(ifStatement());
                continue;
            }
            int line = tok.line();
            Expr e = expression();
            out.add(new Stmt.ExprStmt(line, e));
            if (tok.is(TokenKind.SEMI)) {
                advance();
            } else if (!tok.is(TokenKind.RBRACE)) {
                throw syntaxError();
            }
        }
        return out;
    }

    private Stmt ifStatement() throws DTraceException {
        int line = tok.line();
        advance();
        expect(TokenKind.LPAR);
        Expr cond = expression();
        expect(TokenKind.RPAR);
        List<Stmt> then = branch();
        List<Stmt> otherwise = List.of();
        if (tok.isWord("else")) {
            advance();
            otherwise = tok.isWord("if") ? List.of(ifStatement()) : branch();
        }
        return new Stmt.If(line, cond, then, otherwise);
    }

    private List<Stmt> branch() throws DTraceException {
        if (tok.is(TokenKind.LBRACE)) {
            advance();
            List<Stmt> b = statements();
            expect(TokenKind.RBRACE);
            return b;
        }
        int line = tok.line();
        Expr e = expression();
        expect(TokenKind.SEMI);
        return List.of(new Stmt.ExprStmt(line, e));
    }

    // ---- declarations ------------------------------------------------------------------------

    /** One declaration statement (without its ';'), possibly declaring several names. */
    private List<Decl> declaration() throws DTraceException {
        int line = tok.line();
        Decl.Storage storage = Decl.Storage.NONE;
        switch (tok.text()) {
            case "self" -> storage = Decl.Storage.SELF;
            case "this" -> storage = Decl.Storage.THIS;
            case "typedef" -> storage = Decl.Storage.TYPEDEF;
            case "inline" -> storage = Decl.Storage.INLINE;
            case "extern" -> storage = Decl.Storage.EXTERN;
            case "static", "register", "auto" -> storage = Decl.Storage.STATIC;
            default -> { }
        }
        String storageWord = tok.text();
        if (storage != Decl.Storage.NONE) {
            advance();
            if (tok.is(TokenKind.IDENT) && isStorageClass(tok.text())) {
                // dt_decl_class: 'self this int x;'
                throw new DTraceException("only one storage class allowed in a declaration", "D_DECL_CLASS", tok.line());
            }
        }
        List<Decl> tagBody = new ArrayList<>();
        // 'self x;', 'extern e;': a storage class alone means int, as in C
        String base = storage != Decl.Storage.NONE && tok.is(TokenKind.IDENT) && !startsTypeName(tok)
                ? "int" : specifiers(tagBody);
        if (tok.is(TokenKind.IDENT) && TYPE_KEYWORDS.contains(tok.text())
                && !Set.of("const", "volatile", "restrict").contains(tok.text())) {
            // a second type after a complete one: 'struct a { ... } struct b { ... }' (dt_decl_spec's check)
            throw new DTraceException("invalid type combination", "D_DECL_COMBO", tok.line());
        }
        List<Decl> out = new ArrayList<>();
        if (tok.is(TokenKind.SEMI)) {
            if (!base.startsWith("struct ") && !base.startsWith("union ") && !base.startsWith("enum ")) {
                // dt_node_decl: a type alone that declares no tag ('extern int;')
                throw new DTraceException("useless declaration", "D_DECL_USELESS", tok.line());
            }
            // struct foo { ... }; or enum e { ... };
            out.add(new Decl(line, storage, TypeName.of(base), null, null, null, tagBody));
            return out;
        }
        while (true) {
            int pointers = 0;
            while (tok.is(TokenKind.STAR)) {
                pointers++;
                advance();
            }
            if (tok.is(TokenKind.LPAR)) {
                // a pointer to a function, '(*name)(params)': an external symbol's declaration,
                // checked as dtrace checks it and then without effect (no kernel to bind it to);
                // in a typedef, the name of a pointer type, kept as void * (D calls no function
                // through a pointer: only its address is a value)
                advance();
                int inner = 0;
                while (tok.is(TokenKind.STAR)) {
                    inner++;
                    advance();
                }
                String fname = identifier();
                expect(TokenKind.RPAR);
                functionParameters();
                if (storage == Decl.Storage.TYPEDEF && inner > 0) {
                    typedefs.add(fname);
                    out.add(new Decl(line, storage, new TypeName("void", inner, List.of()), fname, null, null,
                            out.isEmpty() ? tagBody : List.of(), null));
                }
                if (!tok.is(TokenKind.COMMA)) {
                    return out;
                }
                advance();
                continue;
            }
            boolean typedefName = pointers == 0 && tok.is(TokenKind.IDENT) && isTypeName(tok.text())
                    && !TYPE_KEYWORDS.contains(tok.text());
            String name = identifier();
            if (typedefName && tok.is(TokenKind.IDENT)) {
                // dt_decl_spec: a typedef name after a complete type is the declared name, so a
                // second one is an old-style declaration, or in a typedef a name declared again
                if (storage == Decl.Storage.TYPEDEF) {
                    throw new DTraceException("identifier redeclared: " + name, "D_DECL_IDRED", tok.line());
                }
                throw new DTraceException("old-style declaration or incorrect type specified", "D_DECL_IDENT", tok.line());
            }
            if (tok.is(TokenKind.LPAR)) {
                // a function's prototype ('extern int f(int);'): checked, then without effect
                functionParameters();
                if (!tok.is(TokenKind.COMMA)) {
                    return out;
                }
                advance();
                continue;
            }
            if (storage == Decl.Storage.STATIC) {
                // dt_node_decl: auto, register and static have no meaning in D
                throw new DTraceException("specified storage class not appropriate in D", "D_DECL_BADCLASS", tok.line());
            }
            List<Integer> dims = new ArrayList<>();
            List<TypeName> keys = null;
            List<String> params = null;
            while (tok.is(TokenKind.LBRAC)) {
                advance();
                if (tok.is(TokenKind.RBRAC)) {
                    if (storage != Decl.Storage.TYPEDEF && storage != Decl.Storage.EXTERN) {
                        throw new DTraceException("array declaration requires array dimension or tuple signature: "
                                + name, "D_DECL_ARRNULL", tok.line());
                    }
                    dims.add(-1);
                } else if (tok.is(TokenKind.ELLIPSIS)) {
                    throw new DTraceException("array prototype may not use a variable-length argument list",
                            "D_DECL_PROTO_VARARGS", tok.line());
                } else if (tok.is(TokenKind.INT)) {
                    if (Long.compareUnsigned(tok.value(), 0xffffffffL) > 0) {
                        throw new DTraceException("array dimension too big", "D_DECL_ARRBIG", tok.line());
                    }
                    if (tok.value() == 0) {
                        throw arraySubscript();
                    }
                    dims.add((int) tok.value());
                    advance();
                } else if (!startsTypeName(tok)) {
                    // a subscript that is no positive integer constant ('int a[-7];')
                    throw arraySubscript();
                } else {
                    keys = new ArrayList<>();
                    int n = 0;
                    do {
                        if (n > 0) {
                            advance();
                        }
                        TypeName k = typeName();
                        n++;
                        if (k.base().equals("void") && k.pointers() == 0) {
                            throw new DTraceException("array prototype may not use parameter of type void: (anonymous), "
                                    + "parameter #" + n, "D_DECL_PROTO_TYPE", tok.line());
                        }
                        keys.add(k);
                        if (storage == Decl.Storage.INLINE && tok.is(TokenKind.IDENT)) {
                            // an inline array's parameter: 'inline int f[int x, int y] = x + y;'
                            if (params == null) params = new ArrayList<>();
                            while (params.size() < keys.size() - 1) params.add(null);
                            params.add(identifier());
                        }
                    } while (tok.is(TokenKind.COMMA));
                }
                expect(TokenKind.RBRAC);
            }
            Expr init = null;
            if (tok.is(TokenKind.ASSIGN)) {
                advance();
                init = assignment();
            }
            if (storage == Decl.Storage.TYPEDEF) {
                typedefs.add(name);
            }
            if (params != null && params.size() != keys.size()) {
                throw syntaxError(); // every parameter of an inline array is named, or none
            }
            out.add(new Decl(line, storage, new TypeName(base, pointers, dims), name, keys, init,
                    out.isEmpty() ? tagBody : List.of(), params));
            if (!tok.is(TokenKind.COMMA)) {
                return out;
            }
            advance();
        }
    }

    /** {@code translator OUT < IN name > { member = expr; ... }} up to its closing ';' (not consumed). */
    private Translator translator() throws DTraceException {
        int line = tok.line();
        advance();
        TypeName output = typeName();
        if (tok.is(TokenKind.LPAR)) {
            // 'translator T (input)': a function declarator of the type name, then no '<'
            int depth = 0;
            do {
                depth += tok.is(TokenKind.LPAR) ? 1 : tok.is(TokenKind.RPAR) ? -1 : 0;
                advance();
            } while (depth > 0 && !tok.is(TokenKind.EOF));
            throw syntaxError();
        }
        expect(TokenKind.LT);
        TypeName input = typeName();
        String name = identifier();
        expect(TokenKind.GT);
        expect(TokenKind.LBRACE);
        List<Translator.Assignment> members = new ArrayList<>();
        while (!tok.is(TokenKind.RBRACE)) {
            int l = tok.line();
            String member = identifier();
            expect(TokenKind.ASSIGN);
            members.add(new Translator.Assignment(l, member, assignment()));
            expect(TokenKind.SEMI);
        }
        int end = tok.line();
        advance();
        if (!tok.is(TokenKind.SEMI)) {
            throw syntaxError();
        }
        return new Translator(line, output, input, name, members, end);
    }

    private static boolean isStorageClass(String w) {
        return switch (w) {
            case "self", "this", "typedef", "inline", "extern", "static", "register", "auto" -> true;
            default -> false;
        };
    }

    private DTraceException arraySubscript() {
        return new DTraceException("positive integral constant expression or tuple signature expected as array "
                + "declaration subscript", "D_DECL_ARRSUB", tok.line());
    }

    /**
     * A function's parameter list, '(' ... ')', checked as dt_decl_prototype checks one: no storage
     * class but register (D_DECL_PARMCLASS), void alone and unnamed (D_DECL_PROTO_VOID,
     * D_DECL_PROTO_NAME), no associative array (D_DECL_PROTO_TYPE); '...' allowed.
     */
    private void functionParameters() throws DTraceException {
        expect(TokenKind.LPAR);
        int n = 0;
        boolean sawVoid = false;
        while (!tok.is(TokenKind.RPAR)) {
            if (n > 0) {
                expect(TokenKind.COMMA);
            }
            n++;
            if (tok.is(TokenKind.ELLIPSIS)) {
                advance();
                continue;
            }
            if (tok.is(TokenKind.IDENT) && isStorageClass(tok.text())) {
                if (!tok.text().equals("register")) {
                    throw new DTraceException("inappropriate storage class for function or associative array parameter",
                            "D_DECL_PARMCLASS", tok.line());
                }
                advance();
            }
            TypeName t = typeName();
            String pname = tok.is(TokenKind.IDENT) ? identifier() : null;
            if (tok.is(TokenKind.LBRAC)) {
                advance();
                if (!tok.is(TokenKind.RBRAC) && startsTypeName(tok)) {
                    throw new DTraceException("function prototype may not use parameter of type dynamic variable: "
                            + (pname == null ? "(anonymous)" : pname) + ", parameter #" + n, "D_DECL_PROTO_TYPE", tok.line());
                }
                while (!tok.is(TokenKind.RBRAC)) {
                    advance();
                }
                advance();
            }
            boolean isVoid = t.base().equals("void") && t.pointers() == 0;
            if (isVoid && pname != null) {
                throw new DTraceException("void parameter may not have a name: " + pname, "D_DECL_PROTO_NAME", tok.line());
            }
            sawVoid |= isVoid;
        }
        if (sawVoid && n > 1) {
            throw new DTraceException("void must be sole parameter", "D_DECL_PROTO_VOID", tok.line());
        }
        advance();
    }

    /** Declaration specifiers: type words, or struct/union/enum with an optional body. */
    private String specifiers(List<Decl> tagBody) throws DTraceException {
        List<String> words = new ArrayList<>();
        while (tok.is(TokenKind.IDENT)) {
            String w = tok.text();
            if (w.equals("const") || w.equals("volatile") || w.equals("restrict")) {
                advance();
                continue;
            }
            if (w.equals("struct") || w.equals("union") || w.equals("enum")) {
                // dt_decl_spec, then dt_decl_check: a tag after a type name is a second type;
                // after signed, unsigned or long it is a type those words cannot qualify
                if (words.stream().anyMatch(x -> !Set.of("signed", "unsigned", "short", "long").contains(x))) {
                    throw new DTraceException("invalid type combination", "D_DECL_COMBO", tok.line());
                }
                if (words.contains("signed") || words.contains("unsigned")) {
                    throw new DTraceException("invalid type declaration: signed and unsigned may only be used with "
                            + "integer type", "D_DECL_SIGNINT", tok.line());
                }
                if (words.contains("long")) {
                    throw new DTraceException("invalid type declaration: long and long long may only be used with "
                            + "integer or floating-point type", "D_DECL_LONGINT", tok.line());
                }
                advance();
                String tag = tok.is(TokenKind.IDENT) ? identifier() : "";
                if (tag.isEmpty() && tok.is(TokenKind.LBRACE)) {
                    tag = "(anon" + (++anonymousTags) + ")"; // one name per anonymous body
                }
                if (tok.is(TokenKind.LBRACE) && tagBody != null) {
                    if (!definedTags.add(w + " " + tag) && inTypeName) {
                        // dt_decl_sou refuses the tag at its '{': 'translator struct s { ... }'
                        // and 'sizeof (struct s { ... })' define struct s once more
                        throw new DTraceException("type redeclared: " + w + " " + tag, "D_DECL_TYPERED", tok.line());
                    }
                    tagBodies++;
                    advance();
                    if (w.equals("enum")) {
                        enumerators(tagBody);
                    } else {
                        members(tagBody);
                    }
                    expect(TokenKind.RBRACE);
                } else if (tag.isEmpty()) {
                    throw syntaxError();
                }
                return w + " " + tag;
            }
            boolean typeWord = TYPE_KEYWORDS.contains(w) || (words.isEmpty() && isTypeName(w));
            if (!typeWord || (isTypeName(w) && !TYPE_KEYWORDS.contains(w) && !words.isEmpty())) {
                break;
            }
            words.add(w);
            advance();
            if (isTypeName(w) && !TYPE_KEYWORDS.contains(w)) {
                break; // a typedef name stands alone
            }
        }
        if (words.isEmpty()) {
            throw syntaxError();
        }
        checkSpecifiers(words);
        return String.join(" ", words);
    }

    /**
     * dt_decl_spec and dt_decl_check, word by word: one type name only (D_DECL_COMBO), no short or
     * long with char (D_DECL_CHARATTR), no attribute with void (D_DECL_VOIDATTR), signed and
     * unsigned only with integers (D_DECL_SIGNINT), long only with integers and floating point
     * (D_DECL_LONGINT).
     */
    private void checkSpecifiers(List<String> words) throws DTraceException {
        String base = null;
        boolean shortOrLong = false, sign = false, isLong = false;
        for (String w : words) {
            switch (w) {
                case "short" -> shortOrLong = true;
                case "long" -> {
                    shortOrLong = true;
                    isLong = true;
                }
                case "signed", "unsigned" -> sign = true;
                default -> {
                    if (base != null) {
                        throw new DTraceException("invalid type combination", "D_DECL_COMBO", tok.line());
                    }
                    base = w;
                }
            }
            if (base == null) {
                continue;
            }
            if (base.equals("char") && shortOrLong) {
                throw new DTraceException("invalid type declaration: short and long may not be used with char type",
                        "D_DECL_CHARATTR", tok.line());
            }
            if (base.equals("void") && (shortOrLong || sign)) {
                throw new DTraceException("invalid type declaration: attributes may not be used with void type",
                        "D_DECL_VOIDATTR", tok.line());
            }
            boolean integer = base.equals("char") || base.equals("int");
            if (sign && !integer && TYPE_KEYWORDS.contains(base)) {
                throw new DTraceException("invalid type declaration: signed and unsigned may only be used with integer type",
                        "D_DECL_SIGNINT", tok.line());
            }
            if (isLong && !integer && !base.equals("float") && !base.equals("double") && TYPE_KEYWORDS.contains(base)) {
                throw new DTraceException("invalid type declaration: long and long long may only be used with integer or "
                        + "floating-point type", "D_DECL_LONGINT", tok.line());
            }
        }
    }

    private void members(List<Decl> out) throws DTraceException {
        while (!tok.is(TokenKind.RBRACE)) {
            int line = tok.line();
            List<Decl> nested = new ArrayList<>();
            String base = specifiers(nested);
            boolean first = true;
            while (true) {
                int pointers = 0;
                while (tok.is(TokenKind.STAR)) {
                    pointers++;
                    advance();
                }
                String name = tok.is(TokenKind.IDENT) ? identifier() : null;
                if (tok.is(TokenKind.LPAR) && name != null) {
                    // a member declared as a function: an object of no size (dt_node_decl's void check)
                    throw new DTraceException("cannot have void member: " + name, "D_DECL_VOIDOBJ", tok.line());
                }
                List<Integer> dims = new ArrayList<>();
                while (tok.is(TokenKind.LBRAC)) {
                    advance();
                    dims.add(tok.is(TokenKind.INT) ? (int) tok.value() : -1);
                    if (tok.is(TokenKind.INT)) {
                        advance();
                    }
                    expect(TokenKind.RBRAC);
                }
                if (pointers == 0 && (base.startsWith("struct ") || base.startsWith("union "))
                        && !definedTags.contains(base) && BuiltinTypes.lookup(base) == null) {
                    // dtrace declares each member as its parser reduces it (dt_decl_member): a
                    // struct or union with no body yet is refused there, before what follows
                    throw new DTraceException("incomplete struct/union/enum " + base + ": " + (name == null ? "(anon)" : name),
                            "D_DECL_INCOMPLETE", line);
                }
                Expr bits = null;
                if (tok.is(TokenKind.COLON)) {
                    advance();
                    bits = conditional();
                }
                // a nested struct/union/enum body rides on the first member declared with it
                out.add(new Decl(line, Decl.Storage.MEMBER, new TypeName(base, pointers, dims), name, null, bits,
                        first ? nested : null));
                first = false;
                if (!tok.is(TokenKind.COMMA)) {
                    break;
                }
                advance();
            }
            expect(TokenKind.SEMI);
        }
    }

    private void enumerators(List<Decl> out) throws DTraceException {
        while (!tok.is(TokenKind.RBRACE)) {
            String name = identifier();
            Expr value = null;
            if (tok.is(TokenKind.ASSIGN)) {
                advance();
                value = conditional();
            }
            // dtrace defines an enumerator when its parser sees the token after it: errors name that line
            out.add(new Decl(tok.line(), Decl.Storage.ENUMERATOR, TypeName.of("int"), name, null, value, null));
            if (!tok.is(TokenKind.COMMA)) {
                break;
            }
            advance();
        }
    }

    /** A type name as in a cast: specifiers, then '*'s and '[n]'s (abstract declarator). */
    private TypeName typeName() throws DTraceException {
        int line = tok.line();
        int bodies = tagBodies;
        List<Decl> body = new ArrayList<>();
        inTypeName = true; // type names do not nest, and an error ends the parse
        String base = specifiers(body);
        inTypeName = false;
        if (tagBodies != bodies) {
            typeNameTags.add(new Decl(line, Decl.Storage.NONE, TypeName.of(base), null, null, null, body));
        }
        int pointers = 0;
        while (tok.is(TokenKind.STAR)) {
            pointers++;
            advance();
        }
        List<Integer> dims = new ArrayList<>();
        while (tok.is(TokenKind.LBRAC)) {
            advance();
            if (tok.is(TokenKind.INT)) {
                dims.add((int) tok.value());
                advance();
            } else {
                dims.add(-1);
            }
            expect(TokenKind.RBRAC);
        }
        return new TypeName(base, pointers, dims);
    }

    private boolean startsTypeName(Token t) {
        return t.is(TokenKind.IDENT) && (TYPE_KEYWORDS.contains(t.text()) || isTypeName(t.text()));
    }

    // ---- expressions -------------------------------------------------------------------------

    /** expression := assignment (',' assignment)* */
    public Expr expression() throws DTraceException {
        Expr e = assignment();
        while (tok.is(TokenKind.COMMA)) {
            int line = tok.line();
            advance();
            e = new Expr.Binary(line, BinOp.COMMA, e, assignment());
        }
        return e;
    }

    private Expr assignment() throws DTraceException {
        Expr lhs = conditional();
        AssignOp op = assignOp(tok.kind());
        if (op == null) {
            return lhs;
        }
        if (!isUnaryExpression(lhs)) {
            throw syntaxError();
        }
        int line = tok.line();
        advance();
        return new Expr.Assign(line, op, lhs, assignment());
    }

    /** An expression written in parentheses (a folded ?: inside them is a unary-expression again). */
    private void parenthesized(Expr e) {
        parenthesized.add(e);
        folded.remove(e);
    }

    /** What C's grammar calls a unary-expression: the only thing left of an assignment operator. */
    private boolean isUnaryExpression(Expr e) {
        if (folded.contains(e)) {
            return false; // the branch a constant ?: kept is still a conditional-expression
        }
        if (parenthesized.contains(e)) {
            return true;
        }
        return !(e instanceof Expr.Binary || e instanceof Expr.Ternary || e instanceof Expr.Assign
                || e instanceof Expr.Cast);
    }

    private static AssignOp assignOp(TokenKind k) {
        return switch (k) {
            case ASSIGN -> AssignOp.ASSIGN;
            case ADD_EQ -> AssignOp.ADD;
            case SUB_EQ -> AssignOp.SUB;
            case MUL_EQ -> AssignOp.MUL;
            case DIV_EQ -> AssignOp.DIV;
            case MOD_EQ -> AssignOp.MOD;
            case AND_EQ -> AssignOp.AND;
            case OR_EQ -> AssignOp.OR;
            case XOR_EQ -> AssignOp.XOR;
            case SHL_EQ -> AssignOp.SHL;
            case SHR_EQ -> AssignOp.SHR;
            default -> null;
        };
    }

    private Expr conditional() throws DTraceException {
        Expr c = binary(0);
        if (!tok.is(TokenKind.QUESTION)) {
            return c;
        }
        int line = tok.line();
        advance();
        Expr a = expression();
        expect(TokenKind.COLON);
        Expr b = conditional();
        Long folded = parseTimeValue(c);
        if (folded != null) {
            Expr live = folded != 0 ? a : b; // dt_node_op3: the live branch alone
            this.folded.add(live);
            return live;
        }
        return new Expr.Ternary(line, c, a, b);
    }

    /** The value of an integer constant expression as the parser knows it (literals, integer inlines), else null. */
    private Long parseTimeValue(Expr e) {
        return IntegerFolding.value(e, leaf -> leaf instanceof Expr.Ident id ? inlineValues.get(id.name) : null);
    }

    /** Binary operator levels from lowest (0 = ||) to highest (multiplicative). */
    private static final TokenKind[][] LEVELS = {
        {TokenKind.LOR}, {TokenKind.LXOR}, {TokenKind.LAND}, {TokenKind.BAR}, {TokenKind.CARET},
        {TokenKind.AMP}, {TokenKind.EQ, TokenKind.NE},
        {TokenKind.LT, TokenKind.LE, TokenKind.GT, TokenKind.GE}, {TokenKind.SHL, TokenKind.SHR},
        {TokenKind.PLUS, TokenKind.MINUS}, {TokenKind.STAR, TokenKind.SLASH, TokenKind.PERCENT},
    };

    private Expr binary(int level) throws DTraceException {
        if (level == LEVELS.length) {
            return cast();
        }
        Expr left = binary(level + 1);
        while (true) {
            TokenKind k = tok.kind();
            boolean match = false;
            for (TokenKind m : LEVELS[level]) {
                match |= m == k;
            }
            if (!match || (k == TokenKind.SLASH && endsPredicate())) {
                return left;
            }
            advance();
            Expr right = binary(level + 1);
            left = new Expr.Binary(reductionLine(), binOp(k), left, right);
        }
    }

    /**
     * The line dtrace gives a node: yacc reduces it when the token after it has been read, and
     * dt_node_* takes yylineno then. That token's line, or, for the '/' that closes a predicate,
     * the line of what follows it (dt_lex.l reads ahead over blanks and newlines to tell it from a
     * division).
     */
    private int reductionLine() throws DTraceException {
        if (tok.is(TokenKind.SLASH) && inPredicate && endsPredicate()) {
            return lexer.nextNonBlankLine();
        }
        return tok.line();
    }

    /** In a predicate, a '/' followed by end of input, ';', '{' or '/' closes it. */
    private boolean endsPredicate() throws DTraceException {
        if (!inPredicate) {
            return false;
        }
        char c = lexer.nextNonBlankChar();
        if (c == 0 || c == ';' || c == '{' || c == '/') {
            if (lexer.openParens() != 0) {
                throw new DTraceException("closing ) expected in predicate before /", "D_SYNTAX", lexer.nextNonBlankLine());
            }
            if (lexer.openBrackets() != 0) {
                throw new DTraceException("closing ] expected in predicate before /", "D_SYNTAX", lexer.nextNonBlankLine());
            }
            return true;
        }
        return false;
    }

    private static BinOp binOp(TokenKind k) {
        return switch (k) {
            case LOR -> BinOp.LOR;
            case LXOR -> BinOp.LXOR;
            case LAND -> BinOp.LAND;
            case BAR -> BinOp.BITOR;
            case CARET -> BinOp.BITXOR;
            case AMP -> BinOp.BITAND;
            case EQ -> BinOp.EQ;
            case NE -> BinOp.NE;
            case LT -> BinOp.LT;
            case LE -> BinOp.LE;
            case GT -> BinOp.GT;
            case GE -> BinOp.GE;
            case SHL -> BinOp.SHL;
            case SHR -> BinOp.SHR;
            case PLUS -> BinOp.ADD;
            case MINUS -> BinOp.SUB;
            case STAR -> BinOp.MUL;
            case SLASH -> BinOp.DIV;
            case PERCENT -> BinOp.MOD;
            default -> throw new IllegalStateException(k.toString());
        };
    }

    private Expr cast() throws DTraceException {
        if (tok.is(TokenKind.LPAR)) {
            // '(' type-name ')' needs two tokens of lookahead: peek by position.
            advance();
            if (startsTypeName(tok)) {
                TypeName t = typeName();
                expect(TokenKind.RPAR);
                Expr operand = cast();
                return new Expr.Cast(reductionLine(), t, operand);
            }
            Expr inner = expression();
            expect(TokenKind.RPAR);
            parenthesized(inner);
            return postfix(inner);
        }
        return unary();
    }

    private Expr unary() throws DTraceException {
        int line = tok.line();
        UnOp op = switch (tok.kind()) {
            case INC -> UnOp.PRE_INC;
            case DEC -> UnOp.PRE_DEC;
            case AMP -> UnOp.ADDROF;
            case STAR -> UnOp.DEREF;
            case PLUS -> UnOp.PLUS;
            case MINUS -> UnOp.NEG;
            case TILDE -> UnOp.BITNOT;
            case BANG -> UnOp.NOT;
            default -> null;
        };
        if (op != null) {
            advance();
            Expr operand = op.isIncDec() ? unary() : cast();
            return new Expr.Unary(line, op, operand);
        }
        if (tok.isWord("sizeof")) {
            advance();
            if (tok.is(TokenKind.LPAR)) {
                advance();
                if (startsTypeName(tok)) {
                    TypeName t = typeName();
                    expect(TokenKind.RPAR);
                    return new Expr.SizeofType(line, t);
                }
                Expr inner = expression();
                expect(TokenKind.RPAR);
                parenthesized(inner);
                return new Expr.Unary(line, UnOp.SIZEOF, postfix(inner));
            }
            return new Expr.Unary(line, UnOp.SIZEOF, unary());
        }
        if (tok.isWord("stringof")) {
            advance();
            return new Expr.Unary(line, UnOp.STRINGOF, unary());
        }
        return postfix(primary());
    }

    private Expr primary() throws DTraceException {
        Token t = tok;
        switch (t.kind()) {
            case INT -> {
                advance();
                return new Expr.IntLit(t.line(), t.value(), t.intForm());
            }
            case STRING -> {
                advance();
                return new Expr.StrLit(t.line(), t.string());
            }
            case AGG -> {
                advance();
                List<Expr> keys = null;
                if (tok.is(TokenKind.LBRAC)) {
                    advance();
                    keys = arguments(TokenKind.RBRAC);
                }
                return new Expr.AggRef(t.line(), t.string(), keys);
            }
            case LPAR -> {
                advance();
                Expr e = expression();
                expect(TokenKind.RPAR);
                parenthesized(e);
                return e;
            }
            case IDENT -> {
                String w = t.text();
                if (w.equals("self") || w.equals("this")) {
                    advance();
                    if (!tok.is(TokenKind.ARROW)) {
                        throw syntaxError();
                    }
                    advance();
                    String name = identifier();
                    return w.equals("self") ? new Expr.SelfVar(t.line(), name) : new Expr.ThisVar(t.line(), name);
                }
                if (w.equals("offsetof")) {
                    advance();
                    expect(TokenKind.LPAR);
                    TypeName type = typeName();
                    expect(TokenKind.COMMA);
                    String member = identifier();
                    expect(TokenKind.RPAR);
                    return new Expr.Offsetof(t.line(), type, member);
                }
                if (w.equals("xlate")) {
                    advance();
                    expect(TokenKind.LT);
                    TypeName type = typeName();
                    expect(TokenKind.GT);
                    expect(TokenKind.LPAR);
                    Expr e = expression();
                    expect(TokenKind.RPAR);
                    return new Expr.Xlate(t.line(), type, e);
                }
                if (RESERVED.contains(w)) {
                    throw syntaxError();
                }
                advance();
                return new Expr.Ident(t.line(), w);
            }
            default -> throw syntaxError();
        }
    }

    private Expr postfix(Expr e) throws DTraceException {
        while (true) {
            int line = tok.line();
            switch (tok.kind()) {
                case LBRAC -> {
                    advance();
                    List<Expr> keys = arguments(TokenKind.RBRAC);
                    e = new Expr.Index(line, e, keys);
                }
                case LPAR -> {
                    if (!(e instanceof Expr.Ident) && !parenthesized.contains(e)) {
                        // dt_node_func: only a name can be called (`tick-1()` calls the constant 1)
                        throw new DTraceException("function designator is not of function type", "D_FUNC_IDENT", line);
                    }
                    if (!(e instanceof Expr.Ident id) || parenthesized.contains(e)) {
                        throw syntaxError();
                    }
                    advance();
                    e = new Expr.Call(e.line, id.name, arguments(TokenKind.RPAR));
                }
                case DOT, ARROW -> {
                    boolean arrow = tok.is(TokenKind.ARROW);
                    advance();
                    e = new Expr.Member(line, e, identifier(), arrow);
                }
                case INC -> {
                    advance();
                    e = new Expr.Unary(line, UnOp.POST_INC, e);
                }
                case DEC -> {
                    advance();
                    e = new Expr.Unary(line, UnOp.POST_DEC, e);
                }
                default -> {
                    return e;
                }
            }
        }
    }

    /** Comma-separated assignments up to the closing token (consumed). */
    private List<Expr> arguments(TokenKind close) throws DTraceException {
        List<Expr> args = new ArrayList<>();
        if (tok.is(close)) {
            advance();
            return args;
        }
        args.add(assignment());
        while (tok.is(TokenKind.COMMA)) {
            advance();
            args.add(assignment());
        }
        expect(close);
        return args;
    }
}
