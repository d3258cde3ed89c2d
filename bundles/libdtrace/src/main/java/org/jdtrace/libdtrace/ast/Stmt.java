package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * A statement of a clause body. D bodies are flat lists of expression statements; {@code if/else}
 * (a later D extension) nests lists.
 */
public sealed interface Stmt {

    int line();

    /** {@code expr;} */
    record ExprStmt(int line, Expr expr) implements Stmt {}

    /** A lone {@code ;}. */
    record Empty(int line) implements Stmt {}

    /** {@code if (cond) then [else otherwise]}; {@code otherwise} is empty when there is no else. */
    record If(int line, Expr cond, List<Stmt> then, List<Stmt> otherwise) implements Stmt {
        public If {
            then = List.copyOf(then);
            otherwise = List.copyOf(otherwise);
        }
    }
}
