package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * A probe clause: descriptions, optional predicate, optional body. {@code body} is null when the
 * clause has no braces (the default action: trace nothing, print the CPU/ID/FUNCTION:NAME line);
 * an empty list for {@code {}} (which also gets the default action in dtrace: a clause that records
 * nothing prints the probe line). {@code source} is the description list as written, joined by ','.
 * {@code endLine} is the line where the clause ends (its '}'), where dtrace reports what it finds
 * when it checks the clause as a whole (a predicate that is no scalar).
 */
public record Clause(int line, List<ProbeSpec> probes, Expr predicate, List<Stmt> body, int endLine)
        implements TopLevel {

    public Clause {
        probes = List.copyOf(probes);
        body = body == null ? null : List.copyOf(body);
    }

    public Clause(int line, List<ProbeSpec> probes, Expr predicate, List<Stmt> body) {
        this(line, probes, predicate, body, line);
    }

    public String source() {
        return String.join(",", probes.stream().map(ProbeSpec::text).toList());
    }
}
