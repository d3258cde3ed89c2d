package org.jdtrace.libdtrace.ast;

/**
 * D's built-in variables, each declared once: the DT_IDENT_SCALAR and DT_IDENT_ARRAY rows of
 * libdtrace's _dtrace_globals[] (with {@link DFunction} the one table of D's built-ins), with
 * the D types dtrace gives them on Linux and how a firing reads them: {@link Access#PROBE}
 * from the probe or the clock (the code generator's Ir.Builtin of the same name),
 * {@link Access#SUBR} through the runtime entry {@code entry} (a method of codegen.Subr taking
 * the probe context; null: not implemented yet, a compile error), {@link Access#KERNEL} refused
 * by the type checker with D_VAR_UNSUPP and the kernel object it would need. {@link #ARGS} and
 * {@link #UREGS} are arrays ({@code args[n]}, {@code uregs[R_PC]}); {@code args[n]}'s type
 * comes from the probe's argument descriptions and is int64_t when nothing better is known.
 */
public enum BuiltinVariable implements Symbol {
    ARG0("arg0", DType.INT64), ARG1("arg1", DType.INT64), ARG2("arg2", DType.INT64),
    ARG3("arg3", DType.INT64), ARG4("arg4", DType.INT64), ARG5("arg5", DType.INT64),
    ARG6("arg6", DType.INT64), ARG7("arg7", DType.INT64), ARG8("arg8", DType.INT64),
    ARG9("arg9", DType.INT64),
    ARGS("args", DType.INT64),
    CALLER("caller", new DType.Int("uintptr_t", 8, false), "caller"),
    UCALLER("ucaller", DType.UINT64, "ucaller"),
    CPU("cpu", new DType.Int("processorid_t", 4, true)),
    CURTHREAD("curthread", new DType.Ptr(new DType.Tagged("struct task_struct", 0)), Access.KERNEL,
            "the kernel's thread structure"),
    CURCPU("curcpu", new DType.Ptr(new DType.Tagged("cpuinfo_t", 0)), Access.KERNEL, "the kernel's cpu_t"),
    CURPSINFO("curpsinfo", new DType.Ptr(ProcfsTypes.PSINFO), (String) null),
    CURLWPSINFO("curlwpsinfo", new DType.Ptr(ProcfsTypes.LWPSINFO), (String) null),
    CWD("cwd", DType.STRING, "cwd"),
    ROOT("root", DType.STRING, "root"),
    EPID("epid", DType.UINT),
    ERRNO("errno", DType.INT, "errno"),
    EXECNAME("execname", DType.STRING),
    GID("gid", new DType.Int("gid_t", 4, false), "gid"),
    UID("uid", new DType.Int("uid_t", 4, false), "uid"),
    ID("id", DType.UINT),
    IPL("ipl", DType.UINT, Access.KERNEL, "the kernel's interrupt priority level"),
    PID("pid", new DType.Int("pid_t", 4, true)),
    PPID("ppid", new DType.Int("pid_t", 4, true)),
    TID("tid", new DType.Int("id_t", 4, true)),
    PROBEPROV("probeprov", DType.STRING),
    PROBEMOD("probemod", DType.STRING),
    PROBEFUNC("probefunc", DType.STRING),
    PROBENAME("probename", DType.STRING),
    STACKDEPTH("stackdepth", new DType.Int("uint32_t", 4, false), "stackdepth"),
    USTACKDEPTH("ustackdepth", new DType.Int("uint32_t", 4, false), "ustackdepth"),
    TIMESTAMP("timestamp", DType.UINT64),
    VTIMESTAMP("vtimestamp", DType.UINT64),
    WALLTIMESTAMP("walltimestamp", DType.INT64),
    UREGS("uregs", DType.UINT64, "uregs");

    /**
     * The row's stability attributes (the DT_ATTR_* column of _dtrace_globals[]): Stable/Stable/
     * Common, but curthread's data, which is the kernel's and Private. args[]'s are also bounded
     * by what the probe's provider declares of its arguments (sema.StabilityCheck).
     */
    public org.jdtrace.spi.Attributes attributes() {
        return this == CURTHREAD
                ? new org.jdtrace.spi.Attributes(org.jdtrace.spi.Stability.STABLE, org.jdtrace.spi.Stability.PRIVATE,
                        org.jdtrace.spi.DependencyClass.COMMON)
                : org.jdtrace.spi.Attributes.STABLE_COMMON;
    }

    /** The D version that introduced the variable (_dtrace_globals[]'s DT_VERS_* column; see ast.DVersion). */
    public int version() {
        return this == UCALLER || this == USTACKDEPTH ? DVersion.V1_2 : DVersion.V1_0;
    }

    /** The variable named {@code name} if the D version {@code version} has it, else null. */
    public static BuiltinVariable byName(String name, int version) {
        BuiltinVariable b = byName(name);
        return b == null || b.version() > version ? null : b;
    }

    /** What dtrace calls the variable in its messages (dt_idkind_name): args and uregs are arrays. */
    public String kindName() {
        return this == ARGS || this == UREGS ? "associative array" : "scalar";
    }

    /** How a firing reads the variable. */
    public enum Access { PROBE, SUBR, KERNEL }

    private final String dname;
    private final DType type;
    public final Access access;
    /** SUBR: the codegen.Subr method; KERNEL: the kernel object it needs. */
    public final String entry;

    /** Read from the probe or the clock. */
    BuiltinVariable(String dname, DType type) {
        this(dname, type, Access.PROBE, null);
    }

    /** Read through a runtime entry. */
    BuiltinVariable(String dname, DType type, String entry) {
        this(dname, type, Access.SUBR, entry);
    }

    BuiltinVariable(String dname, DType type, Access access, String entry) {
        this.dname = dname;
        this.type = type;
        this.access = access;
        this.entry = entry;
    }

    @Override
    public String dname() {
        return dname;
    }

    @Override
    public DType type() {
        return type;
    }

    /** True for {@code args} and {@code uregs}, which must be indexed. */
    public boolean isArray() {
        return this == ARGS || this == UREGS;
    }

    /** For arg0..arg9 the argument index, else -1. */
    public int argIndex() {
        return ordinal() <= ARG9.ordinal() ? ordinal() : -1;
    }

    public static BuiltinVariable byName(String name) {
        for (BuiltinVariable b : values()) {
            if (b.dname.equals(name)) {
                return b;
            }
        }
        return null;
    }
}
