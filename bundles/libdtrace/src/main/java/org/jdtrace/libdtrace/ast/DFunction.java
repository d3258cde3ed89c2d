package org.jdtrace.libdtrace.ast;

/**
 * D's callable built-ins, each declared once: actions (record data or act on the consumer),
 * subroutines (compute a value) and aggregating functions (only on the right of
 * {@code @a[...] =}), the DT_IDENT_ACTFUNC, DT_IDENT_FUNC and DT_IDENT_AGGFUNC rows of libdtrace's
 * {@code _dtrace_globals[]}. With {@link BuiltinVariable} (its DT_IDENT_SCALAR and DT_IDENT_ARRAY
 * rows) this is the one table of D's built-ins: the type checker (sema.Builtins) takes arity,
 * argument kinds and result type from it, the lowering the runtime entry, the code generator
 * resolves that entry to a method of codegen.Subr. Adding a subroutine is one row here and one
 * public static method there.
 *
 * <p>A row: {@code minArgs}/{@code maxArgs} (-1: variadic, e.g. printf), a D_PROTO_LEN error
 * outside them; {@code params} one letter per argument, the D_PROTO_ARG check of each
 * ({@code s} a string or char array/pointer, {@code i} an integer, {@code p} a pointer or
 * integer, {@code a} an aggregation, {@code x} any non-void value; arguments past the letters are
 * {@code x}); {@code result} the D type of the value; {@code entry} the name of the Subr method a
 * subroutine runs (null for actions and aggregating functions, which the clause lowering compiles
 * into records; for the symbol actions the method that symbolises the address, at the firing). Kind {@link Kind#KERNEL} marks what a user-space DTrace cannot honour (kernel
 * locks, STREAMS, the device tree): the checker refuses a call with D_FUNC_UNDEF and the row's
 * reason, never accepts it silently.
 */
public enum DFunction {
    // actions
    TRACE("trace", Kind.ACTION, 1, 1, "x"), TRACEMEM("tracemem", Kind.ACTION, 2, 3, "pii"),
    PRINTF("printf", Kind.ACTION, 1, -1, "s"), PRINTA("printa", Kind.ACTION, 1, -1, ""),
    PRINT("print", Kind.ACTION, 1, 1, "v"), STACK("stack", Kind.ACTION, 0, 1, "ii"),
    USTACK("ustack", Kind.ACTION, 0, 2, "ii"), JSTACK("jstack", Kind.ACTION, 0, 2, "ii"),
    // symbol actions: print an address symbolised; as aggregation keys, the symbol is the key
    SYM("sym", Kind.ACTION, 1, 1, "p", T.SYMADDR, "symname"),
    FUNC("func", Kind.ACTION, 1, 1, "p", T.SYMADDR, "funcname"),
    MOD("mod", Kind.ACTION, 1, 1, "p", T.SYMADDR, "modname"),
    USYM("usym", Kind.ACTION, 1, 1, "p", T.USYMADDR, "usymname"),
    UFUNC("ufunc", Kind.ACTION, 1, 1, "p", T.USYMADDR, "ufuncname"),
    UMOD("umod", Kind.ACTION, 1, 1, "p", T.USYMADDR, "umodname"),
    UADDR("uaddr", Kind.ACTION, 1, 1, "p", T.USYMADDR, "uaddrname"),
    EXIT("exit", Kind.ACTION, 1, 1, "i"),
    SPECULATE("speculate", Kind.ACTION, 1, 1, "i"), COMMIT("commit", Kind.ACTION, 1, 1, "i"),
    DISCARD("discard", Kind.ACTION, 1, 1, "i"), CLEAR("clear", Kind.ACTION, 1, 1, "a"),
    TRUNC("trunc", Kind.ACTION, 1, 2, "ai"), NORMALIZE("normalize", Kind.ACTION, 2, 2, "ai"),
    DENORMALIZE("denormalize", Kind.ACTION, 1, 1, "a"), SETOPT("setopt", Kind.ACTION, 1, 2, "ss"),
    FREOPEN("freopen", Kind.ACTION, 1, -1, "s"), FTRUNCATE("ftruncate", Kind.ACTION, 0, 0, ""),
    SYSTEM("system", Kind.DESTRUCTIVE, 1, -1, "s"), RAISE("raise", Kind.DESTRUCTIVE, 1, 1, "i"),
    STOP("stop", Kind.DESTRUCTIVE, 0, 0, ""), COPYOUT("copyout", Kind.DESTRUCTIVE, 3, 3, "bpi"),
    COPYOUTSTR("copyoutstr", Kind.DESTRUCTIVE, 3, 3, "spi"), BREAKPOINT("breakpoint", Kind.DESTRUCTIVE, 0, 0, ""),
    PANIC("panic", Kind.DESTRUCTIVE, 0, 0, ""), CHILL("chill", Kind.DESTRUCTIVE, 1, 1, "i"),
    // subroutines: name, arity, argument kinds, result type, runtime entry (codegen.Subr)
    ALLOCA("alloca", 1, 1, "i", T.VOID_PTR, null), BASENAME("basename", 1, 1, "s", DType.STRING, "basename"),
    DIRNAME("dirname", 1, 1, "s", DType.STRING, "dirname"),
    CLEANPATH("cleanpath", 1, 1, "s", DType.STRING, "cleanpath"),
    BCOPY("bcopy", 3, 3, "bpi", DType.VOID, null), COPYIN("copyin", 2, 2, "pi", T.VOID_PTR, null),
    COPYINSTR("copyinstr", 1, 2, "pi", DType.STRING, "copyinstr"),
    COPYINTO("copyinto", 3, 3, "piv", DType.VOID, null),
    STRLEN("strlen", 1, 1, "s", T.SIZE_T, "strlen"), STRJOIN("strjoin", 2, 2, "ss", DType.STRING, "strjoin"),
    SUBSTR("substr", 2, 3, "sii", DType.STRING, "substr"), INDEX("index", 2, 3, "ssi", DType.INT, "index"),
    RINDEX("rindex", 2, 3, "ssi", DType.INT, "rindex"), STRCHR("strchr", 2, 2, "si", DType.STRING, "strchr"),
    STRRCHR("strrchr", 2, 2, "si", DType.STRING, "strrchr"), STRSTR("strstr", 2, 2, "ss", DType.STRING, "strstr"),
    STRTOK("strtok", 2, 2, "ss", DType.STRING, "strtok"), LLTOSTR("lltostr", 1, 2, "ii", DType.STRING, "lltostr"),
    STRTOLL("strtoll", 1, 2, "si", DType.INT64, "strtoll"),
    TOLOWER("tolower", 1, 1, "s", DType.STRING, "tolower"), TOUPPER("toupper", 1, 1, "s", DType.STRING, "toupper"),
    JSON("json", 2, 2, "ss", DType.STRING, "json"),
    HTONS("htons", 1, 1, "i", T.UINT16, "htons"), HTONL("htonl", 1, 1, "i", T.UINT32, "htonl"),
    HTONLL("htonll", 1, 1, "i", DType.UINT64, "htonll"), NTOHS("ntohs", 1, 1, "i", T.UINT16, "ntohs"),
    NTOHL("ntohl", 1, 1, "i", T.UINT32, "ntohl"), NTOHLL("ntohll", 1, 1, "i", DType.UINT64, "ntohll"),
    INET_NTOA("inet_ntoa", 1, 1, "p", DType.STRING, "inet_ntoa"),
    INET_NTOA6("inet_ntoa6", 1, 2, "pi", DType.STRING, "inet_ntoa6"),
    INET_NTOP("inet_ntop", 2, 2, "ip", DType.STRING, "inet_ntop"),
    LINK_NTOP("link_ntop", 2, 2, "ip", DType.STRING, "link_ntop"), RAND("rand", 0, 0, "", DType.INT, "rand"),
    SPECULATION("speculation", 0, 0, "", DType.INT, "speculation"),
    PROGENYOF("progenyof", 1, 1, "i", DType.INT, "progenyof"),
    GETMAJOR("getmajor", 1, 1, "i", T.MAJOR, "getmajor"), GETMINOR("getminor", 1, 1, "i", T.MINOR, "getminor"),
    // kernel subroutines a user-space DTrace has no object for: refused, with what they read
    DDI_PATHNAME("ddi_pathname", 2, 2, "the kernel's device tree"),
    MUTEX_OWNED("mutex_owned", 1, 1, "kernel mutexes"), MUTEX_OWNER("mutex_owner", 1, 1, "kernel mutexes"),
    MUTEX_TYPE_ADAPTIVE("mutex_type_adaptive", 1, 1, "kernel mutexes"),
    MUTEX_TYPE_SPIN("mutex_type_spin", 1, 1, "kernel mutexes"),
    RW_READ_HELD("rw_read_held", 1, 1, "kernel reader/writer locks"),
    RW_WRITE_HELD("rw_write_held", 1, 1, "kernel reader/writer locks"),
    RW_ISWRITER("rw_iswriter", 1, 1, "kernel reader/writer locks"),
    MSGSIZE("msgsize", 1, 1, "kernel STREAMS messages"), MSGDSIZE("msgdsize", 1, 1, "kernel STREAMS messages"),
    GETF("getf", 1, 1, "the kernel's file_t"), D_PATH("d_path", 1, 1, "the kernel's struct path"),
    PCAP("pcap", Kind.KERNEL, 2, 2, "pi", DType.VOID, null, "kernel socket buffers (struct sk_buff)"),
    // aggregating functions
    COUNT("count", Kind.AGGREGATING, 0, 0, ""), SUM("sum", Kind.AGGREGATING, 1, 1, ""),
    AVG("avg", Kind.AGGREGATING, 1, 1, ""), MIN("min", Kind.AGGREGATING, 1, 1, ""),
    MAX("max", Kind.AGGREGATING, 1, 1, ""), STDDEV("stddev", Kind.AGGREGATING, 1, 1, ""),
    QUANTIZE("quantize", Kind.AGGREGATING, 1, 2, ""), LQUANTIZE("lquantize", Kind.AGGREGATING, 3, 5, ""),
    LLQUANTIZE("llquantize", Kind.AGGREGATING, 5, 6, "");

    /**
     * The row's stability attributes (the DT_ATTR_* column of _dtrace_globals[]): Stable/Stable/
     * Common but for the byte-order and device-number subroutines and the kernel-lock ones, which
     * DTrace declares Evolving/Evolving/Common. The D compiler takes a statement's attributes from
     * the built-ins it uses (dtrace -v, -x amin).
     */
    public org.jdtrace.spi.Attributes attributes() {
        return switch (this) {
            case HTONS, HTONL, HTONLL, NTOHS, NTOHL, NTOHLL, GETMAJOR, GETMINOR, DDI_PATHNAME, MUTEX_OWNED,
                    MUTEX_OWNER, MUTEX_TYPE_ADAPTIVE, MUTEX_TYPE_SPIN, RW_READ_HELD, RW_WRITE_HELD, RW_ISWRITER ->
                org.jdtrace.spi.Attributes.EVOLVING_COMMON;
            default -> org.jdtrace.spi.Attributes.STABLE_COMMON;
        };
    }

    /**
     * The D version that introduced the row (the DT_VERS_* column of _dtrace_globals[]; pcap,
     * DTrace on Linux's 1.6.4, as illumos' next, 1.7): a program that asks for an older one does
     * not see it (ast.DVersion).
     */
    public int version() {
        return switch (this) {
            case FREOPEN, INDEX, RINDEX, STRCHR, STRRCHR, STRSTR, STRTOK, SUBSTR -> DVersion.V1_1;
            case SYM, FUNC, MOD, USYM, UFUNC, UMOD, UADDR, SETOPT -> DVersion.V1_2;
            case HTONS, HTONL, HTONLL, NTOHS, NTOHL, NTOHLL -> DVersion.V1_3;
            case INET_NTOA, INET_NTOA6, INET_NTOP, LINK_NTOP -> DVersion.V1_5;
            case STDDEV -> DVersion.V1_6;
            case LLQUANTIZE, PCAP -> DVersion.V1_7;
            case TOLOWER, TOUPPER -> DVersion.V1_8;
            case PRINT -> DVersion.V1_9;
            case GETF -> DVersion.V1_10;
            case JSON, STRTOLL -> DVersion.V1_11;
            default -> DVersion.V1_0;
        };
    }

    /** The row named {@code name} if the D version {@code version} has it, else null. */
    public static DFunction byName(String name, int version) {
        DFunction f = byName(name);
        return f == null || f.version() > version ? null : f;
    }

    /** What dtrace calls a row of this kind in its messages (dt_idkind_name). */
    public String kindName() {
        return switch (kind) {
            case ACTION, DESTRUCTIVE -> "tracing function";
            case AGGREGATING -> "aggregating function";
            case SUBROUTINE, KERNEL -> "function";
        };
    }

    public enum Kind { ACTION, DESTRUCTIVE, SUBROUTINE, AGGREGATING, KERNEL }

    /** llquantize()'s parameters after its value (argument #1..#4), as illumos' messages name them. */
    public static final java.util.List<String> LLQUANTIZE_PARAMETERS =
            java.util.List.of("factor", "low magnitude", "high magnitude", "linear steps per magnitude");

    public final String dname;
    public final Kind kind;
    public final int minArgs;
    public final int maxArgs;
    /** One argument kind a letter (s i p a x, see above). */
    public final String params;
    /** The D type of the value (void for actions). */
    public final DType result;
    /** The codegen.Subr method of a subroutine, null where the clause lowering compiles the call. */
    public final String entry;
    /** For {@link Kind#KERNEL}: the kernel object it needs, said in its refusal. */
    public final String kernelObject;

    /** An action or aggregating function. */
    DFunction(String dname, Kind kind, int minArgs, int maxArgs, String params) {
        this(dname, kind, minArgs, maxArgs, params, DType.VOID, null, null);
    }

    /** A symbol action (its result is the type of its aggregation key). */
    DFunction(String dname, Kind kind, int minArgs, int maxArgs, String params, DType result, String entry) {
        this(dname, kind, minArgs, maxArgs, params, result, entry, null);
    }

    /** A subroutine. */
    DFunction(String dname, int minArgs, int maxArgs, String params, DType result, String entry) {
        this(dname, Kind.SUBROUTINE, minArgs, maxArgs, params, result, entry, null);
    }

    /** A kernel subroutine, refused. */
    DFunction(String dname, int minArgs, int maxArgs, String kernelObject) {
        this(dname, Kind.KERNEL, minArgs, maxArgs, "", DType.VOID, null, kernelObject);
    }

    DFunction(String dname, Kind kind, int minArgs, int maxArgs, String params, DType result, String entry,
            String kernelObject) {
        this.dname = dname;
        this.kind = kind;
        this.minArgs = minArgs;
        this.maxArgs = maxArgs;
        this.params = params;
        this.result = result;
        this.entry = entry;
        this.kernelObject = kernelObject;
    }

    /** sym(), func(), mod(), usym(), ufunc(), umod(), uaddr(): actions that are also aggregation keys. */
    public boolean isSymbol() {
        return result == T.SYMADDR || result == T.USYMADDR;
    }

    /** Actions, destructive or not: calls that may only appear as statements. */
    public boolean isAction() {
        return kind == Kind.ACTION || kind == Kind.DESTRUCTIVE;
    }

    /** The kind of argument {@code i} (0-based): a letter of {@link #params}, else x. */
    public char param(int i) {
        return i < params.length() ? params.charAt(i) : 'x';
    }

    /**
     * The C type of argument {@code i} as DTrace's prototype names it in a D_PROTO_ARG message
     * (the signatures of dt_open.c's _dtrace_globals, qualifiers dropped as dtrace prints them);
     * null where the argument kind's own name applies.
     */
    public String protoName(int i) {
        String[] p = switch (this) {
            case STRLEN, BASENAME, DIRNAME, CLEANPATH, TOLOWER, TOUPPER, STRJOIN, STRSTR, STRTOK, JSON, SETOPT ->
                    new String[] {"char *", "char *"};
            case INDEX, RINDEX -> new String[] {"char *", "char *", "int"};
            case SUBSTR -> new String[] {"char *", "int", "int"};
            case STRCHR, STRRCHR -> new String[] {"char *", "char"};
            case STRTOLL -> new String[] {"char *", "int"};
            case STACK, USTACK, JSTACK -> new String[] {"uint32_t", "uint32_t"};
            case TRACEMEM -> new String[] {null, "size_t", "size_t"};
            case ALLOCA -> new String[] {"size_t"};
            case COPYIN, COPYINSTR -> new String[] {"uintptr_t", "size_t"};
            case COPYINTO -> new String[] {"uintptr_t", "size_t", "void *"};
            case COPYOUT -> new String[] {"void *", "uintptr_t", "size_t"};
            case COPYOUTSTR -> new String[] {"char *", "uintptr_t", "size_t"};
            case BCOPY -> new String[] {"void *", "void *", "size_t"};
            case HTONS, NTOHS -> new String[] {"uint16_t"};
            case HTONL, NTOHL -> new String[] {"uint32_t"};
            case HTONLL, NTOHLL -> new String[] {"uint64_t"};
            case LLTOSTR -> new String[] {"int64_t", "int"};
            case PROGENYOF -> new String[] {"pid_t"};
            case INET_NTOA -> new String[] {"ipaddr_t *"};
            case INET_NTOA6 -> new String[] {"struct in6_addr *", "int"};
            case INET_NTOP, LINK_NTOP -> new String[] {"int", "void *"};
            case PCAP -> new String[] {"void *", "int"};
            case NORMALIZE -> new String[] {null, "uint64_t"};
            case SYM, FUNC, MOD, USYM, UFUNC, UMOD, UADDR -> new String[] {"uintptr_t"};
            default -> new String[0];
        };
        return i < p.length ? p[i] : null;
    }

    public static DFunction byName(String name) {
        return Index.BY_NAME.get(name);
    }

    /** The table's types (a nested class: enum constants may not use the enum's own statics). */
    private static final class T {
        static final DType VOID_PTR = new DType.Ptr(DType.VOID);
        /** What sym(), func(), mod() yield as a key, as dt_open.c types them. */
        static final DType SYMADDR = new DType.Int("_symaddr", 8, false);
        static final DType USYMADDR = new DType.Int("_usymaddr", 8, false);
        static final DType SIZE_T = new DType.Int("size_t", 8, false);
        static final DType UINT16 = new DType.Int("uint16_t", 2, false);
        static final DType UINT32 = new DType.Int("uint32_t", 4, false);
        static final DType MAJOR = new DType.Int("major_t", 4, false);
        static final DType MINOR = new DType.Int("minor_t", 4, false);
    }

    /** Name to row, built when first asked for (after the constants exist). */
    private static final class Index {
        static final java.util.Map<String, DFunction> BY_NAME = index();

        private static java.util.Map<String, DFunction> index() {
            java.util.Map<String, DFunction> m = new java.util.HashMap<>();
            for (DFunction f : values()) {
                if (m.put(f.dname, f) != null) {
                    throw new IllegalStateException("D built-in declared twice: " + f.dname);
                }
            }
            return java.util.Map.copyOf(m);
        }
    }
}
