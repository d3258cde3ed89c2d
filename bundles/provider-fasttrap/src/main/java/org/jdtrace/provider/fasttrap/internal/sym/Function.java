package org.jdtrace.provider.fasttrap.internal.sym;

import org.jdtrace.elf.ElfException;

/**
 * A function of a mapped object as the pid provider instruments it: its symbol name, its
 * address in the process and size, and where its original bytes are in the file (never read
 * from the process, where our own int3s may already be).
 */
public record Function(String name, MappedObject object, long address, int size, long fileVaddr, boolean ifunc) {

    public byte[] code() throws ElfException {
        return object.elf().read(fileVaddr, size);
    }
}
