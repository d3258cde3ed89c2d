package org.jdtrace.libdtrace.sema;

import java.util.HashMap;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.BuiltinTypes;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.TypeName;

/**
 * The program's type table (builtin names plus its typedefs and struct/union tags, a tag first
 * mentioned becoming a forward declaration until its body is given) and D's
 * integer rules (dt_type_promote: the wider operand wins, at equal width unsigned wins, with no
 * promotion of narrow types to int), LP64.
 */
final class Types {

    private final Map<String, DType> typedefs = new HashMap<>();
    /** struct/union tags by their full name ("struct coords"), forward ones included. */
    private final Map<String, DType.Sou> tags = new HashMap<>();
    private int anonymous;

    /**
     * The struct or union a tag names, created as a forward declaration on first mention (as
     * dt_decl_type adds a CTF forward tag); {@code tag} "" names a fresh anonymous one.
     */
    DType.Sou tag(String kind, String tag) {
        if (BuiltinTypes.lookup(kind + " " + tag) instanceof DType.Sou builtin) {
            return builtin; // struct psinfo, struct lwpsinfo
        }
        if (tag.isEmpty()) {
            return new DType.Sou(kind + " (anon" + (anonymous++ == 0 ? "" : "#" + anonymous) + ")", kind.equals("union"));
        }
        return tags.computeIfAbsent(kind + " " + tag, n -> new DType.Sou(n, kind.equals("union")));
    }

    /** The struct or union a written base ("struct foo") names, or null for other types. */
    DType.Sou tagOf(String base) {
        if (base.startsWith("struct ") || base.startsWith("union ")) {
            int sp = base.indexOf(' ');
            // a scoped tag, D`name (the D program's own types): the name
            return tag(base.substring(0, sp), base.substring(Math.max(sp + 1, base.lastIndexOf('`') + 1)));
        }
        return null;
    }

    void typedef(String name, DType t) {
        typedefs.put(name, t);
    }

    boolean isTypedef(String name) {
        return typedefs.containsKey(name);
    }

    /** Resolves a written type; unknown names are D_UNKNOWN "failed to resolve type ...". */
    DType resolve(TypeName tn, int line) throws DTraceException {
        DType t = typedefs.get(tn.base());
        if (t == null) {
            t = BuiltinTypes.lookup(normalize(tn.base()));
        }
        if (t == null) {
            t = tagOf(tn.base());
        }
        if (t == null && tn.base().startsWith("enum ")) {
            t = new DType.Int(tn.base(), 4, true);
        }
        if (t == null) {
            throw new DTraceException("failed to resolve type " + written(tn.base()) + " : Unknown type name",
                    "D_UNKNOWN", line);
        }
        for (int i = 0; i < tn.pointers(); i++) {
            t = new DType.Ptr(t);
        }
        for (int i = tn.dims().size() - 1; i >= 0; i--) {
            t = new DType.Array(t, Math.max(0, tn.dims().get(i)));
        }
        return t;
    }

    /** Orders C's base-type words canonically: "int unsigned" -> "unsigned int", "long int long" -> "long long int". */
    /** A type's words in the order dtrace names a type: signed/unsigned, short, long..., the rest. */
    private static String written(String words) {
        java.util.List<String> order = java.util.List.of("signed", "unsigned", "short", "long");
        java.util.List<String> w = new java.util.ArrayList<>(java.util.List.of(words.split(" ")));
        w.sort(java.util.Comparator.comparingInt(x -> order.contains(x) ? order.indexOf(x) : order.size()));
        return String.join(" ", w);
    }

    private static String normalize(String words) {
        String[] w = words.split(" ");
        StringBuilder sign = new StringBuilder();
        int longs = 0;
        String rest = null;
        for (String x : w) {
            switch (x) {
                case "signed", "unsigned" -> sign.append(x);
                case "long" -> longs++;
                default -> rest = rest == null ? x : rest + " " + x;
            }
        }
        StringBuilder sb = new StringBuilder(sign);
        for (int i = 0; i < longs; i++) {
            sb.append(sb.isEmpty() ? "" : " ").append("long");
        }
        if (rest != null) {
            sb.append(sb.isEmpty() ? "" : " ").append(rest);
        }
        return sb.toString();
    }

    /**
     * dt_type_promote: D's usual arithmetic conversion for two integer operands. Each side is
     * ranked by its bit width plus one if unsigned, and the higher rank is the result's type; unlike
     * C nothing narrower than int is first promoted to int (unsigned char + signed char is an
     * unsigned char). At equal rank the left operand's type stands.
     */
    static DType.Int arithmetic(DType.Int a, DType.Int b) {
        return rank(b) > rank(a) ? b : a;
    }

    private static int rank(DType.Int t) {
        return t.size() * 8 + (t.signed() ? 0 : 1);
    }

    /** The type C gives an integer constant with this value and form. */
    static DType.Int constantType(long v, org.jdtrace.libdtrace.lex.Token.IntForm f) {
        if (f == null) {
            return DType.INT;
        }
        if (f.character()) {
            // a constant of up to 4 characters is an int, of 5 to 8 a long (dt_node_int's rule)
            return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? DType.INT : DType.LONG;
        }
        boolean decimal = f.radix() == 10;
        boolean u = f.unsignedSuffix();
        int l = f.longSuffixes();
        boolean fitsInt = v >= 0 && v <= Integer.MAX_VALUE;
        boolean fitsUint = v >= 0 && v <= 0xffffffffL;
        boolean fitsLong = v >= 0;
        if (l == 0) {
            if (!u && fitsInt) {
                return DType.INT;
            }
            if ((u || !decimal) && fitsUint) {
                return DType.UINT;
            }
        }
        if (l <= 1) {
            if (!u && fitsLong) {
                return DType.LONG;
            }
            if (u || !decimal || !fitsLong) {
                return fitsLong && !u ? DType.LONG : DType.ULONG;
            }
        }
        if (!u && fitsLong) {
            return DType.LLONG;
        }
        return DType.ULLONG;
    }
}
