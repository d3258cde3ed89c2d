package org.jdtrace.provider.fasttrap.internal.sym;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;

import org.jdtrace.elf.ElfSymbol;

/*
 * Which implementation an IFUNC symbol (libc's strlen, memcpy...) resolves to in the target.
 *
 * A resolver picks by CPU features (and GLIBC_TUNABLES). The target runs on this machine's CPU,
 * and this JVM has the same library file mapped (libc, libm, ld.so: every Java process maps
 * them), so the dynamic linker of this process already made the same choice: dlsym (through
 * FFM's SymbolLookup) returns the implementation's address here, and its offset in the file is
 * the same in the target. This is what /work/shared/bench/ifunc_off.c prints, done in-process.
 * We never call the resolver in the target (that would run its code at our whim), and the
 * relocated GOT of a lazily bound target may still point at the PLT.
 *
 * The implementation usually has no symbol (libc has no .symtab): its extent comes from the
 * unwind tables (EhFrame). Only libraries this JVM has already mapped are asked, so no library
 * constructor ever runs because of tracing. Limits: a target started with different
 * GLIBC_TUNABLES/hwcaps may pick another implementation; then the probe is still exact
 * about the function it names (the implementation we chose) but may never fire.
 */
final class IfuncResolver {

    private static volatile List<MappedObject> self;

    private IfuncResolver() {}

    /** {file vaddr, size} of the implementation {@code ifunc} resolves to in {@code obj}'s file. */
    static Optional<long[]> implementation(MappedObject obj, ElfSymbol ifunc) {
        MappedObject mine = selfObject(obj);
        if (mine == null) return Optional.empty();
        Optional<MemorySegment> addr;
        if (mine.path().getFileName().toString().startsWith("libc.so")) {
            addr = Linker.nativeLinker().defaultLookup().find(ifunc.name());
        } else {
            addr = SymbolLookup.libraryLookup(mine.path(), Arena.global()).find(ifunc.name());
        }
        if (addr.isEmpty()) return Optional.empty();
        long vaddr = addr.get().address() - mine.bias();
        if (vaddr == ifunc.value()) return Optional.empty(); // not resolved
        return EhFrame.functionAt(obj.elf(), vaddr).filter(r -> r[0] == vaddr);
    }

    /**
     * Whether this process's dynamic linker resolved {@code ifunc} into the vDSO (libc's
     * gettimeofday, time, clock_gettime...): then the implementation the target runs is no
     * function of {@code obj} at all.
     */
    static boolean resolvesIntoVdso(MappedObject obj, String ifunc) {
        if (!obj.path().getFileName().toString().startsWith("libc.so")) return false;
        Optional<MemorySegment> addr = Linker.nativeLinker().defaultLookup().find(ifunc);
        if (addr.isEmpty()) return false;
        long a = addr.get().address();
        try {
            for (org.jdtrace.proc.Procfs.Mapping m : org.jdtrace.proc.Procfs.maps(org.jdtrace.proc.Procfs.self())) {
                if (m.path().equals("[vdso]")) return a >= m.start() && a < m.end();
            }
        } catch (IOException | RuntimeException e) {
            // no answer: not the vDSO as far as we know
        }
        return false;
    }

    private static MappedObject selfObject(MappedObject obj) {
        List<MappedObject> s = self;
        if (s == null) {
            try {
                s = ProcessModules.read((int) ProcessHandle.current().pid());
            } catch (IOException e) {
                return null;
            }
            self = s;
        }
        for (MappedObject m : s) {
            try {
                if (Files.isSameFile(m.path(), obj.path())) return m;
            } catch (IOException e) {
                // not comparable
            }
        }
        return null;
    }
}
