package org.jdtrace.consumer;

/**
 * A failure reported to the user exactly as dtrace(1M) words it, without the leading
 * {@code dtrace: }: {@code failed to compile script x.d: line 3: syntax error near "}"},
 * {@code invalid probe specifier foo:::: probe description foo::: does not match any probes}.
 * {@link #tag()} is the D_* compiler tag when there is one; {@link #line()} the line, or -1.
 */
public class DTraceException extends Exception {

    private final String tag;
    private final int line;

    public DTraceException(String message) {
        this(message, null, -1);
    }

    public DTraceException(String message, String tag, int line) {
        super(message, null, false, false);
        this.tag = tag;
        this.line = line;
    }

    public String tag() {
        return tag;
    }

    public int line() {
        return line;
    }
}
