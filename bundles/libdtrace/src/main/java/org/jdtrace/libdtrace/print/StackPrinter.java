/*
 * StackPrinter: a stack's frames as dt_print_stack and dt_print_ustack print them, for the
 * stack()/ustack()/jstack() actions, for stack keys of the default aggregation format, and for
 * printa's %k: a newline, then each frame on its own line after {@code indent} spaces. The
 * frames are already symbolised strings (see Rt.stack). For %k, dt_printf.c's pfprint_stack
 * turns a left-aligned width (%-20k) into the indent and drops it from the frame's format, while
 * a plain width (%60k) right-aligns each frame in that many columns with no indent.
 */
package org.jdtrace.libdtrace.print;

import java.util.List;

public final class StackPrinter {

    private StackPrinter() {}

    /** A newline and {@code i} spaces, for each indent {@code i} up to 63 (option stackindent is mostly its default 14). */
    private static final String[] PADS = new String[64];

    static {
        for (int i = 0; i < PADS.length; i++) PADS[i] = "\n" + " ".repeat(i);
    }

    /** The default layout: each frame after {@code indent} spaces (option stackindent). */
    public static void print(StringBuilder out, List<String> frames, int indent) {
        print(out, frames, indent, 0, -1);
    }

    /**
     * Frames after {@code indent} spaces, each right-aligned in {@code width} columns and cut to
     * {@code precision} characters (none when not positive), as "%*s" / "%.*s" would.
     */
    static void print(StringBuilder out, List<String> frames, int indent, int width, int precision) {
        if (width <= 0 && precision <= 0) {
            // the default layout, an aggregation's thousands of stacks at exit, interpreted: two
            // appends a frame, the newline that ends a line and the next one's indent in one
            String pad = indent >= 0 && indent < PADS.length ? PADS[indent] : "\n" + " ".repeat(indent);
            for (int i = 0, n = frames.size(); i < n; i++) out.append(pad).append(frames.get(i));
            out.append('\n');
            return;
        }
        out.append('\n');
        for (String f : frames) {
            out.repeat(' ', indent);
            String s = precision > 0 && precision < f.length() ? f.substring(0, precision) : f;
            PrintfFormat.pad(out, s, width, false, false);
            out.append('\n');
        }
    }

    /** printa's %k of a stack key: {@code minus}/{@code width} as pfprint_stack reads them. */
    static void conversion(StringBuilder out, List<String> frames, int width, int precision, boolean minus) {
        if (minus) {
            print(out, frames, width, 0, precision);
        } else {
            print(out, frames, 0, width, precision);
        }
    }
}
