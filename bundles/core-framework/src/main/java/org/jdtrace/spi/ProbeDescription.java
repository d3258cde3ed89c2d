package org.jdtrace.spi;

import java.util.Objects;

/**
 * A probe description {@code provider:module:function:name} (dtrace_probedesc_t). Each part may be
 * empty, meaning "any", and may hold the glob characters {@code * ? [ ] \}. A description written
 * with fewer than four parts fills from the right: {@code BEGIN} is {@code :::BEGIN},
 * {@code f:entry} is {@code ::f:entry}.
 */
public record ProbeDescription(String provider, String module, String function, String name) {

    public ProbeDescription {
        provider = provider == null ? "" : provider;
        module = module == null ? "" : module;
        function = function == null ? "" : function;
        name = name == null ? "" : name;
    }

    /**
     * The decimal digits that end a provider name after a non-empty prefix ({@code pid123},
     * {@code myapp123}: the process a per-process provider name stands for), or "" when it has
     * none. One reading of that suffix for the framework and every per-process provider.
     *
     * @since 1.3
     */
    public static String processDigits(String provider) {
        int d = provider.length();
        while (d > 0 && Character.isDigit(provider.charAt(d - 1))) {
            d--;
        }
        return d == 0 ? "" : provider.substring(d);
    }

    /** Parses {@code p:m:f:n} with dtrace's right-to-left filling; more than four parts is an error. */
    public static ProbeDescription parse(String spec) {
        Objects.requireNonNull(spec);
        String[] parts = splitColons(spec);
        if (parts.length > 4) {
            throw new IllegalArgumentException("invalid probe specifier " + spec + ": too many :'s");
        }
        String[] all = new String[] {"", "", "", ""};
        System.arraycopy(parts, 0, all, 4 - parts.length, parts.length);
        return new ProbeDescription(all[0], all[1], all[2], all[3]);
    }

    private static String[] splitColons(String spec) {
        java.util.List<String> out = new java.util.ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int bracket = 0;
        for (int i = 0; i < spec.length(); i++) {
            char c = spec.charAt(i);
            if (c == '\\' && i + 1 < spec.length()) {
                cur.append(c).append(spec.charAt(++i));
                continue;
            }
            if (c == '[') bracket++;
            if (c == ']' && bracket > 0) bracket--;
            if (c == ':' && bracket == 0) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out.toArray(String[]::new);
    }

    @Override
    public String toString() {
        return provider + ":" + module + ":" + function + ":" + name;
    }
}
