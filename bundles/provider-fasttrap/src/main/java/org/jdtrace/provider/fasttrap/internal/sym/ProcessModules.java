package org.jdtrace.provider.fasttrap.internal.sym;

import org.jdtrace.proc.Procfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;

/*
 * The ELF objects of a process, from /proc/PID/maps (libproc's Pobject_iter).
 *
 * Each file-backed mapping names its file and the file offset it maps; the mapping at the
 * lowest address of a file gives the load bias: bias = start - (vaddr of the PT_LOAD that
 * maps that file offset, rounded down to the page) + (offset - that segment's page-rounded
 * offset). For a non-PIE executable the bias is 0. The executable is the file behind
 * /proc/PID/exe and gets the module name "a.out" as in DTrace; every other object its
 * basename (libc.so.6). Objects are read from /proc/PID/map_files when the path is not
 * reachable (deleted or in another mount namespace).
 */
public final class ProcessModules {

    private ProcessModules() {}

    /**
     * Whether process {@code pid} still maps {@code o} where it did (a private mapping of its
     * path starting at its lowest address): false after an exec (a new address space, laid out
     * afresh), when it is gone, or when the object was unmapped.
     */
    public static boolean stillMaps(int pid, MappedObject o) {
        try {
            for (Procfs.Mapping m : Procfs.maps(pid)) {
                if (m.start() == o.start() && m.perms().length() >= 4 && m.perms().charAt(3) == 'p'
                        && o.path() != null && m.path().equals(o.path().toString())) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    public static List<MappedObject> read(int pid) throws IOException {
        Path exe;
        try {
            exe = Files.readSymbolicLink(Procfs.file(pid, "exe"));
        } catch (IOException e) {
            exe = null;
        }
        Map<String, long[]> ranges = new LinkedHashMap<>(); // path -> {start, end, firstStart, firstOffset}
        for (Procfs.Mapping m : Procfs.maps(pid)) {
            // private mappings only: the loader maps objects MAP_PRIVATE; a shared one is
            // somebody reading the file (our own ElfFile maps it MAP_SHARED in this JVM)
            if (!m.fileBacked() || !m.isPrivate()) continue;
            long start = m.start(), end = m.end();
            long[] r = ranges.get(m.path());
            if (r == null) {
                ranges.put(m.path(), new long[] {start, end, start, m.offset()});
            } else {
                r[0] = Math.min(r[0], start);
                r[1] = Math.max(r[1], end);
            }
        }
        List<MappedObject> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : ranges.entrySet()) {
            Path path = Path.of(e.getKey());
            if (!Files.isRegularFile(path)) continue;
            ElfFile elf;
            try {
                elf = ElfFile.open(path);
            } catch (ElfException | RuntimeException ex) {
                continue; // not ELF (a font, a locale archive)
            }
            try {
                long[] r = e.getValue();
                long bias = bias(elf, r[2], r[3]);
                boolean isExe = exe != null && exe.equals(path);
                String name = isExe ? "a.out" : path.getFileName().toString();
                out.add(new MappedObject(path, name, isExe, bias, r[0], r[1], elf));
            } catch (ElfException ex) {
                elf.close();
            }
        }
        return out;
    }

    static long bias(ElfFile elf, long mapStart, long mapOffset) throws ElfException {
        if (elf.type() == ElfFile.ET_EXEC) return 0;
        long bias = ElfSegment.loadBias(elf.segments(), mapStart, mapOffset);
        if (bias == Long.MIN_VALUE) throw new ElfException("no PT_LOAD maps offset 0x" + Long.toHexString(mapOffset));
        return bias;
    }

    /** Closes the ELF files of {@code objects}. */
    public static void close(List<MappedObject> objects) {
        for (MappedObject o : objects) o.elf().close();
    }
}
