package org.jdtrace.elf;

/**
 * One symbol ({@code Elf64_Sym}). {@code value} is the symbol's virtual address in the file's
 * own address space (add the load bias for a shared object mapped elsewhere).
 */
public record ElfSymbol(String name, long value, long size, int type, int binding, int other,
        int sectionIndex) {

    public static final int STT_NOTYPE = 0;
    public static final int STT_OBJECT = 1;
    public static final int STT_FUNC = 2;
    public static final int STT_SECTION = 3;
    public static final int STT_FILE = 4;
    public static final int STT_TLS = 6;
    /** A resolver: the symbol's value is the function that returns the implementation's address. */
    public static final int STT_GNU_IFUNC = 10;

    public static final int STB_LOCAL = 0;
    public static final int STB_GLOBAL = 1;
    public static final int STB_WEAK = 2;
    public static final int STB_GNU_UNIQUE = 10;

    public static final int SHN_UNDEF = 0;
    public static final int SHN_ABS = 0xfff1;

    /** A function or an IFUNC resolver that is defined in this file. */
    public boolean isFunction() {
        return (type == STT_FUNC || type == STT_GNU_IFUNC) && sectionIndex != SHN_UNDEF;
    }

    public boolean isIfunc() {
        return type == STT_GNU_IFUNC;
    }

    public boolean isDefined() {
        return sectionIndex != SHN_UNDEF;
    }
}
