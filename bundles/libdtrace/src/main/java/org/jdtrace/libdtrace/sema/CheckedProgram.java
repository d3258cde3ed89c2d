package org.jdtrace.libdtrace.sema;

import java.util.List;
import java.util.Map;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.Script;
import org.jdtrace.libdtrace.ast.Variable;
import org.jdtrace.libdtrace.print.PrintfFormat;

/**
 * The result of {@link DFrontEnd#check}: a type-checked program, ready for code generation.
 *
 * @param script     the parsed tree; every {@link Expr} in it has its {@code type} and resolved symbol set
 * @param clauses    the clauses in source order, probe descriptions already macro-expanded and split
 * @param options    {@code #pragma D option name[=value]} in order; a bare option maps to null
 * @param globals    global scalars and associative arrays, by id
 * @param threadLocals {@code self->} variables, by id
 * @param clauseLocals {@code this->} variables, by id
 * @param aggregations aggregations by id (the anonymous one is named "")
 * @param formats    the parsed format string of every printf/printa/system call that has one
 */
public record CheckedProgram(Script script, List<Clause> clauses, Map<String, String> options,
                             List<Variable> globals, List<Variable> threadLocals,
                             List<Variable> clauseLocals, List<Variable> aggregations,
                             Map<Expr.Call, PrintfFormat> formats) {}
