package org.jdtrace.libdtrace.sema;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.consumer.DTraceException;

/**
 * A printf()/printa()/system() format string split into literal text and conversions
 * (dt_printf.c's parse), with dtrace's D_SYNTAX wording for malformed conversions. The back end
 * formats output from the same parts, so parse and print agree.
 *
 * <p>A conversion is {@code %[flags][width|*|?][.precision|.*][length]conv} ({@code ?} is a
 * pointer's width, 16) with flags from
 * {@code -+ #0'}, length from {@code hh h l ll L}, conv one of {@code a A c d e E f g G i k o p s
 * S T u x X Y @ %}. Positional {@code %n$} is rejected as dtrace does.
 */
public final class FormatString {

    public sealed interface Part permits Literal, Conversion {}

    /** Text printed as is ({@code %%} has become {@code %}). */
    public record Literal(String text) implements Part {}

    /**
     * One conversion. {@code width}/{@code precision} are -1 when absent; {@code widthStar} /
     * {@code precisionStar} mean they come from an int argument before the value.
     * {@code text} is the conversion as written, e.g. {@code %-8lld}.
     */
    public record Conversion(String text, String flags, int width, boolean widthStar, int precision,
                             boolean precisionStar, String length, char conv) implements Part {

        /** dt_printf.c's name for the conversion in messages: length and letter, e.g. {@code %lld}. */
        public String name() {
            return "%" + length + conv;
        }

        /** Arguments this conversion consumes: its '*'s and (except %%) its value. */
        public int argumentCount() {
            return (widthStar ? 1 : 0) + (precisionStar ? 1 : 0) + 1;
        }
    }

    private static final String CONVS = "aAcdeEfgGikopsSTuxXY@";
    private static final String FLAGS = "-+ #0'";

    private final List<Part> parts;

    private FormatString(List<Part> parts) {
        this.parts = List.copyOf(parts);
    }

    public List<Part> parts() {
        return parts;
    }

    public List<Conversion> conversions() {
        return parts.stream().filter(Conversion.class::isInstance).map(Conversion.class::cast).toList();
    }

    /** Parses {@code fmt}; errors carry {@code line}. */
    public static FormatString parse(String fmt, int line) throws DTraceException {
        List<Part> parts = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int n = 0;
        int i = 0;
        while (i < fmt.length()) {
            char c = fmt.charAt(i);
            if (c != '%') {
                lit.append(c);
                i++;
                continue;
            }
            int start = i++;
            n++;
            StringBuilder flags = new StringBuilder();
            while (i < fmt.length() && FLAGS.indexOf(fmt.charAt(i)) >= 0) {
                flags.append(fmt.charAt(i++));
            }
            int width = -1;
            boolean wstar = false;
            int prec = -1;
            boolean pstar = false;
            boolean dot = false;
            while (i < fmt.length()) {
                char d = fmt.charAt(i);
                if (d == '*') {
                    if (dot) {
                        if (pstar) {
                            throw err(n, "has more than one '*' specified for the output precision", line);
                        }
                        pstar = true;
                    } else {
                        if (wstar) {
                            throw err(n, "has more than one '*' specified for the output width", line);
                        }
                        wstar = true;
                    }
                    i++;
                } else if (Character.isDigit(d)) {
                    int v = 0;
                    while (i < fmt.length() && Character.isDigit(fmt.charAt(i))) {
                        v = v * 10 + (fmt.charAt(i++) - '0');
                    }
                    if (i < fmt.length() && fmt.charAt(i) == '$') {
                        throw err(n, "uses unsupported positional format (%n$)", line);
                    }
                    if (dot) {
                        prec = v;
                    } else {
                        width = v;
                    }
                } else if (d == '?' && !dot) {
                    // dtrace's pointer-sized width: 16 columns on LP64
                    width = 16;
                    i++;
                } else if (d == '.') {
                    if (dot) {
                        throw err(n, "has more than one '.' specified", line);
                    }
                    dot = true;
                    prec = 0;
                    i++;
                } else {
                    break;
                }
            }
            String length = "";
            if (fmt.startsWith("hh", i) || fmt.startsWith("ll", i)) {
                length = fmt.substring(i, i + 2);
                i += 2;
            } else if (i < fmt.length() && "hlL".indexOf(fmt.charAt(i)) >= 0) {
                length = fmt.substring(i, i + 1);
                i++;
            }
            if (i >= fmt.length()) {
                throw err(n, "name expected before end of format string", line);
            }
            char conv = fmt.charAt(i++);
            String text = fmt.substring(start, i);
            if (conv == '%') {
                if (i - start > 2) {
                    throw err(n, "cannot be combined with other format flags: %%", line);
                }
                lit.append('%');
                n--;
                continue;
            }
            if (CONVS.indexOf(conv) < 0) {
                throw err(n, "is undefined: %" + fmt.substring(start + 1 + flags.length(), i), line);
            }
            if (!lit.isEmpty()) {
                parts.add(new Literal(lit.toString()));
                lit.setLength(0);
            }
            parts.add(new Conversion(text, flags.toString(), width, wstar, prec, pstar, length, conv));
        }
        if (!lit.isEmpty()) {
            parts.add(new Literal(lit.toString()));
        }
        return new FormatString(parts);
    }

    private static DTraceException err(int n, String what, int line) {
        return new DTraceException("format conversion #" + n + " " + what, "D_SYNTAX", line);
    }
}
