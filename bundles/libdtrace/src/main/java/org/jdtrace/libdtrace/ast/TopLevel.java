package org.jdtrace.libdtrace.ast;

/** What a D program is a sequence of: control lines, declarations and probe clauses. */
public sealed interface TopLevel permits Pragma, Decl, Clause, Translator {

    int line();
}
