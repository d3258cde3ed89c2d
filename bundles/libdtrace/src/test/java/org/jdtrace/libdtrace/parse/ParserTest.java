package org.jdtrace.libdtrace.parse;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.AstPrinter;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.Script;
import org.jdtrace.libdtrace.lex.Macros;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ParserTest {

    private static String expr(String src) throws DTraceException {
        return AstPrinter.print(Parser.parseExpression(src));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
        "a + b * c => (a + (b * c))",
        "a - b - c => ((a - b) - c)",
        "a = b = c => (a = (b = c))",
        "a || b ^^ c && d => (a || (b ^^ (c && d)))",
        "a | b ^ c & d => (a | (b ^ (c & d)))",
        "a == b < c << d + e => (a == (b < (c << (d + e))))",
        "x ? y : z ? 1 : 2 => (x ? y : (z ? 1 : 2))",
        "-x++ => (-(x++))",
        "!~*&x => (!(~(*(&x))))",
        "(int)x + 1 => (((int)x) + 1)",
        "(uint64_t)x => ((uint64_t)x)",
        "(unsigned long long)x => ((unsigned long long)x)",
        "sizeof (int) + sizeof x => (sizeof(int) + (sizeof x))",
        "self->x[1, \"k\"] += this->y => (self->x[1, \"k\"] += this->y)",
        "@a[probefunc, pid] = count() => (@a[probefunc, pid] = count())",
        "@ = quantize(arg0) => (@ = quantize(arg0))",
        "printa(\"%s %@d\\n\", @a) => printa(\"%s %@d\\n\", @a)",
        "curpsinfo->pr_psargs => (curpsinfo->pr_psargs)",
        "a, b = 1 => (a, (b = 1))",
        "stringof x => (stringof x)",
        "'a' + 1 => (97 + 1)",
    })
    void precedenceAndAssociativity(String src, String want) throws DTraceException {
        assertEquals(want, expr(src));
    }

    @Test
    void aConditionalWhoseConditionIsAConstantWhenParsedIsItsLiveBranch() throws DTraceException {
        // dt_node_op3: literals, macro arguments and integer inlines declared before it
        Script s = Parser.parse("inline int ON = 2 - 1;\ninline int OFF = ON - 1;\n"
                + "BEGIN { ON ? printf(\"y\") : 1; OFF ? 1 : trace(2); $1 ? a : b; 0 ? x : y; (ON && !OFF) ? p : q; }\n",
                "t.d", Macros.of("t.d", List.of("0")), true);
        assertEquals(List.of("printf(\"y\")", "trace(2)", "b", "y", "p"), s.clauses().get(0).body().stream()
                .map(st -> AstPrinter.print(((org.jdtrace.libdtrace.ast.Stmt.ExprStmt) st).expr())).toList());
        // an identifier that is no integer inline, and a variable's, stay conditionals
        assertEquals("(x ? 1 : 2)", expr("x ? 1 : 2"));
        // the branch kept is no unary-expression: it cannot be assigned to (C's grammar), unless parenthesized
        DTraceException e = assertThrows(DTraceException.class, () -> Parser.parse("BEGIN { 1 ? x : y = 3; }", "t.d",
                Macros.of("t.d", List.of()), true));
        assertEquals("syntax error near \"=\"", e.getMessage());
        assertDoesNotThrow(() -> Parser.parse("BEGIN { (1 ? x : y) = 3; }", "t.d", Macros.of("t.d", List.of()), true));
    }

    @Test
    void programWithPragmasClausesAndDefaults() throws DTraceException {
        Script s = Parser.parse("#!/usr/sbin/dtrace -s\n#pragma D option quiet\n#pragma D option bufsize=4m\n"
                + "syscall::read*:entry, pid$1:a.out:main:entry\n/pid == $1/\n{ x = 1; trace(x) }\n"
                + "BEGIN { ; }\nprofile:::tick-1sec\n", "t.d", Macros.of("t.d", List.of("77")), false);
        assertEquals(2, s.pragmas().size());
        assertEquals("bufsize", s.pragmas().get(1).option()[0]);
        assertEquals("4m", s.pragmas().get(1).option()[1]);
        List<Clause> cs = s.clauses();
        assertEquals(3, cs.size());
        assertEquals("syscall::read*:entry, pid77:a.out:main:entry /(pid == 77)/ { (x = 1); trace(x); }",
                AstPrinter.print(cs.get(0)));
        assertEquals(4, cs.get(0).line());
        assertEquals(":::BEGIN { ; }", AstPrinter.print(cs.get(1)));
        assertNull(cs.get(2).body());
        assertEquals("profile:::tick-1sec", cs.get(2).probes().get(0).description().toString());
    }

    @Test
    void predicateSlashDividesUnlessItEndsThePredicate() throws DTraceException {
        Script s = Parser.parse("BEGIN /a / 2 == 1/ { }", "t", Macros.of("t", List.of()), true);
        assertEquals("((a / 2) == 1)", AstPrinter.print(s.clauses().get(0).predicate()));
    }

    @Test
    void declarations() throws DTraceException {
        Script s = Parser.parse("int x; self string s; this int t; int a[int, string]; typedef int myint_t;"
                + " inline int N = 3; BEGIN { y = (myint_t)1; }", "t", Macros.of("t", List.of()), true);
        assertEquals(6, s.decls().size());
        assertEquals(2, s.decls().get(3).keys().size());
        assertEquals("(y = ((myint_t)1));", AstPrinter.print(s.clauses().get(0).body().get(0)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "BEGIN~{~^trace(1)~^trace(2);~} | 4 | syntax error near \"trace\"",
        "BEGIN~{~^i = 0;~^i+-;~} | 4 | syntax error near \";\"",
        "BEGIN~{~^x = 1 + 2 -= 3;~} | 3 | syntax error near \"-=\"",
        "BEGIN~{~^trace(1); | 3 | syntax error near end of input",
        // an unknown identifier last: dtrace's lexer peeks past it for '=' or '[', meets the end
        // and puts back a NUL, which it reports itself
        "BEGIN~{~^x = y~ | 4 | syntax error near end-of-input",
        "int*x | 1 | syntax error near end-of-input",
        // a built-in variable, an identifier interned by an earlier 'y =', a member: no peek
        "BEGIN~{~^x = pid~ | 4 | syntax error near end of input",
        "BEGIN~{~^y = 1;~^x = y~ | 5 | syntax error near end of input",
        "BEGIN~{~^x = y->z | 3 | syntax error near end of input",
        // a comment after it stops the peek before the end
        "BEGIN~{~^x = y /* */ | 3 | syntax error near end of input",
        // stopped at such an identifier: yytext runs on through what the peek put back (blanks
        // as spaces) to the end of the line, or to the newline the peek crossed
        "typedef pint new_int; | 1 | syntax error near \"new_int;\"",
        "typedef pint new_int\t ;  x | 1 | syntax error near \"new_int  ;  x\"",
        "typedef pint new_int  ~;~ | 1 | syntax error near \"new_int  \"",
        // a subroutine is one of dtrace's globals: no peek
        "BEGIN~{~^trace(1) strlen(\"a\"); | 3 | syntax error near \"strlen\"",
        // dtrace's lexer has read past the blanks after the '/' to the '{' when it reports these
        "BEGIN~/rand(/~{~} | 3 | closing ) expected in predicate before /",
        "BEGIN~/x[1/~{~} | 3 | closing ] expected in predicate before /",
        "BEGIN~{~^trace(args[0]]);~} | 3 | extra ] in input stream",
        "~profile-1~^exit(0);~} | 2 | expected predicate and/or actions following probe description",
        "BEGIN~{~^i = 123$pid;~} | 3 | syntax error near \"$pid\"",
    })
    void syntaxErrors(String src, int line, String message) {
        DTraceException e = assertThrows(DTraceException.class,
                () -> Parser.parse(src.replace('~', '\n').replace('^', '\t'), "t.d", Macros.of("t.d", List.of()), true));
        assertEquals(message, e.getMessage());
        assertEquals("D_SYNTAX", e.tag());
        assertEquals(line, e.line());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // the predicate's closing '/': the lexer has read ahead over the newline to the '{'
        "BEGIN~/1 & 2/~{~} | 3",
        "BEGIN~/1 & 2/ {~} | 2",
        // the token after the right operand: the '/' two lines down, not the '&'
        "BEGIN~/1 &~2~/ {~} | 4",
    })
    void aBinaryNodeHasTheLineOfTheTokenAfterIt(String src, int line) throws DTraceException {
        Clause c = Parser.parse(src.replace('~', '\n'), "t.d", Macros.of("t.d", List.of()), true).clauses().get(0);
        assertEquals(line, c.predicate().line);
    }

    @Test
    void aCastHasTheLineOfTheTokenAfterIt() throws DTraceException {
        // no ';': the '}' on the next line ends the statement (dtrace's line for an invalid cast there)
        Clause c = Parser.parse("BEGIN\n{\n\tx = (int)y\n}\n", "t.d", Macros.of("t.d", List.of()), true).clauses().get(0);
        org.jdtrace.libdtrace.ast.Expr.Assign a = (org.jdtrace.libdtrace.ast.Expr.Assign) ((org.jdtrace.libdtrace.ast.Stmt.ExprStmt) c.body().get(0)).expr();
        assertEquals(4, a.value.line);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "inline int foo~~#pragma D attributes bad_attr foo~BEGIN {} | 3 | D_PRAGMA_INVAL | invalid attributes specified by #pragma attributes",
        "inline int foo~#pragma D attributes Stable foo bar~BEGIN {} | 2 | D_PRAGMA_MALFORM | malformed #pragma attributes <attributes> <ident>",
        "inline int foo~#pragma D attributes Stable/Stable/Common foo~BEGIN {} | 2 | D_SYNTAX | syntax error near \"#pragma D attributes Stable/Stable/Common foo\"",
    })
    void aPragmaLineIsReadBeforeTheSyntaxErrorItEnds(String src, int line, String tag, String message) {
        // dtrace's lexer acts on #pragma D attributes when it reads the line: a bad one is what
        // fails, not the unfinished declaration before it
        DTraceException e = assertThrows(DTraceException.class,
                () -> Parser.parse(src.replace('~', '\n'), "t.d", Macros.of("t.d", List.of()), true));
        assertEquals(message, e.getMessage());
        assertEquals(tag, e.tag());
        assertEquals(line, e.line());
    }

    @Test
    void bodilessClauseIsFineFromAString() throws DTraceException {
        assertEquals(2, Parser.parse("BEGIN END", "-n", Macros.of("-n", List.of()), false).clauses().size());
    }

    /**
     * A member of a struct or union type with no body yet is refused where dtrace's parser
     * declares it, before a syntax error further on: D_DECL_INCOMPLETE at the member's line.
     */
    @Test
    void aMemberOfAStructWithNoBodyYetIsRefusedWhereItIsDeclared() {
        DTraceException e = assertThrows(DTraceException.class, () -> Parser.parse(
                "struct a {\n\tstruct b m;\n};\nstruct b { int x; };\nBEGIN /1 2/ { }\n", "t.d", Macros.of("t.d", List.of()), true));
        assertEquals("incomplete struct/union/enum struct b: m", e.getMessage());
        assertEquals("D_DECL_INCOMPLETE", e.tag());
        assertEquals(2, e.line());
        // a pointer to it, or a struct with a body before, is no error
        assertDoesNotThrow(() -> Parser.parse("struct b { int x; };\nstruct a { struct b m; struct c *p; };\n", "t.d",
                Macros.of("t.d", List.of()), true));
    }
}
