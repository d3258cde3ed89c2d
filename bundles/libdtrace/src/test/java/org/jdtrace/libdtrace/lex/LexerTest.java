package org.jdtrace.libdtrace.lex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;

class LexerTest {

    private static List<Token> lex(String src, Lexer.Mode first, List<String> args) throws DTraceException {
        Lexer lx = new Lexer(src, Macros.of("x.d", args), w -> false);
        List<Token> out = new ArrayList<>();
        Lexer.Mode mode = first;
        while (true) {
            Token t = lx.next(mode);
            out.add(t);
            if (t.is(TokenKind.EOF)) {
                return out;
            }
            mode = Lexer.Mode.EXPR;
        }
    }

    @Test
    void processMacrosAreDtracesOwnAsPsReportsThem() throws Exception {
        // $pgid, $sid, $uid, $gid are the compiling process's, as ps(1) reports them
        long pid = ProcessHandle.current().pid();
        Process ps = new ProcessBuilder("ps", "-o", "pgid=,sid=,uid=,gid=", "-p", Long.toString(pid)).start();
        String[] want = new String(ps.getInputStream().readAllBytes()).trim().split("\\s+");
        ps.waitFor();
        Macros m = Macros.of("x.d", List.of());
        assertEquals(List.of(want), List.of(m.lookup("pgid"), m.lookup("sid"), m.lookup("uid"), m.lookup("gid")));
        assertEquals("0", m.lookup("projid"));
    }

    @Test
    void probeSpecIsOneTokenWithMacrosExpanded() throws DTraceException {
        List<Token> t = lex("pid$target:a.out:main:entry\n{", Lexer.Mode.TOP, List.of());
        assertEquals(TokenKind.PSPEC, t.get(0).kind());
        assertEquals("pid0:a.out:main:entry", t.get(0).string());
        assertEquals(TokenKind.LBRACE, t.get(1).kind());
        assertEquals(2, t.get(1).line());
    }

    @Test
    void probeSpecTakesAngleBracketsOfConstructors() throws DTraceException {
        List<Token> t = lex("fbt:app:com.example.Foo.<init>:entry/arg0 < 2/", Lexer.Mode.TOP, List.of());
        assertEquals(TokenKind.PSPEC, t.get(0).kind());
        assertEquals("fbt:app:com.example.Foo.<init>:entry", t.get(0).string());
        assertEquals(TokenKind.SLASH, t.get(1).kind());
    }

    @Test
    void operatorsUseMaximalMunchAndPositions() throws DTraceException {
        List<Token> t = lex("a <<= b ^^ c->d", Lexer.Mode.EXPR, List.of());
        assertEquals(List.of(TokenKind.IDENT, TokenKind.SHL_EQ, TokenKind.IDENT, TokenKind.LXOR, TokenKind.IDENT,
                TokenKind.ARROW, TokenKind.IDENT, TokenKind.EOF), t.stream().map(Token::kind).toList());
        assertEquals(3, t.get(1).column());
        assertEquals(9, t.get(3).column());
    }

    @Test
    void integersStringsCharsAndComments() throws DTraceException {
        List<Token> t = lex("0x1F /* c\n */ 017 10ul 'a' \"x\\ty\" // tail\n@agg", Lexer.Mode.EXPR, List.of());
        assertEquals(31, t.get(0).value());
        assertEquals(15, t.get(1).value());
        assertEquals(2, t.get(1).line());
        assertEquals(true, t.get(2).intForm().unsignedSuffix());
        assertEquals(1, t.get(2).intForm().longSuffixes());
        assertEquals(97, t.get(3).value());
        assertEquals("x\ty", t.get(4).string());
        assertEquals(TokenKind.AGG, t.get(5).kind());
        assertEquals("agg", t.get(5).string());
        assertEquals(3, t.get(5).line());
    }

    @Test
    void macroArguments() throws DTraceException {
        List<Token> t = lex("$1 $$1 $2 $0", Lexer.Mode.EXPR, List.of("42", "foo"));
        assertEquals(TokenKind.INT, t.get(0).kind());
        assertEquals(42, t.get(0).value());
        assertEquals(TokenKind.STRING, t.get(1).kind());
        assertEquals("42", t.get(1).string());
        assertEquals(TokenKind.IDENT, t.get(2).kind());
        assertEquals(TokenKind.STRING, t.get(3).kind());
        assertEquals("x.d", t.get(3).string());
    }

    @Test
    void stringEscapesAreStresc2chrs() throws DTraceException {
        // C's escapes are decoded; any other backslash pair (\?, \') stays two characters
        List<Token> t = lex("\"a\\\"\\t\\044\\?\\x4D\\\\\\'\"", Lexer.Mode.EXPR, List.of());
        assertEquals("a\"\t$\\?M\\\\'", t.get(0).string());
        assertEquals("ab", lex("\"ab\\0cd\"", Lexer.Mode.EXPR, List.of()).get(0).string());
    }

    @Test
    void lexicalErrorsUseDtraceWording() {
        DTraceException e = assertThrows(DTraceException.class, () -> lex("\n0128", Lexer.Mode.EXPR, List.of()));
        assertEquals("constant 0128 contains invalid digit 8", e.getMessage());
        assertEquals("D_INT_DIGIT", e.tag());
        assertEquals(2, e.line());
        e = assertThrows(DTraceException.class, () -> lex("$3", Lexer.Mode.EXPR, List.of("1")));
        assertEquals("macro argument $3 is not defined", e.getMessage());
        assertEquals("D_MACRO_UNDEF", e.tag());
        e = assertThrows(DTraceException.class, () -> lex("/* open", Lexer.Mode.EXPR, List.of()));
        assertEquals("end-of-file encountered before matching */", e.getMessage());
        e = assertThrows(DTraceException.class, () -> lex("\"a\nb\"", Lexer.Mode.EXPR, List.of()));
        assertEquals("D_STR_NL", e.tag());
        assertEquals(2, e.line()); // dtrace's lexer has read the newline when it says so
        e = assertThrows(DTraceException.class, () -> lex("\n'\n'", Lexer.Mode.EXPR, List.of()));
        assertEquals("D_CHR_NL", e.tag());
        assertEquals(3, e.line());
        e = assertThrows(DTraceException.class, () -> lex("''", Lexer.Mode.EXPR, List.of()));
        assertEquals("empty character constant", e.getMessage());
        e = assertThrows(DTraceException.class, () -> lex("a)", Lexer.Mode.EXPR, List.of()));
        assertEquals("extra ) in input stream", e.getMessage());
    }
}
