package org.jdtrace.libdtrace.ast;

/**
 * D's callable built-ins: actions (record data or act on the consumer), subroutines (compute a
 * value) and aggregating functions (only on the right of {@code @a[...] =}). {@code minArgs} /
 * {@code maxArgs} are the argument counts dtrace accepts ({@code maxArgs} = -1: variadic, e.g.
 * printf); prototype checking beyond the count is done by the type checker.
 */
public enum DFunction {
    // actions
    TRACE("trace", Kind.ACTION, 1, 1), TRACEMEM("tracemem", Kind.ACTION, 2, 3),
    PRINTF("printf", Kind.ACTION, 1, -1), PRINTA("printa", Kind.ACTION, 1, -1),
    PRINT("print", Kind.ACTION, 1, 1), STACK("stack", Kind.ACTION, 0, 1),
    USTACK("ustack", Kind.ACTION, 0, 2), JSTACK("jstack", Kind.ACTION, 0, 2),
    SYM("sym", Kind.ACTION, 1, 1), FUNC("func", Kind.ACTION, 1, 1), MOD("mod", Kind.ACTION, 1, 1),
    USYM("usym", Kind.ACTION, 1, 1), UFUNC("ufunc", Kind.ACTION, 1, 1), UMOD("umod", Kind.ACTION, 1, 1),
    UADDR("uaddr", Kind.ACTION, 1, 1), EXIT("exit", Kind.ACTION, 1, 1),
    SPECULATE("speculate", Kind.ACTION, 1, 1), COMMIT("commit", Kind.ACTION, 1, 1),
    DISCARD("discard", Kind.ACTION, 1, 1), CLEAR("clear", Kind.ACTION, 1, 1),
    TRUNC("trunc", Kind.ACTION, 1, 2), NORMALIZE("normalize", Kind.ACTION, 2, 2),
    DENORMALIZE("denormalize", Kind.ACTION, 1, 1), SETOPT("setopt", Kind.ACTION, 1, 2),
    FREOPEN("freopen", Kind.ACTION, 1, -1), FTRUNCATE("ftruncate", Kind.ACTION, 0, 0),
    SYSTEM("system", Kind.DESTRUCTIVE, 1, -1), RAISE("raise", Kind.DESTRUCTIVE, 1, 1),
    STOP("stop", Kind.DESTRUCTIVE, 0, 0), COPYOUT("copyout", Kind.DESTRUCTIVE, 3, 3),
    COPYOUTSTR("copyoutstr", Kind.DESTRUCTIVE, 3, 3), BREAKPOINT("breakpoint", Kind.DESTRUCTIVE, 0, 0),
    PANIC("panic", Kind.DESTRUCTIVE, 0, 0), CHILL("chill", Kind.DESTRUCTIVE, 1, 1),
    // subroutines
    ALLOCA("alloca", Kind.SUBROUTINE, 1, 1), BASENAME("basename", Kind.SUBROUTINE, 1, 1),
    DIRNAME("dirname", Kind.SUBROUTINE, 1, 1), CLEANPATH("cleanpath", Kind.SUBROUTINE, 1, 1),
    BCOPY("bcopy", Kind.SUBROUTINE, 3, 3), COPYIN("copyin", Kind.SUBROUTINE, 2, 2),
    COPYINSTR("copyinstr", Kind.SUBROUTINE, 1, 2), COPYINTO("copyinto", Kind.SUBROUTINE, 3, 3),
    STRLEN("strlen", Kind.SUBROUTINE, 1, 1), STRJOIN("strjoin", Kind.SUBROUTINE, 2, 2),
    SUBSTR("substr", Kind.SUBROUTINE, 2, 3), INDEX("index", Kind.SUBROUTINE, 2, 3),
    RINDEX("rindex", Kind.SUBROUTINE, 2, 3), STRCHR("strchr", Kind.SUBROUTINE, 2, 2),
    STRRCHR("strrchr", Kind.SUBROUTINE, 2, 2), STRSTR("strstr", Kind.SUBROUTINE, 2, 2),
    STRTOK("strtok", Kind.SUBROUTINE, 2, 2), LLTOSTR("lltostr", Kind.SUBROUTINE, 1, 2),
    STRTOLL("strtoll", Kind.SUBROUTINE, 1, 2), TOLOWER("tolower", Kind.SUBROUTINE, 1, 1),
    TOUPPER("toupper", Kind.SUBROUTINE, 1, 1), JSON("json", Kind.SUBROUTINE, 2, 2),
    HTONS("htons", Kind.SUBROUTINE, 1, 1), HTONL("htonl", Kind.SUBROUTINE, 1, 1),
    HTONLL("htonll", Kind.SUBROUTINE, 1, 1), NTOHS("ntohs", Kind.SUBROUTINE, 1, 1),
    NTOHL("ntohl", Kind.SUBROUTINE, 1, 1), NTOHLL("ntohll", Kind.SUBROUTINE, 1, 1),
    INET_NTOA("inet_ntoa", Kind.SUBROUTINE, 1, 1), INET_NTOA6("inet_ntoa6", Kind.SUBROUTINE, 1, 1),
    INET_NTOP("inet_ntop", Kind.SUBROUTINE, 2, 2), RAND("rand", Kind.SUBROUTINE, 0, 0),
    SPECULATION("speculation", Kind.SUBROUTINE, 0, 0), PROGENYOF("progenyof", Kind.SUBROUTINE, 1, 1),
    GETMAJOR("getmajor", Kind.SUBROUTINE, 1, 1), GETMINOR("getminor", Kind.SUBROUTINE, 1, 1),
    // aggregating functions
    COUNT("count", Kind.AGGREGATING, 0, 0), SUM("sum", Kind.AGGREGATING, 1, 1),
    AVG("avg", Kind.AGGREGATING, 1, 1), MIN("min", Kind.AGGREGATING, 1, 1),
    MAX("max", Kind.AGGREGATING, 1, 1), STDDEV("stddev", Kind.AGGREGATING, 1, 1),
    QUANTIZE("quantize", Kind.AGGREGATING, 1, 2), LQUANTIZE("lquantize", Kind.AGGREGATING, 3, 5),
    LLQUANTIZE("llquantize", Kind.AGGREGATING, 5, 6);

    public enum Kind { ACTION, DESTRUCTIVE, SUBROUTINE, AGGREGATING }

    public final String dname;
    public final Kind kind;
    public final int minArgs;
    public final int maxArgs;

    DFunction(String dname, Kind kind, int minArgs, int maxArgs) {
        this.dname = dname;
        this.kind = kind;
        this.minArgs = minArgs;
        this.maxArgs = maxArgs;
    }

    /** Actions, destructive or not: calls that may only appear as statements. */
    public boolean isAction() {
        return kind == Kind.ACTION || kind == Kind.DESTRUCTIVE;
    }

    public static DFunction byName(String name) {
        for (DFunction f : values()) {
            if (f.dname.equals(name)) {
                return f;
            }
        }
        return null;
    }
}
