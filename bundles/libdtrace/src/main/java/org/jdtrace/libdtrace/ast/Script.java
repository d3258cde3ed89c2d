package org.jdtrace.libdtrace.ast;

import java.util.List;

/** A parsed D program: its top-level items in source order. */
public record Script(String sourceName, List<TopLevel> items) {

    public Script {
        items = List.copyOf(items);
    }

    public List<Clause> clauses() {
        return items.stream().filter(Clause.class::isInstance).map(Clause.class::cast).toList();
    }

    public List<Pragma> pragmas() {
        return items.stream().filter(Pragma.class::isInstance).map(Pragma.class::cast).toList();
    }

    public List<Decl> decls() {
        return items.stream().filter(Decl.class::isInstance).map(Decl.class::cast).toList();
    }
}
