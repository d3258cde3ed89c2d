/*
 * Procfs: the one reader of Linux's /proc files about processes (proc(5)), libproc's role in
 * illumos (Pread of /proc/PID/{psinfo,status,map}). Every bundle that needs a process's state,
 * status lines, name, parent, mappings or command line reads them here, so each file format is
 * parsed in one place: /proc/PID/stat (and task/TID/stat), /proc/PID/status, /proc/PID/comm,
 * /proc/PID/maps, /proc/PID/cmdline. Files that are not a text format (mem, auxv, exe, fd/N,
 * map_files) are only named here (file, taskFile), their readers own their bytes.
 *
 * Reading: a /proc file reports a size it does not have (0, or one page), so files are read
 * until end of file, never by the size they report (Files.readString can return only their first
 * bytes: perf_event_max_sample_rate read as "1").
 *
 * Failure behaviour: a process that is gone, or not ours to read, is an IOException from the
 * readers (the caller chooses its default: zeros, as for a zombie, or its own wording); a field a
 * kernel does not give reads as 0 (numbers) or null (status values). Nothing is cached: every
 * call reads the file now; callers that fire often keep their own caches. Stateless, thread-safe.
 */
package org.jdtrace.proc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Readers of /proc/PID files (proc(5)): stat, status, comm, maps, cmdline.
 *
 * @since 1.2
 */
public final class Procfs {

    private Procfs() {}

    /** /proc/PID. */
    public static Path dir(long pid) {
        return Path.of("/proc", Long.toString(pid));
    }

    /** /proc/PID/NAME (NAME may hold slashes: {@code "task/12/stat"}). */
    public static Path file(long pid, String name) {
        return dir(pid).resolve(name);
    }

    /** /proc/PID/task/TID/NAME. */
    public static Path taskFile(long pid, long tid, String name) {
        return dir(pid).resolve("task").resolve(Long.toString(tid)).resolve(name);
    }

    /** The whole of a /proc (or /sys) file, read until end of file. */
    public static byte[] readBytes(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return in.readAllBytes();
        }
    }

    /** The whole of a /proc (or /sys) file as text (UTF-8), read until end of file. */
    public static String read(Path p) throws IOException {
        return new String(readBytes(p), StandardCharsets.UTF_8);
    }

    /** /proc/PID/stat. */
    public static Stat stat(long pid) throws IOException {
        return Stat.parse(read(file(pid, "stat")));
    }

    /** /proc/PID/task/TID/stat (one thread's). */
    public static Stat stat(long pid, long tid) throws IOException {
        return Stat.parse(read(taskFile(pid, tid, "stat")));
    }

    /** /proc/PID/status (for a thread id, that thread's: /proc/TID names any thread). */
    public static Status status(long pid) throws IOException {
        return Status.parse(read(file(pid, "status")));
    }

    /** /proc/PID/task/TID/status. */
    public static Status status(long pid, long tid) throws IOException {
        return Status.parse(read(taskFile(pid, tid, "status")));
    }

    /** The process's name (/proc/PID/comm, at most 15 characters, no newline). */
    public static String comm(long pid) throws IOException {
        return read(file(pid, "comm")).strip();
    }

    /** A thread's name (/proc/PID/task/TID/comm). */
    public static String comm(long pid, long tid) throws IOException {
        return read(taskFile(pid, tid, "comm")).strip();
    }

    /** The parent of {@code pid} (stat's 4th field), 0 when the process is gone. */
    public static long ppid(long pid) {
        try {
            return stat(pid).ppid();
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The command line: its arguments, each NUL-terminated in the file (empty for a zombie or a kernel thread). */
    public static byte[] cmdline(long pid) throws IOException {
        return readBytes(file(pid, "cmdline"));
    }

    /** /proc/PID/maps, in address order. */
    public static List<Mapping> maps(long pid) throws IOException {
        List<Mapping> out = new ArrayList<>();
        for (String line : read(file(pid, "maps")).split("\n")) {
            Mapping m = Mapping.parse(line);
            if (m != null) out.add(m);
        }
        return out;
    }

    /**
     * The mappings of /proc/PID/maps whose path ends with {@code suffix}, in address order: what
     * maps() gives of them, the other lines not parsed (a look for one library in every process
     * a profile samples, HotSpotVm.of's for libjvm.so, finds a few lines of hundreds).
     *
     * @since 2.1
     */
    public static List<Mapping> maps(long pid, String suffix) throws IOException {
        String text = read(file(pid, "maps"));
        String end = suffix + "\n";
        if (!text.endsWith("\n")) text += "\n";
        List<Mapping> out = new ArrayList<>();
        for (int at = text.indexOf(end); at >= 0; at = text.indexOf(end, at + end.length())) {
            Mapping m = Mapping.parse(text.substring(text.lastIndexOf('\n', at) + 1, at + suffix.length()));
            if (m != null && m.path().endsWith(suffix)) out.add(m);
        }
        return out;
    }

    /** This JVM's own pid. */
    public static long self() {
        return ProcessHandle.current().pid();
    }

    /**
     * /proc/PID/stat's fields, numbered from 1 as proc(5) numbers them: 1 pid, 2 comm (without
     * its parentheses; it may hold blanks and parentheses, so the fields after it are counted from
     * the last ')'), 3 state, 4 ppid, 5 pgrp, 6 session, 7 tty_nr, ... 14 utime, ... 18 priority,
     * 19 nice, 20 num_threads, 23 vsize, 24 rss, 28 startstack, 39 processor.
     */
    public static final class Stat {
        private final String[] fields;

        private Stat(String[] fields) {
            this.fields = fields;
        }

        /** Parses the text of a stat file; text with no ')' gives a Stat of no fields. */
        public static Stat parse(String s) {
            int close = s.lastIndexOf(')');
            if (close < 0) return new Stat(new String[0]);
            String[] rest = s.substring(close + 1).trim().split(" ");
            String[] out = new String[rest.length + 3];
            out[1] = s.substring(0, Math.max(0, s.indexOf(' ')));
            out[2] = s.substring(s.indexOf('(') + 1, close);
            System.arraycopy(rest, 0, out, 3, rest.length);
            return new Stat(out);
        }

        /** Field {@code n} (from 1) as text, or null if there is none. */
        public String text(int n) {
            return n > 0 && n < fields.length ? fields[n] : null;
        }

        /** Field {@code n} (from 1) as a number, 0 if there is none or it is not a number. */
        public long field(int n) {
            String f = text(n);
            try {
                return f != null ? Long.parseLong(f) : 0;
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        /** The command name (field 2). */
        public String comm() {
            String c = text(2);
            return c == null ? "" : c;
        }

        /** The state letter (field 3: R, S, D, T, t, Z, X, I...), or 0 if none. */
        public char state() {
            String s = text(3);
            return s == null || s.isEmpty() ? 0 : s.charAt(0);
        }

        /** The parent's pid (field 4). */
        public long ppid() {
            return field(4);
        }
    }

    /** /proc/PID/status: "Key:\tvalue" lines. */
    public static final class Status {
        private final Map<String, String> values;

        private Status(Map<String, String> values) {
            this.values = values;
        }

        public static Status parse(String s) {
            Map<String, String> m = new LinkedHashMap<>();
            for (String line : s.split("\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) m.putIfAbsent(line.substring(0, colon), line.substring(colon + 1).strip());
            }
            return new Status(m);
        }

        /** The value of {@code key} (without its colon), blanks stripped; null if absent. */
        public String get(String key) {
            return values.get(key);
        }

        /** The {@code index}th number (from 0) of {@code key}'s value ("Uid: real effective saved fs"); 0 if absent. */
        public long number(String key, int index) {
            String v = values.get(key);
            if (v == null) return 0;
            String[] w = v.split("\\s+");
            try {
                return index < w.length ? Long.parseLong(w[index]) : 0;
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        /** The thread group (the process) of the thread whose status this is. */
        public long tgid() {
            return number("Tgid", 0);
        }

        public long ppid() {
            return number("PPid", 0);
        }

        /** The pid of the process ptracing this one, 0 if none. */
        public long tracerPid() {
            return number("TracerPid", 0);
        }

        /** Uid: {@code which} 0 real, 1 effective, 2 saved, 3 filesystem. */
        public long uid(int which) {
            return number("Uid", which);
        }

        /** Gid: {@code which} 0 real, 1 effective, 2 saved, 3 filesystem. */
        public long gid(int which) {
            return number("Gid", which);
        }

        /** The state letter of "State: S (sleeping)", or 0. */
        public char state() {
            String v = values.get("State");
            return v == null || v.isEmpty() ? 0 : v.charAt(0);
        }
    }

    /**
     * One line of /proc/PID/maps: {@code start-end perms offset dev inode path}. {@code path} is
     * "" for an anonymous mapping, a bracketed name for the kernel's ([vdso], [stack], [heap]),
     * and may end in " (deleted)".
     */
    public record Mapping(long start, long end, String perms, long offset, String dev, long inode, String path) {

        /** A line of the file, or null if it does not parse. */
        public static Mapping parse(String line) {
            // five fields split at runs of whitespace, then the path (the rest, trimmed): as
            // line.trim().split("\\s+", 6), without a regex (a JVM's maps has thousands of lines)
            String l = line.strip();
            int[] at = new int[10];
            int p = 0;
            for (int i = 0; i < 5; i++) {
                int b = p;
                while (p < l.length() && !Character.isWhitespace(l.charAt(p))) p++;
                if (p == b) return null;
                at[2 * i] = b;
                at[2 * i + 1] = p;
                while (p < l.length() && Character.isWhitespace(l.charAt(p))) p++;
            }
            int dash = l.indexOf('-', 0);
            if (dash < 0 || dash >= at[1]) return null;
            try {
                return new Mapping(Long.parseUnsignedLong(l, 0, dash, 16), Long.parseUnsignedLong(l, dash + 1, at[1], 16),
                        l.substring(at[2], at[3]), Long.parseUnsignedLong(l, at[4], at[5], 16), l.substring(at[6], at[7]),
                        Long.parseLong(l, at[8], at[9], 10), l.substring(p));
            } catch (NumberFormatException e) {
                return null;
            }
        }

        public boolean readable() {
            return perms.length() > 0 && perms.charAt(0) == 'r';
        }

        public boolean executable() {
            return perms.length() > 2 && perms.charAt(2) == 'x';
        }

        /** A private (copy-on-write) mapping, as the loader maps objects. */
        public boolean isPrivate() {
            return perms.length() > 3 && perms.charAt(3) == 'p';
        }

        /** Backed by a file named by an absolute path. */
        public boolean fileBacked() {
            return path.startsWith("/");
        }
    }
}
