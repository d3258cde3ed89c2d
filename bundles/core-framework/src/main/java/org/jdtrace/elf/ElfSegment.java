package org.jdtrace.elf;

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
}
