/*
 * DTrace's glob matching for probe description parts (the semantics of dtrace_match_glob in
 * dtrace(7d), which follow gmatch(3GEN)):
 *
 *   *      any string, including the empty one
 *   ?      any one character
 *   [..]   one character of the set; ranges a-z; [!..] negates; the first character after
 *          '[' (or '[!') is a member even when it is ']'; an unterminated set matches nothing
 *   \c     the character c itself (also inside a set)
 *
 * An empty pattern part is not a glob: it means "any" (matchesPart). This is the one glob
 * matcher of jdtrace: the framework's probe table and every provider that matches description
 * parts itself (the pid provider's modules, functions and offsets) use it. Matching is iterative with one backtrack point for '*' (the classic
 * greedy-star algorithm), so no pattern makes it recurse deeply or take exponential time.
 */
package org.jdtrace.spi;

public final class Glob {

    private Glob() {}

    /** True if {@code s} contains a character that makes it a glob for dtrace: {@code * ? [ \}. */
    public static boolean isGlob(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == '\\') {
                return true;
            }
        }
        return false;
    }

    /**
     * A probe description part against a name: the empty part matches anything, a part that is
     * no glob only itself, a glob as {@link #match}.
     *
     * @since 1.3
     */
    public static boolean matchesPart(String pattern, String s) {
        return pattern.isEmpty() || (isGlob(pattern) ? match(pattern, s) : pattern.equals(s));
    }

    /**
     * True when the part names exactly one string (not empty, no glob character).
     *
     * @since 1.3
     */
    public static boolean isLiteral(String pattern) {
        return !pattern.isEmpty() && !isGlob(pattern);
    }

    /** Matches the whole of {@code s} against {@code pattern}. */
    public static boolean match(String pattern, String s) {
        int p = 0;
        int i = 0;
        int starP = -1; // pattern index just after the last '*'
        int starS = -1; // string index that '*' currently stands for the end of
        while (true) {
            if (p < pattern.length()) {
                char c = pattern.charAt(p);
                if (c == '*') {
                    while (p < pattern.length() && pattern.charAt(p) == '*') {
                        p++;
                    }
                    if (p == pattern.length()) {
                        return true;
                    }
                    starP = p;
                    starS = i;
                    continue;
                }
                if (i < s.length()) {
                    int next = matchOne(pattern, p, s.charAt(i));
                    if (next >= 0) {
                        p = next;
                        i++;
                        continue;
                    }
                }
            } else if (i == s.length()) {
                return true;
            }
            // mismatch: let the last '*' swallow one more character, if it can
            if (starP < 0 || starS >= s.length()) {
                return false;
            }
            starS++;
            i = starS;
            p = starP;
        }
    }

    /**
     * Matches one pattern element at {@code p} (not '*') against {@code ch}. Returns the index of
     * the next pattern element, or -1 when it does not match (or the pattern is malformed).
     */
    private static int matchOne(String pat, int p, char ch) {
        char c = pat.charAt(p);
        switch (c) {
            case '?':
                return p + 1;
            case '\\':
                if (p + 1 >= pat.length()) {
                    return -1;
                }
                return pat.charAt(p + 1) == ch ? p + 2 : -1;
            case '[':
                return matchSet(pat, p + 1, ch);
            default:
                return c == ch ? p + 1 : -1;
        }
    }

    private static int matchSet(String pat, int p, char ch) {
        int n = pat.length();
        boolean negate = false;
        if (p < n && pat.charAt(p) == '!') {
            negate = true;
            p++;
        }
        boolean found = false;
        boolean first = true;
        while (true) {
            if (p >= n) {
                return -1; // unterminated set
            }
            char c = pat.charAt(p++);
            if (c == ']' && !first) {
                break;
            }
            first = false;
            if (c == '\\') {
                if (p >= n) {
                    return -1;
                }
                c = pat.charAt(p++);
            }
            char hi = c;
            if (p + 1 < n && pat.charAt(p) == '-' && pat.charAt(p + 1) != ']') {
                p++;
                hi = pat.charAt(p++);
                if (hi == '\\') {
                    if (p >= n) {
                        return -1;
                    }
                    hi = pat.charAt(p++);
                }
            }
            if (c <= ch && ch <= hi) {
                found = true;
            }
        }
        return found != negate ? p : -1;
    }
}
