package org.jdtrace.libdtrace.lex;

import java.util.List;
import java.util.Map;

/**
 * The macro variables a D program may reference (dt_macros): {@code $0} is the script name,
 * {@code $1..$n} the arguments after it, and named ones ({@code $target}, {@code $pid}, {@code $ppid},
 * {@code $uid}, {@code $gid}, {@code $euid}, {@code $egid}, {@code $sid}, {@code $pgid},
 * {@code $projid}, {@code $taskid}) hold decimal integers. {@code $target} is 0 unless -c/-p set it.
 * With {@code defaultArgs} (option defaultargs) an undefined positional macro is empty ("" as a
 * string, 0 as an integer) instead of an error.
 */
public record Macros(List<String> positional, Map<String, String> named, boolean defaultArgs,
        java.util.BitSet referenced) {

    public Macros {
        positional = List.copyOf(positional);
        named = Map.copyOf(named);
    }

    /**
     * {@code referenced}: the positional macros a lookup asked for (libdtrace's DT_IDFLG_REF on
     * pcb_sflagv), shared by the copies withNamed and withDefaultArgs make, for D_MACRO_UNUSED.
     */
    public Macros(List<String> positional, Map<String, String> named, boolean defaultArgs) {
        this(positional, named, defaultArgs, new java.util.BitSet());
    }

    /** True once the program referenced {@code $n}. */
    public boolean isReferenced(int n) {
        synchronized (referenced) {
            return referenced.get(n);
        }
    }

    /** Only $0 (the script name), $target = 0 and this JVM's $pid. */
    public static Macros of(String scriptName, List<String> args) {
        List<String> all = new java.util.ArrayList<>();
        all.add(scriptName == null ? "" : scriptName);
        all.addAll(args);
        long pid = ProcessHandle.current().pid();
        long ppid = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
        Map<String, String> named = new java.util.HashMap<>(Map.of("target", "0", "pid", Long.toString(pid),
                "ppid", Long.toString(ppid), "projid", "0", "taskid", "0"));
        named.putAll(credentials());
        return new Macros(all, named, false);
    }

    /**
     * $pgid, $sid, $uid, $euid, $gid, $egid of dtrace itself, from /proc/self (stat's fields 5
     * and 6 after the command name; status' Uid: and Gid: lines, real then effective). Linux has
     * no projects or tasks: $projid and $taskid are 0. A field /proc does not give is left out
     * (a reference to it is then D_MACRO_UNDEF).
     */
    private static Map<String, String> credentials() {
        Map<String, String> m = new java.util.HashMap<>();
        try {
            long self = org.jdtrace.proc.Procfs.self();
            org.jdtrace.proc.Procfs.Stat stat = org.jdtrace.proc.Procfs.stat(self);
            if (stat.text(6) != null) {
                m.put("pgid", stat.text(5));
                m.put("sid", stat.text(6));
            }
            org.jdtrace.proc.Procfs.Status status = org.jdtrace.proc.Procfs.status(self);
            if (status.get("Uid") != null) {
                m.put("uid", Long.toString(status.uid(0)));
                m.put("euid", Long.toString(status.uid(1)));
            }
            if (status.get("Gid") != null) {
                m.put("gid", Long.toString(status.gid(0)));
                m.put("egid", Long.toString(status.gid(1)));
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux's /proc: only the macros above
        }
        return m;
    }

    public Macros withNamed(String name, String value) {
        Map<String, String> m = new java.util.HashMap<>(named);
        m.put(name, value);
        return new Macros(positional, m, defaultArgs, referenced);
    }

    public Macros withDefaultArgs(boolean on) {
        return new Macros(positional, named, on, referenced);
    }

    /**
     * The text of macro {@code name} (without '$': "1", "target"), or null if it is not defined.
     * An undefined positional macro under defaultargs is "".
     */
    public String lookup(String name) {
        if (!name.isEmpty() && Character.isDigit(name.charAt(0))) {
            int n;
            try {
                n = Integer.parseInt(name);
            } catch (NumberFormatException e) {
                return null;
            }
            if (n < positional.size()) {
                synchronized (referenced) {
                    referenced.set(n);
                }
                return positional.get(n);
            }
            return defaultArgs ? "" : null;
        }
        return named.get(name);
    }
}
