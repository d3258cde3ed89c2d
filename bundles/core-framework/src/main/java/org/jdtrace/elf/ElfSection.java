package org.jdtrace.elf;

/**
 * One section header ({@code Elf64_Shdr}) with its name resolved from {@code .shstrtab}.
 * {@code addr} is the virtual address when the section is allocated ({@link #SHF_ALLOC}), else 0.
 */
public record ElfSection(int index, String name, int type, long flags, long addr, long offset,
        long size, int link, int info, long entsize) {

    public static final int SHT_NULL = 0;
    public static final int SHT_PROGBITS = 1;
    public static final int SHT_SYMTAB = 2;
    public static final int SHT_STRTAB = 3;
    public static final int SHT_RELA = 4;
    public static final int SHT_NOTE = 7;
    public static final int SHT_NOBITS = 8;
    public static final int SHT_DYNSYM = 11;

    public static final long SHF_WRITE = 0x1;
    public static final long SHF_ALLOC = 0x2;
    public static final long SHF_EXECINSTR = 0x4;

    /** Whether {@code [vaddr, vaddr+len)} lies inside this allocated section. */
    public boolean containsAddress(long vaddr, long len) {
        return (flags & SHF_ALLOC) != 0 && len >= 0 && vaddr >= addr
                && Long.compareUnsigned(vaddr - addr, size) <= 0
                && Long.compareUnsigned(len, size - (vaddr - addr)) <= 0;
    }

    public boolean executable() {
        return (flags & SHF_EXECINSTR) != 0;
    }
}
