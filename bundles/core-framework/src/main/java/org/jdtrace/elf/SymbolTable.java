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
 * function starting at or below it, which must also contain it.
 *
 * Building is cheap because every profile builds the table of each object its samples land in, the
 * dtrace JVM's own libjvm.so (70,000 .symtab entries, 3.3 MB of names) among them, mostly
 * interpreted at first (a loop over 70,000 entries in one call is not compiled on the fly under
 * jvm.options' CompileThresholdScaling, whose OSR threshold is 600,000 back-edges; so every loop
 * over the entries calls a method for each CHUNK of them, which C1 compiles after about 1,200
 * calls): each symbol table is copied from the file in one bulk read (ElfFile.RawSymbols), only its
 * defined sized functions with a non-zero address are kept, in primitive arrays (address, size, and
 * a long holding its source, binding and name offset), and packed into longs (address above,
 * candidate index below; addresses too large to leave room for the index are first replaced by
 * their rank among the distinct addresses) that a stable radix sort orders by address alone, so a
 * same address's symbols stay in the sources' order and the first of equally preferred ones wins,
 * as the stable sort of an ElfSymbol list did. Among symbols sharing an address libproc's PREFERRED
 * is applied to their names' bytes (String.compareTo's order while both are ASCII; Strings only
 * when a non-ASCII byte comes first), compared where they lie in a copy of their string table made
 * for the build (at most MAX_TEXT bytes; a larger table's names are copied one by one) and dropped
 * with it. No name is decoded while building: the table keeps each source's string table, a
 * read-only view of the file's mapping (or of MiniDebugInfo's decompressed bytes), and fills
 * name[i] when name(i) or describe() first asks. That fill is a benign race: two threads may both
 * decode entry i and store equal Strings, and a String is immutable (final fields), so a reader
 * that sees another thread's store sees the whole String. The table is otherwise immutable once
 * built and safe to share between threads and providers. A file truncated in place while mapped
 * (which breaks the processes that map it too) makes an undecoded name fail as any lazy read of
 * ElfFile's mapping would.
 *
 * Failure behaviour: a source that cannot be read (a bad entry size, string table or name
 * offset: ElfFile's checks), a debug file whose build-id or CRC does not match, corrupt xz data:
 * that source is left out (the table is what the others give); nothing throws from of().
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
    public static final Comparator<ElfSymbol> PREFERRED = (a, b) -> preferred(a.name(), a.binding(), b.name(), b.binding());

    /** PREFERRED's order of symbol {@code a} (its name and binding) against {@code b}. */
    private static int preferred(String a, int bindingA, String b, int bindingB) {
        int c = Boolean.compare(bindingA == ElfSymbol.STB_LOCAL, bindingB == ElfSymbol.STB_LOCAL);
        if (c == 0) c = Integer.compare(leadingUnderscores(a), leadingUnderscores(b));
        if (c == 0) c = Boolean.compare(bindingA == ElfSymbol.STB_WEAK, bindingB == ElfSymbol.STB_WEAK);
        return c != 0 ? c : a.compareTo(b);
    }

    private final long[] start;
    private final long[] end;
    /** Each entry's name: {@code names[(int) (ref >>> SOURCE_SHIFT)]} decodes {@code (int) ref}. */
    private final long[] ref;
    private final Names[] names;
    /** Each entry's name once decoded (null until then): see the theory comment's benign race. */
    private final String[] name;
    private final List<String> sources;

    private SymbolTable(long[] start, long[] end, long[] ref, Names[] names, String[] name, List<String> sources) {
        this.start = start;
        this.end = end;
        this.ref = ref;
        this.names = names;
        this.name = name;
        this.sources = sources;
    }

    /** The table of {@code elf}, with separate debug files looked up under {@link #DEBUG_ROOT}. */
    public static SymbolTable of(ElfFile elf) {
        return of(elf, DEBUG_ROOT);
    }

    /** The table of {@code elf}, with separate debug files looked up under {@code debugRoot}. */
    public static SymbolTable of(ElfFile elf, Path debugRoot) {
        Builder all = new Builder();
        List<String> sources = new ArrayList<>();
        try {
            all.addFunctions(elf.rawSymbols());
            sources.add(elf.hasSymtab() ? ".symtab" : ".dynsym");
            if (elf.hasSymtab()) all.addFunctions(elf.rawDynamicSymbols());
        } catch (ElfException | RuntimeException e) {
            // no symbols of its own
        }
        try {
            Optional<ElfSection> mini = elf.section(".gnu_debugdata");
            if (mini.isPresent() && mini.get().type() != ElfSection.SHT_NOBITS) {
                ElfFile inner = ElfFile.of(elf.path() + "(.gnu_debugdata)", unxz(elf.contents(mini.get())));
                all.addFunctions(inner.rawSymbols());
                sources.add(".gnu_debugdata");
            }
        } catch (IOException | RuntimeException e) {
            // corrupt MiniDebugInfo: without it
        }
        Path debug = debugFile(elf, debugRoot);
        if (debug != null) {
            try (ElfFile d = ElfFile.open(debug)) {
                all.addFunctions(d.rawSymbols());
                sources.add(debug.toString());
            } catch (ElfException | RuntimeException e) {
                // unreadable debug file: without it
            }
        }
        return all.build(sources);
    }

    /** The table of {@code all} (symbols at address 0 left out), as of() makes it from its sources' functions. */
    static SymbolTable build(List<ElfSymbol> all, List<String> sources) {
        Builder b = new Builder();
        b.add(all);
        return b.build(sources);
    }

    /** One source's names by reference (a string table offset, or a list index). */
    interface Names {
        /** The name's bytes (UTF-8, as in the string table). */
        byte[] bytes(int ref);

        String name(int ref);

        /**
         * Every name at once for build()'s comparisons of aliases: an array holding each name
         * NUL-terminated at its reference (a string table's bytes, copied); null when there is
         * none (a list) or it is larger than MAX_TEXT (each name is then copied on its own).
         */
        default byte[] text() {
            return null;
        }
    }

    /** The largest string table build() copies whole to compare names in (libjvm.so's is 3.3 MB). */
    static final int MAX_TEXT = 32 << 20;

    /** A list's names: a test's symbols. */
    private record Listed(List<ElfSymbol> symbols) implements Names {
        @Override
        public byte[] bytes(int ref) {
            return name(ref).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public String name(int ref) {
            return symbols.get(ref).name();
        }
    }

    /** Where an entry's source index sits in its {@code ref}; its binding sits at bits 32-39. */
    private static final int SOURCE_SHIFT = 40;

    /** The candidate functions of a table's sources, in their order, in primitive arrays. */
    private static final class Builder {
        private final List<Names> names = new ArrayList<>();
        private long[] value = new long[0];
        private long[] size = new long[0];
        private long[] ref = new long[0];
        private int count;
        /** Every candidate's address or'ed: whether they leave room for an index below them. */
        private long bits;

        /** The defined, sized functions and IFUNC resolvers of {@code raw}, as ElfFile.functions() picks them. */
        void addFunctions(ElfFile.RawSymbols raw) {
            if (raw == null) return;
            long[] w = raw.words();
            int n = raw.count();
            long source = source(raw.strings()); // the table keeps the names, not the entries
            room(n);
            for (int o = 3, end = 3 * n; o < end; o += 3 * CHUNK) { // entry 0 is the null symbol
                addRange(w, o, Math.min(end, o + 3 * CHUNK), source);
            }
        }

        /** addFunctions' entries at {@code w[from, to)} (see CHUNK), in locals. */
        private void addRange(long[] w, int from, int to, long source) {
            long[] value = this.value, size = this.size, ref = this.ref;
            int m = count;
            long bits = this.bits;
            for (int o = from; o < to; o += 3) {
                long head = w[o];
                int type = (int) (head >>> 32) & 0xf;
                long v = w[o + 1], sz = w[o + 2];
                if ((type == ElfSymbol.STT_FUNC || type == ElfSymbol.STT_GNU_IFUNC)
                        && (head >>> 48) != ElfSymbol.SHN_UNDEF && sz > 0 && v != 0) {
                    value[m] = v;
                    size[m] = sz;
                    ref[m] = source | (head >>> 36 & 0xf) << 32 | (head & 0xffffffffL);
                    bits |= v;
                    m++;
                }
            }
            count = m;
            this.bits = bits;
        }

        /** {@code symbols} as they are (a test's list), but those at address 0. */
        void add(List<ElfSymbol> symbols) {
            long source = source(new Listed(symbols));
            room(symbols.size());
            for (int i = 0; i < symbols.size(); i++) {
                ElfSymbol s = symbols.get(i);
                if (s.value() != 0) add(s.value(), s.size(), source | (long) s.binding() << 32 | i);
            }
        }

        private long source(Names n) {
            names.add(n);
            return (long) (names.size() - 1) << SOURCE_SHIFT;
        }

        private void room(int more) {
            if (count + more > value.length) {
                int n = Math.max(count + more, 2 * value.length);
                value = Arrays.copyOf(value, n);
                size = Arrays.copyOf(size, n);
                ref = Arrays.copyOf(ref, n);
            }
        }

        private void add(long v, long s, long r) {
            value[count] = v;
            size[count] = s;
            ref[count] = r;
            bits |= v;
            count++;
        }

        SymbolTable build(List<String> sources) {
            Names[] decoders = names.toArray(new Names[0]);
            int m = count;
            int shift = 64 - Long.numberOfLeadingZeros(Math.max(m - 1, 1));
            long mask = (1L << shift) - 1;
            // sort keys: address (or its rank) above, candidate index below, bit 63 clear
            long[] key = new long[m];
            if ((bits >>> (63 - shift)) == 0) {
                for (int j = 0; j < m; j += CHUNK) keys(key, value, j, Math.min(m, j + CHUNK), shift);
            } else {
                long[] distinct = new long[m];
                for (int j = 0; j < m; j++) distinct[j] = value[j] ^ Long.MIN_VALUE; // unsigned order, signed
                Arrays.sort(distinct);
                int d = 0;
                for (int j = 0; j < m; j++) if (d == 0 || distinct[j] != distinct[d - 1]) distinct[d++] = distinct[j];
                for (int j = 0; j < m; j++) key[j] = (long) Arrays.binarySearch(distinct, 0, d, value[j] ^ Long.MIN_VALUE) << shift | j;
            }
            // the index bits need no sorting: the keys are in index order, and the sort is stable
            key = radixSort(key, shift, 64 - Long.numberOfLeadingZeros((bits >>> (63 - shift)) == 0 ? bits << shift | mask : (long) m << shift));
            Merge merge = new Merge(key, mask, value, size, ref, decoders);
            for (int k = 0; k < m; k += CHUNK) merge.range(k, Math.min(m, k + CHUNK));
            return merge.table(sources);
        }

        /** {@code key[j, to)} for the candidates at {@code value[j, to)}: address above, index below. */
        private static void keys(long[] key, long[] value, int from, int to, int shift) {
            for (int j = from; j < to; j++) key[j] = value[j] << shift | j;
        }
    }

    /**
     * build()'s one pass over the sorted candidates, a range at a time (see CHUNK): an entry per
     * address, spanning its largest size, named by libproc's preference among its aliases.
     */
    private static final class Merge {
        private final long[] key, value, size, candidate;
        private final long mask;
        private final Names[] decoders;
        private final long[] start, end, ref;
        /** Each source's text() (null: none), taken when an alias of it first needs it. */
        private final byte[][] texts;
        private final boolean[] taken;
        private int n;
        private long last, largest;

        Merge(long[] key, long mask, long[] value, long[] size, long[] candidate, Names[] decoders) {
            this.key = key;
            this.mask = mask;
            this.value = value;
            this.size = size;
            this.candidate = candidate;
            this.decoders = decoders;
            texts = new byte[decoders.length][];
            taken = new boolean[decoders.length];
            int m = key.length;
            start = new long[m];
            end = new long[m];
            ref = new long[m];
        }

        void range(int from, int to) {
            long[] key = this.key, value = this.value, size = this.size, candidate = this.candidate;
            long[] start = this.start, end = this.end, ref = this.ref;
            long mask = this.mask;
            int n = this.n;
            long last = this.last, largest = this.largest;
            for (int k = from; k < to; k++) {
                int j = (int) (key[k] & mask);
                long v = value[j];
                if (n == 0 || v != last) {
                    if (n > 0) end[n - 1] = last + largest;
                    start[n] = last = v;
                    largest = size[j];
                    ref[n++] = candidate[j];
                    continue;
                }
                // an alias: the largest size spans the entry, libproc's preference names it
                // (the earlier of equally preferred ones stays, as in a stable sort), compared on
                // the names' bytes: no String unless one is not ASCII
                largest = Math.max(largest, size[j]);
                alias(n - 1, candidate[j]);
            }
            this.n = n;
            this.last = last;
            this.largest = largest;
        }

        /** Entry {@code e} named by the preferred of its choice so far and candidate {@code c}. */
        private void alias(int e, long c) {
            long r = ref[e];
            int p = preferred(text(c), at(c), binding(c), text(r), at(r), binding(r));
            if (p == UNDECIDED) p = preferred(decode(decoders, c), binding(c), decode(decoders, r), binding(r));
            if (p < 0) ref[e] = c;
        }

        /** The array holding candidate {@code r}'s name, NUL-terminated at {@link #at}. */
        private byte[] text(long r) {
            int source = (int) (r >>> SOURCE_SHIFT);
            if (!taken[source]) {
                texts[source] = decoders[source].text();
                taken[source] = true;
            }
            byte[] t = texts[source];
            if (t != null) return t;
            byte[] b = bytes(decoders, r);
            return Arrays.copyOf(b, b.length + 1);
        }

        private int at(long r) {
            return texts[(int) (r >>> SOURCE_SHIFT)] != null ? (int) r : 0;
        }

        SymbolTable table(List<String> sources) {
            if (n > 0) end[n - 1] = last + largest;
            return new SymbolTable(Arrays.copyOf(start, n), Arrays.copyOf(end, n), Arrays.copyOf(ref, n), decoders,
                    new String[n], List.copyOf(sources));
        }

        private static int binding(long ref) {
            return (int) (ref >>> 32) & 0xff;
        }
    }

    /**
     * {@code a} sorted by bits {@code from} to {@code to} of its values, stably: the array given
     * or another. A least significant digit first radix sort with as few passes of at most 13
     * bits as cover them: two for libjvm.so's 25 bits of addresses, a fifth of Arrays.sort's time
     * on its 58,000 functions, interpreted (6 against 30 ms) or compiled (0.6 against 3 ms).
     */
    private static long[] radixSort(long[] a, int from, int to) {
        int passes = (to - from + RADIX - 1) / RADIX, digit = passes == 0 ? 0 : (to - from + passes - 1) / passes;
        long[] b = new long[passes == 0 ? 0 : a.length];
        int[] at = new int[1 << digit];
        for (int shift = from; shift < to; shift += digit) {
            Arrays.fill(at, 0);
            for (int i = 0; i < a.length; i += CHUNK) count(a, i, Math.min(a.length, i + CHUNK), at, shift, digit);
            for (int d = 0, sum = 0; d < at.length; d++) {
                int c = at[d];
                at[d] = sum;
                sum += c;
            }
            for (int i = 0; i < a.length; i += CHUNK) scatter(a, i, Math.min(a.length, i + CHUNK), b, at, shift, digit);
            long[] t = a;
            a = b;
            b = t;
        }
        return a;
    }

    private static final int RADIX = 13;

    /** radixSort's count of each digit of {@code a[from, to)} in {@code at}. */
    private static void count(long[] a, int from, int to, int[] at, int shift, int digit) {
        for (int i = from; i < to; i++) at[(int) (a[i] >>> shift) & (1 << digit) - 1]++;
    }

    /** radixSort's move of {@code a[from, to)} to {@code b} at their digits' next places {@code at}. */
    private static void scatter(long[] a, int from, int to, long[] b, int[] at, int shift, int digit) {
        for (int i = from; i < to; i++) {
            long x = a[i];
            b[at[(int) (x >>> shift) & (1 << digit) - 1]++] = x;
        }
    }

    /**
     * How many entries each call of a building loop's body takes (addFunctions, the sort keys,
     * radixSort's passes, build's merge, ElfFile's name check): a loop over 70,000 entries in
     * one call runs interpreted to its end (jvm.options' CompileThresholdScaling puts C1's
     * on-the-fly compile of a loop at 600,000 back-edges), while a method called for every 16
     * is compiled once it has run about 1,200 times (at least 1,000 calls, calls plus back-edges
     * 20,000): the rest of libjvm.so's table, and every later table, runs compiled.
     */
    static final int CHUNK = 16;

    /**
     * PREFERRED's order on the NUL-terminated name bytes at {@code a[ao]} and {@code b[bo]}:
     * UNDECIDED when a non-ASCII byte comes before the names differ.
     */
    private static int preferred(byte[] a, int ao, int bindingA, byte[] b, int bo, int bindingB) {
        int c = Boolean.compare(bindingA == ElfSymbol.STB_LOCAL, bindingB == ElfSymbol.STB_LOCAL);
        if (c == 0) c = Integer.compare(leadingUnderscores(a, ao), leadingUnderscores(b, bo));
        if (c == 0) c = Boolean.compare(bindingA == ElfSymbol.STB_WEAK, bindingB == ElfSymbol.STB_WEAK);
        if (c != 0) return c;
        // String.compareTo on ASCII is the bytes' order (a char per byte), then the length's
        byte x, y;
        while ((x = a[ao++]) == (y = b[bo++])) {
            if (x <= 0) return x == 0 ? 0 : UNDECIDED; // the same name, or a non-ASCII byte first
        }
        if (x == 0 || y == 0) return x == 0 ? -1 : 1; // one a prefix of the other
        return (x | y) < 0 ? UNDECIDED : x - y;
    }

    private static final int UNDECIDED = Integer.MIN_VALUE;

    private static int leadingUnderscores(byte[] name, int at) {
        int i = at;
        while (name[i] == '_') i++;
        return i - at;
    }

    private static byte[] bytes(Names[] names, long ref) {
        return names[(int) (ref >>> SOURCE_SHIFT)].bytes((int) ref);
    }

    private static String decode(Names[] names, long ref) {
        return names[(int) (ref >>> SOURCE_SHIFT)].name((int) ref);
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
        return off == 0 ? name(i) : name(i) + "+0x" + Long.toHexString(off);
    }

    public int size() {
        return start.length;
    }

    public String name(int i) {
        String s = name[i];
        if (s == null) {
            s = decode(names, ref[i]);
            name[i] = s; // a benign race: see the theory comment
        }
        return s;
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
