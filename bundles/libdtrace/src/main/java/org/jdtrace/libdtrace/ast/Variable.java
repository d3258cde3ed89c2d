package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * A user variable of the program (a dt_ident_t of kind DT_IDENT_SCALAR/ARRAY/AGG), shared by every
 * node that names it. {@code id} numbers the variables of one {@link Scope} from 0 in order of
 * first appearance (declaration or first use), so the runtime can keep them in arrays.
 *
 * <p>{@code type} is the value type (for an aggregation, the type of its values as printed:
 * int64_t for count/sum/min/max/avg/stddev, the same for quantizations). {@code keyTypes} is null
 * for a scalar and the tuple's key types for an associative array or a keyed aggregation (empty
 * list for an aggregation used without keys). For aggregations {@code function} is the aggregating
 * function; {@code aggArgs} the number of arguments its calls pass.
 * Filled in by the type checker; read-only afterwards.
 */
public final class Variable implements Symbol {

    public enum Scope { GLOBAL, THREAD_LOCAL, CLAUSE_LOCAL, AGGREGATION }

    public final String name;
    public final Scope scope;
    public final int id;
    /** Line of the first declaration or use. */
    public final int line;
    public DType type;
    public List<DType> keyTypes;
    public DFunction function;
    /**
     * Whether the pointers stored in this scalar variable come from alloca() (TRUE) or from
     * elsewhere (FALSE), fixed by the first such store; null while none was made (Checker's
     * D_ALLOCA_INCOMPAT rule).
     */
    public Boolean alloca;
    /**
     * An inline array ({@code inline int f[int x, int y] = x + y;}): its parameters and the
     * expression each use stands for with them bound to its keys; null for a variable.
     */
    public java.util.List<Variable> inlineParams;
    public Expr inlineBody;
    /** True if declared explicitly ({@code int x;}); false if implicitly by first assignment. */
    public boolean declared;
    /**
     * True once the program read the variable (dt_ident_t's DT_IDFLG_REF). A scalar made by
     * assignment, neither declared nor read yet, takes the type of each integer or pointer value
     * assigned to it (dt_ident_unref), so {@code self->ts = 0;} then {@code self->ts = timestamp;}
     * is a uint64_t.
     */
    public boolean referenced;

    public Variable(String name, Scope scope, int id, int line) {
        this.name = name;
        this.scope = scope;
        this.id = id;
        this.line = line;
    }

    @Override
    public String dname() {
        return name;
    }

    @Override
    public DType type() {
        return type;
    }

    public boolean isAssociative() {
        return keyTypes != null && scope != Scope.AGGREGATION;
    }

    @Override
    public String toString() {
        String prefix = switch (scope) {
            case GLOBAL -> "";
            case THREAD_LOCAL -> "self->";
            case CLAUSE_LOCAL -> "this->";
            case AGGREGATION -> "@";
        };
        return prefix + name + (keyTypes == null ? "" : keyTypes.stream().map(DType::name).toList())
                + ":" + (type == null ? "?" : type.name());
    }
}
