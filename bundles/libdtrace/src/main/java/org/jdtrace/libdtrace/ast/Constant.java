package org.jdtrace.libdtrace.ast;

/** A compile-time integer constant: an {@code inline} or an enumerator. */
public record Constant(String name, DType type, long value) implements Symbol {

    @Override
    public String dname() {
        return name;
    }
}
