/*
 * TypeDump: what the print() action prints, as DTrace on Linux prints it (dt_print_type over the
 * CTF type visit). First `ADDR = *`, then the type visited depth first, one line a node, indented
 * START (44) columns plus its depth: `[.member = ](type)value,` for scalars (a char as 'c', an
 * enum as its enumerator, a pointer in hex), `(type) {` opening a struct or union whose members
 * follow one level deeper and whose `}` (`},` inside another) comes when a shallower node or the
 * end is reached, `(type [n]) [` for an array followed by its elements (a char array's up to its
 * first NUL) and `],`. Below the top, a node whose bytes are all zero is not shown (nor a zero
 * bit-field). Only printsize bytes are shown: the first node that starts past them prints `...`
 * and ends the visit, as does a depth of MAX_DEPTH.
 *
 * Two behaviours of the original kept as they are: an array's elements are visited as single
 * nodes (an array of structs shows each element's `(struct x) {` line, not its members), and
 * closing braces are written only for the levels below a struct or union that was the last node
 * shown at the level they close.
 *
 * Consumer thread only; a new instance for each record. Allocation is no concern here.
 */
package org.jdtrace.libdtrace.print;

import org.jdtrace.libdtrace.ast.PrintLayout;
import org.jdtrace.libdtrace.ast.PrintLayout.Kind;

final class TypeDump {

    static final int START = 44;
    static final int MAX_DEPTH = 10;

    private final StringBuilder out;
    private final byte[] data;
    /** The bytes shown: the record's, at most printsize. */
    private final long size;
    private final Kind[] kinds = new Kind[MAX_DEPTH];
    private int lastDepth;

    private TypeDump(StringBuilder out, byte[] data, long size) {
        this.out = out;
        this.data = data;
        this.size = size;
    }

    /** Appends print()'s output for {@code data}, read from {@code addr} as {@code layout}. */
    static void dump(StringBuilder out, long addr, byte[] data, PrintLayout layout, long printsize) {
        TypeDump d = new TypeDump(out, data, Math.min(data.length, printsize));
        out.append(addr == 0 ? "(nil)" : "0x" + Long.toHexString(addr)).append(" = *\n");
        d.tree(null, layout, 0, 0);
        d.closeParens(0);
    }

    /** The type visit: the node, then a struct's or union's members one level deeper; false ends it. */
    private boolean tree(String name, PrintLayout l, long bit, int depth) {
        if (!node(name, l, bit, depth)) return false;
        if (l.kind() == Kind.STRUCT || l.kind() == Kind.UNION) {
            for (PrintLayout.Field f : l.fields()) {
                if (!tree(f.name(), f.layout(), bit + f.bitOffset(), depth + 1)) return false;
            }
        }
        return true;
    }

    /** One node; false when the visit must end (out of bytes to show, or too deep). */
    private boolean node(String name, PrintLayout l, long bit, int depth) {
        if (bit / 8 >= size || depth >= MAX_DEPTH) {
            line(depth, "...");
            return false;
        }
        if (lastDepth > depth) closeParens(depth);
        int at = (int) (bit / 8);
        if (depth > 0 && zero(at, l.size())) return true;
        kinds[depth] = l.kind();
        lastDepth = depth;
        String type = l.typeName().endsWith(" ") ? l.typeName().substring(0, l.typeName().length() - 1) : l.typeName();
        String member = depth > 0 && name != null && !name.isEmpty() ? "." + name + " = " : "";
        String value;
        switch (l.kind()) {
            case STRUCT, UNION -> value = "(" + type + ") {";
            case ARRAY -> value = "(" + type + ") [" + (l.length() == 0 ? "]," : "");
            case INT -> {
                long v;
                if (l.isBitfield()) {
                    v = (read(at, 8) >>> l.bitShift()) & (l.bits() == 64 ? -1L : (1L << l.bits()) - 1);
                    if (v == 0) return true;
                } else {
                    v = read(at, l.size());
                    if (l.signed() && l.size() < 8) v = v << (64 - 8 * l.size()) >> (64 - 8 * l.size());
                }
                if (l.size() == 8 && !l.signed()) value = "(" + type + ")" + Long.toUnsignedString(v) + ",";
                else if (type.equals("char") && !l.isBitfield()) value = "(" + type + ")'" + (char) (v & 0xff) + "',";
                else value = "(" + type + ")" + v + ",";
            }
            case ENUM -> {
                long v = (int) read(at, 4);
                String e = l.enumerators().get(v);
                value = "(" + type + ")" + (e != null ? e : Long.toString(v)) + ",";
            }
            case POINTER -> value = "(" + type + ")0x" + Long.toHexString(read(at, 8)) + ",";
            default -> {
                return true;
            }
        }
        line(depth, member + value);
        if (l.kind() == Kind.ARRAY) {
            PrintLayout e = l.element();
            int esize = e.size();
            if (zero(at, esize * l.length())) return true;
            boolean chars = e.kind() == Kind.INT && esize == 1;
            // the elements are visited as nodes of their own (no members), in a visit whose
            // depth bookkeeping does not come back to this one
            TypeDump elements = new TypeDump(out, data, size);
            elements.lastDepth = lastDepth;
            for (int i = 0; i < l.length(); i++) {
                if (chars && at + i < data.length && data[at + i] == 0) break;
                if (!elements.node(null, e, bit + 8L * esize * i, depth + 1)) return false;
            }
            if (l.length() > 0) line(depth, "],");
        }
        return true;
    }

    /** Closes the struct or union levels from the last one shown up to {@code depth}. */
    private void closeParens(int depth) {
        if (kinds[depth] != Kind.STRUCT && kinds[depth] != Kind.UNION) return;
        // an empty struct at the top still gets its "}"
        if (depth == 0 && lastDepth == 0) lastDepth = 1;
        for (int i = lastDepth - depth; i > 0; i--) {
            line(depth + i - 1, "}" + (depth > 0 || i > 1 ? "," : ""));
            lastDepth = depth;
        }
    }

    private void line(int depth, String text) {
        out.repeat(' ', START + depth).append(text).append('\n');
    }

    /** Whether the {@code n} bytes at {@code at} are all zero (bytes past the record count as zero). */
    private boolean zero(int at, int n) {
        for (int i = at; i < at + n && i < data.length; i++) {
            if (data[i] != 0) return false;
        }
        return true;
    }

    /** The {@code n}-byte little-endian value at {@code at} (missing bytes read as zero). */
    private long read(int at, int n) {
        long v = 0;
        for (int i = Math.min(n, 8) - 1; i >= 0; i--) {
            v = (v << 8) | (at + i < data.length ? data[at + i] & 0xff : 0);
        }
        return v;
    }
}
