package org.jdtrace.libdtrace.ast;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What print() needs of the type it prints, fixed when the clause is compiled (the CTF type that
 * dtrace-utils' dt_print_type visits): each node's kind, its type name as ctf_type_name spells it,
 * its size; a struct's or union's members with their bit offsets; an array's element layout and
 * length; an integer's width in bits, sign and bit-field position; an enum's enumerators by value.
 * Immutable.
 */
public record PrintLayout(Kind kind, String typeName, int size, int bits, boolean signed, int bitShift,
        List<Field> fields, PrintLayout element, int length, Map<Long, String> enumerators) {

    /** STRING: D's string, the char[strsize] it stands for (size 0 where strsize is not yet known). */
    public enum Kind { STRUCT, UNION, ARRAY, INT, ENUM, POINTER, STRING, OTHER }

    /** A struct or union member: its name ("" when anonymous) and its bit offset in the whole. */
    public record Field(String name, long bitOffset, PrintLayout layout) {}

    /**
     * The layout of {@code t}; {@code enums} gives an enum's enumerators by value from its type
     * name ({@code enum eh}).
     */
    public static PrintLayout of(DType t, Function<String, Map<Long, String>> enums) {
        return switch (t) {
            case DType.Sou s -> {
                List<Field> fields = new ArrayList<>();
                for (DType.Member m : s.members()) {
                    PrintLayout l = m.isBitfield() ? bitfield(m.type(), m.size(), m.bits(), m.bitOffset())
                            : m.type().isString() ? string(m.size())
                            : of(m.type(), enums);
                    fields.add(new Field(m.name() == null ? "" : m.name(), m.offset() * 8L, l));
                }
                yield new PrintLayout(s.isUnion() ? Kind.UNION : Kind.STRUCT, s.ctfName(), s.size(), 0, false, 0,
                        List.copyOf(fields), null, 0, Map.of());
            }
            case DType.Array a -> new PrintLayout(Kind.ARRAY, a.ctfName(), a.size(), 0, false, 0, List.of(),
                    of(a.element(), enums), a.length(), Map.of());
            case DType.Int i when i.name().startsWith("enum ") -> new PrintLayout(Kind.ENUM, i.name(), i.size(),
                    i.size() * 8, true, 0, List.of(), null, 0, Map.copyOf(enums.apply(i.name())));
            case DType.Int i -> new PrintLayout(Kind.INT, i.name(), i.size(), i.size() * 8, i.signed(), 0, List.of(),
                    null, 0, Map.of());
            case DType.Str str -> string(0);
            case DType.Ptr p -> new PrintLayout(Kind.POINTER, p.ctfName(), 8, 64, false, 0, List.of(), null, 0, Map.of());
            default -> new PrintLayout(Kind.OTHER, t.name(), t.size(), 0, false, 0, List.of(), null, 0, Map.of());
        };
    }

    /** A bit-field: {@code bits} wide, {@code shift} bits into its storage unit of {@code size} bytes. */
    private static PrintLayout bitfield(DType t, int size, int bits, int shift) {
        boolean signed = t instanceof DType.Int i && i.signed();
        return new PrintLayout(Kind.INT, t.name(), size, bits, signed, shift, List.of(), null, 0, Map.of());
    }

    /** D's string of {@code size} bytes. */
    private static PrintLayout string(int size) {
        return new PrintLayout(Kind.STRING, "string", size, 0, false, 0, List.of(), null, size, Map.of());
    }

    public boolean isBitfield() {
        return kind == Kind.INT && bits != size * 8;
    }
}
