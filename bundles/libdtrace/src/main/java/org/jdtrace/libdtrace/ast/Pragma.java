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
}
