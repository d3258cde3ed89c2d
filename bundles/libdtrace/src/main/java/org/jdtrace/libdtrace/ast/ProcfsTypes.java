package org.jdtrace.libdtrace.ast;

import java.util.ArrayList;
import java.util.List;

/**
 * The types of D's procfs library (procfs.d: psinfo_t, lwpsinfo_t) that a user-space DTrace can
 * fill for any process: what curpsinfo and curlwpsinfo point to, and what the proc provider's
 * arguments are translated to. Members are the Solaris ones /proc on Linux can answer, in their
 * order (pr_start, pr_time and the Solaris-only ones left out). Some members are declared but not
 * converted by the translators, as in procfs.d (see {@link #converts}).
 */
public final class ProcfsTypes {

    private ProcfsTypes() {}

    public static final DType.Sou PSINFO = new DType.Sou("struct psinfo", false);
    public static final DType.Sou LWPSINFO = new DType.Sou("struct lwpsinfo", false);

    static {
        Builder p = new Builder();
        p.add("pr_flag", DType.INT).add("pr_nlwp", DType.INT).add("pr_pid", pid()).add("pr_ppid", pid())
                .add("pr_pgid", pid()).add("pr_sid", pid()).add("pr_uid", id("uid_t")).add("pr_euid", id("uid_t"))
                .add("pr_gid", id("gid_t")).add("pr_egid", id("gid_t")).add("pr_addr", word("uintptr_t"))
                .add("pr_size", word("size_t")).add("pr_rssize", word("size_t")).add("pr_ttydev", word("dev_t"))
                .add("pr_fname", new DType.Array(DType.CHAR, 16)).add("pr_psargs", new DType.Array(DType.CHAR, 80))
                .add("pr_wstat", DType.INT).add("pr_argc", DType.INT).add("pr_argv", word("uintptr_t"))
                .add("pr_envp", word("uintptr_t")).add("pr_dmodel", DType.CHAR).add("pr_taskid", new DType.Int("taskid_t", 4, true))
                .add("pr_projid", new DType.Int("projid_t", 4, true)).add("pr_nzomb", DType.INT)
                .add("pr_poolid", new DType.Int("poolid_t", 4, true))
                .add("pr_zoneid", new DType.Int("zoneid_t", 4, true)).add("pr_contract", new DType.Int("ctid_t", 4, true));
        PSINFO.layOut(p.names, p.types, p.widths);
        Builder l = new Builder();
        l.add("pr_flag", DType.INT).add("pr_lwpid", new DType.Int("id_t", 4, true)).add("pr_addr", word("uintptr_t"))
                .add("pr_wchan", word("uintptr_t")).add("pr_stype", DType.CHAR).add("pr_state", DType.CHAR)
                .add("pr_sname", DType.CHAR).add("pr_nice", DType.CHAR).add("pr_syscall", DType.SHORT)
                .add("pr_oldpri", DType.CHAR).add("pr_cpu", DType.CHAR).add("pr_pri", DType.INT)
                .add("pr_clname", new DType.Array(DType.CHAR, 8)).add("pr_name", new DType.Array(DType.CHAR, 16))
                .add("pr_onpro", new DType.Int("processorid_t", 4, true)).add("pr_bindpro", new DType.Int("processorid_t", 4, true))
                .add("pr_bindpset", new DType.Int("psetid_t", 4, true));
        LWPSINFO.layOut(l.names, l.types, l.widths);
    }

    /**
     * The members of psinfo_t and lwpsinfo_t that procfs.d's translators leave undefined, so that
     * naming one through curpsinfo or curlwpsinfo is D_XLATE_NOCONV, as in every DTrace: the
     * process image sizes (pr_size, pr_rssize) and the old scheduling fields (pr_nice, pr_oldpri,
     * pr_cpu); a script that reads them would compile here and nowhere else.
     */
    private static final java.util.Set<String> PSINFO_UNCONVERTED = java.util.Set.of("pr_size", "pr_rssize");
    private static final java.util.Set<String> LWPSINFO_UNCONVERTED = java.util.Set.of("pr_nice", "pr_oldpri", "pr_cpu");

    /** True for a psinfo_t * or lwpsinfo_t * (what the proc provider's translated args[] are). */
    public static boolean isPointer(DType t) {
        return t instanceof DType.Ptr p && (p.target() == PSINFO || p.target() == LWPSINFO);
    }

    /** Whether the system translator to {@code type} (PSINFO or LWPSINFO) defines {@code member}. */
    public static boolean converts(DType type, String member) {
        if (type == PSINFO) return !PSINFO_UNCONVERTED.contains(member);
        if (type == LWPSINFO) return !LWPSINFO_UNCONVERTED.contains(member);
        return true;
    }

    private static DType pid() {
        return new DType.Int("pid_t", 4, true);
    }

    private static DType id(String name) {
        return new DType.Int(name, 4, false);
    }

    private static DType word(String name) {
        return new DType.Int(name, 8, false);
    }

    private static final class Builder {
        final List<String> names = new ArrayList<>();
        final List<DType> types = new ArrayList<>();
        final List<Integer> widths = new ArrayList<>();

        Builder add(String n, DType t) {
            names.add(n);
            types.add(t);
            widths.add(0);
            return this;
        }
    }
}
