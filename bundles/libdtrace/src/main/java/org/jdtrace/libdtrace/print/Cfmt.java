/*
 * Cfmt: C printf(3C) number formatting, the part of dt_printf that the C library does for
 * libdtrace: integer conversions with flags/width/precision on a value narrowed to its D width,
 * and %e/%f/%g with C's rules (Java's Formatter differs on %g and on flag handling).
 */
package org.jdtrace.libdtrace.print;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Locale;

final class Cfmt {

    private Cfmt() {}

    static String integer(long raw, int size, char conv, int width, int precision, boolean minus,
                          boolean plus, boolean space, boolean alt, boolean zero) {
        return integer(raw, size, false, conv, width, precision, minus, plus, space, alt, zero);
    }

    /**
     * {@code unsignedType}: %d of a value whose D type is unsigned prints it as %u (dt_printf's
     * pfcheck_dint turns the conversion into 'u': no sign, '+' and ' ' ignored as C ignores them
     * there); %i is always signed (pfprint_sint), whatever the type.
     */
    static String integer(long raw, int size, boolean unsignedType, char conv, int width, int precision,
                          boolean minus, boolean plus, boolean space, boolean alt, boolean zero) {
        boolean signed = conv == 'i' || (conv == 'd' && !unsignedType);
        int bits = size >= 8 || size <= 0 ? 64 : size * 8;
        long v = raw;
        if (bits < 64) {
            v = signed ? (raw << (64 - bits)) >> (64 - bits) : raw & ((1L << bits) - 1);
        }
        String digits;
        String sign = "";
        String prefix = "";
        switch (conv) {
            case 'd', 'i' -> {
                if (!signed) {
                    digits = Long.toUnsignedString(v);
                } else if (v < 0) {
                    sign = "-";
                    digits = Long.toUnsignedString(-v);
                } else {
                    sign = plus ? "+" : space ? " " : "";
                    digits = Long.toString(v);
                }
            }
            case 'o' -> digits = Long.toOctalString(v);
            case 'x' -> digits = Long.toHexString(v);
            case 'X' -> digits = Long.toHexString(v).toUpperCase(Locale.ROOT);
            default -> digits = Long.toUnsignedString(v);
        }
        if (precision == 0 && v == 0) digits = "";
        if (precision > digits.length()) digits = "0".repeat(precision - digits.length()) + digits;
        if (alt) {
            if (conv == 'o' && !digits.startsWith("0")) digits = "0" + digits;
            if ((conv == 'x' || conv == 'X') && v != 0) prefix = conv == 'x' ? "0x" : "0X";
        }
        return padNumber(sign + prefix, digits, width, minus, zero && precision < 0);
    }

    private static String padNumber(String head, String digits, int width, boolean minus, boolean zero) {
        int len = head.length() + digits.length();
        if (width <= len) return head + digits;
        int fill = width - len;
        if (minus) return head + digits + " ".repeat(fill);
        if (zero) return head + "0".repeat(fill) + digits;
        return " ".repeat(fill) + head + digits;
    }

    static String floating(double d, char conv, int width, int precision, boolean minus, boolean plus,
                           boolean space, boolean alt, boolean zero) {
        boolean upper = Character.isUpperCase(conv);
        String sign = (d < 0 || (d == 0 && 1 / d < 0)) ? "-" : plus ? "+" : space ? " " : "";
        double a = Math.abs(d);
        String body;
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            body = Double.isNaN(d) ? "nan" : "inf";
            if (Double.isNaN(d)) sign = plus ? "+" : space ? " " : "";
            if (upper) body = body.toUpperCase(Locale.ROOT);
            return padNumber(sign, body, width, minus, false);
        }
        int p = precision < 0 ? 6 : precision;
        switch (Character.toLowerCase(conv)) {
            case 'f' -> body = fixed(a, p, alt);
            case 'e' -> body = exp(a, p, alt);
            default -> {
                int P = p == 0 ? 1 : p;
                int x = a == 0 ? 0 : exponentOf(a, P - 1);
                if (P > x && x >= -4) {
                    body = fixed(a, P - 1 - x, alt);
                } else {
                    body = exp(a, P - 1, alt);
                }
                if (!alt) body = stripZeros(body);
            }
        }
        if (upper) body = body.toUpperCase(Locale.ROOT);
        return padNumber(sign, body, width, minus, zero);
    }

    private static String fixed(double a, int p, boolean alt) {
        String s = new BigDecimal(a).setScale(p, java.math.RoundingMode.HALF_EVEN).toPlainString();
        if (alt && p == 0) s = s + ".";
        return s;
    }

    /** The decimal exponent a has once rounded to p+1 significant digits (C's %e exponent). */
    private static int exponentOf(double a, int p) {
        String e = String.format(Locale.ROOT, "%." + p + "e", a);
        return Integer.parseInt(e.substring(e.indexOf('e') + 1));
    }

    private static String exp(double a, int p, boolean alt) {
        String s = String.format(Locale.ROOT, "%." + p + "e", a);
        if (alt && p == 0) {
            int e = s.indexOf('e');
            s = s.substring(0, e) + "." + s.substring(e);
        }
        return s;
    }

    private static String stripZeros(String s) {
        int e = s.indexOf('e');
        String mant = e >= 0 ? s.substring(0, e) : s;
        String tail = e >= 0 ? s.substring(e) : "";
        if (mant.indexOf('.') >= 0) {
            int end = mant.length();
            while (end > 0 && mant.charAt(end - 1) == '0') end--;
            if (end > 0 && mant.charAt(end - 1) == '.') end--;
            mant = mant.substring(0, end);
        }
        return mant + tail;
    }

    /**
     * %T: a walltimestamp (ns since the epoch) as RFC 822 time, as illumos' pfprint_time822
     * formats it with strftime's "%a, %d %b %G %T %Z" in the local zone: Fri, 05 Jan 2024
     * 10:11:12 UTC (%G: the ISO week-based year, which differs from the year in the days around
     * New Year).
     */
    static String time822(long ns) {
        var t = Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L)).atZone(ZoneId.systemDefault());
        return String.format(Locale.ROOT, "%s, %02d %s %d %02d:%02d:%02d %s",
                t.getDayOfWeek().getDisplayName(java.time.format.TextStyle.SHORT, Locale.ROOT), t.getDayOfMonth(),
                t.getMonth().getDisplayName(java.time.format.TextStyle.SHORT, Locale.ROOT),
                t.get(java.time.temporal.IsoFields.WEEK_BASED_YEAR), t.getHour(), t.getMinute(), t.getSecond(),
                java.time.format.DateTimeFormatter.ofPattern("zzz", Locale.ROOT).format(t));
    }

    /** %Y: a walltimestamp (ns since the epoch) as dtrace prints it: 2024 Jan  5 10:11:12. */
    static String walltime(long ns) {
        var t = Instant.ofEpochSecond(Math.floorDiv(ns, 1_000_000_000L)).atZone(ZoneId.systemDefault());
        String day = t.getDayOfMonth() < 10 ? " " + t.getDayOfMonth() : String.valueOf(t.getDayOfMonth());
        return String.format(Locale.ROOT, "%d %s %s %02d:%02d:%02d", t.getYear(),
                t.getMonth().getDisplayName(java.time.format.TextStyle.SHORT, Locale.ROOT), day,
                t.getHour(), t.getMinute(), t.getSecond());
    }
}
