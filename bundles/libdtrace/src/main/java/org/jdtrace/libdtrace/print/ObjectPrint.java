/*
 * ObjectPrint: what print() prints for a value that is no pointer (an integer, enum, string,
 * struct, union or array, in memory or in a variable), as illumos' dtrace_print shows it
 * (dt_print.c, after mdb's "::print -tn"): the type visited depth first, one node a line, each
 * indented four columns a level, `type name = value` for a member (`type value` at the top, where
 * there is no name); no space after a type ending in `*` or ` ` (an anonymous union is `union `);
 * a bit-field's width after its name (` :3`). Values: integers in hex (`%#x`: 0 is `0`), a
 * bit-field its masked bits in hex, a char quoted (`'a'`, `'\0'`, `'\ooo'`), an enum its
 * enumerator, a pointer its address in hex; a struct or union opens `{`, its members follow one
 * level deeper, and its `}` is written when a shallower node comes (or at the end, with no newline
 * after the last one: dtrace(1M) ends the record's line). An array is `[ e, e, e ]` with its
 * elements brief (their values only), a struct element on lines of its own one level deeper
 * (pa_nest); a char array that holds printable characters up to a NUL is a string, `"text"`
 * (`[ "text" ]` below the top). Every member is shown, zero or not.
 *
 * Where illumos' output is wrong it is not followed: its dt_print_enum never reads the value and
 * prints enumerator 0 for every enum; here the value's enumerator is printed.
 *
 * Consumer thread only; a new instance for each record and for each array element's visit.
 */
package org.jdtrace.libdtrace.print;

import java.util.List;
import java.util.Map;
import org.jdtrace.libdtrace.ast.PrintLayout;
import org.jdtrace.libdtrace.ast.PrintLayout.Kind;

final class ObjectPrint {

    private static final PrintLayout CHAR = new PrintLayout(Kind.INT, "char", 1, 8, true, 0, List.of(), null, 0, Map.of());

    private final StringBuilder out;
    private final byte[] data;
    /** Array levels the visit is inside of (indentation units: pa_nest). */
    private final int nest;
    /** The depth of the last node shown (pa_depth). */
    private int depth;

    private ObjectPrint(StringBuilder out, byte[] data, int nest) {
        this.out = out;
        this.data = data;
        this.nest = nest;
    }

    /** Appends print()'s output for the value whose bytes are {@code data}, of layout {@code layout}. */
    static void print(StringBuilder out, byte[] data, PrintLayout layout) {
        ObjectPrint p = new ObjectPrint(out, data, 0);
        p.visit("", layout, 0, 0);
        p.closeBraces(0);
    }

    /** The type visit (ctf_type_visit): the node, then a struct's or union's members one deeper. */
    private void visit(String name, PrintLayout l, long bit, int d) {
        member(name, l, bit, d);
        if (structLike(l)) {
            for (PrintLayout.Field f : l.fields()) visit(f.name(), f.layout(), bit + f.bitOffset(), d + 1);
        }
    }

    private static boolean structLike(PrintLayout l) {
        return l.kind() == Kind.STRUCT || l.kind() == Kind.UNION;
    }

    /** The `}` of each struct or union level deeper than {@code d}, the last one without its newline. */
    private void closeBraces(int d) {
        for (int i = depth; i > d; i--) {
            indent(i + nest - 1);
            out.append('}');
            if (i != d + 1) out.append('\n');
        }
    }

    private void member(String name, PrintLayout l, long bit, int d) {
        closeBraces(d);
        if (d < depth) out.append('\n');
        depth = d;
        boolean arrayElement = nest != 0 && d == 0;
        boolean brief = arrayElement && !structLike(l);
        if (!brief) {
            if (arrayElement) out.append('\n');
            indent(depth + nest);
            String type = l.typeName();
            out.append(type);
            if (!name.isEmpty()) {
                if (!type.endsWith("*") && !type.endsWith(" ")) out.append(' ');
                out.append(name);
                if (l.kind() == Kind.INT && (l.isBitfield() || bit % 8 != 0)) out.append(" :").append(l.bits());
                out.append(" =");
            }
            out.append(' ');
        }
        value(l, bit);
        if (!brief) out.append('\n');
    }

    private void value(PrintLayout l, long bit) {
        int at = (int) (bit / 8);
        switch (l.kind()) {
            case STRUCT, UNION -> out.append('{');
            case ARRAY, STRING -> array(l, bit);
            case INT -> {
                if (l.isBitfield() || bit % 8 != 0) {
                    long v = read(at, 8) >>> (l.bitShift() + bit % 8);
                    hex(l.bits() >= 64 ? v : v & ((1L << l.bits()) - 1));
                } else if (isChar(l)) {
                    byte c = at < data.length ? data[at] : 0;
                    if (printable(c)) out.append('\'').append((char) c).append('\'');
                    else if (c == 0) out.append("'\\0'");
                    else out.append("'\\").append(String.format("%03o", (int) c)).append('\'');
                } else {
                    sized(at, l.size());
                }
            }
            case ENUM -> {
                long v = (int) read(at, 4);
                String e = l.enumerators().get(v);
                out.append(e != null ? e : Long.toString(v));
            }
            case POINTER -> sized(at, 8);
            case OTHER -> {
                if (l.typeName().equals("float") && l.size() == 4) {
                    out.append(String.format("%+.7e", (double) Float.intBitsToFloat((int) read(at, 4))));
                } else if (l.typeName().equals("double") && l.size() == 8) {
                    out.append(String.format("%+.7e", Double.longBitsToDouble(read(at, 8))));
                } else {
                    out.append("<unknown encoding>");
                }
            }
        }
    }

    /**
     * An array: its elements visited one by one as nodes of their own, one array level deeper; a
     * char array that reads as a string (printable characters up to a NUL) as that string.
     */
    private void array(PrintLayout l, long bit) {
        boolean str = l.kind() == Kind.STRING;
        PrintLayout e = str ? CHAR : l.element();
        int n = str ? (l.size() > 0 ? l.size() : data.length) : l.length();
        int esize = e.size();
        int at = (int) (bit / 8);
        boolean isString = false;
        if (isChar(e)) {
            int i = 0;
            byte c = 0;
            for (; i < n; i++) {
                c = byteAt(at + i);
                if (!printable(c) || c == 0) break;
            }
            isString = i != n && c == 0;
        }
        boolean brackets = !isString || depth != 0;
        if (brackets) out.append("[ ");
        if (isString) {
            out.append('"');
            for (int i = 0; i < n && byteAt(at + i) != 0; i++) out.append((char) byteAt(at + i));
            out.append('"');
        } else {
            for (int i = 0; i < n; i++) {
                ObjectPrint element = new ObjectPrint(out, data, nest + depth + 1);
                element.visit("", e, bit + 8L * esize * i, 0);
                element.closeBraces(0);
                if (i != n - 1) out.append(", ");
                else if (structLike(e)) out.append('\n');
            }
        }
        if (brackets) {
            if (structLike(e)) indent(depth + nest);
            else out.append(' ');
            out.append(']');
        }
    }

    /** A char as CTF_IS_CHAR has it: a signed 8-bit integer. */
    private static boolean isChar(PrintLayout l) {
        return l.kind() == Kind.INT && l.size() == 1 && l.signed() && !l.isBitfield();
    }

    private static boolean printable(byte c) {
        return c >= 0x20 && c < 0x7f;
    }

    /** An integer of 1, 2, 4 or 8 bytes in hex (dt_print_hex). */
    private void sized(int at, int size) {
        if (size == 1 || size == 2 || size == 4 || size == 8) hex(read(at, size));
        else out.append("<invalid size ").append(size).append('>');
    }

    /** C's %#llx: 0 is "0", anything else 0x and its hex digits. */
    private void hex(long v) {
        out.append(v == 0 ? "0" : "0x" + Long.toHexString(v));
    }

    private void indent(int levels) {
        out.repeat(' ', 4 * levels);
    }

    private byte byteAt(int i) {
        return i < data.length ? data[i] : 0;
    }

    /** The {@code n}-byte little-endian value at {@code at} (missing bytes read as zero). */
    private long read(int at, int n) {
        long v = 0;
        for (int i = Math.min(n, 8) - 1; i >= 0; i--) v = (v << 8) | (byteAt(at + i) & 0xff);
        return v;
    }
}
