/*
 * ObjectFiles: what is read once per ELF file and shared by every provider and every process that
 * maps it (illumos' libproc keeps one symbol table per mapped file in its file_info_t; jdtrace
 * keeps one per file for the whole platform): its SymbolTable, and any other fact a reader makes
 * of the file and attaches here (the unwinder's CallFrameInfo). The pid provider's ustack() and
 * the kernel samples' (perf-events' profile, syscall) both ask this one instance, a DS service,
 * so libc's tables, debug file included, are read once, not once per provider and process.
 *
 * Key: the file's identity as the kernel gives it: device, inode, modification time and size
 * (stat through the path; a /proc/PID/map_files/ path stats the mapped inode itself). A file
 * replaced on disk (a package upgrade) is a new key; a process still mapping the old inode reaches
 * it through its map_files path. A file that cannot be stat'ed or read gives null, never throws.
 *
 * Bounded: at most MAX files, the least recently used dropped first (holders keep what they have:
 * a dropped ElfFile's mapping lives as long as a table refers to it). Thread safety: the map is
 * guarded by this object's lock, held only to find or insert an entry; files are read outside it
 * (two threads may read the same new file at once; the first entry stored wins). Facts are
 * computed once per entry (ConcurrentHashMap.computeIfAbsent).
 */
package org.jdtrace.elf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/** One read per ELF file of its symbol table and other per-file facts, for every provider. */
@Component(service = ObjectFiles.class)
public final class ObjectFiles {

    /** Files kept at most. */
    static final int MAX = 512;

    /** A file's identity: device, inode, modification time (ns), size. */
    public record Key(long dev, long ino, long mtime, long size) {}

    private static final class Held {
        final ElfFile elf;
        final Map<Object, Object> facts = new ConcurrentHashMap<>();

        Held(ElfFile elf) {
            this.elf = elf;
        }
    }

    private final Map<Key, Held> entries = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Held> eldest) {
            return size() > MAX;
        }
    };
    private long reads;

    /** For DS and for tests and embedding without it. */
    public ObjectFiles() {}

    /** The identity of the file at {@code path}, or null when it cannot be stat'ed. */
    public static Key key(Path path) {
        try {
            Map<String, Object> a = Files.readAttributes(path, "unix:dev,ino,lastModifiedTime,size");
            return new Key((Long) a.get("dev"), (Long) a.get("ino"),
                    ((FileTime) a.get("lastModifiedTime")).to(java.util.concurrent.TimeUnit.NANOSECONDS), (Long) a.get("size"));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The ELF file at {@code path}, read once per identity; null when it cannot be read. */
    public ElfFile elf(Path path) {
        Held e = entry(path);
        return e == null ? null : e.elf;
    }

    /** The file's SymbolTable (SymbolTable.of), made once per identity; null when the file cannot be read. */
    public SymbolTable symbols(Path path) {
        return fact(path, SymbolTable.class, SymbolTable::of);
    }

    /**
     * The fact {@code key} of the file at {@code path}, made once per identity by {@code reader}
     * from the file (which must not throw; a null it gives is made again next time); null when
     * the file cannot be read.
     */
    @SuppressWarnings("unchecked")
    public <T> T fact(Path path, Object key, Function<ElfFile, T> reader) {
        Held e = entry(path);
        if (e == null) return null;
        Object v = e.facts.get(key);
        if (v == null) {
            v = reader.apply(e.elf);
            if (v != null) {
                Object raced = e.facts.putIfAbsent(key, v);
                if (raced != null) v = raced;
            }
        }
        return (T) v;
    }

    /** How many files were read so far (a test's check that two users share one read). */
    public synchronized long reads() {
        return reads;
    }

    private Held entry(Path path) {
        Key k = key(path);
        if (k == null) return null;
        synchronized (this) {
            Held e = entries.get(k);
            if (e != null) return e;
        }
        ElfFile elf;
        try {
            elf = ElfFile.open(path);
        } catch (ElfException | RuntimeException e) {
            return null;
        }
        synchronized (this) {
            Held e = entries.get(k);
            if (e != null) return e;
            e = new Held(elf);
            entries.put(k, e);
            reads++;
            return e;
        }
    }

    /** Forgets every file (the framework stops). */
    @Deactivate
    public synchronized void clear() {
        entries.clear();
    }
}
