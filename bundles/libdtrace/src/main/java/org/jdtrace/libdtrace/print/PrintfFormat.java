/*
 * PrintfFormat: D's printf()/printa() format strings (libdtrace dt_printf.c), parsed once at
 * compile time and applied by the consumer when it prints a record.
 *
 * A format is a list of literal text and conversions. A conversion is C's
 * %[flags][width][.precision][length]conv with D's additions: the '@' flag of printa (the
 * conversion takes the aggregation's value instead of the next key), and '*' width/precision
 * taken from an argument. Integer conversions work on the argument's D width (1, 2, 4 or 8
 * bytes), narrowed further by an hh/h length modifier, as dt_printf does: %u of an int -1 is
 * 4294967295, %x of a long -1 is ffffffffffffffff.
 *
 * Immutable and thread-safe: the front end validates arguments against conversions(), the
 * consumer calls format() with the recorded values.
 */
package org.jdtrace.libdtrace.print;

import org.jdtrace.libdtrace.rt.StackFrames;
import java.util.ArrayList;
import java.util.List;

public final class PrintfFormat implements org.jdtrace.libdtrace.rt.RecordFormat {

    /** What kind of argument a conversion takes. */
    public enum ArgKind { INTEGER, STRING, FLOAT, CHAR, ADDRESS }

    /** One %-conversion. */
    public record Conversion(boolean minus, boolean plus, boolean space, boolean alt, boolean zero,
                             boolean agg, int width, boolean widthStar, int precision,
                             boolean precisionStar, String length, char conv) {

        public ArgKind argKind() {
            return switch (conv) {
                case 's', 'S' -> ArgKind.STRING;
                case 'e', 'E', 'f', 'F', 'g', 'G' -> ArgKind.FLOAT;
                case 'c' -> ArgKind.CHAR;
                case 'p', 'a', 'A' -> ArgKind.ADDRESS;
                default -> ArgKind.INTEGER;
            };
        }

        /** Arguments consumed: 1 plus one per '*'. */
        public int argCount() {
            return 1 + (widthStar ? 1 : 0) + (precisionStar ? 1 : 0);
        }

        /** The conversion as written, for messages: %d, %@u ... */
        public String text() {
            return "%" + (agg ? "@" : "") + length + conv;
        }
    }

    private final String source;
    /** Literal strings and Conversions in order. */
    private final Object[] parts;
    private final List<Conversion> conversions;

    private PrintfFormat(String source, Object[] parts, List<Conversion> conversions) {
        this.source = source;
        this.parts = parts;
        this.conversions = List.copyOf(conversions);
    }

    public String source() {
        return source;
    }

    public List<Conversion> conversions() {
        return conversions;
    }

    /** Number of arguments the non-@ conversions take (including '*' arguments). */
    public int argCount() {
        int n = 0;
        for (Conversion c : conversions) {
            if (!c.agg()) n += c.argCount();
        }
        return n;
    }

    public boolean hasAggConversion() {
        for (Conversion c : conversions) if (c.agg()) return true;
        return false;
    }

    /**
     * Parses a format. Throws IllegalArgumentException worded as libdtrace words it
     * ("failed to parse format: ...") for an unknown conversion or a truncated one.
     */
    public static PrintfFormat parse(String fmt) {
        List<Object> parts = new ArrayList<>();
        List<Conversion> convs = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int n = fmt.length();
        for (int i = 0; i < n; i++) {
            char ch = fmt.charAt(i);
            if (ch != '%') {
                lit.append(ch);
                continue;
            }
            int start = i;
            i++;
            if (i < n && fmt.charAt(i) == '%') {
                lit.append('%');
                continue;
            }
            boolean minus = false, plus = false, space = false, alt = false, zero = false, agg = false;
            boolean pointerWidth = false;
            for (; i < n; i++) {
                char f = fmt.charAt(i);
                if (f == '-') minus = true;
                else if (f == '+') plus = true;
                else if (f == ' ') space = true;
                else if (f == '#') alt = true;
                else if (f == '0') zero = true;
                else if (f == '@') agg = true;
                else if (f == '?') pointerWidth = true; // a pointer's width, 16 columns on LP64
                else if (f == '\'') continue; // thousands grouping: none in the C locale dtrace runs in
                else break;
            }
            int width = -1;
            boolean widthStar = false;
            if (i < n && fmt.charAt(i) == '*') {
                widthStar = true;
                i++;
            } else {
                int w = 0;
                boolean any = false;
                while (i < n && Character.isDigit(fmt.charAt(i))) {
                    w = w * 10 + (fmt.charAt(i++) - '0');
                    any = true;
                }
                if (any) width = w;
                else if (pointerWidth) width = 16;
            }
            int precision = -1;
            boolean precStar = false;
            if (i < n && fmt.charAt(i) == '.') {
                i++;
                if (i < n && fmt.charAt(i) == '*') {
                    precStar = true;
                    i++;
                } else {
                    int p = 0;
                    while (i < n && Character.isDigit(fmt.charAt(i))) p = p * 10 + (fmt.charAt(i++) - '0');
                    precision = p;
                }
            }
            if (i < n && fmt.charAt(i) == '@') { // "%9@x": dtrace takes '@' after the width too
                agg = true;
                i++;
            }
            String length = "";
            if (i + 1 < n && (fmt.startsWith("hh", i) || fmt.startsWith("ll", i))) {
                length = fmt.substring(i, i + 2);
                i += 2;
            } else if (i < n && "hlLjzt".indexOf(fmt.charAt(i)) >= 0) {
                length = String.valueOf(fmt.charAt(i));
                i++;
            }
            if (i >= n) {
                throw new IllegalArgumentException("failed to parse format: incomplete conversion \""
                        + fmt.substring(start) + "\"");
            }
            char conv = fmt.charAt(i);
            if ("aAcdieEfFgGopsSuxXYkT".indexOf(conv) < 0) {
                throw new IllegalArgumentException("failed to parse format: invalid conversion \""
                        + fmt.substring(start, i + 1) + "\"");
            }
            if (lit.length() > 0) {
                parts.add(lit.toString());
                lit.setLength(0);
            }
            Conversion c = new Conversion(minus, plus, space, alt, zero, agg, width, widthStar,
                    precision, precStar, length, conv);
            parts.add(c);
            convs.add(c);
        }
        if (lit.length() > 0) parts.add(lit.toString());
        return new PrintfFormat(fmt, parts.toArray(), convs);
    }

    /**
     * Formats with plain arguments (printf): integers are {@link Long}, strings {@link String};
     * {@code sizes[i]} is argument i's width in bytes (8 when absent or 0), negative for an
     * unsigned type.
     */
    @Override
    public void format(StringBuilder out, Object[] args, int[] sizes) {
        format(out, args, sizes, null);
    }

    /**
     * Formats for printa: non-@ conversions take {@code args} in order (the keys, then the value),
     * each @ conversion takes the next of {@code aggValues}, formatted by {@code aggValue}.
     */
    public void format(StringBuilder out, Object[] args, int[] sizes, AggValueFormatter aggValue) {
        int ai = 0;
        int aggIndex = 0;
        for (Object part : parts) {
            if (part instanceof String s) {
                out.append(s);
                continue;
            }
            Conversion c = (Conversion) part;
            int width = c.width();
            int precision = c.precision();
            boolean minus = c.minus();
            if (c.widthStar()) {
                long w = ai < args.length && args[ai] instanceof Long l ? l : 0;
                ai++;
                if (w < 0) {
                    minus = true;
                    w = -w;
                }
                width = (int) w;
            }
            if (c.precisionStar()) {
                long p = ai < args.length && args[ai] instanceof Long l ? l : 0;
                ai++;
                precision = p < 0 ? -1 : (int) p;
            }
            if (c.agg() && aggValue != null) {
                aggValue.format(out, aggIndex++, c, width, precision, minus);
                continue;
            }
            if (ai >= args.length) continue;
            Object arg = args[ai];
            int size = sizes != null && ai < sizes.length && sizes[ai] != 0 ? sizes[ai] : 8;
            ai++;
            formatOne(out, c, width, precision, minus, arg, Math.abs(size), size < 0);
        }
    }

    /** Formats one aggregation value for a %@ conversion (printa). */
    @FunctionalInterface
    public interface AggValueFormatter {
        void format(StringBuilder out, int aggIndex, Conversion c, int width, int precision, boolean minus);
    }

    /** Formats a single value with one conversion. */
    public static void formatOne(StringBuilder out, Conversion c, int width, int precision, boolean minus,
                                 Object arg, int size) {
        formatOne(out, c, width, precision, minus, arg, size, false);
    }

    /**
     * Formats a single value with one conversion; {@code unsigned} says the argument's D type is
     * unsigned, so %d/%i print it as such (dtrace prints an unsigned char 255 with %d as 255).
     */
    public static void formatOne(StringBuilder out, Conversion c, int width, int precision, boolean minus,
                                 Object arg, int size, boolean unsigned) {
        switch (c.conv()) {
            case 's' -> pad(out, truncate(String.valueOf(arg), precision), width, minus, false);
            case 'S' -> pad(out, truncate(escape(String.valueOf(arg)), precision), width, minus, false);
            case 'c' -> pad(out, String.valueOf((char) (toLong(arg) & 0xff)), width, minus, false);
            case 'e', 'E', 'f', 'F', 'g', 'G' -> {
                double d = arg instanceof Number num ? num.doubleValue() : 0;
                if (arg instanceof Long l) d = l;
                out.append(Cfmt.floating(d, c.conv(), width, precision, minus, c.plus(), c.space(),
                        c.alt(), c.zero()));
            }
            case 'p', 'a', 'A' -> {
                if (arg instanceof String sym && c.conv() != 'p') { // a symbol key, symbolised at the firing
                    pad(out, sym, width, minus, false);
                    return;
                }
                long v = toLong(arg);
                String digits = Long.toHexString(v);
                String s = "0x" + digits;
                pad(out, s, width, minus, c.zero() && !minus);
            }
            case 'Y' -> pad(out, Cfmt.walltime(toLong(arg)), width, minus, false);
            case 'k' -> {
                if (arg instanceof StackFrames st) StackPrinter.conversion(out, st.frames(), width, precision, minus);
                else pad(out, String.valueOf(arg), width, minus, false);
            }
            case 'T' -> pad(out, Cfmt.time822(toLong(arg)), width, minus, false);
            default -> {
                int eff = switch (c.length()) {
                    case "hh" -> 1;
                    case "h" -> 2;
                    case "l", "ll", "j", "z", "t", "L" -> 8;
                    default -> size;
                };
                long v = toLong(arg);
                out.append(Cfmt.integer(v, eff, unsigned && c.length().isEmpty(), c.conv(), width, precision,
                        minus, c.plus(), c.space(),
                        c.alt(), c.zero()));
            }
        }
    }

    static long toLong(Object arg) {
        if (arg instanceof Number n) return n.longValue();
        if (arg instanceof Character ch) return ch;
        return 0;
    }

    /** %.Ns: at most N characters; DTrace takes a precision of 0 as none given. */
    private static String truncate(String s, int precision) {
        return precision > 0 && precision < s.length() ? s.substring(0, precision) : s;
    }

    static void pad(StringBuilder out, String s, int width, boolean minus, boolean zero) {
        int fill = width - s.length();
        if (fill <= 0) {
            out.append(s);
        } else if (minus) {
            out.append(s).repeat(' ', fill);
        } else {
            out.repeat(zero ? '0' : ' ', fill).append(s);
        }
    }

    /** %S: non-printable characters as C escapes. */
    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case 0x07 -> b.append("\\a");
                case 0x0b -> b.append("\\v");
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                default -> {
                    if (ch < 0x20 || ch >= 0x7f) b.append(String.format("\\%03o", ch & 0xff));
                    else b.append(ch);
                }
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return source;
    }
}
