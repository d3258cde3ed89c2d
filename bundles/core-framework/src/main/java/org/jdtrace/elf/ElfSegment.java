package org.jdtrace.elf;

import java.util.List;

/** One program header ({@code Elf64_Phdr}). */
public record ElfSegment(int type, int flags, long offset, long vaddr, long filesz, long memsz,
        long align) {

    public static final int PT_LOAD = 1;
    public static final int PT_DYNAMIC = 2;
    public static final int PT_INTERP = 3;
    public static final int PT_NOTE = 4;
    public static final int PF_X = 1;
    public static final int PF_W = 2;
    public static final int PF_R = 4;

    /** Whether {@code [vaddr, vaddr+len)} is backed by file bytes of this segment. */
    public boolean containsAddress(long va, long len) {
        return len >= 0 && va >= vaddr && Long.compareUnsigned(va - vaddr, filesz) <= 0
                && Long.compareUnsigned(len, filesz - (va - vaddr)) <= 0;
    }

    /** The lowest page a PT_LOAD of {@code segments} starts at (0 when none): where the file's image begins. */
    public static long firstLoadPage(List<ElfSegment> segments) {
        long first = Long.MAX_VALUE;
        for (ElfSegment s : segments) {
            if (s.type == PT_LOAD) first = Math.min(first, s.vaddr & ~0xfffL);
        }
        return first == Long.MAX_VALUE ? 0 : first;
    }

    /**
     * The load bias (process address minus file address) of a mapping at {@code mapStart} of the
     * file's offset {@code mapOffset}, by the first PT_LOAD of {@code segments} whose file pages
     * hold that offset (the kernel maps a segment from its offset's page at its address's page);
     * {@link Long#MIN_VALUE} when none does.
     */
    public static long loadBias(List<ElfSegment> segments, long mapStart, long mapOffset) {
        for (ElfSegment s : segments) {
            if (s.type != PT_LOAD) continue;
            long page = s.offset & ~0xfffL;
            if (mapOffset >= page && mapOffset < s.offset + Math.max(s.filesz, 1)) {
                return mapStart - ((s.vaddr & ~0xfffL) + (mapOffset - page));
            }
        }
        return Long.MIN_VALUE;
    }
}
