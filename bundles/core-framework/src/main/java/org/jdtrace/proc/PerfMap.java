/*
 * PerfMap: the names a JIT gives its code, from /tmp/perf-PID.map (the perf map convention: one
 * "START SIZE name" line per code blob, hex addresses), which HotSpot writes on
 * `jcmd PID Compiler.perfmap` (and at exit with -XX:+DumpPerfMapAtExit), no agent needed. A pc in
 * no mapped object (JIT code, HotSpot's interpreter) is named from it: HotSpot's lines name a
 * compiled method as "ret pkg.Class.method(args)", shown as pkg.Class.method; its interpreter as
 * "Interpreter", its stubs by their own names.
 *
 * Refresh: the file is read on first use and again when a pc is in none of its entries and the
 * file changed since (size or mtime), at most every 100 ms, so methods compiled since are found.
 * Later lines win over earlier ones at the same address (code reused after a method was unloaded);
 * a name the map no longer has leaves the frame unnamed. Thread safety: the table is published
 * through a volatile field; two threads may read the file at once and either result is right.
 * Failure behaviour: no file, or lines that do not parse: no names (null), nothing thrown. A map
 * read while the JVM rewrites it (jcmd truncates and writes it again) gives the lines written so
 * far, never a last line cut short; the rest is found at the next re-read.
 */
package org.jdtrace.proc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** The JIT code names of one process, from its /tmp/perf-PID.map. */
public final class PerfMap {

    private record Table(long[] start, long[] end, String[] name, long size, long mtime) {}

    private static final Table EMPTY = new Table(new long[0], new long[0], new String[0], -1, -1);

    private final Path path;
    private volatile Table table;
    private volatile long checkedAt;

    public PerfMap(int pid) {
        this(Path.of("/tmp/perf-" + pid + ".map"));
    }

    /** The map in {@code path} (a test's, another JIT's). */
    public PerfMap(Path path) {
        this.path = path;
    }

    /** {@code name+0xoff} for {@code pc} (the name alone at its first byte), or null when no entry has it. */
    public String describe(long pc) {
        Table t = table;
        if (t == null) t = reload(null);
        int i = find(t, pc);
        if (i < 0 && System.nanoTime() - checkedAt > 100_000_000L) {
            t = reload(t);
            i = find(t, pc);
        }
        if (i < 0) return null;
        long off = pc - t.start[i];
        return off == 0 ? t.name[i] : t.name[i] + "+0x" + Long.toHexString(off);
    }

    private static int find(Table t, long pc) {
        int lo = 0, hi = t.start.length - 1, at = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(t.start[mid], pc) <= 0) {
                at = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return at >= 0 && Long.compareUnsigned(pc, t.end[at]) < 0 ? at : -1;
    }

    private Table reload(Table old) {
        checkedAt = System.nanoTime();
        Table t = EMPTY;
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
            long mtime = a.lastModifiedTime().toMillis();
            if (old != null && old.size == a.size() && old.mtime == mtime) return old;
            TreeMap<Long, Object[]> byStart = new TreeMap<>(Long::compareUnsigned);
            byte[] bytes = Files.readAllBytes(path);
            int end = bytes.length;
            // a map being written: its last line may be cut short (a name cut to another name);
            // only lines the writer ended are taken
            while (end > 0 && bytes[end - 1] != '\n') end--;
            for (String line : new String(bytes, 0, end, java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.split(" ", 3);
                if (f.length < 3) continue;
                try {
                    long start = Long.parseUnsignedLong(strip(f[0]), 16), size = Long.parseUnsignedLong(strip(f[1]), 16);
                    byStart.put(start, new Object[] {start + size, javaName(f[2])});
                } catch (NumberFormatException e) {
                    // not a perf map line
                }
            }
            List<Long> starts = new ArrayList<>(byStart.keySet());
            long[] s = new long[starts.size()], e = new long[starts.size()];
            String[] n = new String[starts.size()];
            for (int i = 0; i < s.length; i++) {
                Object[] v = byStart.get(starts.get(i));
                s[i] = starts.get(i);
                e[i] = (long) v[0];
                n[i] = (String) v[1];
            }
            // a map read mid-write is read again at the next miss, whatever its size and time then
            t = new Table(s, e, n, end == bytes.length && bytes.length == a.size() ? a.size() : -1, mtime);
        } catch (Exception e) {
            // no map (yet): no names
        }
        table = t;
        return t;
    }

    private static String strip(String hex) {
        return hex.startsWith("0x") ? hex.substring(2) : hex;
    }

    /** "ret pkg.Class.method(args)" as pkg.Class.method; any other name ("StubRoutines (1)") as it is. */
    static String javaName(String name) {
        int paren = name.indexOf('(');
        if (paren <= 0 || name.charAt(paren - 1) == ' ') return name.strip();
        int space = name.lastIndexOf(' ', paren);
        return name.substring(space + 1, paren);
    }
}
