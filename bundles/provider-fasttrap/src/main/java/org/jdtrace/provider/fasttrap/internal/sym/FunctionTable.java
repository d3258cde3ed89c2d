package org.jdtrace.provider.fasttrap.internal.sym;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.elf.SymbolTable;

/**
 * The functions of a mapped object: from .symtab, else .dynsym (org.jdtrace.elf), sized
 * symbols only; IFUNC resolvers replaced by the implementation the process uses
 * ({@link IfuncResolver}) under the IFUNC's name. An IFUNC whose implementation cannot be
 * known stays in the table with size 0 and {@code ifunc} set, so that only a description that
 * names it warns ({@link #unresolved}), not every glob that reads the table.
 *
 * One function per address: symbols that name the same code (a weak alias, {@code _IO_puts}
 * and {@code puts}, two IFUNCs this CPU resolves to one implementation) make one Function,
 * named by the preferred symbol, the others its aliases. Otherwise one call would fire a probe
 * per name, and {@code pid$target:libc.so.6::entry} would count it twice. The preferred name is
 * libproc's (illumos byaddr_cmp_common, which dtrace-utils' tst.weak1/tst.weak2 check): a global
 * or weak symbol over a local one ({@code _go}, weak, over a static {@code go}), then the one
 * with fewer leading underscores ({@code puts}, weak in libc, over the global {@code _IO_puts};
 * a global {@code go} over its weak {@code _go}), then a strong over a weak one, then the first
 * in byte order.
 */
public final class FunctionTable {

    private FunctionTable() {}

    private record Named(ElfSymbol symbol, long fileVaddr, int size, boolean ifunc) {}

    /** libproc's choice of a name among symbols at one address, shared with symbolisation (SymbolTable). */
    private static final Comparator<Named> PREFERRED = Comparator.comparing(Named::symbol, SymbolTable.PREFERRED);

    public static List<Function> of(MappedObject obj) throws ElfException {
        Map<Long, List<Named>> byAddress = new LinkedHashMap<>();
        List<Function> out = new ArrayList<>();
        for (ElfSymbol s : obj.elf().functions()) {
            if (s.size() > Integer.MAX_VALUE) continue;
            if (!s.isIfunc()) {
                byAddress.computeIfAbsent(s.value(), k -> new ArrayList<>()).add(new Named(s, s.value(), (int) s.size(), false));
                continue;
            }
            Optional<long[]> impl = IfuncResolver.implementation(obj, s);
            if (impl.isPresent()) {
                long[] r = impl.get();
                byAddress.computeIfAbsent(r[0], k -> new ArrayList<>()).add(new Named(s, r[0], (int) r[1], true));
            } else {
                out.add(new Function(s.name(), obj, s.value() + obj.bias(), 0, s.value(), true));
            }
        }
        for (List<Named> same : byAddress.values()) {
            same.sort(PREFERRED);
            Named first = same.get(0);
            List<String> aliases = new ArrayList<>();
            for (Named n : same.subList(1, same.size())) {
                if (!n.symbol().name().equals(first.symbol().name()) && !aliases.contains(n.symbol().name())) {
                    aliases.add(n.symbol().name());
                }
            }
            int size = same.stream().mapToInt(Named::size).max().orElse(first.size());
            out.add(new Function(first.symbol().name(), obj, first.fileVaddr() + obj.bias(), size, first.fileVaddr(),
                    first.ifunc(), aliases));
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
