package org.jdtrace.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.Linker;
import java.nio.file.Path;
import java.util.List;

import org.jdtrace.proc.Procfs;
import org.junit.jupiter.api.Test;

/**
 * ElfSegment.loadBias against the dynamic linker: in this JVM, every mapping of libc.so.6 gives
 * the bias at which malloc's symbol value is the address the linker resolves malloc to.
 */
class ElfSegmentTest {

    @Test
    void everyMappingOfLibcGivesTheBiasTheDynamicLinkerLoadedItAt() throws Exception {
        long malloc = Linker.nativeLinker().defaultLookup().find("malloc").orElseThrow().address();
        List<Procfs.Mapping> libc = Procfs.maps(Procfs.self()).stream()
                .filter(m -> m.path().endsWith("/libc.so.6")).toList();
        assertFalse(libc.isEmpty(), "libc.so.6 is mapped");
        try (ElfFile elf = ElfFile.open(Path.of(libc.get(0).path()))) {
            long value = elf.symbol("malloc").orElseThrow().value();
            for (Procfs.Mapping m : libc) {
                assertEquals(malloc, ElfSegment.loadBias(elf.segments(), m.start(), m.offset()) + value,
                        "malloc through the mapping at offset 0x" + Long.toHexString(m.offset()));
            }
            assertEquals(Long.MIN_VALUE, ElfSegment.loadBias(elf.segments(), 0x1000, 1L << 40), "an offset no PT_LOAD holds");
            assertEquals(elf.segments().stream().filter(s -> s.type() == ElfSegment.PT_LOAD).mapToLong(ElfSegment::vaddr).min().orElseThrow() & ~0xfffL,
                    ElfSegment.firstLoadPage(elf.segments()));
        }
    }
}
