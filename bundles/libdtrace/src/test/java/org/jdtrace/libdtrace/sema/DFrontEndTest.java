package org.jdtrace.libdtrace.sema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.DFunction;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.Stmt;
import org.jdtrace.libdtrace.ast.Variable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DFrontEndTest {

    private static CheckedProgram check(String src, String... args) throws DTraceException {
        return DFrontEnd.check(src, "t.d", List.of(args));
    }

    private static Expr stmt(CheckedProgram p, int clause, int i) {
        return ((Stmt.ExprStmt) p.clauses().get(clause).body().get(i)).expr();
    }

    @Test
    void variablesGetTypesFromFirstAssignment() throws DTraceException {
        CheckedProgram p = check("#pragma D option quiet\nBEGIN { x = 1; s = execname; self->t = timestamp;"
                + " this->c = (char)1; a[pid, \"k\"] = 2ULL; @c[probefunc] = count(); @ = lquantize(x, 0, 10, 2); }\n"
                + "END /x/ { printf(\"%d %s %u\\n\", x + this->c, s, a[1, \"k\"]); printa(@c); exit(0); }");
        assertEquals(java.util.Collections.singletonMap("quiet", null), p.options());
        assertEquals(List.of("x", "s", "a"), p.globals().stream().map(Variable::dname).toList());
        assertEquals(DType.INT, p.globals().get(0).type);
        assertEquals(DType.STRING, p.globals().get(1).type);
        assertEquals(List.of(new DType.Int("pid_t", 4, true), DType.STRING), p.globals().get(2).keyTypes);
        assertEquals(DType.ULLONG, p.globals().get(2).type);
        assertEquals(DType.UINT64, p.threadLocals().get(0).type);
        assertEquals(DType.CHAR, p.clauseLocals().get(0).type);
        assertEquals(DFunction.COUNT, p.aggregations().get(0).function);
        assertEquals(List.of(DType.STRING), p.aggregations().get(0).keyTypes);
        assertEquals("", p.aggregations().get(1).name);
        Expr.Call printf = (Expr.Call) stmt(p, 1, 0);
        assertSame(DFunction.PRINTF, printf.function);
        assertEquals(3, p.formats().get(printf).conversions().size());
        // x + this->c: int + char promotes to int
        assertEquals(DType.INT, printf.args.get(1).type);
        Expr.Assign s = (Expr.Assign) stmt(p, 0, 1);
        assertSame(BuiltinVariable.EXECNAME, ((Expr.Ident) s.value).symbol);
    }

    @Test
    void usualArithmeticConversions() throws DTraceException {
        CheckedProgram p = check("BEGIN { a = 1 + 2u; b = (short)1 * (char)2; c = 1 + 3000000000; d = timestamp - 1;"
                + " e = 0xffffffff; f = -1L >> 1; }");
        assertEquals(List.of("unsigned int", "short", "long", "uint64_t", "unsigned int", "long"),
                p.globals().stream().map(v -> v.type.name()).toList());
    }

    @Test
    void macroArgumentsAreIntegersOrIdentifiersOrStrings() throws DTraceException {
        CheckedProgram p = check("pid$1:a.out:main:entry { x = $1; y = $$2; }", "123", "foo");
        assertEquals("pid123", p.clauses().get(0).probes().get(0).description().provider());
        assertEquals(DType.INT, p.globals().get(0).type);
        assertEquals(DType.STRING, p.globals().get(1).type);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "BEGIN { trace(); } | D_PROTO_LEN | trace( ) prototype mismatch: 0 args passed, 1 expected",
        "BEGIN { ustack(1, 2, 3); } | D_PROTO_LEN | ustack( ) prototype mismatch: 3 args passed, at most 2 expected",
        "BEGIN { printf(); } | D_PROTO_LEN | printf( ) prototype mismatch: 0 args passed, at least 1 expected",
        "BEGIN { trace(x); } | D_IDENT_UNDEF | failed to resolve x: Unknown variable name",
        "BEGIN { x = 1; x = \"s\"; } | D_OP_INCOMPAT | operands have incompatible types: \"int\" = \"string\"",
        "BEGIN { x = \"a\" << 1; } | D_OP_INT | operator << requires operands of integral type",
        "BEGIN { x = 1 / 0; } | D_DIV_ZERO | expression contains division by zero",
        "BEGIN { x[1, 2] = 1; x[1] = 2; } | D_PROTO_LEN | x[ ] prototype mismatch: 1 key passed, 2 expected",
        "BEGIN { x = 1; x[1] = 2; } | D_ARR_BADREF | cannot access scalar x as an associative array",
        "BEGIN { @a = count(); @a = sum(1); } | D_AGG_REDEF | aggregation redefined: @a~^ current: sum( )~^previous: count( )",
        "BEGIN { printf(\"%d\\n\", \"s\"); } | D_PRINTF_ARG_TYPE | printf( ) argument #2 is incompatible with conversion #1 prototype:~^conversion: %d~^ prototype: char, short, int, long, or long long~^  argument: string",
        "BEGIN { printf(\"%d %d\\n\", 1); } | D_PRINTF_ARG_PROTO | printf( ) prototype mismatch: conversion #2 (%d) is missing a corresponding value argument",
        "BEGIN { printf(\"%d\\n\", 1, 2); } | D_PRINTF_ARG_EXTRA | printf( ) prototype mismatch: only 1 arguments required by this format string",
        "BEGIN { printf(\"%z\"); } | D_SYNTAX | format conversion #1 is undefined: %z",
        "BEGIN { printf(\"%**d\"); } | D_SYNTAX | format conversion #1 has more than one '*' specified for the output width",
        "BEGIN { printa(1); } | D_PRINTA_AGGARG | printa( ) argument #1 is incompatible with prototype:~^prototype: aggregation~^ argument: int",
        "BEGIN { exit(\"x\"); } | D_PROTO_ARG | exit( ) argument #1 is incompatible with prototype:~^prototype: int~^ argument: string",
        "BEGIN { timestamp = 1; } | D_OP_WRITE | operator = can only be applied to a writable variable",
        "BEGIN { x = timestamp ? \"a\" : 2; } | D_OP_INCOMPAT | operator ?: operands must have compatible types",
        "BEGIN { x = count(); } | D_AGG_FUNC | count( ) may only be used as the value of an aggregation",
        "BEGIN { trace(foo(1)); } | D_FUNC_UNDEF | undefined function name: foo",
        "BEGIN { @ = f(); } | D_FUNC_UNDEF | undefined function name: f",
        "BEGIN { @ = tick-1(); } | D_FUNC_IDENT | function designator is not of function type",
        "int foo(static int);~BEGIN {} | D_DECL_PARMCLASS | inappropriate storage class for function or associative array parameter",
        "int a(void v);~BEGIN {} | D_DECL_PROTO_NAME | void parameter may not have a name: v",
        "int a(int a[int]);~BEGIN {} | D_DECL_PROTO_TYPE | function prototype may not use parameter of type dynamic variable: a, parameter #1",
        "int foo(int, void);~BEGIN {} | D_DECL_PROTO_VOID | void must be sole parameter",
        "int a[...];~BEGIN {} | D_DECL_PROTO_VARARGS | array prototype may not use a variable-length argument list",
        "int x[void, char];~BEGIN {} | D_DECL_PROTO_TYPE | array prototype may not use parameter of type void: (anonymous), parameter #1",
        "int a[];~BEGIN {} | D_DECL_ARRNULL | array declaration requires array dimension or tuple signature: a",
        "int a[-7];~BEGIN {} | D_DECL_ARRSUB | positive integral constant expression or tuple signature expected as array declaration subscript",
        "int x[88294967295];~BEGIN {} | D_DECL_ARRBIG | array dimension too big",
        "struct s { int trace(); };~BEGIN {} | D_DECL_VOIDOBJ | cannot have void member: trace",
        "register x;~BEGIN {} | D_DECL_BADCLASS | specified storage class not appropriate in D",
        "extern int;~BEGIN {} | D_DECL_USELESS | useless declaration",
        "self this int x;~BEGIN {} | D_DECL_CLASS | only one storage class allowed in a declaration",
        "short void ptr;~BEGIN {} | D_DECL_VOIDATTR | invalid type declaration: attributes may not be used with void type",
        "BEGIN { i = (char long)0; } | D_DECL_CHARATTR | invalid type declaration: short and long may not be used with char type",
        "BEGIN { i = (char int)0; } | D_DECL_COMBO | invalid type combination",
        "BEGIN { i = (double double)0; } | D_DECL_COMBO | invalid type combination",
        "struct s { int a; };~int struct s x;~BEGIN {} | D_DECL_COMBO | invalid type combination",
        "enum e { A };~char enum e x;~BEGIN {} | D_DECL_COMBO | invalid type combination",
        "struct s { int a; };~unsigned struct s x;~BEGIN {} | D_DECL_SIGNINT | invalid type declaration: signed and unsigned may only be used with integer type",
        "struct s { int a; };~long struct s x;~BEGIN {} | D_DECL_LONGINT | invalid type declaration: long and long long may only be used with integer or floating-point type",
        "typedef int foo_t;~int foo_t x;~BEGIN {} | D_DECL_IDENT | old-style declaration or incorrect type specified",
        "typedef int foo_t;~typedef int foo_t bar_t;~BEGIN {} | D_DECL_IDRED | identifier redeclared: foo_t",
        "BEGIN { @a = count(); print(@a); } | D_PRINT_AGG | print( ) may not be applied to an aggregation",
        "BEGIN { print(trace(1)); } | D_PRINT_VOID | print( ) may not be applied to a void expression",
        "BEGIN { i = (long short)0; } | D_UNKNOWN | failed to resolve type short long : Unknown type name",
        "BEGIN { @foo[123] = sum(1); @bar[\"x\"] = sum(2); printa(\"%d %@d %@d\\n\", @foo, @bar); } | D_PRINTA_AGGPROTO | printa( ): @bar[ ] key #1 is incompatible with @foo:~      foo key #1: int~      bar key #1: string",
        "BEGIN { a = 1; c = a == 1 ? printf(\"x\") : trace(); } | D_PROTO_LEN | trace( ) prototype mismatch: 0 args passed, 1 expected",
        "BEGIN { c = timestamp ? trace(1) : trace(2); } | D_OP_ACT | action cannot be used in a conditional context",
        "struct r { int a : 1; } v;~BEGIN { printf(\"%n\", sizeof(v.a)); } | D_SIZEOF_BITFIELD | cannot apply sizeof to a bit-field",
        "inline int foo = 1;~inline int foo = 8; | D_DECL_IDRED | identifier redefined: foo~^ current: inline definition~^previous: scalar inline",
        "inline int rand = 7; | D_DECL_IDRED | 'identifier redefined: rand~^ current: inline definition~^previous: function '",
        "int x[5];~BEGIN { x[1, 2] = 1; } | D_ARR_BADREF | cannot access scalar x as an associative array",
        "BEGIN /x/ { trace(y); } | D_IDENT_UNDEF | failed to resolve x: Unknown variable name",
        "struct o { int a; };~translator struct o < struct in *i > { a = i->x; }; | D_OP_INCOMPLETE | operator -> cannot be applied to a forward declaration: no struct in definition is available",
        "struct o { int a; };~translator struct o { int b; }; | D_DECL_TYPERED | type redeclared: struct o",
        "struct o { int a; };~translator struct o~{~  struct in *p~}~{ a = 1; }; | D_DECL_TYPERED | type redeclared: struct o",
        "struct o { int a; };~translator struct o (int i) { a = i; }; | D_SYNTAX | syntax error near \"{\"",
        "struct i { int x; };~struct o { int a; };~translator struct o < struct i *p > { a = p->x; };~struct i *f;~BEGIN { y = (uintptr_t)xlate<struct o *>(f); } | D_CAST_INVAL | invalid cast expression: \"pointer to translated data\" to \"uintptr_t\"",
        "BEGIN { this->x[1, 2] = 123; } | D_ARR_LOCAL | local variables may not be used as associative arrays: x",
        "BEGIN { @a[curpsinfo] = count(); } | D_KEY_TYPE | translated data expression may not be used as aggregation index: key #1",
        "BEGIN { @a = count(); @a; } | D_AGG_NULL | expression has null effect: @a",
        "BEGIN { @a[1]; } | D_AGG_NULL | expression has null effect: @a",
        "BEGIN { @a; } | D_IDENT_UNDEF | failed to resolve @a: Unknown variable name",
        "BEGIN { @[0][1] = count(); } | D_AGG_MDIM | improper attempt to reference @ as a multi-dimensional array",
        "BEGIN { @ = sum(\"\"); } | D_AGG_SCALAR | sum( ) argument #1 must be of scalar type",
        "BEGIN { @ = lquantize(\"\", 1, 5, 1); } | D_AGG_SCALAR | lquantize( ) argument #1 must be of scalar type",
        "BEGIN { avg(1); } | D_CG_EXPR | aggregating function avg( ) may not be called from a D expression (D program context required)",
        "BEGIN { clear(count()); } | D_CLEAR_AGGARG | clear( ) argument #1 is incompatible with prototype:~^prototype: aggregation~^ argument: void",
        "BEGIN { normalize(count(), 4); } | D_NORMALIZE_AGGARG | normalize( ) argument #1 is incompatible with prototype:~^prototype: aggregation~^ argument: void",
        "BEGIN { denormalize(1); } | D_NORMALIZE_AGGARG | denormalize( ) argument #1 is incompatible with prototype:~^prototype: aggregation~^ argument: int",
        "BEGIN { trunc(1); } | D_TRUNC_AGGARG | trunc( ) argument #1 is incompatible with prototype:~^prototype: aggregation~^ argument: int",
        "BEGIN { @a = count(); trace(@a + 3); } | D_OP_INCOMPAT | operands have incompatible types: \"aggregation\" + \"int\"",
        "BEGIN { f = 1; @ = llquantize(1, f, 0, 6, 20); } | D_LLQUANT_FACTORTYPE | llquantize( ) argument #1 (factor) must be an integer constant",
        "BEGIN { l = 1; @ = llquantize(1, 10, l, 6, 20); } | D_LLQUANT_LMAGTYPE | llquantize( ) argument #2 (low magnitude) must be an integer constant",
        "BEGIN { h = 1; @ = llquantize(1, 10, 0, h, 20); } | D_LLQUANT_HMAGTYPE | llquantize( ) argument #3 (high magnitude) must be an integer constant",
        "BEGIN { s = 1; @ = llquantize(1, 10, 0, 6, s); } | D_LLQUANT_STEPTYPE | llquantize( ) argument #4 (linear steps per magnitude) must be an integer constant",
        "BEGIN { @ = lquantize(1, 0, 1100, 0); } | D_LQUANT_STEPTYPE | lquantize( ) argument #4 must be a non-zero positive integer constant",
        "BEGIN { @ = lquantize(1, 0, 1100, -10); } | D_LQUANT_STEPTYPE | lquantize( ) argument #4 must be a non-zero positive integer constant",
        "BEGIN { @ = lquantize(1, 0, 1100, 65536); } | D_LQUANT_STEPVAL | lquantize( ) argument #4 must be a 16-bit quantity",
        "BEGIN { @ = lquantize(1, 1100, 1100, -100); } | D_LQUANT_MISMATCH | lquantize( ) argument #3 must be greater than argument #2",
        "BEGIN { @a = lquantize(1, 10, 0); } | D_LQUANT_MISMATCH | lquantize( ) argument #3 must be greater than argument #2",
        "BEGIN { 1++; } | D_OP_LVAL | operator ++ requires modifiable lvalue as an operand",
        "BEGIN { x = \"s\"; x++; } | D_OP_SCALAR | operator ++ requires operand of scalar type",
        "/* nothing */ | D_EMPTY | empty D program translation unit",
        "#pragma D option a b~BEGIN {} | D_PRAGMA_MALFORM | superfluous arguments specified for #pragma option",
        "#if 0~#endif~BEGIN {} | D_PRAGCTL_INVAL | invalid control directive: #if",
        "#define X 1~BEGIN {} | D_PRAGCTL_INVAL | invalid control directive: #define",
        "#pragma D error \"stop here\"~BEGIN {} | D_PRAGERR | '#error: stop here '",
        "#pragma D depends_on library net.d~BEGIN {} | D_PRAGMA_DEPEND | main program may not explicitly depend on a library",
        "#pragma D depends_on thing x~BEGIN {} | D_PRAGMA_INVAL | invalid class thing specified by #pragma depends_on",
        "#pragma D attributes Sturdy/Stable foo~BEGIN {} | D_PRAGMA_INVAL | invalid attributes specified by #pragma attributes",
        "#pragma D attributes Stable~BEGIN {} | D_PRAGMA_MALFORM | malformed #pragma attributes <attributes> <ident>",
        "#pragma D attributes Stable/Stable/Common nothere~BEGIN {} | D_PRAGMA_UNUSED | unused #pragma attributes",
    })
    void errorsUseDtraceTagsAndWording(String src, String tag, String message) {
        // in the table, '~' stands for a newline and '^' for a tab
        DTraceException e = assertThrows(DTraceException.class, () -> check(src.replace('~', '\n')));
        assertEquals(tag, e.tag());
        assertEquals(message.replace('~', '\n').replace('^', '\t'), e.getMessage());
    }

    @Test
    void aPredicateThatIsNoScalarIsReportedAtTheEndOfItsClause() {
        DTraceException e = assertThrows(DTraceException.class, () -> check("int a[4];\nBEGIN\n/a/\n{\n\texit(0);\n}"));
        assertEquals("D_PRED_SCALAR", e.tag());
        assertEquals(6, e.line());
    }

    @Test
    void aKeyHasAtMostNineMembers() throws DTraceException {
        // dt_cg_arglist's limit (DIF_DTR_NREGS): nine members go, ten are refused without a line
        check("BEGIN { a[0, 1, 2, 3, 4, 5, 6, 7, 8] = 0; @[0, 1, 2, 3, 4, 5, 6, 7, 8] = count(); }");
        DTraceException e = assertThrows(DTraceException.class, () -> check("BEGIN { a[0, 1, 2, 3, 4, 5, 6, 7, 8, 9] = 0; }"));
        assertEquals("Insufficient tuple registers to generate code", e.getMessage());
        assertEquals(-1, e.line());
        assertThrows(DTraceException.class, () -> check("BEGIN { @[0, 1, 2, 3, 4, 5, 6, 7, 8, 9] = count(); }"));
    }

    @Test
    void theActionsAreCheckedBeforeThePredicate() throws DTraceException {
        // dt_compile_one_clause: 'x++' in the actions declares the x the predicate reads
        CheckedProgram p = check("BEGIN /x == 0/ { exit(x++); }\nBEGIN { trace(execname[0]); }");
        assertEquals(DType.INT64, p.globals().get(0).type);
        assertEquals(DType.CHAR, ((Expr.Call) stmt(p, 1, 0)).args.get(0).type);
    }

    @Test
    void functionPrototypesAreCheckedAndDeclareNothing() throws DTraceException {
        CheckedProgram p = check("extern int getint(void);\nextern int *getptr(void);\nextern int *(*funcptr)(void);\n"
                + "extern int **(**funcptrptr)(void);\nextern int noparms();\nextern int twoparms(int, register int);\n"
                + "extern int varargs2(int, ...);\nBEGIN { exit(0); }");
        assertEquals(List.of(), p.globals());
    }

    @Test
    void pragmasThatTakeEffect() throws DTraceException {
        // attributes of an identifier declared before or after the pragma; of a provider; cpp's markers and #line
        check("int x;\n#pragma D attributes Evolving/Evolving/Common x\nBEGIN { x = 1; }");
        check("#pragma D attributes Stable/Stable/ISA y\nint y;\nBEGIN { y = 1; }");
        check("#pragma D attributes Stable/Stable/Common myprov:::\nBEGIN {}");
        check("#pragma D attributes Evolving/Evolving/Common provider myapp provider\nBEGIN {}");
        check("# 1 \"/dev/stdin\"\n#line 4\n#ident \"x\"\n#pragma D depends_on provider syscall\nBEGIN {}");
    }

    @Test
    void anEmptyProgramIsReportedAtEndOfInput() {
        DTraceException e = assertThrows(DTraceException.class, () -> check("/* a comment */\n\n\n"));
        assertEquals("D_EMPTY", e.tag());
        assertEquals(4, e.line());
    }

    @Test
    void errorLinesPointAtTheOffendingLine() {
        DTraceException e = assertThrows(DTraceException.class, () -> check("BEGIN\n{\n\tx = 1;\n\ttrace(y);\n}"));
        assertEquals(4, e.line());
    }

    @Test
    void incrementDeclaresAnInt64() throws DTraceException {
        CheckedProgram p = check("BEGIN /x++ == 0/ { self->y++; }");
        assertEquals(DType.INT64, p.globals().get(0).type);
        assertEquals(DType.INT64, p.threadLocals().get(0).type);
    }
}
