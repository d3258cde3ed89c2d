package org.jdtrace.libdtrace.lex;

/**
 * The kinds of D tokens. Keywords are not kinds of their own: they arrive as {@link #IDENT} and the
 * parser tells them apart by text, so a member named like a keyword ({@code x->int}) needs no trick.
 * Punctuators carry their spelling, which is also the text dtrace prints in
 * {@code syntax error near "..."}.
 */
public enum TokenKind {
    /** An identifier or keyword, possibly with backquotes ({@code `kmem_flags}, {@code vmlinux`jiffies}). */
    IDENT(null),
    /** An integer or character constant; {@link Token#value()} holds its 64-bit value. */
    INT(null),
    /** A string literal; {@link Token#string()} holds the unescaped value. */
    STRING(null),
    /** An aggregation name: {@code @} or {@code @name}; {@link Token#string()} is the name without '@'. */
    AGG(null),
    /** A probe description as written at the start of a clause, macros expanded ({@link Token#string()}). */
    PSPEC(null),
    /** A control line ({@code #pragma ...}, {@code #line ...}); {@link Token#string()} is the line after '#'. */
    CONTROL(null),
    EOF(null),

    LPAR("("), RPAR(")"), LBRAC("["), RBRAC("]"), LBRACE("{"), RBRACE("}"),
    COMMA(","), SEMI(";"), COLON(":"), QUESTION("?"), DOT("."), ARROW("->"), ELLIPSIS("..."),
    PLUS("+"), MINUS("-"), STAR("*"), SLASH("/"), PERCENT("%"),
    AMP("&"), BAR("|"), CARET("^"), BANG("!"), TILDE("~"),
    LT("<"), GT(">"), LE("<="), GE(">="), EQ("=="), NE("!="),
    LAND("&&"), LOR("||"), LXOR("^^"), SHL("<<"), SHR(">>"),
    INC("++"), DEC("--"),
    ASSIGN("="), ADD_EQ("+="), SUB_EQ("-="), MUL_EQ("*="), DIV_EQ("/="), MOD_EQ("%="),
    AND_EQ("&="), OR_EQ("|="), XOR_EQ("^="), SHL_EQ("<<="), SHR_EQ(">>=");

    /** The spelling of a punctuator, or null for the other kinds. */
    public final String spelling;

    TokenKind(String spelling) {
        this.spelling = spelling;
    }
}
