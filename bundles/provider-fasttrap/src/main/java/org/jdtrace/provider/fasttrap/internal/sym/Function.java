package org.jdtrace.provider.fasttrap.internal.sym;

import org.jdtrace.elf.ElfException;

import java.util.List;

/**
 * A function of a mapped object as the pid provider instruments it: its symbol name, its
 * address in the process and size, and where its original bytes are in the file (never read
 * from the process, where our own int3s may already be). {@code aliases}: the other names of
 * the same code (weak aliases, {@code _IO_puts} for {@code puts}), which a probe description
 * may use but which name no probe of their own.
 */
public record Function(String name, MappedObject object, long address, int size, long fileVaddr, boolean ifunc,
        List<String> aliases) {

    public Function {
        aliases = List.copyOf(aliases);
    }

    public Function(String name, MappedObject object, long address, int size, long fileVaddr, boolean ifunc) {
        this(name, object, address, size, fileVaddr, ifunc, List.of());
    }

    /**
     * This function under the name a probe description gives it: itself when {@code matcher}
     * accepts its name, else the same code under the first alias it accepts (a description
     * that names only an alias, {@code _IO_puts}, gets probes of that name), else null.
     */
    public Function as(java.util.function.Predicate<String> matcher) {
        if (matcher.test(name)) return this;
        for (String a : aliases) {
            if (matcher.test(a)) return new Function(a, object, address, size, fileVaddr, ifunc, List.of());
        }
        return null;
    }

    public byte[] code() throws ElfException {
        return object.elf().read(fileVaddr, size);
    }
}
