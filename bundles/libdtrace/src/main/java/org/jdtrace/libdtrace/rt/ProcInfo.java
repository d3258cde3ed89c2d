/*
 * ProcInfo: the values of D's system translators to psinfo_t and lwpsinfo_t (procfs.d), i.e. what
 * curpsinfo->pr_* and curlwpsinfo->pr_* give, for the process and thread a probe fires in: the
 * JVM's for JVM-side probes, the traced process's for pid, USDT and syscall probes (the firing
 * context's pid() and tid()). The identity fields come from the context itself (pr_pid, pr_ppid,
 * pr_lwpid, pr_fname = execname), and so do the members its provider recorded at the event
 * (ProbeContext.psinfo: a kernel event's credentials and psargs, for a process that may be gone
 * when the record is read); the rest from /proc/PID/{stat,status,cmdline,exe} and
 * /proc/PID/task/TID/{stat,comm}, read at probe time through this per-consumer cache.
 *
 * Cache: one snapshot per process and per thread, re-read when older than one second (so a
 * process that execs or changes its credentials shows it within a second), plus the last
 * snapshot looked up by each kind, checked first: a probe firing again and again in one process
 * costs a field read and a clock read, and allocates nothing. A process gone before it is read
 * gives zeros and empty strings, never a fault. Thread-safe: snapshots are immutable records
 * published through a ConcurrentHashMap and volatile fields; two threads may read the same
 * snapshot at once, and the last one wins.
 *
 * Solaris-only fields (pr_taskid, pr_projid, pr_poolid, pr_zoneid, pr_contract, pr_nzomb,
 * pr_addr, pr_wchan...) are 0, as dtrace-utils gives them on Linux. pr_argv and pr_envp are the
 * addresses of the vectors on the process's initial stack.
 */
package org.jdtrace.libdtrace.rt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import org.jdtrace.proc.Procfs;
import org.jdtrace.spi.ProbeContext;

public final class ProcInfo {

    private static final long MAX_AGE_NS = 1_000_000_000L;
    /** PR_MODEL_ILP32 and PR_MODEL_LP64, pr_dmodel's values. */
    private static final int ILP32 = 1, LP64 = 2;

    record Proc(long pid, long read, int pgid, int sid, int uid, int euid, int gid, int egid, int nlwp,
                long size, long rssize, long ttydev, String psargs, int argc, int dmodel, long argv, long envp) {}

    record Lwp(long tid, long read, int state, char sname, int nice, int pri, int cpu, String name) {}

    private final ConcurrentHashMap<Long, Proc> procs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Lwp> lwps = new ConcurrentHashMap<>();
    private volatile Proc lastProc;
    private volatile Lwp lastLwp;

    /** curpsinfo->field, an integer member. */
    long psinfo(ProbeContext ctx, String field) {
        return switch (field) {
            case "pr_pid" -> ctx.pid();
            case "pr_ppid" -> ctx.ppid();
            default -> {
                long recorded = ctx.psinfo(field);
                if (recorded != Long.MIN_VALUE) yield recorded;
                Proc p = proc(ctx.pid());
                yield switch (field) {
                    case "pr_nlwp" -> p.nlwp();
                    case "pr_pgid" -> p.pgid();
                    case "pr_sid" -> p.sid();
                    case "pr_uid" -> p.uid();
                    case "pr_euid" -> p.euid();
                    case "pr_gid" -> p.gid();
                    case "pr_egid" -> p.egid();
                    case "pr_size" -> p.size();
                    case "pr_rssize" -> p.rssize();
                    case "pr_ttydev" -> p.ttydev();
                    case "pr_argc" -> p.argc();
                    case "pr_dmodel" -> p.dmodel();
                    case "pr_argv" -> p.argv();
                    case "pr_envp" -> p.envp();
                    default -> 0;
                };
            }
        };
    }

    /** curpsinfo->field, a char array member (pr_fname, pr_psargs). */
    String psinfoStr(ProbeContext ctx, String field) {
        return switch (field) {
            case "pr_fname" -> {
                String n = ctx.execname();
                yield n.length() > 15 ? n.substring(0, 15) : n;
            }
            case "pr_psargs" -> {
                String recorded = ctx.psinfoString(field);
                yield recorded != null ? recorded : proc(ctx.pid()).psargs();
            }
            default -> "";
        };
    }

    /** curlwpsinfo->field, an integer member. */
    long lwpsinfo(ProbeContext ctx, String field) {
        if (field.equals("pr_lwpid")) return ctx.tid();
        Lwp l = lwp(ctx.pid(), ctx.tid());
        return switch (field) {
            case "pr_state" -> l.state();
            case "pr_sname" -> l.sname();
            case "pr_nice" -> l.nice();
            case "pr_pri", "pr_oldpri" -> l.pri();
            case "pr_cpu" -> 0;
            case "pr_onpro" -> l.cpu();
            case "pr_bindpro", "pr_bindpset" -> -1;
            default -> 0;
        };
    }

    /** curlwpsinfo->field, a char array member (pr_name, pr_clname). */
    String lwpsinfoStr(ProbeContext ctx, String field) {
        return switch (field) {
            case "pr_name" -> lwp(ctx.pid(), ctx.tid()).name();
            case "pr_clname" -> "TS";
            default -> "";
        };
    }

    /**
     * args[i]->field where args[i] is a psinfo_t * (the proc provider's child, signal target):
     * an integer member of process {@code arg(i)}, as the provider recorded it at the event
     * (ProbeContext.argInfo) or else as curpsinfo's, from /proc now (zeros for a process gone since).
     */
    long psinfoOf(ProbeContext ctx, int arg, String field) {
        long v = field.equals("pr_pid") ? ctx.arg(arg) : ctx.argInfo(arg, field);
        return v != Long.MIN_VALUE ? v : psinfo(named(ctx, arg), field);
    }

    /** As psinfoOf for a char array member (pr_fname, pr_psargs). */
    String psinfoStrOf(ProbeContext ctx, int arg, String field) {
        String v = ctx.argInfoString(arg, field);
        return v != null ? v : psinfoStr(named(ctx, arg), field);
    }

    /** args[i]->field where args[i] is a lwpsinfo_t * (thread {@code arg(i)}): an integer member. */
    long lwpsinfoOf(ProbeContext ctx, int arg, String field) {
        long v = field.equals("pr_lwpid") ? ctx.arg(arg) : ctx.argInfo(arg, field);
        // /proc/TID names any thread, not only a process's first
        return v != Long.MIN_VALUE ? v : lwpsinfo(named(ctx, arg), field);
    }

    /** As lwpsinfoOf for a char array member (pr_name, pr_clname). */
    String lwpsinfoStrOf(ProbeContext ctx, int arg, String field) {
        String v = ctx.argInfoString(arg, field);
        return v != null ? v : lwpsinfoStr(named(ctx, arg), field);
    }

    /** The process or thread args[arg] names, as a context (its raw argument is the pid or tid). */
    private static Named named(ProbeContext ctx, int arg) {
        return new Named(ctx.arg(arg), ctx.arg(arg));
    }

    /**
     * The process (and thread) a psinfo_t * / lwpsinfo_t * argument names, as the context the
     * curpsinfo getters read: its pid and tid, its parent and name from /proc.
     */
    private record Named(long pid, long tid) implements ProbeContext {
        @Override
        public long arg(int i) {
            return 0;
        }

        @Override
        public long ppid() {
            return Procfs.ppid(pid);
        }

        @Override
        public String execname() {
            try {
                return Procfs.comm(pid);
            } catch (IOException | RuntimeException e) {
                return "";
            }
        }

        @Override
        public int cpu() {
            return 0;
        }
    }

    private Proc proc(long pid) {
        long now = System.nanoTime();
        Proc p = lastProc;
        if (p == null || p.pid() != pid || now - p.read() > MAX_AGE_NS) {
            p = procs.get(pid);
            if (p == null || now - p.read() > MAX_AGE_NS) {
                p = readProc(pid, now);
                procs.put(pid, p);
            }
            lastProc = p;
        }
        return p;
    }

    private Lwp lwp(long pid, long tid) {
        long now = System.nanoTime();
        Lwp l = lastLwp;
        if (l == null || l.tid() != tid || now - l.read() > MAX_AGE_NS) {
            l = lwps.get(tid);
            if (l == null || now - l.read() > MAX_AGE_NS) {
                l = readLwp(pid, tid, now);
                lwps.put(tid, l);
            }
            lastLwp = l;
        }
        return l;
    }

    // ---- /proc ---------------------------------------------------------------------------------

    static Proc readProc(long pid, long now) {
        Procfs.Stat stat = stat(pid, -1);
        Procfs.Status status;
        try {
            status = Procfs.status(pid);
        } catch (IOException | RuntimeException e) {
            status = Procfs.Status.parse("");
        }
        byte[] cmd;
        try {
            cmd = Procfs.cmdline(pid);
        } catch (IOException | RuntimeException e) {
            cmd = new byte[0];
        }
        int argc = 0;
        StringBuilder args = new StringBuilder();
        for (int i = 0; i < cmd.length; i++) {
            if (cmd[i] == 0) {
                argc++;
                if (i + 1 < cmd.length) args.append(' ');
            } else {
                args.append((char) (cmd[i] & 0xff));
            }
        }
        String psargs = args.length() > 79 ? args.substring(0, 79) : args.toString();
        byte[] elf = head(Procfs.file(pid, "exe"));
        int model = elf.length > 4 && elf[4] == 1 ? ILP32 : LP64;
        long pageKb = 4;
        // the initial stack as the kernel lays it out (startstack, /proc/PID/stat's 28th field):
        // argc, then the argv[] pointers and a NULL, then envp[]: pr_argv and pr_envp are the
        // addresses of those vectors in the process, as procfs gives them
        int pointer = model == ILP32 ? 4 : 8;
        long start = stat.field(28);
        long argv = start == 0 ? 0 : start + pointer;
        return new Proc(pid, now, (int) stat.field(5), (int) stat.field(6), (int) status.uid(0),
                (int) status.uid(1), (int) status.gid(0), (int) status.gid(1),
                (int) status.number("Threads", 0), stat.field(23) / 1024, stat.field(24) * pageKb,
                stat.field(7), psargs, argc, model, argv, argv == 0 ? 0 : argv + (long) pointer * (argc + 1));
    }

    static Lwp readLwp(long pid, long tid, long now) {
        Procfs.Stat stat = stat(pid, tid);
        char sname = stat.state() == 0 ? 'S' : stat.state();
        // Solaris's thread states: SSLEEP 1, SRUN 2, SZOMB 3, SSTOP 4, SIDL 5, SONPROC 6
        int s = switch (sname) {
            case 'R' -> 2;
            case 'Z', 'X' -> 3;
            case 'T', 't' -> 4;
            case 'I' -> 5;
            default -> 1;
        };
        char shown = switch (s) {
            case 2 -> 'R';
            case 3 -> 'Z';
            case 4 -> 'T';
            case 5 -> 'I';
            default -> 'S';
        };
        String comm;
        try {
            comm = Procfs.comm(pid, tid);
        } catch (IOException | RuntimeException e) {
            comm = "";
        }
        return new Lwp(tid, now, s, shown, (int) stat.field(19) + 20, (int) stat.field(18), (int) stat.field(39), comm);
    }

    /** The process's (tid -1) or thread's stat; no fields (zeros) when it is gone or not ours to read. */
    private static Procfs.Stat stat(long pid, long tid) {
        try {
            return tid == -1 ? Procfs.stat(pid) : Procfs.stat(pid, tid);
        } catch (IOException | RuntimeException e) {
            return Procfs.Stat.parse("");
        }
    }

    private static byte[] head(Path p) {
        try (var in = Files.newInputStream(p)) {
            return in.readNBytes(5);
        } catch (IOException | RuntimeException e) {
            return new byte[0];
        }
    }
}
