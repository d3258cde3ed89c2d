/*
 * Json: the json() subroutine's reader. select(text, key) walks a dotted key path ("a.b",
 * "a[2].b", "[0]") through JSON text and returns the value found there as D prints it: a
 * string without its quotes (escapes decoded), a number, true, false or null as written, an
 * object or array as its own text. Anything else (a missing member, an index past the end,
 * text that is not JSON at the path) is NULL (null). A recursive-descent scanner over the text,
 * no tree built; it skips what it does not need. Stateless; probe context (it allocates the
 * result only).
 */
package org.jdtrace.libdtrace.codegen;

final class Json {

    private final String s;
    private int i;

    private Json(String s) {
        this.s = s;
    }

    static String select(String text, String key) {
        try {
            Json j = new Json(text);
            j.ws();
            int k = 0;
            while (k < key.length()) {
                char c = key.charAt(k);
                if (c == '[') {
                    int end = key.indexOf(']', k);
                    if (end < 0) return null;
                    int index = Integer.parseInt(key.substring(k + 1, end));
                    if (!j.element(index)) return null;
                    k = end + 1;
                } else {
                    if (c == '.') k++;
                    int end = k;
                    while (end < key.length() && key.charAt(end) != '.' && key.charAt(end) != '[') end++;
                    if (!j.member(key.substring(k, end))) return null;
                    k = end;
                }
            }
            int start = j.i;
            if (j.peek() == '"') return j.string();
            j.value();
            return text.substring(start, j.i).strip();
        } catch (RuntimeException e) {
            return null; // not JSON: index out of range, bad number
        }
    }

    private char peek() {
        return i < s.length() ? s.charAt(i) : 0;
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }

    private void expect(char c) {
        ws();
        if (peek() != c) throw new IllegalArgumentException("expected " + c);
        i++;
        ws();
    }

    /** Positions at the value of member {@code name} of the object here; false if absent. */
    private boolean member(String name) {
        ws();
        if (peek() != '{') return false;
        expect('{');
        if (peek() == '}') return false;
        while (true) {
            String n = string();
            expect(':');
            if (n.equals(name)) return true;
            value();
            ws();
            if (peek() == ',') {
                expect(',');
            } else {
                return false;
            }
        }
    }

    /** Positions at element {@code index} of the array here; false if absent. */
    private boolean element(int index) {
        ws();
        if (peek() != '[') return false;
        expect('[');
        if (peek() == ']') return false;
        for (int n = 0; ; n++) {
            if (n == index) return true;
            value();
            ws();
            if (peek() == ',') {
                expect(',');
            } else {
                return false;
            }
        }
    }

    /** Skips one value. */
    private void value() {
        ws();
        switch (peek()) {
            case '"' -> string();
            case '{' -> composite('{', '}', true);
            case '[' -> composite('[', ']', false);
            default -> {
                int start = i;
                while (i < s.length() && "+-.0123456789eEtruefalsn".indexOf(s.charAt(i)) >= 0) i++;
                String lit = s.substring(start, i);
                if (!(lit.equals("true") || lit.equals("false") || lit.equals("null")
                        || lit.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))) {
                    throw new IllegalArgumentException("bad literal");
                }
            }
        }
    }

    /** Skips an object (members {@code keyed} by strings) or an array, up to and including {@code close}. */
    private void composite(char open, char close, boolean keyed) {
        expect(open);
        if (peek() != close) {
            while (true) {
                if (keyed) {
                    string();
                    expect(':');
                }
                value();
                ws();
                if (peek() != ',') break;
                expect(',');
            }
        }
        if (peek() != close) throw new IllegalArgumentException("expected " + close);
        i++;
    }

    /** Reads a string literal here, escapes decoded. */
    private String string() {
        ws();
        if (peek() != '"') throw new IllegalArgumentException("expected string");
        i++;
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') return out.toString();
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> out.append(e);
            }
        }
    }
}
