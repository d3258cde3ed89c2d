package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * A control line: {@code #pragma D option quiet} is words {@code [pragma, D, option, quiet]};
 * {@code #line 5 "x.d"} is {@code [line, 5, "x.d"]}. {@link #option()} reads D options.
 */
public record Pragma(int line, List<String> words) implements TopLevel {

    public Pragma {
        words = List.copyOf(words);
    }

    /** For {@code #pragma D option name[=value]}: {name, value-or-null}; otherwise null. */
    public String[] option() {
        if (words.size() >= 4 && words.get(0).equals("pragma") && words.get(1).equals("D")
                && words.get(2).equals("option")) {
            String nv = String.join(" ", words.subList(3, words.size()));
            int eq = nv.indexOf('=');
            return eq < 0 ? new String[] {nv, null} : new String[] {nv.substring(0, eq), nv.substring(eq + 1)};
        }
        return null;
    }

    /**
     * What dtrace's lexer refuses in a {@code #pragma D attributes} line as soon as it reads it
     * (dt_pragma_attributes, before the parser sees the next token): a malformed line
     * (D_PRAGMA_MALFORM) or attributes dtrace_str2attr cannot read (D_PRAGMA_INVAL); null for
     * any other line, whose checks need the program's declarations.
     */
    public org.jdtrace.consumer.DTraceException lexicalError() {
        if (words.size() < 3 || !words.get(0).equals("pragma") || !words.get(1).equals("D")
                || !words.get(2).equals("attributes")) {
            return null;
        }
        boolean provider = words.size() == 7 && words.get(4).equals("provider");
        if (words.size() != 5 && !provider) {
            return new org.jdtrace.consumer.DTraceException("malformed #pragma attributes <attributes> <ident>",
                    "D_PRAGMA_MALFORM", line);
        }
        if (org.jdtrace.spi.Attributes.parse(words.get(3)) == null) {
            return new org.jdtrace.consumer.DTraceException("invalid attributes specified by #pragma attributes",
                    "D_PRAGMA_INVAL", line);
        }
        return null;
    }
}
