/*
 * User addresses of any process symbolised as ustack() prints them ({@code file`function+0xoff}),
 * from /proc/PID/maps and each mapped file's org.jdtrace.elf.SymbolTable (its symbol tables,
 * MiniDebugInfo, separate debug file: the reader the pid provider uses too). The kernel's samples
 * name processes jdtrace never attached to, so this is the pid provider's symbolisation without
 * ptrace: read-only, from /proc and the files. A pc in a file but in no symbol is
 * {@code file`0xoffset} from the file's lowest mapped address (the same in every run, as DTrace
 * prints it); a pc in the vDSO is named from the vDSO's own symbols as {@code [vdso]`function},
 * one in JIT code from the process's perf map (org.jdtrace.proc.PerfMap) as
 * {@code [jit]`pkg.Class.method+0xoff}; in a HotSpot JVM whose structures can be read the JVM's
 * own code cache names it instead (org.jdtrace.proc.HotSpotVm, through its vmStructs: the same
 * names, no perf map needed, and never a name the map kept for code freed since).
 *
 * Caches: a pid's executable mappings, read on first use and again (at most every 100 ms, and
 * for a process the side-band follows only after it lost records) when a pc falls in none of them
 * (a library dlopen()ed since; a pc in an executable mapping of no file,
 * JIT code, is in one: a busy JVM would otherwise have its thousands of lines re-read ten times a
 * second); each ELF file's SymbolTable and
 * CallFrameInfo from the platform's ObjectFiles (one read per file for every provider, the pid
 * provider's ustack() included), read through the process's /proc/PID/map_files link (the inode
 * it maps, also when the path was replaced since) else the path; and here, per mapping key (path,
 * device and inode as maps gives them), those with the file's PT_LOADs. A process that is gone keeps what was read while it lived; one never
 * seen gives null (hex frames).
 *
 * Call-frame information for the CFI unwinder (profile-N's ustack(), from the stack copied at the
 * sample): each mapped file's CallFrameInfo and the vDSO's, read from this JVM's own [vdso] (the
 * kernel maps one image into every 64-bit process) and placed at the target's [vdso] address. A
 * View answers for one pid at a time; it keeps the address ranges of the objects it resolved for
 * each of the last few pids it was pointed at (a whole-machine profile's samples alternate between
 * the CPUs' processes), a set answering only while its process's Proc and image are those it was
 * read from (an exec or a pid's reuse makes a new Proc, a re-read or a new mapping a new image),
 * so it answers as a lookup would. In a HotSpot JVM it also gives the unwinder the frame sizes of
 * compiled code and the interpreter's frame layout (HotSpotVm.codeFrame), so Java frames unwind
 * without -XX:+PreserveFramePointer. A process is looked at for a JVM at its first pc in no
 * mapping, and again at most once a second while it is not one (a JVM still starting).
 *
 * Processes born while tracing (track(): held by each provider that symbolises user pcs while it
 * is enabled): a dummy perf event on every CPU (Sideband: fork, exec, exit and each executable
 * mapping, as perf's MMAP2 side-band) keeps their mappings as they were made, so a process gone
 * before the drain reaches its records is named and unwound exactly, as perf report does: a forked
 * child starts with its parent's mappings (the parent's /proc read at the fork when it was never
 * seen), an exec replaces the image (the one before kept, for records stamped before the exec,
 * Proc.image, and for a sample in the exec itself, whose user registers are still the old image's:
 * mapping()), an exit drops the process RETAIN_NANOS after its record is read (the drain merges
 * side-band records with the samples by time, PerfEventsImpl's Order, and a sample's names are
 * made when it is processed). /proc is read only for processes seen first otherwise (those older than the
 * tracing: all of them as the side-band starts, snapshot(), as perf synthesizes their mappings, so
 * one held stopped until then, dtrace -c's, keeps what it had), and again, at most every 100 ms,
 * for one not followed, or followed but read before the side-band last lost records, when a pc is
 * in no known mapping (sidebandLostAt). The
 * last track() closed forgets every process followed so (no record comes for them any more).
 *
 * Threading: called from the drain thread in probe context; the maps are concurrent so the
 * consumer may call too. Side-band records come on the drain thread only; a Proc's fields are
 * volatile values replaced whole. Allocation happens only on a cache miss.
 */
package org.jdtrace.perf.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.elf.SymbolTable;
import org.jdtrace.proc.HotSpotVm;
import org.jdtrace.proc.PerfMap;
import org.jdtrace.proc.Procfs;
import org.jdtrace.unwind.CallFrameInfo;
import org.jdtrace.unwind.Unwinder;

final class UserSymbols {

    /**
     * An executable mapping of a file; {@code base} is the lowest address the file is mapped at
     * (-1 for a side-band mapping: the file's first PT_LOAD page, found from its segments).
     */
    private record Mapping(long start, long end, long offset, String file, String key, long base) {}

    /** What is read once per file: its names, call-frame information and PT_LOADs (file offset to address). */
    private record ObjectInfo(SymbolTable symbols, CallFrameInfo cfi, List<ElfSegment> loads) {}

    /** The vDSO of this JVM (the same image as every process's): names, CFI, first PT_LOAD page. */
    private record Vdso(SymbolTable symbols, CallFrameInfo cfi, long firstLoad) {}

    private static final Vdso NO_VDSO = new Vdso(null, null, 0);

    /**
     * A process's executable file mappings sorted by start, with the starts in an array: a pc's
     * mapping is a binary search (a JVM maps dozens of objects, and each frame asks several times).
     */
    private record Maps(Mapping[] byStart, long[] starts) {
        static final Maps NONE = new Maps(new Mapping[0], new long[0]);

        static Maps of(List<Mapping> list) {
            Mapping[] m = list.toArray(Mapping[]::new);
            java.util.Arrays.sort(m, (a, b) -> Long.compare(a.start, b.start));
            long[] starts = new long[m.length];
            for (int i = 0; i < m.length; i++) starts[i] = m[i].start;
            return new Maps(m, starts);
        }
    }

    private static final class Proc {
        /** Its executable file mappings in address order, as one immutable value (read without a lock). */
        volatile Maps maps = Maps.NONE;
        /** Its executable mappings of no file (JIT code), start and end pairs: a pc there needs no re-read. */
        volatile long[] anon = new long[0];
        volatile long readAt;
        /** The [vdso] mapping's start, or 0. */
        volatile long vdso;
        /** The names of its JIT code (/tmp/perf-PID.map), made at the first pc in no mapping. */
        volatile PerfMap jit;
        /** Its HotSpot JVM's structures (null: not looked at, or not a JVM when last looked at jvmAt). */
        volatile HotSpotVm jvm;
        volatile long jvmAt;
        /** Its mappings come from side-band records (born or exec'd while tracing). */
        volatile boolean followed;
        /** Its image before its last exec, for records stamped before execAt (null: none). */
        volatile Maps before;
        volatile long execAt;

        /** The mappings of the image that was live at {@code time} (0: now). */
        Maps image(long time) {
            Maps b = before;
            return b != null && time != 0 && time < execAt ? b : maps;
        }

        /** View.state's token (drain thread only) and what it stands for: the image, the vDSO, the JIT mappings. */
        private Object token;
        private Maps tokenImage;
        private long tokenVdso;
        private long[] tokenAnon;

        /** An object that stays the same while the mappings a pc at {@code time} resolves against do. */
        Object token(long time) {
            Maps image = image(time);
            long v = vdso;
            long[] a = anon;
            if (token == null || tokenImage != image || tokenVdso != v || tokenAnon != a) {
                token = new Object();
                tokenImage = image;
                tokenVdso = v;
                tokenAnon = a;
            }
            return token;
        }
    }

    /** How long a process is kept after its exit record was read (its last samples are in that drain or the next). */
    private static final long RETAIN_NANOS = 5_000_000_000L;
    /** The most executable mappings of no file kept per process from side-band records. */
    private static final int MAX_ANON = 4096;

    private static final int MAX_PROCS = 4096;
    /** The largest vDSO this reads. */
    private static final long VDSO_MAX = 1 << 20;
    private final org.jdtrace.elf.ObjectFiles objects;
    private final Map<Integer, Proc> procs = new ConcurrentHashMap<>();
    private final Map<String, ObjectInfo> files = new ConcurrentHashMap<>();
    private volatile Vdso vdso;
    /** Where side-band events open (null: none, every process from /proc). */
    private final org.jdtrace.perf.PerfEvents perf;
    /** Guarded by this: the holders of track(), and the side-band events while there are any. */
    private int tracking;
    private org.jdtrace.perf.EventSet sideband;
    /** Processes whose exit record was read, with when (drain thread only). */
    private final ArrayDeque<Exited> exited = new ArrayDeque<>();

    private record Exited(int pid, Proc proc, long readAt) {}

    /** With its own ObjectFiles (tests). */
    UserSymbols() {
        this(new org.jdtrace.elf.ObjectFiles());
    }

    UserSymbols(org.jdtrace.elf.ObjectFiles objects) {
        this(objects, null);
    }

    UserSymbols(org.jdtrace.elf.ObjectFiles objects, org.jdtrace.perf.PerfEvents perf) {
        this.objects = objects;
        this.perf = perf;
    }

    /**
     * Follows processes from now on through side-band records until the returned handle is
     * closed (counted: the events stay open while any holder does). Open it before the events
     * whose pcs it names. Where the kernel refuses the events, processes are read from /proc as
     * before, with one debug line.
     */
    synchronized AutoCloseable track() {
        if (perf == null) return () -> { };
        if (tracking++ == 0) {
            try {
                sideband = perf.open(new org.jdtrace.perf.EventSpec(org.jdtrace.perf.EventSpec.TYPE_SOFTWARE, PerfSys.SW_DUMMY, 1,
                        false, PerfSys.SAMPLE_TID | PerfSys.SAMPLE_TIME, PerfSys.F_MMAP | PerfSys.F_MMAP2 | PerfSys.F_COMM
                                | PerfSys.F_COMM_EXEC | PerfSys.F_TASK | PerfSys.F_SAMPLE_ID_ALL,
                        0, 64, -1, false), new Records());
                snapshot();
            } catch (RuntimeException e) { // PerfException: the kernel refused; processes from /proc as before
                org.slf4j.LoggerFactory.getLogger(UserSymbols.class).debug("no side-band events: {}", e.toString());
            }
        }
        boolean[] closed = {false};
        return () -> untrack(closed);
    }

    /**
     * The processes alive as the side-band starts, read from /proc now (perf's synthesized
     * mappings): a process made before the tracing and held until it starts (dtrace -c's, stopped
     * at its exec) is named from the mappings it had then and those its records add, also when it
     * is gone by the drain. At most MAX_PROCS / 2; processes with no executable mapping of a file
     * (kernel threads) are left out.
     */
    private void snapshot() {
        List<Integer> pids = new ArrayList<>();
        try (var dirs = Files.list(Procfs.dir(1).getParent())) {
            dirs.map(d -> d.getFileName().toString()).filter(n -> !n.isEmpty() && n.chars().allMatch(Character::isDigit))
                    .forEach(n -> pids.add(Integer.parseInt(n)));
        } catch (Exception e) {
            return; // no /proc: each process read at its first pc, as before
        }
        for (int pid : pids) {
            if (procs.size() >= MAX_PROCS / 2) break;
            if (procs.containsKey(pid)) continue;
            Proc p = new Proc();
            refresh(pid, p);
            if (p.maps.byStart.length == 0) continue;
            p.followed = true;
            procs.putIfAbsent(pid, p);
        }
    }

    private synchronized void untrack(boolean[] closed) {
        if (closed[0]) return;
        closed[0] = true;
        if (--tracking > 0) return;
        org.jdtrace.perf.EventSet s = sideband;
        sideband = null;
        if (s != null) s.close(); // its last records read first
        for (Map.Entry<Integer, Proc> e : procs.entrySet()) {
            if (e.getValue().followed) forget(e.getKey());
        }
        synchronized (exited) {
            exited.clear();
        }
    }

    /** The side-band records (Sideband), on the drain thread. */
    private final class Records implements Sideband {
        @Override
        public void sample(org.jdtrace.perf.Sample s) {
            // a dummy event has none
        }

        /** No hurry of its own: its records are read with the samples they name, whoever's wait governs. */
        @Override
        public int maxWaitMillis() {
            return 1000;
        }

        @Override
        public void lost(int cpu, long count) {
            sidebandLostAt = System.nanoTime();
        }

        @Override
        public void fork(int pid, int ppid, long time) {
            expire();
            Proc parent = procs.get(ppid);
            if (parent == null) parent = proc(ppid, 0);
            Proc p = new Proc();
            if (parent != null) {
                p.maps = parent.maps;
                p.anon = parent.anon;
                p.vdso = parent.vdso;
            }
            p.followed = true;
            p.readAt = System.nanoTime();
            put(pid, p);
        }

        @Override
        public void exec(int pid, long time) {
            Proc old = procs.get(pid);
            Proc p = new Proc();
            if (old != null) p.before = old.maps;
            p.execAt = time;
            p.followed = true;
            p.readAt = System.nanoTime();
            put(pid, p);
        }

        @Override
        public void mmap(int pid, long start, long len, long pgoff, String dev, long inode, String file, long time) {
            Proc p = procs.get(pid);
            if (p == null) return; // seen first later: read from /proc then
            long end = start + len;
            if (file.equals("[vdso]")) {
                p.vdso = start;
            } else if (file.equals("//anon") || file.startsWith("/anon_hugepage") || file.startsWith("[anon")) {
                long[] a = p.anon;
                if (a.length / 2 < MAX_ANON) {
                    long[] b = java.util.Arrays.copyOf(a, a.length + 2);
                    b[a.length] = start;
                    b[a.length + 1] = end;
                    p.anon = b;
                }
            } else if (file.startsWith("/")) {
                List<Mapping> list = new ArrayList<>();
                for (Mapping m : p.maps.byStart) {
                    // a new mapping replaces what it overlaps (MAP_FIXED over an older one)
                    if (Long.compareUnsigned(m.end, start) <= 0 || Long.compareUnsigned(m.start, end) >= 0) list.add(m);
                }
                list.add(new Mapping(start, end, pgoff, file, dev + ":" + inode + ":" + file, -1));
                p.maps = Maps.of(list);
            }
        }

        @Override
        public void exit(int pid, long time) {
            expire();
            Proc p = procs.get(pid);
            if (p == null) return;
            synchronized (exited) {
                exited.add(new Exited(pid, p, System.nanoTime()));
            }
        }
    }

    private void put(int pid, Proc p) {
        if (procs.size() > MAX_PROCS) {
            for (Integer old : List.copyOf(procs.keySet())) forget(old);
        }
        Proc old = procs.put(pid, p);
        if (old != null && old.jvm != null && old.jvm != p.jvm) old.jvm.close();
    }

    /** Forgets the processes whose exit record was read RETAIN_NANOS ago. */
    private void expire() {
        long now = System.nanoTime();
        synchronized (exited) {
            for (Exited e = exited.peek(); e != null && now - e.readAt > RETAIN_NANOS; e = exited.peek()) {
                exited.poll();
                // not a process forked since under the same pid
                if (procs.remove(e.pid, e.proc) && e.proc.jvm != null) e.proc.jvm.close();
            }
        }
    }

    String lookup(int pid, long pc) {
        return lookup(pid, pc, 0);
    }

    /** {@code pc} of {@code pid} named with the mappings live at {@code time} (CLOCK_MONOTONIC, 0: now). */
    String lookup(int pid, long pc, long time) {
        Proc p = proc(pid, pc);
        if (p == null) return null;
        Mapping m = mapping(p, pc, time);
        if (m == null) {
            Vdso v = vdso();
            if (p.vdso == 0 || v.symbols == null || pc < p.vdso || pc >= p.vdso + VDSO_MAX) {
                PerfMap jit = p.jit;
                if (jit == null) p.jit = jit = new PerfMap(pid);
                // a HotSpot JVM's live code cache over its perf map, which may name code freed
                // since (a method unloaded, code recompiled): such a frame is left unnamed
                HotSpotVm vm = jvm(pid, p);
                String named = vm != null ? vm.describe(pc) : jit.describe(pc);
                return named == null ? null : "[jit]`" + named;
            }
            String named = v.symbols.describe(pc - p.vdso + v.firstLoad);
            return "[vdso]`" + (named != null ? named : "0x" + Long.toHexString(pc - p.vdso));
        }
        String module = m.file.substring(m.file.lastIndexOf('/') + 1);
        ObjectInfo o = info(pid, m);
        String named = o == null || o.symbols == null ? null : o.symbols.describe(vaddr(o.loads, pc - m.start + m.offset));
        return module + "`" + (named != null ? named : "0x" + Long.toHexString(pc - base(m, o)));
    }

    /**
     * The objects of one process as the unwinder asks for them (Unwinder.Modules); {@link View#at}
     * points it at a pid. One view per drain-thread context: it keeps the last answer, and for each
     * of the last SETS processes it was pointed at a range set: the address ranges of the last
     * RANGES objects it resolved in that process (the frames of a stack lie in a few objects: a pc
     * in one of them is answered from it with no mapping search or file lookup). The sets are
     * found by pid, so the processes of a whole-machine profile, whose samples come merged by time
     * from the CPUs and alternate nearly every sample, each keep theirs; the least recently used
     * set is given to a pid that has none. A range is a part of one mapping that one PT_LOAD maps,
     * so its load bias is one number. A set holds while its process (the Proc, replaced by an exec
     * or a pid's reuse) and the image the view's time sees (a new Maps when the mappings are re-read
     * or a mapping is added) are those its ranges were read from: checked at each walk's first pc,
     * and again when a pc's lookup finds them changed (kept across walks of the same process).
     * Answering allocates nothing once the process and its objects are read (probe context): a set
     * keeps its pid boxed for the process map, the loops index arrays and lists.
     */
    final class View implements Unwinder.Modules {
        private static final int RANGES = 8;
        /** The processes whose ranges are kept (a profile's CPUs, each switching among a few busy ones). */
        private static final int SETS = 8;
        private int pid;
        private long time;
        private long lastPc = -1, lastBias;
        private CallFrameInfo lastCfi;
        /** The process resolve() last looked up (for codeFrame: the pc it resolved has no CFI). */
        private Proc lastProc;
        /** Whether this walk's first pc checked its set against the process and its image. */
        private boolean checked;
        /** The range set of this view's pid (one of sets), and the use count that orders them. */
        private RangeSet ranges;
        private long uses;
        private final RangeSet[] sets = new RangeSet[SETS];

        private View() {
            for (int i = 0; i < SETS; i++) sets[i] = new RangeSet();
            ranges = set(0);
        }

        View at(int pid) {
            return at(pid, 0);
        }

        /** Points the view at {@code pid} as it was at {@code time} (0: now). */
        View at(int pid, long time) {
            RangeSet r = ranges;
            if (r.key == null || r.pid != pid) ranges = r = set(pid);
            r.used = ++uses;
            this.pid = pid;
            this.time = time;
            this.lastPc = -1;
            this.checked = false;
            return this;
        }

        /** The set of {@code pid}, else the least recently used one, emptied and given to it. */
        private RangeSet set(int pid) {
            RangeSet oldest = sets[0];
            for (RangeSet r : sets) {
                if (r.key != null && r.pid == pid) return r;
                if (r.used < oldest.used) oldest = r;
            }
            oldest.pid = pid;
            oldest.key = pid;
            oldest.count = 0;
            oldest.proc = null;
            oldest.image = null;
            return oldest;
        }

        @Override
        public CallFrameInfo cfi(long pc) {
            resolve(pc);
            return lastCfi;
        }

        @Override
        public long bias(long pc) {
            resolve(pc);
            return lastBias;
        }

        @Override
        public long codeFrame(long pc) {
            resolve(pc);
            if (lastCfi != null) return 0;
            Proc p = lastProc; // resolve's process for this pc
            HotSpotVm vm = p == null ? null : UserSymbols.jvm(pid, p);
            return vm == null ? 0 : vm.codeFrame(pc);
        }

        /**
         * The process's mappings as this view sees them at its time (Proc.token: a new object when
         * they change), so the unwinder may keep whole walks over them; null for a process never seen.
         */
        @Override
        public Object state() {
            Proc p = procs.get(ranges.key);
            return p == null ? null : p.token(time);
        }

        /** The HotSpot JVM of this view's process, or null. */
        HotSpotVm jvm() {
            Proc p = procs.get(ranges.key);
            return p == null ? null : UserSymbols.jvm(pid, p);
        }

        private void resolve(long pc) {
            if (pc == lastPc) return;
            lastPc = pc;
            RangeSet r = ranges;
            if (r.count > 0) {
                if (!checked) {
                    checked = true;
                    Proc p = procs.get(r.key);
                    if (p == null || p != r.proc || p.image(time) != r.image) r.count = 0;
                }
                for (int i = 0; i < r.count; i++) {
                    if (pc >= r.low[i] && pc < r.high[i]) {
                        lastCfi = r.cfi[i];
                        lastBias = r.bias[i];
                        lastProc = r.proc;
                        return;
                    }
                }
            }
            lastCfi = null;
            lastBias = 0;
            Proc p = lastProc = proc(r.key, pc);
            if (p == null) return;
            Maps image = p.image(time);
            if (image != r.image || p != r.proc) r.count = 0; // re-read since (a pc in none of its mappings)
            Mapping m = find(image, pc);
            boolean inImage = m != null;
            if (m == null) m = mapping(p, pc, time);
            if (m != null) {
                ObjectInfo o = info(pid, m);
                if (o == null) return;
                long off = pc - m.start + m.offset;
                lastBias = pc - vaddr(o.loads, off);
                lastCfi = o.cfi;
                if (inImage) keep(r, p, image, m, o, off);
                return;
            }
            Vdso v = vdso();
            if (p.vdso != 0 && v.cfi != null && pc >= p.vdso && pc < p.vdso + VDSO_MAX) {
                lastCfi = v.cfi;
                lastBias = p.vdso - v.firstLoad;
            }
        }

        /**
         * Keeps in {@code r} the part of mapping {@code m} that the PT_LOAD holding file offset
         * {@code off} maps (the first that holds it, as vaddr() takes), with lastCfi and lastBias;
         * nothing when another PT_LOAD's file range overlaps that part (then a pc's segment
         * depends on the pc).
         */
        private void keep(RangeSet r, Proc p, Maps image, Mapping m, ObjectInfo o, long off) {
            List<ElfSegment> loads = o.loads;
            ElfSegment seg = null;
            for (int i = 0, n = loads.size(); i < n; i++) {
                ElfSegment s = loads.get(i);
                if (off >= s.offset() && off < s.offset() + s.filesz()) {
                    seg = s;
                    break;
                }
            }
            if (seg == null) return;
            long size = m.end - m.start;
            long lowOff = Math.max(m.offset, seg.offset()), highOff = Math.min(m.offset + size, seg.offset() + seg.filesz());
            for (int i = 0, n = loads.size(); i < n; i++) {
                ElfSegment s = loads.get(i);
                if (s != seg && s.offset() < highOff && s.offset() + s.filesz() > lowOff) return;
            }
            if (p != r.proc || image != r.image) {
                r.count = 0;
                r.proc = p;
                r.image = image;
            }
            checked = true;
            int i = r.count < RANGES ? r.count++ : (r.next = (r.next + 1) & (RANGES - 1));
            r.low[i] = m.start + (lowOff - m.offset);
            r.high[i] = m.start + (highOff - m.offset);
            r.cfi[i] = lastCfi;
            r.bias[i] = lastBias;
        }
    }

    /** A View's kept ranges of one process (see View): valid while proc and image are the process's. */
    private static final class RangeSet {
        /** The pid, and it boxed for the process map (null: the set is unused). */
        int pid;
        Integer key;
        /** The View's use count when last pointed at this pid. */
        long used;
        Proc proc;
        Maps image;
        int count, next;
        final long[] low = new long[View.RANGES], high = new long[View.RANGES], bias = new long[View.RANGES];
        final CallFrameInfo[] cfi = new CallFrameInfo[View.RANGES];
    }

    View view() {
        return new View();
    }

    /** Forgets a process (it exited). */
    void forget(int pid) {
        Proc p = procs.remove(pid);
        if (p != null && p.jvm != null) p.jvm.close();
    }

    /** The HotSpot JVM of {@code pid}, looked for at most once a second while there is none. */
    private static HotSpotVm jvm(int pid, Proc p) {
        HotSpotVm vm = p.jvm;
        if (vm != null || System.nanoTime() - p.jvmAt < 1_000_000_000L && p.jvmAt != 0) return vm;
        synchronized (p) {
            if (p.jvm == null && (p.jvmAt == 0 || System.nanoTime() - p.jvmAt >= 1_000_000_000L)) {
                p.jvm = HotSpotVm.of(pid);
                p.jvmAt = System.nanoTime();
            }
            return p.jvm;
        }
    }

    /**
     * The cached maps of {@code pid}, re-read (at most every 100 ms; a followed one only after
     * the side-band lost records) when {@code pc} is in none (the pid boxed: a View passes its range set's, so its lookups allocate nothing).
     */
    private Proc proc(Integer pid, long pc) {
        if (pid <= 0) return null;
        Proc p = procs.get(pid);
        if (p == null) {
            if (procs.size() > MAX_PROCS) {
                for (Integer old : List.copyOf(procs.keySet())) forget(old);
            }
            p = new Proc();
            procs.put(pid, p);
            refresh(pid, p);
        }
        if (find(p.maps, pc) == null && (p.vdso == 0 || pc < p.vdso || pc >= p.vdso + VDSO_MAX)
                && !inAnon(p.anon, pc) && System.nanoTime() - p.readAt > 100_000_000L
                && (!p.followed || p.readAt - sidebandLostAt <= 0)) {
            refresh(pid, p);
        }
        return p;
    }

    /**
     * When the side-band last lost records (System.nanoTime; 0: never): a followed process read
     * before then may lack a mapping, so a pc in none re-reads it (once: its readAt is later then).
     * A followed process read since has every mapping its records made: a pc in none is in no
     * mapping (a JVM stack's walk that ended in a heap address or -1 re-read the dtrace JVM's own
     * maps up to 10 times a second: UserSymbols.refresh 7.6% of a profile's drain thread, perf
     * record -g of the JVM).
     */
    private volatile long sidebandLostAt;

    /**
     * The mapping of {@code pc} in {@code p}'s image at {@code time}; else, for a pc in no mapping,
     * vDSO or JIT code of that image, in the image before its last exec: a sample taken in the
     * kernel during the exec, after its comm record, has the old image's user registers (its
     * execve call). Null when neither maps it.
     */
    private static Mapping mapping(Proc p, long pc, long time) {
        Maps image = p.image(time);
        Mapping m = find(image, pc);
        Maps b = p.before;
        if (m != null || b == null || image == b || time == 0 || inAnon(p.anon, pc)
                || p.vdso != 0 && pc >= p.vdso && pc < p.vdso + VDSO_MAX) {
            return m;
        }
        return find(b, pc);
    }

    /** The lowest address {@code m}'s file is mapped at. */
    private static long base(Mapping m, ObjectInfo o) {
        if (m.base != -1) return m.base;
        if (o == null || o.loads.isEmpty()) return m.start - m.offset;
        long bias = ElfSegment.loadBias(o.loads, m.start, m.offset);
        // the file's offset 0 where no segment holds the mapping's
        return (bias == Long.MIN_VALUE ? m.start - m.offset : bias) + ElfSegment.firstLoadPage(o.loads);
    }

    private ObjectInfo info(int pid, Mapping m) {
        ObjectInfo o = files.get(m.key); // no capturing lambda for a file read before
        return o != null ? o : files.computeIfAbsent(m.key, k -> read(pid, m));
    }

    private static long vaddr(List<ElfSegment> loads, long fileOffset) {
        for (int i = 0, n = loads.size(); i < n; i++) { // no Iterator: a frame's lookup allocates nothing
            ElfSegment s = loads.get(i);
            if (fileOffset >= s.offset() && fileOffset < s.offset() + s.filesz()) {
                return s.vaddr() + (fileOffset - s.offset());
            }
        }
        return fileOffset;
    }

    private static Mapping find(Maps maps, long pc) {
        // the last mapping starting at or below pc (mappings do not overlap; user addresses are
        // positive, so signed order is address order)
        int i = java.util.Arrays.binarySearch(maps.starts, pc);
        int at = i >= 0 ? i : -i - 2;
        if (at < 0) return null;
        Mapping m = maps.byStart[at];
        return Long.compareUnsigned(pc, m.end) < 0 ? m : null;
    }

    private static boolean inAnon(long[] anon, long pc) {
        for (int i = 0; i < anon.length; i += 2) {
            if (Long.compareUnsigned(pc, anon[i]) >= 0 && Long.compareUnsigned(pc, anon[i + 1]) < 0) return true;
        }
        return false;
    }

    private static void refresh(int pid, Proc p) {
        List<Procfs.Mapping> lines = new ArrayList<>();
        List<Procfs.Mapping> anon = new ArrayList<>();
        Map<String, Long> base = new HashMap<>();
        long vdsoAt = 0;
        try {
            for (Procfs.Mapping f : Procfs.maps(pid)) {
                if (f.path().equals("[vdso]")) vdsoAt = f.start();
                if (!f.fileBacked()) {
                    if (f.executable() && f.path().isEmpty()) anon.add(f);
                    continue;
                }
                base.merge(f.path(), f.start(), Math::min);
                if (f.executable()) lines.add(f);
            }
        } catch (Exception e) {
            // gone, or not ours to read: keep what we had
            p.readAt = System.nanoTime();
            return;
        }
        List<Mapping> out = new ArrayList<>();
        for (Procfs.Mapping f : lines) {
            out.add(new Mapping(f.start(), f.end(), f.offset(), f.path().replace(" (deleted)", ""),
                    f.dev() + ":" + f.inode() + ":" + f.path(), base.get(f.path())));
        }
        long[] jit = new long[2 * anon.size()];
        for (int i = 0; i < anon.size(); i++) {
            jit[2 * i] = anon.get(i).start();
            jit[2 * i + 1] = anon.get(i).end();
        }
        p.maps = Maps.of(out);
        p.anon = jit;
        p.vdso = vdsoAt;
        p.readAt = System.nanoTime();
    }

    private ObjectInfo read(int pid, Mapping m) {
        Path viaProc = Procfs.file(pid, "map_files/" + Long.toHexString(m.start) + "-" + Long.toHexString(m.end));
        Path p = Files.isReadable(viaProc) ? viaProc : Path.of(m.file);
        ElfFile elf = objects.elf(p);
        if (elf == null) return null;
        try {
            List<ElfSegment> loads = elf.segments().stream().filter(s -> s.type() == ElfSegment.PT_LOAD).toList();
            return new ObjectInfo(objects.symbols(p), objects.fact(p, CallFrameInfo.class, CallFrameInfo::of), loads);
        } catch (Exception e) {
            return null;
        }
    }

    private Vdso vdso() {
        Vdso v = vdso;
        if (v != null) return v;
        v = NO_VDSO;
        try {
            for (Procfs.Mapping l : Procfs.maps(Procfs.self())) {
                if (!l.path().equals("[vdso]")) continue;
                long start = l.start(), end = l.end();
                if (end - start > VDSO_MAX) break;
                byte[] image = new byte[(int) (end - start)];
                try (java.io.RandomAccessFile mem = new java.io.RandomAccessFile(Procfs.file(Procfs.self(), "mem").toFile(), "r")) {
                    mem.seek(start);
                    mem.readFully(image);
                }
                ElfFile elf = ElfFile.of("[vdso]", image);
                v = new Vdso(SymbolTable.of(elf), CallFrameInfo.of(elf), ElfSegment.firstLoadPage(elf.segments()));
                break;
            }
        } catch (Exception e) {
            // no vDSO: a sample there keeps its pc and ends the stack
        }
        vdso = v;
        return v;
    }
}
