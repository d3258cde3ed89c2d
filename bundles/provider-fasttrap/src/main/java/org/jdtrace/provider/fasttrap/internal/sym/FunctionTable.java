package org.jdtrace.provider.fasttrap.internal.sym;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfSymbol;

/**
 * The functions of a mapped object: from .symtab, else .dynsym (org.jdtrace.elf), sized
 * symbols only; IFUNC resolvers replaced by the implementation the process uses
 * ({@link IfuncResolver}) under the IFUNC's name. An IFUNC whose implementation cannot be
 * known stays in the table with size 0 and {@code ifunc} set, so that only a description that
 * names it warns ({@link #unresolved}), not every glob that reads the table.
 */
public final class FunctionTable {

    private FunctionTable() {}

    public static List<Function> of(MappedObject obj) throws ElfException {
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
                out.add(new Function(s.name(), obj, s.value() + obj.bias(), 0, s.value(), true));
            }
        }
        return out;
    }

    /** The warning for a function {@link #of} could not resolve (an IFUNC), or null. */
    public static String unresolved(Function f) {
        if (f.size() != 0 || !f.ifunc()) return null;
        if (IfuncResolver.resolvesIntoVdso(f.object(), f.name())) {
            return "IFUNC " + f.object().module() + "`" + f.name() + " resolves to the vDSO's implementation, "
                    + "which the pid provider does not instrument: skipped";
        }
        return "cannot tell which implementation of IFUNC " + f.object().module() + "`" + f.name()
                + " the process uses: skipped";
    }
}
