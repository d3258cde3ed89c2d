/*
 * User addresses of any process symbolised as ustack() prints them ({@code file`function+0xoff}),
 * from /proc/PID/maps and the ELF symbol tables of the mapped files (.symtab, else .dynsym). The
 * kernel's samples name processes jdtrace never attached to, so this is the pid provider's
 * symbolisation without ptrace: read-only, from /proc and the files.
 *
 * Caches: a pid's executable mappings, read on first use and again (at most every 100 ms) when a
 * pc falls in none of them (a library dlopen()ed since); each ELF file's sorted function table,
 * shared by every process that maps it (keyed by path, device and inode as maps gives them). A
 * process that is gone keeps what was read while it lived; one never seen gives null (hex frames).
 *
 * Call-frame information for the CFI unwinder (profile-N's ustack(), from the stack copied at the
 * sample): each mapped file's CallFrameInfo, cached like its functions, and the vDSO's, read from
 * this JVM's own [vdso] (the kernel maps one image into every 64-bit process) and placed at the
 * target's [vdso] address. A View answers for one pid at a time.
 *
 * Threading: called from the drain thread in probe context; the maps are concurrent so the
 * consumer may call too. Allocation happens only on a cache miss.
 */
package org.jdtrace.perf.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.unwind.CallFrameInfo;
import org.jdtrace.unwind.Unwinder;

final class UserSymbols {

    private record Mapping(long start, long end, long offset, String file, String key) {}

    private record Functions(long[] addr, long[] size, String[] name, List<ElfSegment> loads, boolean exec) {}

    private static final class Proc {
        volatile List<Mapping> maps = List.of();
        volatile long readAt;
        /** The [vdso] mapping's start, or 0. */
        volatile long vdso;
    }

    /** A file's call-frame information and PT_LOADs (to turn a file offset into a file address). */
    private record Frames(CallFrameInfo cfi, List<ElfSegment> loads) {}

    private final Map<String, Frames> frames = new ConcurrentHashMap<>();
    /** This JVM's vDSO: its CFI and the file address of its first PT_LOAD page; null until read, NONE when unreadable. */
    private volatile Object[] vdso;

    private static final int MAX_PROCS = 4096;
    private final Map<Integer, Proc> procs = new ConcurrentHashMap<>();
    private final Map<String, Functions> files = new ConcurrentHashMap<>();

    String lookup(int pid, long pc) {
        if (pid <= 0) return null;
        Proc p = procs.get(pid);
        if (p == null) {
            if (procs.size() > MAX_PROCS) procs.clear();
            p = new Proc();
            procs.put(pid, p);
            refresh(pid, p);
        }
        Mapping found = find(p.maps, pc);
        if (found == null && System.nanoTime() - p.readAt > 100_000_000L) {
            refresh(pid, p);
            found = find(p.maps, pc);
        }
        if (found == null) return null;
        Mapping m = found;
        String module = m.file.substring(m.file.lastIndexOf('/') + 1);
        Functions f = files.computeIfAbsent(m.key, k -> read(pid, m));
        if (f == null) return module + "`0x" + Long.toHexString(pc);
        long vaddr = vaddr(f, pc - m.start + m.offset);
        int lo = 0, hi = f.addr.length - 1, at = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(f.addr[mid], vaddr) <= 0) {
                at = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (at < 0 || (f.size[at] > 0 && vaddr >= f.addr[at] + f.size[at])) {
            return module + "`0x" + Long.toHexString(pc);
        }
        long off = vaddr - f.addr[at];
        return module + "`" + f.name[at] + (off == 0 ? "" : "+0x" + Long.toHexString(off));
    }

    /**
     * The objects of one process as the unwinder asks for them (Unwinder.Modules); {@link View#at}
     * points it at a pid. One view per drain-thread context: it keeps the last answer.
     */
    final class View implements Unwinder.Modules {
        private int pid;
        private long lastPc = -1, lastBias;
        private CallFrameInfo lastCfi;

        View at(int pid) {
            this.pid = pid;
            this.lastPc = -1;
            return this;
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

        private void resolve(long pc) {
            if (pc == lastPc) return;
            lastPc = pc;
            lastCfi = null;
            lastBias = 0;
            Proc p = proc(pid, pc);
            if (p == null) return;
            Mapping m = find(p.maps, pc);
            if (m != null) {
                Frames f = frames.computeIfAbsent(m.key, k -> readFrames(pid, m));
                if (f == null) return;
                long fileOff = pc - m.start + m.offset;
                lastBias = pc - vaddr(f.loads, fileOff);
                lastCfi = f.cfi;
                return;
            }
            Object[] v = vdso();
            if (p.vdso != 0 && v.length == 2 && pc >= p.vdso && pc < p.vdso + VDSO_MAX) {
                lastCfi = (CallFrameInfo) v[0];
                lastBias = p.vdso - (long) v[1];
            }
        }
    }

    View view() {
        return new View();
    }

    /** The largest vDSO this reads. */
    private static final long VDSO_MAX = 1 << 20;

    private Object[] vdso() {
        Object[] v = vdso;
        if (v != null) return v;
        v = new Object[0];
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/maps"))) {
                if (!l.endsWith("[vdso]")) continue;
                String[] se = l.substring(0, l.indexOf(' ')).split("-");
                long start = Long.parseUnsignedLong(se[0], 16), end = Long.parseUnsignedLong(se[1], 16);
                if (end - start > VDSO_MAX) break;
                byte[] image = new byte[(int) (end - start)];
                try (java.io.RandomAccessFile mem = new java.io.RandomAccessFile("/proc/self/mem", "r")) {
                    mem.seek(start);
                    mem.readFully(image);
                }
                ElfFile elf = ElfFile.of("[vdso]", image);
                long first = elf.segments().stream().filter(s -> s.type() == ElfSegment.PT_LOAD)
                        .mapToLong(s -> s.vaddr() & ~0xfffL).min().orElse(0);
                v = new Object[] {CallFrameInfo.of(elf), first};
                break;
            }
        } catch (Exception e) {
            // no vDSO CFI: a sample in the vDSO keeps its pc and ends there
        }
        vdso = v;
        return v;
    }

    private static Frames readFrames(int pid, Mapping m) {
        Path path = Path.of(m.file);
        Path viaProc = Path.of("/proc/" + pid + "/map_files/" + Long.toHexString(m.start) + "-" + Long.toHexString(m.end));
        try {
            // kept open: the CallFrameInfo reads the file's mapping for as long as it is cached
            ElfFile elf = ElfFile.open(Files.isRegularFile(path) ? path : viaProc);
            List<ElfSegment> loads = elf.segments().stream().filter(s -> s.type() == ElfSegment.PT_LOAD).toList();
            return new Frames(CallFrameInfo.of(elf), loads);
        } catch (Exception e) {
            return null;
        }
    }

    /** The cached maps of {@code pid}, re-read (at most every 100 ms) when {@code pc} is in none. */
    private Proc proc(int pid, long pc) {
        if (pid <= 0) return null;
        Proc p = procs.get(pid);
        if (p == null) {
            if (procs.size() > MAX_PROCS) procs.clear();
            p = new Proc();
            procs.put(pid, p);
            refresh(pid, p);
        }
        if (find(p.maps, pc) == null && (p.vdso == 0 || pc < p.vdso || pc >= p.vdso + VDSO_MAX)
                && System.nanoTime() - p.readAt > 100_000_000L) {
            refresh(pid, p);
        }
        return p;
    }

    /** Forgets a process (it exited). */
    void forget(int pid) {
        procs.remove(pid);
    }

    private static long vaddr(Functions f, long fileOffset) {
        return vaddr(f.loads, fileOffset);
    }

    private static long vaddr(List<ElfSegment> loads, long fileOffset) {
        for (ElfSegment s : loads) {
            if (fileOffset >= s.offset() && fileOffset < s.offset() + s.filesz()) {
                return s.vaddr() + (fileOffset - s.offset());
            }
        }
        return fileOffset;
    }

    private static Mapping find(List<Mapping> maps, long pc) {
        for (Mapping m : maps) {
            if (Long.compareUnsigned(pc, m.start) >= 0 && Long.compareUnsigned(pc, m.end) < 0) return m;
        }
        return null;
    }

    private static void refresh(int pid, Proc p) {
        List<Mapping> out = new ArrayList<>();
        long vdsoAt = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
                String[] f = line.trim().split("\\s+", 6);
                if (f.length == 6 && f[5].equals("[vdso]")) vdsoAt = Long.parseUnsignedLong(f[0].substring(0, f[0].indexOf('-')), 16);
                if (f.length < 6 || f[1].length() < 3 || f[1].charAt(2) != 'x' || !f[5].startsWith("/")) continue;
                String[] se = f[0].split("-");
                out.add(new Mapping(Long.parseUnsignedLong(se[0], 16), Long.parseUnsignedLong(se[1], 16),
                        Long.parseUnsignedLong(f[2], 16), f[5].replace(" (deleted)", ""),
                        f[3] + ":" + f[4] + ":" + f[5]));
            }
        } catch (Exception e) {
            // gone, or not ours to read: keep what we had
            p.readAt = System.nanoTime();
            return;
        }
        p.maps = List.copyOf(out);
        p.vdso = vdsoAt;
        p.readAt = System.nanoTime();
    }

    private static Functions read(int pid, Mapping m) {
        Path path = Path.of(m.file);
        Path viaProc = Path.of("/proc/" + pid + "/map_files/" + Long.toHexString(m.start) + "-" + Long.toHexString(m.end));
        ElfFile elf = null;
        try {
            elf = ElfFile.open(Files.isRegularFile(path) ? path : viaProc);
            List<ElfSymbol> syms = new ArrayList<>();
            for (ElfSymbol s : elf.functions()) {
                if (s.value() != 0) syms.add(s);
            }
            syms.sort(Comparator.comparingLong(ElfSymbol::value));
            long[] addr = new long[syms.size()], size = new long[syms.size()];
            String[] name = new String[syms.size()];
            for (int i = 0; i < addr.length; i++) {
                addr[i] = syms.get(i).value();
                size[i] = syms.get(i).size();
                name[i] = syms.get(i).name();
            }
            List<ElfSegment> loads = elf.segments().stream().filter(s -> s.type() == ElfSegment.PT_LOAD).toList();
            return new Functions(addr, size, name, loads, elf.type() == ElfFile.ET_EXEC);
        } catch (Exception e) {
            return null;
        } finally {
            if (elf != null) elf.close();
        }
    }
}
