/*
 * SymbolTable: the functions of one ELF object by name, as a debugger would name them, for
 * symbolising addresses (usym, ustack, ufunc): the union of
 *   - the object's own .symtab, else .dynsym (ElfFile.functions), and its .dynsym too;
 *   - MiniDebugInfo: .gnu_debugdata, an xz-compressed ELF whose .symtab holds the static
 *     functions a stripped object dropped (Fedora's and others' packaging), decompressed with
 *     org.tukaani.xz (embedded in this bundle);
 *   - a separate debug file: /usr/lib/debug/.build-id/xx/rest.debug for the object's GNU
 *     build-id (Debian's -dbgsym and -dbg packages), used only when its own build-id is the same;
 *     else the .gnu_debuglink file (the object's directory, its .debug/ subdirectory, or the
 *     same path under /usr/lib/debug), used only when its CRC-32 matches.
 * Only sized function symbols count (STT_FUNC, STT_GNU_IFUNC). Symbols that name the same address
 * make one entry, named by libproc's preference (PREFERRED: global or weak over local, fewer
 * leading underscores, strong over weak, then by name), as illumos' byaddr_cmp picks a name.
 *
 * Lookup is by file address (process address minus load bias): a binary search for the last
 * function starting at or below it, which must also contain it. Immutable once built and safe to
 * share between threads and providers. Failure behaviour: a source that cannot be read, a debug
 * file whose build-id or CRC does not match, corrupt xz data: that source is left out (the
 * table is what the others give); nothing throws from of().
 */
package org.jdtrace.elf;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/** Every function name of one ELF object: its symbol tables, MiniDebugInfo and separate debug file. */
public final class SymbolTable {

    /** The debug file root of Debian's -dbg and -dbgsym packages. */
    public static final Path DEBUG_ROOT = Path.of("/usr/lib/debug");

    /** The largest MiniDebugInfo this decompresses. */
    private static final int MAX_MINIDEBUG = 64 << 20;

    /**
     * libproc's choice among symbols at one address (illumos byaddr_cmp_common): a global or weak
     * symbol over a local one, then fewer leading underscores, then a strong over a weak one,
     * then the name.
     */
    public static final Comparator<ElfSymbol> PREFERRED = Comparator
            .comparing((ElfSymbol s) -> s.binding() == ElfSymbol.STB_LOCAL)
            .thenComparingInt(s -> leadingUnderscores(s.name()))
            .thenComparing(s -> s.binding() == ElfSymbol.STB_WEAK)
            .thenComparing(ElfSymbol::name);

    private final long[] start;
    private final long[] end;
    private final String[] name;
    private final List<String> sources;

    private SymbolTable(long[] start, long[] end, String[] name, List<String> sources) {
        this.start = start;
        this.end = end;
        this.name = name;
        this.sources = sources;
    }

    /** The table of {@code elf}, with separate debug files looked up under {@link #DEBUG_ROOT}. */
    public static SymbolTable of(ElfFile elf) {
        return of(elf, DEBUG_ROOT);
    }

    /** The table of {@code elf}, with separate debug files looked up under {@code debugRoot}. */
    public static SymbolTable of(ElfFile elf, Path debugRoot) {
        List<ElfSymbol> all = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        try {
            all.addAll(elf.functions());
            sources.add(elf.hasSymtab() ? ".symtab" : ".dynsym");
            if (elf.hasSymtab()) {
                for (ElfSymbol s : elf.dynamicSymbols()) {
                    if (s.isFunction() && s.size() > 0) all.add(s);
                }
            }
        } catch (ElfException | RuntimeException e) {
            // no symbols of its own
        }
        try {
            Optional<ElfSection> mini = elf.section(".gnu_debugdata");
            if (mini.isPresent() && mini.get().type() != ElfSection.SHT_NOBITS) {
                ElfFile inner = ElfFile.of(elf.path() + "(.gnu_debugdata)", unxz(elf.contents(mini.get())));
                all.addAll(inner.functions());
                sources.add(".gnu_debugdata");
            }
        } catch (IOException | RuntimeException e) {
            // corrupt MiniDebugInfo: without it
        }
        Path debug = debugFile(elf, debugRoot);
        if (debug != null) {
            try (ElfFile d = ElfFile.open(debug)) {
                all.addAll(d.functions());
                sources.add(debug.toString());
            } catch (ElfException | RuntimeException e) {
                // unreadable debug file: without it
            }
        }
        return build(all, sources);
    }

    static SymbolTable build(List<ElfSymbol> all, List<String> sources) {
        // one sort by address, PREFERRED first among a same address's symbols (a stable sort:
        // ties keep the sources' order), then one entry per address: no boxed address map (a
        // JVM's libjvm.so alone has tens of thousands of functions, read by every profile)
        ElfSymbol[] sorted = all.stream().filter(x -> x.value() != 0).toArray(ElfSymbol[]::new);
        Arrays.sort(sorted, (a, b) -> {
            int c = Long.compareUnsigned(a.value(), b.value());
            return c != 0 ? c : PREFERRED.compare(a, b);
        });
        int n = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i].value() != sorted[i - 1].value()) n++;
        }
        long[] start = new long[n], end = new long[n];
        String[] name = new String[n];
        int k = -1;
        long size = 0;
        for (int i = 0; i < sorted.length; i++) {
            ElfSymbol sym = sorted[i];
            if (i == 0 || sym.value() != sorted[i - 1].value()) {
                if (k >= 0) end[k] = start[k] + size;
                start[++k] = sym.value();
                name[k] = sym.name();
                size = sym.size();
            } else {
                size = Math.max(size, sym.size()); // the largest of the aliases' sizes
            }
        }
        if (k >= 0) end[k] = start[k] + size;
        return new SymbolTable(start, end, name, List.copyOf(sources));
    }

    /** The separate debug file of {@code elf}: by build-id, else by .gnu_debuglink; null when none matches. */
    static Path debugFile(ElfFile elf, Path debugRoot) {
        try {
            Optional<byte[]> id = elf.buildId();
            if (id.isPresent() && id.get().length >= 2) {
                String hex = HexFormat.of().formatHex(id.get());
                Path p = debugRoot.resolve(".build-id").resolve(hex.substring(0, 2)).resolve(hex.substring(2) + ".debug");
                if (Files.isRegularFile(p) && !p.toRealPath().equals(elf.path().toRealPath())) {
                    try (ElfFile d = ElfFile.open(p)) {
                        if (d.buildId().map(b -> Arrays.equals(b, id.get())).orElse(false)) return p;
                    }
                }
            }
            Optional<ElfFile.DebugLink> link = elf.debugLink();
            if (link.isPresent() && !link.get().name().contains("/")) {
                Path dir = elf.path().toAbsolutePath().getParent();
                if (dir == null) return null;
                for (Path p : List.of(dir.resolve(link.get().name()), dir.resolve(".debug").resolve(link.get().name()),
                        debugRoot.resolve(dir.toString().substring(1)).resolve(link.get().name()))) {
                    if (Files.isRegularFile(p) && !p.toRealPath().equals(elf.path().toRealPath()) && crc32(p) == link.get().crc()) {
                        return p;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no debug file
        }
        return null;
    }

    private static int crc32(Path p) throws IOException {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        try (InputStream in = Files.newInputStream(p)) {
            byte[] b = new byte[1 << 16];
            for (int n; (n = in.read(b)) > 0;) crc.update(b, 0, n);
        }
        return (int) crc.getValue();
    }

    private static byte[] unxz(ByteBuffer compressed) throws IOException {
        byte[] in = new byte[compressed.remaining()];
        compressed.duplicate().get(in);
        try (InputStream xz = new org.tukaani.xz.XZInputStream(new ByteArrayInputStream(in))) {
            byte[] out = xz.readNBytes(MAX_MINIDEBUG + 1);
            if (out.length > MAX_MINIDEBUG) throw new IOException("MiniDebugInfo larger than " + MAX_MINIDEBUG);
            return out;
        }
    }

    private static int leadingUnderscores(String name) {
        int i = 0;
        while (i < name.length() && name.charAt(i) == '_') i++;
        return i;
    }

    /** The index of the function containing file address {@code vaddr}, or -1. */
    public int find(long vaddr) {
        int lo = 0, hi = start.length - 1, at = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(start[mid], vaddr) <= 0) {
                at = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return at >= 0 && Long.compareUnsigned(vaddr, end[at]) < 0 ? at : -1;
    }

    /** {@code name+0xoff} (or the name at its first byte) for file address {@code vaddr}, or null. */
    public String describe(long vaddr) {
        int i = find(vaddr);
        if (i < 0) return null;
        long off = vaddr - start[i];
        return off == 0 ? name[i] : name[i] + "+0x" + Long.toHexString(off);
    }

    public int size() {
        return start.length;
    }

    public String name(int i) {
        return name[i];
    }

    public long start(int i) {
        return start[i];
    }

    public long end(int i) {
        return end[i];
    }

    /** Where the names came from ({@code .symtab}, {@code .dynsym}, {@code .gnu_debugdata}, a debug file's path). */
    public List<String> sources() {
        return sources;
    }
}
