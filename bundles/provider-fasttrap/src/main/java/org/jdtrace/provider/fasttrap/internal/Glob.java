package org.jdtrace.provider.fasttrap.internal;

import java.util.regex.Pattern;

/** dtrace's gmatch(3GEN) patterns for the module, function and name fields: * ? [...] and \. */
final class Glob {

    private final String text;
    private final Pattern pattern;

    private Glob(String text, Pattern pattern) {
        this.text = text;
        this.pattern = pattern;
    }

    /** The empty pattern matches everything, as an empty description field does. */
    static Glob of(String glob) {
        if (glob.isEmpty()) return new Glob(glob, null);
        if (!isGlob(glob)) return new Glob(glob, null);
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                case '[' -> {
                    int j = glob.indexOf(']', i + 1);
                    if (j < 0) {
                        re.append("\\[");
                    } else {
                        String set = glob.substring(i + 1, j);
                        if (set.startsWith("!")) set = "^" + set.substring(1);
                        re.append('[').append(set.replace("\\", "\\\\")).append(']');
                        i = j;
                    }
                }
                case '\\' -> {
                    if (i + 1 < glob.length()) re.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return new Glob(glob, Pattern.compile(re.toString(), Pattern.DOTALL));
    }

    static boolean isGlob(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == '\\') return true;
        }
        return false;
    }

    boolean matches(String s) {
        if (text.isEmpty()) return true;
        return pattern == null ? text.equals(s) : pattern.matcher(s).matches();
    }

    /** True when the pattern names exactly one string. */
    boolean literal() {
        return !text.isEmpty() && pattern == null;
    }
}
