package org.jdtrace.libdtrace.lex;

import java.math.BigInteger;
import java.util.function.Predicate;
import org.jdtrace.consumer.DTraceException;

/**
 * The D lexer (dt_lex.l's job), hand written.
 *
 * <p>D is lexed in two modes, chosen by the parser for each token it pulls:
 * <ul>
 *   <li>{@link Mode#TOP}: between clauses, where a word starting a clause is a probe description
 *       ({@code syscall::read*:entry}, {@code pid$target:a.out:main:entry}, {@code profile-1}) and
 *       is returned whole as one {@link TokenKind#PSPEC} with its {@code $} macros expanded. A plain
 *       word that is a declaration keyword or a known type name ({@code int}, {@code self},
 *       {@code typedef}, a typedef'd name) comes back as {@link TokenKind#IDENT} instead, so that
 *       top-level declarations parse.</li>
 *   <li>{@link Mode#EXPR}: inside predicates, bodies and declarations: C-like tokens.</li>
 * </ul>
 * In both modes a line whose first non-blank character is '#' is a {@link TokenKind#CONTROL}
 * line; the first line of the source is skipped if it starts with "#!" (an interpreter line).
 * Comments are {@code /* *}{@code /} and, harmlessly, {@code //} to end of line.
 *
 * <p>Macro references ({@code $1}, {@code $$1}, {@code $target}, {@code $pid}) are expanded here,
 * as dtrace does: {@code $$n} is always a string; {@code $n} whose value is an integer is an
 * integer constant, one that is an identifier is an identifier. Errors are thrown as
 * {@link DTraceException}s worded as dtrace words them (D_INT_DIGIT, D_STR_NL, D_MACRO_UNDEF...).
 * Not thread-safe; one instance per compilation.
 */
public final class Lexer {

    public enum Mode { TOP, EXPR }

    private final String src;
    private Macros macros;
    private final Predicate<String> isTypeName;
    /** Option pspec (DTRACE_C_PSPEC): a word before '*' at top level is never a type name. */
    private boolean pspec;
    private int pos;
    private int line = 1;
    private int lineStart;
    private int parens;
    private int brackets;

    /**
     * @param isTypeName tells whether an identifier names a type (so that {@code int x;} at top level
     *        is a declaration, not a probe description); the parser's typedef table
     */
    public Lexer(String src, Macros macros, Predicate<String> isTypeName) {
        this.src = src;
        this.macros = macros;
        this.isTypeName = isTypeName;
        if (src.startsWith("#!")) {
            while (pos < src.length() && src.charAt(pos) != '\n') {
                pos++;
            }
        }
    }

    /**
     * The compile-time options the lexer reads, as they stand now (dt_lex reads pcb_cflags as it
     * meets each token): pspec (DTRACE_C_PSPEC) and defaultargs (DTRACE_C_DEFARG). The parser
     * calls it before the first token and after each #pragma D option, which takes effect from
     * the next token on.
     */
    public void compileFlags(boolean pspec, boolean defaultArgs) {
        this.pspec = pspec;
        if (macros.defaultArgs() != defaultArgs) macros = macros.withDefaultArgs(defaultArgs);
    }

    /** The line the lexer is at (for errors found at end of input). */

    public int line() {
        return line;
    }

    /** Open '(' not yet closed (dtrace's pcb_parens). */
    public int openParens() {
        return parens;
    }

    /** Open '[' not yet closed (pcb_brackets). */
    public int openBrackets() {
        return brackets;
    }

    /**
     * The next character after blanks (not comments) from where the lexer stands, or 0 at end:
     * dtrace's lookahead deciding whether a '/' in a predicate ends it (followed by end of input,
     * ';', '{' or '/') or divides.
     */
    public char nextNonBlankChar() {
        int p = pos;
        while (p < src.length() && Character.isWhitespace(src.charAt(p))) {
            p++;
        }
        return p < src.length() ? src.charAt(p) : 0;
    }

    /** The line of the next non-blank character: where dtrace's lexer is after its look past a '/'. */
    public int nextNonBlankLine() {
        int p = pos;
        int l = line;
        while (p < src.length() && Character.isWhitespace(src.charAt(p))) {
            if (src.charAt(p) == '\n') {
                l++;
            }
            p++;
        }
        return l;
    }

    /** Words that start a top-level declaration rather than a probe description. */
    public static boolean isDeclarationKeyword(String w) {
        return switch (w) {
            case "typedef", "inline", "struct", "union", "enum", "translator", "provider", "self",
                 "this", "extern", "static", "register", "const", "volatile", "signed",
                 "unsigned", "void", "char", "short", "int", "long", "float", "double", "string",
                 "auto" -> true;
            default -> false;
        };
    }

    /** True when nothing but blanks (no comment, no control line) follows {@code offset} to the end. */
    public boolean onlyBlanksAfter(int offset) {
        return blanksFrom(offset) == src.length();
    }

    /** The index of the first non-blank character (RGX_WS: space, \t, \n, \r, \f, \v) from {@code i}. */
    private int blanksFrom(int i) {
        while (i < src.length() && " \t\n\r\f\u000b".indexOf(src.charAt(i)) >= 0) i++;
        return i;
    }

    /**
     * The text dtrace's yytext holds after its lexer's peek past the identifier at {@code offset}
     * ({@code length} characters), cut at a newline: the identifier, then each blank the peek
     * read put back as a space, or as a newline for each newline it crossed (those nearest the
     * next character), then that character and the rest of its line.
     */
    public String afterPeek(int offset, int length) {
        int start = offset + length, i = blanksFrom(start), inputs = i - start;
        long linefeeds = src.substring(start, i).chars().filter(c -> c == '\n').count();
        StringBuilder b = new StringBuilder(src.substring(offset, offset + length));
        b.append(" ".repeat(inputs - (int) linefeeds));
        if (linefeeds > 0) return b.toString();
        int eol = src.indexOf('\n', i);
        return b.append(src, i, eol < 0 ? src.length() : eol).toString();
    }

    public Token next(Mode mode) throws DTraceException {
        skipBlanks();
        if (pos >= src.length()) {
            return tok(TokenKind.EOF, pos, pos, 0, null);
        }
        char c = src.charAt(pos);
        if (c == '#' && atLineStart(pos)) {
            return control();
        }
        if (mode == Mode.TOP && isPspecStart(c)) {
            return probeSpec();
        }
        return exprToken();
    }

    // ---- blanks, comments, control lines ---------------------------------------------------

    private void skipBlanks() throws DTraceException {
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c == '\n') {
                newline(pos);
                pos++;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0x0b) {
                pos++;
            } else if (c == '/' && peekc(1) == '*') {
                pos += 2;
                while (true) {
                    if (pos >= src.length()) {
                        throw new DTraceException("end-of-file encountered before matching */", null, line);
                    }
                    char d = src.charAt(pos);
                    if (d == '*' && peekc(1) == '/') {
                        pos += 2;
                        break;
                    }
                    if (d == '\n') {
                        newline(pos);
                    }
                    pos++;
                }
            } else if (c == '/' && peekc(1) == '/') {
                while (pos < src.length() && src.charAt(pos) != '\n') {
                    pos++;
                }
            } else {
                break;
            }
        }
    }

    private void newline(int at) {
        line++;
        lineStart = at + 1;
    }

    private boolean atLineStart(int p) {
        for (int i = p - 1; i >= 0; i--) {
            char c = src.charAt(i);
            if (c == '\n') {
                return true;
            }
            if (c != ' ' && c != '\t') {
                return false;
            }
        }
        return true;
    }

    private Token control() throws DTraceException {
        int start = pos;
        int startLine = line;
        int col = pos - lineStart + 1;
        StringBuilder body = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= src.length()) {
                throw new DTraceException("end-of-file encountered before end of control line", null, line);
            }
            char c = src.charAt(pos);
            if (c == '\\' && peekc(1) == '\n') {
                pos += 2;
                newline(pos - 1);
                body.append(' ');
                continue;
            }
            if (c == '\n') {
                break;
            }
            body.append(c);
            pos++;
        }
        return new Token(TokenKind.CONTROL, src.substring(start, pos), startLine, col, start, 0,
                body.toString().strip(), null);
    }

    // ---- probe descriptions --------------------------------------------------------------

    private static boolean isPspecStart(char c) {
        return Character.isLetter(c) || c == '_' || c == '-' || c == '$' || c == ':' || c == '.'
                || c == '?' || c == '*' || c == '\\' || c == '[' || c == ']' || c == '!';
    }

    /** Inside a description also digits, '`' and '<' '>' (fbt's constructors, Foo.<init>). */
    private static boolean isPspecChar(char c) {
        return isPspecStart(c) || Character.isDigit(c) || c == '`' || c == '<' || c == '>';
    }

    private Token probeSpec() throws DTraceException {
        int start = pos;
        int col = pos - lineStart + 1;
        while (pos < src.length() && isPspecChar(src.charAt(pos))) {
            pos++;
        }
        String text = src.substring(start, pos);
        if (isIdentifier(text) && (isDeclarationKeyword(text) || isTypeName.test(text))) {
            return new Token(TokenKind.IDENT, text, line, col, start, 0, text, null);
        }
        // dt_lex.l's outer scope: a description with no ':' whose part before a '*' is a type
        // name is a declaration (int*x;): the type comes back alone, the '*' and the rest are
        // lexed again as an expression's tokens
        int star = text.indexOf('*');
        if (!pspec && star > 0 && text.indexOf(':') < 0) {
            String type = text.substring(0, star);
            if (isIdentifier(type) && isTypeName.test(type)) {
                pos = start + star;
                return new Token(TokenKind.IDENT, type, line, col, start, 0, type, null);
            }
        }
        return new Token(TokenKind.PSPEC, text, line, col, start, 0, expandInSpec(text), null);
    }

    private String expandInSpec(String text) throws DTraceException {
        return expandProbeDescription(text, macros, line);
    }

    /**
     * Replaces {@code $n}, {@code $$n} and {@code $name} in a probe description by their text: the
     * one expansion of probe descriptions, used for a clause's descriptions (PSPEC tokens) and for
     * bare -n/-P/-m/-f descriptions with no clause alike (so {@code pid$target:a.out::} lists).
     * Errors (D_MACRO_UNDEF, D_SYNTAX) are reported at {@code line}.
     */
    public static String expandProbeDescription(String text, Macros macros, int line) throws DTraceException {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != '$') {
                out.append(c);
                i++;
                continue;
            }
            int j = i + 1;
            if (j < text.length() && text.charAt(j) == '$') {
                j++;
            }
            int k = j;
            if (k < text.length() && Character.isDigit(text.charAt(k))) {
                while (k < text.length() && Character.isDigit(text.charAt(k))) {
                    k++;
                }
            } else {
                while (k < text.length() && (Character.isLetterOrDigit(text.charAt(k)) || text.charAt(k) == '_')) {
                    k++;
                }
            }
            if (k == j) {
                throw new DTraceException("syntax error near \"" + text + "\"", "D_SYNTAX", line);
            }
            String name = text.substring(j, k);
            String v = macros.lookup(name);
            if (v == null) {
                throw new DTraceException("macro argument " + text.substring(i, k) + " is not defined",
                        "D_MACRO_UNDEF", line);
            }
            out.append(v);
            i = k;
        }
        return out.toString();
    }

    static boolean isIdentifier(String s) {
        if (s.isEmpty() || !(Character.isLetter(s.charAt(0)) || s.charAt(0) == '_')) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_')) {
                return false;
            }
        }
        return true;
    }

    // ---- expression tokens -----------------------------------------------------------------

    private Token exprToken() throws DTraceException {
        int start = pos;
        char c = src.charAt(pos);
        if (Character.isLetter(c) || c == '_' || c == '`') {
            while (pos < src.length()) {
                char d = src.charAt(pos);
                if (Character.isLetterOrDigit(d) || d == '_' || d == '`') {
                    pos++;
                } else {
                    break;
                }
            }
            String w = src.substring(start, pos);
            return tok(TokenKind.IDENT, start, pos, 0, w);
        }
        if (Character.isDigit(c)) {
            return number(start);
        }
        if (c == '"') {
            return string(start);
        }
        if (c == '\'') {
            return character(start);
        }
        if (c == '@') {
            pos++;
            while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                pos++;
            }
            return tok(TokenKind.AGG, start, pos, 0, src.substring(start + 1, pos));
        }
        if (c == '$') {
            return macro(start);
        }
        for (TokenKind k : PUNCTUATORS) {
            if (src.startsWith(k.spelling, pos)) {
                balance(k);
                pos += k.spelling.length();
                return tok(k, start, pos, 0, null);
            }
        }
        pos++;
        throw new DTraceException("syntax error near \"" + c + "\"", "D_SYNTAX", line);
    }

    private void balance(TokenKind k) throws DTraceException {
        switch (k) {
            case LPAR -> parens++;
            case LBRAC -> brackets++;
            case RPAR -> {
                if (parens == 0) {
                    throw new DTraceException("extra ) in input stream", "D_SYNTAX", line);
                }
                parens--;
            }
            case RBRAC -> {
                if (brackets == 0) {
                    throw new DTraceException("extra ] in input stream", "D_SYNTAX", line);
                }
                brackets--;
            }
            default -> { }
        }
    }

    /** Punctuators, longest spelling first so that maximal munch holds. */
    private static final TokenKind[] PUNCTUATORS = java.util.Arrays.stream(TokenKind.values())
            .filter(k -> k.spelling != null)
            .sorted((a, b) -> b.spelling.length() - a.spelling.length())
            .toArray(TokenKind[]::new);

    private Token tok(TokenKind k, int start, int end, long value, String string) {
        return new Token(k, src.substring(start, end), line, start - lineStart + 1, start, value, string,
                null);
    }

    private Token number(int start) throws DTraceException {
        int radix = 10;
        int digits = pos;
        if (src.charAt(pos) == '0' && (peekc(1) == 'x' || peekc(1) == 'X')) {
            radix = 16;
            pos += 2;
            digits = pos;
            while (pos < src.length() && Character.digit(src.charAt(pos), 16) >= 0) {
                pos++;
            }
        } else {
            if (src.charAt(pos) == '0') {
                radix = 8;
            }
            while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                pos++;
            }
        }
        String num = src.substring(digits, pos);
        boolean unsigned = false;
        int longs = 0;
        while (pos < src.length()) {
            char s = src.charAt(pos);
            if ((s == 'u' || s == 'U') && !unsigned) {
                unsigned = true;
            } else if ((s == 'l' || s == 'L') && longs < 2) {
                longs++;
            } else {
                break;
            }
            pos++;
        }
        String text = src.substring(start, pos);
        if (radix == 8) {
            for (int i = 0; i < num.length(); i++) {
                if (num.charAt(i) > '7') {
                    throw new DTraceException("constant " + text + " contains invalid digit " + num.charAt(i),
                            "D_INT_DIGIT", line);
                }
            }
        }
        if (num.isEmpty()) {
            throw new DTraceException("syntax error near \"" + text + "\"", "D_SYNTAX", line);
        }
        BigInteger v = new BigInteger(num, radix);
        if (v.bitLength() > 64) {
            throw new DTraceException("constant " + text + " results in integer overflow", "D_INT_OFLOW", line);
        }
        return new Token(TokenKind.INT, text, line, start - lineStart + 1, start, v.longValue(), null,
                new Token.IntForm(radix, unsigned, longs, false));
    }

    private Token string(int start) throws DTraceException {
        int startLine = line;
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= src.length()) {
                throw new DTraceException("end-of-file encountered before matching \"", null, line);
            }
            char c = src.charAt(pos);
            if (c == '"') {
                pos++;
                break;
            }
            if (c == '\n') {
                // reported where dtrace's lexer is once it has read the newline: the next line
                throw new DTraceException("newline encountered in string literal", "D_STR_NL", line + 1);
            }
            if (c == '\\') {
                if (peekc(1) == '\n') {
                    pos += 2;
                    newline(pos - 1);
                    continue;
                }
                if (pos + 1 < src.length() && CHAR_ESCAPES.indexOf(src.charAt(pos + 1)) < 0) {
                    // stresc2chr: any other escape (\?, \', \c) stands for both its characters
                    sb.append('\\').append(src.charAt(pos + 1));
                    pos += 2;
                    continue;
                }
                sb.append(escape());
                continue;
            }
            sb.append(c);
            pos++;
        }
        // a D string is NUL-terminated: "a\0b" is "a", as dtrace's stresc2chr leaves it
        int nul = sb.indexOf("\0");
        String value = nul >= 0 ? sb.substring(0, nul) : sb.toString();
        return new Token(TokenKind.STRING, src.substring(start, pos), startLine, start - lineStart + 1,
                start, 0, value, null);
    }

    /** The escapes a character constant decodes; dtrace keeps any other backslash pair as two characters. */
    private static final String CHAR_ESCAPES = "ntrabfve\\\"x01234567";

    private Token character(int start) throws DTraceException {
        pos++;
        long v = 0;
        int n = 0;
        while (true) {
            if (pos >= src.length()) {
                throw new DTraceException("end-of-file encountered before matching '", null, line);
            }
            char c = src.charAt(pos);
            if (c == '\'') {
                pos++;
                break;
            }
            if (c == '\n') {
                throw new DTraceException("newline encountered in character constant", "D_CHR_NL", line + 1);
            }
            char ch;
            if (c == '\\' && pos + 1 < src.length() && CHAR_ESCAPES.indexOf(src.charAt(pos + 1)) < 0) {
                // as dtrace's stresc2chr: any other escape (\?, \', \c) stands for both its characters
                v = (v << 8) | '\\';
                n++;
                ch = src.charAt(pos + 1);
                pos += 2;
            } else if (c == '\\') {
                ch = escape();
            } else {
                ch = c;
                pos++;
            }
            v = (v << 8) | (ch & 0xff);
            n++;
        }
        if (n == 0) {
            throw new DTraceException("empty character constant", "D_CHR_NULL", line);
        }
        if (n > 8) {
            throw new DTraceException("character constant is too long", "D_CHR_OFLOW", line);
        }
        if (n == 1) {
            v = (byte) v; // a single char constant is a signed char value widened to int
        }
        return new Token(TokenKind.INT, src.substring(start, pos), line, start - lineStart + 1, start, v,
                null, new Token.IntForm(10, false, 0, true));
    }

    /** Decodes one C escape starting at the backslash at {@code pos}; leaves pos after it. */
    private char escape() {
        pos++; // backslash
        if (pos >= src.length()) {
            return '\\';
        }
        char e = src.charAt(pos++);
        switch (e) {
            case 'n': return '\n';
            case 't': return '\t';
            case 'r': return '\r';
            case 'a': return 0x07;
            case 'b': return '\b';
            case 'f': return '\f';
            case 'v': return 0x0b;
            case 'e': return 0x1b;
            case '\\': return '\\';
            case '\'': return '\'';
            case '"': return '"';
            case '?': return '?';
            case 'x': {
                int v = 0;
                int n = 0;
                while (pos < src.length() && n < 2 && Character.digit(src.charAt(pos), 16) >= 0) {
                    v = v * 16 + Character.digit(src.charAt(pos++), 16);
                    n++;
                }
                return (char) v;
            }
            default:
                if (e >= '0' && e <= '7') {
                    int v = e - '0';
                    int n = 1;
                    while (pos < src.length() && n < 3 && src.charAt(pos) >= '0' && src.charAt(pos) <= '7') {
                        v = v * 8 + (src.charAt(pos++) - '0');
                        n++;
                    }
                    return (char) (v & 0xff);
                }
                return e;
        }
    }

    private Token macro(int start) throws DTraceException {
        pos++;
        boolean str = false;
        if (pos < src.length() && src.charAt(pos) == '$') {
            str = true;
            pos++;
        }
        int nameStart = pos;
        if (pos < src.length() && Character.isDigit(src.charAt(pos))) {
            while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                pos++;
            }
        } else {
            while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                pos++;
            }
        }
        String text = src.substring(start, pos);
        if (pos == nameStart) {
            throw new DTraceException("syntax error near \"" + text + "\"", "D_SYNTAX", line);
        }
        String value = macros.lookup(src.substring(nameStart, pos));
        if (value == null) {
            throw new DTraceException("macro argument " + text + " is not defined", "D_MACRO_UNDEF", line);
        }
        int col = start - lineStart + 1;
        if (str) {
            return new Token(TokenKind.STRING, text, line, col, start, 0, value, null);
        }
        Long iv = parseInteger(value);
        if (iv != null) {
            return new Token(TokenKind.INT, text, line, col, start, iv, null, Token.IntForm.DECIMAL);
        }
        if (value.isEmpty()) {
            return new Token(TokenKind.INT, text, line, col, start, 0, null, Token.IntForm.DECIMAL);
        }
        if (isIdentifier(value)) {
            return new Token(TokenKind.IDENT, value, line, col, start, 0, value, null);
        }
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1);
        }
        // neither an integer nor an identifier (a path, say): dtrace hands it over as a string
        return new Token(TokenKind.STRING, text, line, col, start, 0, value, null);
    }

    /** A macro value that is a C integer constant (decimal, 0x hex, 0 octal, optional sign). */
    static Long parseInteger(String v) {
        String s = v.strip();
        boolean neg = false;
        if (s.startsWith("-") || s.startsWith("+")) {
            neg = s.startsWith("-");
            s = s.substring(1);
        }
        if (s.isEmpty()) {
            return null;
        }
        try {
            BigInteger b;
            if (s.startsWith("0x") || s.startsWith("0X")) {
                b = new BigInteger(s.substring(2), 16);
            } else if (s.length() > 1 && s.startsWith("0")) {
                b = new BigInteger(s.substring(1), 8);
            } else {
                if (!s.chars().allMatch(Character::isDigit)) {
                    return null;
                }
                b = new BigInteger(s);
            }
            if (b.bitLength() > 64) {
                return null;
            }
            return neg ? -b.longValue() : b.longValue();
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private char peekc(int ahead) {
        int p = pos + ahead;
        return p < src.length() ? src.charAt(p) : 0;
    }
}
