/*
 * PrintfFormat: D's printf()/printa()/system()/freopen() format strings (libdtrace dt_printf.c's
 * dt_pfargv_t), the one parser of them: the checker parses each format once (dt_printf_create)
 * and validates the arguments against its conversions (dt_printf_validate, in sema.Builtins);
 * the lowering hands the same object to the record, and the consumer formats with it
 * (dt_printf_format).
 *
 * A format is a list of literal text and conversions. A conversion is dt_printf_create's
 * %[flags][width|*|?][.precision|.*][length]conv, its parts in any order as dtrace reads them:
 * flags from "-+ #0'" and '@' (printa: the conversion takes the aggregation's value instead of
 * the next key), '?' a pointer's width (16 columns on LP64), '*' a width or precision taken
 * from an int argument, length from hh h l ll L, conv one of CONVERSIONS; "%%" is a '%'. As in
 * dtrace a leading '0' and '-' cancel each other (the later wins), a conversion is numbered by
 * its place among all conversions including %% (the number dtrace's messages give), and a
 * malformed conversion is refused with dt_printf_create's wording ("format conversion #2 is
 * undefined: %q"), D_SYNTAX. Integer conversions work on the argument's D width (1, 2, 4 or 8
 * bytes), narrowed further by an hh/h length modifier, as dt_printf does: %u of an int -1 is
 * 4294967295, %x of a long -1 is ffffffffffffffff.
 *
 * Immutable and thread-safe: the front end validates arguments against conversions(), the
 * consumer calls format() with the recorded values.
 */
package org.jdtrace.libdtrace.print;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.rt.StackFrames;

public final class PrintfFormat implements org.jdtrace.libdtrace.rt.RecordFormat {

    /** What kind of argument a conversion takes. */
    public enum ArgKind { INTEGER, STRING, FLOAT, CHAR, ADDRESS }

    /** The conversion letters D defines (dt_printf.c's _dtrace_conversions, less the wide ones). */
    public static final String CONVERSIONS = "aAcdeEfgGikopsSTuxXY";

    /** The length modifiers D takes before a conversion letter. */
    private static final List<String> LENGTHS = List.of("", "hh", "h", "l", "ll", "L");

    /**
     * One %-conversion. {@code width}/{@code precision} are -1 when absent; {@code widthStar} /
     * {@code precisionStar} mean they come from an int argument before the value; {@code number}
     * is its place among the format's conversions, %% included, as dtrace's messages number it.
     */
    public record Conversion(boolean minus, boolean plus, boolean space, boolean alt, boolean zero,
                             boolean agg, int width, boolean widthStar, int precision,
                             boolean precisionStar, String length, char conv, int number) {

        public ArgKind argKind() {
            return switch (conv) {
                case 's', 'S' -> ArgKind.STRING;
                case 'e', 'E', 'f', 'g', 'G' -> ArgKind.FLOAT;
                case 'c' -> ArgKind.CHAR;
                case 'p', 'a', 'A' -> ArgKind.ADDRESS;
                default -> ArgKind.INTEGER;
            };
        }

        /** Arguments consumed: 1 plus one per '*'. */
        public int argCount() {
            return 1 + (widthStar ? 1 : 0) + (precisionStar ? 1 : 0);
        }

        /** dt_printf.c's name for the conversion in messages: length and letter, e.g. {@code %lld}. */
        public String name() {
            return "%" + length + conv;
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

    /** Parses a format the project writes itself; a malformed one is a bug (IllegalArgumentException). */
    public static PrintfFormat parse(String fmt) {
        try {
            return parse(fmt, 0);
        } catch (DTraceException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** Parses {@code fmt} as dt_printf_create does; errors carry {@code line}. */
    public static PrintfFormat parse(String fmt, int line) throws DTraceException {
        List<Object> parts = new ArrayList<>();
        List<Conversion> convs = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int n = fmt.length();
        int number = 0;
        for (int i = 0; i < n; i++) {
            char ch = fmt.charAt(i);
            if (ch != '%') {
                lit.append(ch);
                continue;
            }
            number++;
            int start = i;
            boolean minus = false, plus = false, space = false, alt = false, zero = false, agg = false;
            boolean widthStar = false, precStar = false, dot = false;
            int width = -1, precision = -1, digits = 0;
            StringBuilder length = new StringBuilder();
            char conv = 0;
            while (conv == 0) {
                if (++i >= n) {
                    throw syntax(number, "name expected before end of format string", line);
                }
                char c = fmt.charAt(i);
                switch (c) {
                    case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' -> {
                        if (!dot && digits == 0 && c == '0') {
                            zero = true;
                            minus = false;
                            continue;
                        }
                        int v = 0;
                        for (; i < n && Character.isDigit(fmt.charAt(i)); i++) {
                            v = v * 10 + (fmt.charAt(i) - '0');
                        }
                        i--;
                        if (dot) precision = v;
                        else width = v;
                        digits++;
                    }
                    case '#' -> alt = true;
                    case '*' -> {
                        if (dot ? precStar : widthStar) {
                            throw syntax(number, "has more than one '*' specified for the output "
                                    + (dot ? "precision" : "width"), line);
                        }
                        if (dot) precStar = true;
                        else widthStar = true;
                    }
                    case '+' -> plus = true;
                    case '-' -> {
                        minus = true;
                        zero = false;
                    }
                    case '.' -> {
                        if (dot) {
                            throw syntax(number, "has more than one '.' specified", line);
                        }
                        dot = true;
                        precision = 0;
                        digits = 0;
                    }
                    case '?' -> width = 16; // a pointer's width on LP64
                    case '@' -> agg = true;
                    case '\'' -> { } // thousands grouping: none in the C locale dtrace runs in
                    case ' ' -> space = true;
                    case '$' -> throw syntax(number, "uses unsupported positional format (%n$)", line);
                    case 'h', 'l', 'L' -> length.append(c);
                    default -> conv = c;
                }
            }
            if (conv == '%') {
                if (i - start > 1) {
                    throw syntax(number, "cannot be combined with other format flags: %%", line);
                }
                lit.append('%');
                continue;
            }
            if (CONVERSIONS.indexOf(conv) < 0 || !LENGTHS.contains(length.toString())) {
                throw syntax(number, "is undefined: %" + length + conv, line);
            }
            if (lit.length() > 0) {
                parts.add(lit.toString());
                lit.setLength(0);
            }
            Conversion c = new Conversion(minus, plus, space, alt, zero, agg, width, widthStar,
                    precision, precStar, length.toString(), conv, number);
            parts.add(c);
            convs.add(c);
        }
        if (lit.length() > 0) parts.add(lit.toString());
        return new PrintfFormat(fmt, parts.toArray(), convs);
    }

    private static DTraceException syntax(int number, String what, int line) {
        return new DTraceException("format conversion #" + number + " " + what, "D_SYNTAX", line);
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
            case 'e', 'E', 'f', 'g', 'G' -> {
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
                    case "l", "ll", "L" -> 8;
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
