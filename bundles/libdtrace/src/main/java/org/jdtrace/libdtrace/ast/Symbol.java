package org.jdtrace.libdtrace.ast;

/** What an identifier resolves to: a user {@link Variable}, a {@link BuiltinVariable}, or a {@link Constant}. */
public sealed interface Symbol permits Variable, BuiltinVariable, Constant {

    /** The name as written in D. */
    String dname();

    DType type();
}
