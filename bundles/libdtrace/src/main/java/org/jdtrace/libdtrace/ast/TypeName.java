package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * A type as written in a cast, {@code sizeof}, or a declaration: the base words
 * ({@code "unsigned long long"}, {@code "uint64_t"}, {@code "struct foo"}, {@code "string"}),
 * the number of {@code *}s, and array dimensions ({@code -1} for {@code []}).
 * Sema turns it into a {@link DType}.
 */
public record TypeName(String base, int pointers, List<Integer> dims) {

    public TypeName {
        dims = List.copyOf(dims);
    }

    public static TypeName of(String base) {
        return new TypeName(base, 0, List.of());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(base);
        if (pointers > 0) {
            sb.append(' ').append("*".repeat(pointers));
        }
        for (int d : dims) {
            sb.append('[').append(d >= 0 ? Integer.toString(d) : "").append(']');
        }
        return sb.toString();
    }
}
