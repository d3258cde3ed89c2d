package org.jdtrace.provider.fasttrap.internal.sym;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfSymbol;

/**
 * The functions of a mapped object: from .symtab, else .dynsym (org.jdtrace.elf), sized
 * symbols only; IFUNC resolvers replaced by the implementation the process uses
 * ({@link IfuncResolver}) under the IFUNC's name, or skipped with a warning when that cannot
 * be known.
 */
public final class FunctionTable {

    private FunctionTable() {}

    public static List<Function> of(MappedObject obj, Consumer<String> warn) throws ElfException {
        List<Function> out = new ArrayList<>();
        for (ElfSymbol s : obj.elf().functions()) {
            if (s.size() > Integer.MAX_VALUE) continue;
            if (!s.isIfunc()) {
                out.add(new Function(s.name(), obj, s.value() + obj.bias(), (int) s.size(), s.value(), false));
                continue;
            }
            Optional<long[]> impl = IfuncResolver.implementation(obj, s);
            if (impl.isPresent()) {
                long[] r = impl.get();
                out.add(new Function(s.name(), obj, r[0] + obj.bias(), (int) r[1], r[0], true));
            } else {
                warn.accept("cannot tell which implementation of IFUNC " + obj.module() + "`" + s.name()
                        + " the process uses: skipped");
            }
        }
        return out;
    }
}
