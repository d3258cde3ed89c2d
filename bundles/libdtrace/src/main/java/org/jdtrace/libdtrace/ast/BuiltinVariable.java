package org.jdtrace.libdtrace.ast;

/**
 * D's built-in variables (the DT_IDENT_SCALAR/ARRAY entries of _dtrace_globals[]) with the D types
 * dtrace gives them on Linux. {@link #ARGS} and {@link #UREGS} are arrays ({@code args[n]},
 * {@code uregs[R_PC]}); {@code args[n]}'s type comes from the probe's argument descriptions and is
 * int64_t when nothing better is known.
 */
public enum BuiltinVariable implements Symbol {
    ARG0("arg0", DType.INT64), ARG1("arg1", DType.INT64), ARG2("arg2", DType.INT64),
    ARG3("arg3", DType.INT64), ARG4("arg4", DType.INT64), ARG5("arg5", DType.INT64),
    ARG6("arg6", DType.INT64), ARG7("arg7", DType.INT64), ARG8("arg8", DType.INT64),
    ARG9("arg9", DType.INT64),
    ARGS("args", DType.INT64),
    CALLER("caller", new DType.Int("uintptr_t", 8, false)),
    UCALLER("ucaller", DType.UINT64),
    CPU("cpu", new DType.Int("processorid_t", 4, true)),
    CURTHREAD("curthread", new DType.Ptr(new DType.Tagged("struct task_struct", 0))),
    CURCPU("curcpu", new DType.Ptr(new DType.Tagged("cpuinfo_t", 0))),
    CURPSINFO("curpsinfo", new DType.Ptr(ProcfsTypes.PSINFO)),
    CURLWPSINFO("curlwpsinfo", new DType.Ptr(ProcfsTypes.LWPSINFO)),
    CWD("cwd", DType.STRING),
    ROOT("root", DType.STRING),
    EPID("epid", DType.UINT),
    ERRNO("errno", DType.INT),
    EXECNAME("execname", DType.STRING),
    GID("gid", new DType.Int("gid_t", 4, false)),
    UID("uid", new DType.Int("uid_t", 4, false)),
    ID("id", DType.UINT),
    IPL("ipl", DType.UINT),
    PID("pid", new DType.Int("pid_t", 4, true)),
    PPID("ppid", new DType.Int("pid_t", 4, true)),
    TID("tid", new DType.Int("id_t", 4, true)),
    PROBEPROV("probeprov", DType.STRING),
    PROBEMOD("probemod", DType.STRING),
    PROBEFUNC("probefunc", DType.STRING),
    PROBENAME("probename", DType.STRING),
    STACKDEPTH("stackdepth", new DType.Int("uint32_t", 4, false)),
    USTACKDEPTH("ustackdepth", new DType.Int("uint32_t", 4, false)),
    TIMESTAMP("timestamp", DType.UINT64),
    VTIMESTAMP("vtimestamp", DType.UINT64),
    WALLTIMESTAMP("walltimestamp", DType.INT64),
    UREGS("uregs", DType.UINT64);

    private final String dname;
    private final DType type;

    BuiltinVariable(String dname, DType type) {
        this.dname = dname;
        this.type = type;
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
