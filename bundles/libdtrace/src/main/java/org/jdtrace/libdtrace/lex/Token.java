package org.jdtrace.libdtrace.lex;

/**
 * One token. {@code text} is the source text as written (what error messages quote), {@code line}
 * and {@code column} are 1-based, {@code offset} is the 0-based index in the source.
 * {@code value} is the value of an {@link TokenKind#INT}; {@code string} the value of a
 * {@link TokenKind#STRING}, the name of an {@link TokenKind#AGG}, the expanded text of a
 * {@link TokenKind#PSPEC} or the body of a {@link TokenKind#CONTROL} line.
 * For INT, {@code intForm} tells how it was written (see {@link IntForm}).
 */
public record Token(TokenKind kind, String text, int line, int column, int offset,
                    long value, String string, IntForm intForm) {

    /** How an integer constant was written: its radix and suffixes (C's typing rules depend on them). */
    public record IntForm(int radix, boolean unsignedSuffix, int longSuffixes, boolean character) {
        public static final IntForm DECIMAL = new IntForm(10, false, 0, false);
    }

    public boolean is(TokenKind k) {
        return kind == k;
    }

    /** True for an identifier with exactly this spelling (keywords are identifiers to the lexer). */
    public boolean isWord(String word) {
        return kind == TokenKind.IDENT && text.equals(word);
    }

    /** How dtrace quotes this token in "syntax error near ...". */
    public String near() {
        return kind == TokenKind.EOF ? "end of input" : "\"" + text + "\"";
    }

    @Override
    public String toString() {
        return kind + "(" + text + ")@" + line + ":" + column;
    }
}
