package org.jdtrace.provider.fasttrap.internal.sym;

import java.nio.file.Path;

import org.jdtrace.elf.ElfFile;

/**
 * One ELF object mapped into a process: its file, the name the pid provider gives it as a
 * module ({@code a.out} for the executable, the basename otherwise), its load bias (add it to
 * a file virtual address to get the process address) and the address range it spans.
 */
public record MappedObject(Path path, String module, boolean executable, long bias, long start, long end,
        ElfFile elf) implements org.jdtrace.fasttrap.TargetObject {

    public boolean contains(long addr) {
        return addr >= start && addr < end;
    }
}
