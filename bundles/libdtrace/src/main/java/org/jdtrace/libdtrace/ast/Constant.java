package org.jdtrace.libdtrace.ast;

/**
 * A compile-time integer constant (an enumerator, or an {@code inline} whose value folds), or an
 * {@code inline} of any other value: then {@code expr}, which each use stands for (the value is
 * computed where it is used, as dtrace substitutes an inline's parse tree).
 */
public record Constant(String name, DType type, long value, Expr expr) implements Symbol {

    public Constant(String name, DType type, long value) {
        this(name, type, value, null);
    }

    @Override
    public String dname() {
        return name;
    }
}
