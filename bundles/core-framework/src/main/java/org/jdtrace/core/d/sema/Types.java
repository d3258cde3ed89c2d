package org.jdtrace.core.d.sema;

import java.util.HashMap;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.core.d.ast.BuiltinTypes;
import org.jdtrace.core.d.ast.DType;
import org.jdtrace.core.d.ast.TypeName;

/**
 * The program's type table (builtin names plus its typedefs and struct/union/enum tags) and C's
 * integer rules: integral promotion (anything narrower than int becomes int) and the usual
 * arithmetic conversions (the wider operand wins; at equal width unsigned wins), LP64.
 */
final class Types {

    private final Map<String, DType> typedefs = new HashMap<>();

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
        if (t == null && (tn.base().startsWith("struct ") || tn.base().startsWith("union ")
                || tn.base().startsWith("enum "))) {
            t = tn.base().startsWith("enum ") ? new DType.Int(tn.base(), 4, true) : new DType.Tagged(tn.base(), 0);
        }
        if (t == null) {
            throw new DTraceException("failed to resolve type " + tn.base() + " : Unknown type name",
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

    /** C's integral promotion. */
    static DType.Int promote(DType.Int t) {
        return t.size() < 4 ? DType.INT : t;
    }

    /** The usual arithmetic conversions for two integer operands. */
    static DType.Int arithmetic(DType.Int a, DType.Int b) {
        a = promote(a);
        b = promote(b);
        if (a.size() != b.size()) {
            return a.size() > b.size() ? a : b;
        }
        if (a.signed() == b.signed()) {
            return a;
        }
        return a.signed() ? b : a;
    }

    /** The type C gives an integer constant with this value and form. */
    static DType.Int constantType(long v, org.jdtrace.core.d.lex.Token.IntForm f) {
        if (f == null || f.character()) {
            return DType.INT;
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
