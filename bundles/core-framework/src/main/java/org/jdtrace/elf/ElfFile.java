/*
 * ElfFile: a read-only view of one ELF64 little-endian file.
 *
 * The file is mapped once (FileChannel.map, read-only) and every structure is read from the
 * mapping on demand, with every offset and size checked against the file's length before use,
 * so a truncated or hostile file gives an ElfException naming what is wrong instead of an
 * IndexOutOfBoundsException or BufferUnderflowException. Sections, segments and symbols are
 * parsed lazily and cached; an instance is immutable after the cache fills and is safe to share
 * between threads (the caches are filled under the instance lock). The mapping lives until the
 * buffer is garbage collected; close() only drops the caches and marks the object unusable.
 *
 * Symbols come from .symtab when the file has one, else from .dynsym (stripped libraries such as
 * libc.so.6), as the pid provider needs every function it can name; SymbolTable reads the same
 * tables raw instead (RawSymbols: the entries in one bulk copy, with the same checks, and the
 * string table as a view whose names it decodes on demand). Code is read by virtual
 * address through the allocated section (or, in section-less files, the PT_LOAD segment) whose
 * file bytes hold it.
 */
package org.jdtrace.elf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** An ELF64 little-endian file: headers, sections, segments, symbols, PLT and SDT notes. */
public final class ElfFile implements AutoCloseable {

    public static final int ET_EXEC = 2;
    public static final int ET_DYN = 3;
    public static final int EM_X86_64 = 62;
    public static final int EM_AARCH64 = 183;

    private static final int NT_STAPSDT = 3;
    private static final int R_X86_64_JUMP_SLOT = 7;
    private static final int R_X86_64_IRELATIVE = 37;

    private final Path path;
    private final ByteBuffer buf;
    private final long length;
    private final int type;
    private final int machine;
    private final long entry;
    private final long phoff;
    private final long shoff;
    private final int phentsize;
    private final int phnum;
    private final int shentsize;
    private final int shnum;
    private final int shstrndx;

    private List<ElfSection> sections;
    private List<ElfSegment> segments;
    private List<ElfSymbol> symbols;
    private List<PltEntry> plt;
    private List<SdtNote> sdtNotes;
    private volatile boolean closed;

    private ElfFile(Path path, ByteBuffer buf) throws ElfException {
        this.path = path;
        this.buf = buf.order(ByteOrder.LITTLE_ENDIAN);
        this.length = buf.capacity();
        if (length < 64) {
            throw new ElfException(path + ": not an ELF file (only " + length + " bytes)");
        }
        if (buf.getInt(0) != 0x464c457f) {
            throw new ElfException(path + ": not an ELF file (bad magic)");
        }
        if (buf.get(4) != 2) {
            throw new ElfException(path + ": not a 64-bit ELF file (class " + buf.get(4) + ")");
        }
        if (buf.get(5) != 1) {
            throw new ElfException(path + ": not a little-endian ELF file (data " + buf.get(5) + ")");
        }
        type = Short.toUnsignedInt(buf.getShort(16));
        machine = Short.toUnsignedInt(buf.getShort(18));
        entry = buf.getLong(24);
        phoff = buf.getLong(32);
        shoff = buf.getLong(40);
        phentsize = Short.toUnsignedInt(buf.getShort(54));
        phnum = Short.toUnsignedInt(buf.getShort(56));
        shentsize = Short.toUnsignedInt(buf.getShort(58));
        int shn = Short.toUnsignedInt(buf.getShort(60));
        int shstr = Short.toUnsignedInt(buf.getShort(62));
        if (phnum > 0 && phentsize < 56) {
            throw new ElfException(path + ": bad program header entry size " + phentsize);
        }
        if (shoff != 0 && shentsize < 64) {
            throw new ElfException(path + ": bad section header entry size " + shentsize);
        }
        // Extended numbering: the real counts live in section header 0.
        if (shoff != 0 && (shn == 0 || shstr == 0xffff)) {
            check(shoff, 64, "section header 0");
            if (shn == 0) {
                shn = (int) Math.min(buf.getLong((int) shoff + 32), Integer.MAX_VALUE);
            }
            if (shstr == 0xffff) {
                shstr = buf.getInt((int) shoff + 40);
            }
        }
        shnum = shoff == 0 ? 0 : shn;
        shstrndx = shstr;
        check(phoff, (long) phnum * phentsize, "program headers");
        check(shoff, (long) shnum * shentsize, "section headers");
    }

    /**
     * Opens and maps {@code path}.
     *
     * @throws ElfException when the file cannot be read or is not ELF64 little-endian
     */
    public static ElfFile open(Path path) throws ElfException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE) {
                throw new ElfException(path + ": file too large (" + size + " bytes)");
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
            return new ElfFile(path, map);
        } catch (ElfException e) {
            throw e;
        } catch (IOException | UnsupportedOperationException e) {
            throw new ElfException(path + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Reads an ELF image already in memory ({@code name} only labels error messages). */
    public static ElfFile of(String name, byte[] image) throws ElfException {
        return new ElfFile(Path.of(name), ByteBuffer.wrap(image));
    }

    public Path path() {
        return path;
    }

    /** {@link #ET_EXEC}, {@link #ET_DYN} (shared objects and PIEs), ... */
    public int type() {
        return type;
    }

    /** {@link #EM_X86_64}, {@link #EM_AARCH64}, ... */
    public int machine() {
        return machine;
    }

    public long entry() {
        return entry;
    }

    /** Every section header, index 0 (SHT_NULL) included; empty for a section-less file. */
    public synchronized List<ElfSection> sections() throws ElfException {
        ensureOpen();
        if (sections == null) {
            sections = readSections();
        }
        return sections;
    }

    /** The first section called {@code name}. */
    public Optional<ElfSection> section(String name) throws ElfException {
        for (ElfSection s : sections()) {
            if (s.name().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** Every program header. */
    public synchronized List<ElfSegment> segments() throws ElfException {
        ensureOpen();
        if (segments == null) {
            List<ElfSegment> l = new ArrayList<>(phnum);
            for (int i = 0; i < phnum; i++) {
                int o = (int) (phoff + (long) i * phentsize);
                l.add(new ElfSegment(buf.getInt(o), buf.getInt(o + 4), buf.getLong(o + 8),
                        buf.getLong(o + 16), buf.getLong(o + 32), buf.getLong(o + 40), buf.getLong(o + 48)));
            }
            segments = Collections.unmodifiableList(l);
        }
        return segments;
    }

    /** The section bytes (a read-only view); empty for SHT_NOBITS. */
    public ByteBuffer contents(ElfSection s) throws ElfException {
        ensureOpen();
        if (s.type() == ElfSection.SHT_NOBITS || s.size() == 0) {
            return ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
        }
        check(s.offset(), s.size(), "section " + s.name());
        return buf.slice((int) s.offset(), (int) s.size()).order(ByteOrder.LITTLE_ENDIAN).asReadOnlyBuffer()
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The symbols of {@code .symtab}, or of {@code .dynsym} when there is no {@code .symtab}.
     * Entry 0 (the null symbol) is left out.
     */
    public synchronized List<ElfSymbol> symbols() throws ElfException {
        ensureOpen();
        if (symbols == null) {
            Optional<ElfSection> tab = sectionOfType(ElfSection.SHT_SYMTAB);
            if (tab.isEmpty()) {
                tab = sectionOfType(ElfSection.SHT_DYNSYM);
            }
            symbols = tab.isEmpty() ? List.of() : readSymbols(tab.get());
        }
        return symbols;
    }

    /** Whether {@link #symbols()} comes from {@code .symtab} (false: {@code .dynsym} or none). */
    public boolean hasSymtab() throws ElfException {
        return sectionOfType(ElfSection.SHT_SYMTAB).isPresent();
    }

    /** The {@code .dynsym} symbols (imports included), entry 0 left out. */
    public List<ElfSymbol> dynamicSymbols() throws ElfException {
        Optional<ElfSection> tab = sectionOfType(ElfSection.SHT_DYNSYM);
        return tab.isEmpty() ? List.of() : readSymbols(tab.get());
    }

    /**
     * The {@code .dynsym} symbols whose names start with {@code prefix}, in table order (a
     * library's exported tables by their common prefix, HotSpot's gHotSpotVM*): the other names
     * are compared where they lie, not decoded.
     *
     * @since 1.4
     */
    public List<ElfSymbol> dynamicSymbols(String prefix) throws ElfException {
        RawSymbols raw = rawDynamicSymbols();
        if (raw == null) return List.of();
        byte[] text = raw.strings().text(), want = prefix.getBytes(StandardCharsets.UTF_8);
        List<ElfSymbol> l = new ArrayList<>();
        if (text == null) { // a string table too large to copy
            for (ElfSymbol s : dynamicSymbols()) {
                if (s.name().startsWith(prefix)) l.add(s);
            }
            return l;
        }
        long[] w = raw.words();
        for (int o = 3; o < w.length; o += 3) { // entry 0 is the null symbol
            int at = (int) w[o], k = 0;
            while (k < want.length && at + k < text.length && text[at + k] == want[k]) k++;
            if (k == want.length) l.add(symbol(raw, o));
        }
        return l;
    }

    /**
     * {@link #symbols()}'s table as raw entries, for SymbolTable to read without a String or an
     * ElfSymbol per symbol; null when there is none. Checked as {@link #symbols()} checks it: the
     * same ElfException for a bad entry size, string table link or name offset.
     */
    RawSymbols rawSymbols() throws ElfException {
        ensureOpen();
        Optional<ElfSection> tab = sectionOfType(ElfSection.SHT_SYMTAB);
        if (tab.isEmpty()) {
            tab = sectionOfType(ElfSection.SHT_DYNSYM);
        }
        return tab.isEmpty() ? null : readRawSymbols(tab.get());
    }

    /** {@link #dynamicSymbols()}'s table as raw entries (see {@link #rawSymbols()}); null when there is none. */
    RawSymbols rawDynamicSymbols() throws ElfException {
        ensureOpen();
        Optional<ElfSection> tab = sectionOfType(ElfSection.SHT_DYNSYM);
        return tab.isEmpty() ? null : readRawSymbols(tab.get());
    }

    /**
     * One symbol table's entries as they are in the file, null entry included: {@code words[3i]}
     * holds entry i's st_name (bits 0-31), st_info (32-39), st_other (40-47) and st_shndx (48-63),
     * {@code words[3i+1]} its st_value, {@code words[3i+2]} its st_size; and its string table, in
     * which every entry's st_name is a NUL-terminated string.
     */
    record RawSymbols(long[] words, StringTable strings) {

        int count() {
            return words.length / 3;
        }
    }

    /** A string table (a read-only view of the file): names by offset, without the symbols that hold them. */
    record StringTable(ByteBuffer bytes) implements SymbolTable.Names {

        /** The name at offset {@code off} (an entry's st_name), decoded as symbols() decodes it. */
        @Override
        public String name(int off) {
            return new String(bytes(off), StandardCharsets.UTF_8);
        }

        /** The whole table, copied (at most SymbolTable.MAX_TEXT bytes: else null). */
        @Override
        public byte[] text() {
            if (bytes.limit() > SymbolTable.MAX_TEXT) return null;
            byte[] t = new byte[bytes.limit()];
            bytes.get(0, t);
            return t;
        }

        /** The bytes of the name at offset {@code off}, up to its NUL. */
        @Override
        public byte[] bytes(int off) {
            // bulk reads of a few dozen bytes, not a buffer call per byte (an interpreted one for
            // the first names)
            int room = bytes.limit() - off;
            byte[] s = new byte[Math.min(64, room)];
            bytes.get(off, s);
            for (int e = 0;;) {
                while (e < s.length && s[e] != 0) {
                    e++;
                }
                if (e < s.length) {
                    return Arrays.copyOf(s, e);
                }
                if (s.length == room) { // readRawSymbols made sure every st_name has a NUL after it
                    throw new IllegalArgumentException("no name at string table offset " + off);
                }
                int had = s.length;
                s = Arrays.copyOf(s, Math.min(2 * had, room));
                bytes.get(off + had, s, had, s.length - had);
            }
        }
    }

    /** Defined, sized functions and IFUNC resolvers, in table order. */
    public List<ElfSymbol> functions() throws ElfException {
        List<ElfSymbol> l = new ArrayList<>();
        for (ElfSymbol s : symbols()) {
            if (s.isFunction() && s.size() > 0) {
                l.add(s);
            }
        }
        return l;
    }

    /** The first symbol called {@code name}, defined ones preferred. */
    public Optional<ElfSymbol> symbol(String name) throws ElfException {
        ElfSymbol undefined = null;
        for (ElfSymbol s : symbols()) {
            if (s.name().equals(name)) {
                if (s.isDefined()) {
                    return Optional.of(s);
                }
                undefined = s;
            }
        }
        return Optional.ofNullable(undefined);
    }

    /**
     * {@code len} file bytes at virtual address {@code vaddr}, read through the allocated
     * section that holds them (or, with no section headers, the PT_LOAD segment).
     *
     * @throws ElfException when no section or segment holds the whole range in the file
     */
    public byte[] read(long vaddr, int len) throws ElfException {
        if (len < 0) {
            throw new ElfException(path + ": negative length " + len);
        }
        long off = fileOffset(vaddr, len);
        byte[] out = new byte[len];
        buf.get((int) off, out);
        return out;
    }

    /** The bytes of a function symbol ({@code size} bytes at {@code value}). */
    public byte[] bytes(ElfSymbol sym) throws ElfException {
        if (sym.size() > Integer.MAX_VALUE || sym.size() < 0) {
            throw new ElfException(path + ": symbol " + sym.name() + " too large");
        }
        return read(sym.value(), (int) sym.size());
    }

    /** The file offset of virtual address {@code vaddr} whose {@code len} bytes are in the file. */
    public long fileOffset(long vaddr, long len) throws ElfException {
        ensureOpen();
        for (ElfSection s : sections()) {
            if (s.type() != ElfSection.SHT_NOBITS && s.containsAddress(vaddr, len)) {
                long off = s.offset() + (vaddr - s.addr());
                check(off, len, "section " + s.name());
                return off;
            }
        }
        for (ElfSegment p : segments()) {
            if (p.type() == ElfSegment.PT_LOAD && p.containsAddress(vaddr, len)) {
                long off = p.offset() + (vaddr - p.vaddr());
                check(off, len, "segment at 0x" + Long.toHexString(p.vaddr()));
                return off;
            }
        }
        throw new ElfException(path + ": no file bytes at 0x" + Long.toHexString(vaddr)
                + " (+" + len + ")");
    }

    /** The section that contains virtual address {@code vaddr}, if allocated. */
    public Optional<ElfSection> sectionAt(long vaddr) throws ElfException {
        for (ElfSection s : sections()) {
            if ((s.flags() & ElfSection.SHF_ALLOC) != 0 && vaddr >= s.addr()
                    && Long.compareUnsigned(vaddr - s.addr(), s.size()) < 0) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /**
     * The PLT stubs that jump through a GOT slot named by {@code .rela.plt}, in address order.
     * As binutils does, each 16-byte stub of {@code .plt.sec} (IBT) or {@code .plt} is read for
     * its {@code jmp *disp32(%rip)} ({@code ff 25}, possibly after {@code endbr64} or a
     * {@code bnd} prefix); the GOT slot it reads is matched with a relocation's offset, whose
     * symbol names the stub. Slots that no stub jumps through are left out.
     */
    public synchronized List<PltEntry> plt() throws ElfException {
        ensureOpen();
        if (plt != null) {
            return plt;
        }
        Optional<ElfSection> rela = section(".rela.plt");
        if (rela.isEmpty()) {
            plt = List.of();
            return plt;
        }
        ElfSection r = rela.get();
        List<ElfSymbol> dyn = null;
        if (r.link() > 0 && r.link() < sections().size()) {
            ElfSection symtab = sections().get(r.link());
            if (symtab.type() == ElfSection.SHT_DYNSYM || symtab.type() == ElfSection.SHT_SYMTAB) {
                dyn = readSymbolsWithNull(symtab);
            }
        }
        java.util.Map<Long, String> slotNames = new java.util.HashMap<>();
        ByteBuffer b = contents(r);
        int n = (int) (r.size() / 24);
        for (int i = 0; i < n; i++) {
            long offset = b.getLong(i * 24);
            long info = b.getLong(i * 24 + 8);
            int rtype = (int) info;
            long symIndex = info >>> 32;
            String name;
            if (rtype == R_X86_64_JUMP_SLOT && dyn != null && symIndex > 0 && symIndex < dyn.size()) {
                name = dyn.get((int) symIndex).name();
            } else if (rtype == R_X86_64_IRELATIVE) {
                name = "*IRELATIVE*";
            } else {
                name = "*RELOC" + rtype + "*";
            }
            slotNames.put(offset, name);
        }
        List<PltEntry> l = new ArrayList<>();
        for (String secName : List.of(".plt", ".plt.sec")) {
            Optional<ElfSection> sec = section(secName);
            if (sec.isEmpty() || sec.get().type() != ElfSection.SHT_PROGBITS) {
                continue;
            }
            ByteBuffer code = contents(sec.get());
            for (int stub = 0; stub + 16 <= code.limit(); stub += 16) {
                for (int k = stub; k + 6 <= stub + 16; k++) {
                    if (code.get(k) == (byte) 0xff && code.get(k + 1) == 0x25) {
                        long got = sec.get().addr() + k + 6 + code.getInt(k + 2);
                        String name = slotNames.get(got);
                        if (name != null) {
                            l.add(new PltEntry(name, sec.get().addr() + stub, got));
                        }
                        break;
                    }
                }
            }
        }
        l.sort(java.util.Comparator.comparingLong(PltEntry::address));
        plt = Collections.unmodifiableList(l);
        return plt;
    }

    /** The SystemTap SDT probe sites of {@code .note.stapsdt}, in file order. */
    public synchronized List<SdtNote> sdtNotes() throws ElfException {
        ensureOpen();
        if (sdtNotes != null) {
            return sdtNotes;
        }
        List<SdtNote> l = new ArrayList<>();
        for (ElfSection s : sections()) {
            if (s.type() == ElfSection.SHT_NOTE && s.name().equals(".note.stapsdt")) {
                readSdtNotes(contents(s), l);
            }
        }
        sdtNotes = Collections.unmodifiableList(l);
        return sdtNotes;
    }

    /**
     * The link-time address of the {@code .stapsdt.base} section, against which the notes'
     * {@code base} is compared (prelink adjustment, see {@link SdtNote#pc(long)}).
     */
    public OptionalLong stapsdtBase() throws ElfException {
        Optional<ElfSection> s = section(".stapsdt.base");
        return s.isPresent() ? OptionalLong.of(s.get().addr()) : OptionalLong.empty();
    }

    /**
     * The GNU build-id ({@code NT_GNU_BUILD_ID} in a SHT_NOTE section), or empty.
     *
     * @since 1.1
     */
    public Optional<byte[]> buildId() throws ElfException {
        for (ElfSection s : sections()) {
            if (s.type() != ElfSection.SHT_NOTE) continue;
            ByteBuffer b = contents(s);
            int p = 0;
            while (p + 12 <= b.limit()) {
                long namesz = b.getInt(p) & 0xffffffffL, descsz = b.getInt(p + 4) & 0xffffffffL;
                int type = b.getInt(p + 8);
                long name = p + 12, desc = name + ((namesz + 3) & ~3L), next = desc + ((descsz + 3) & ~3L);
                if (next > b.limit() || next <= p) break;
                if (type == 3 && namesz == 4 && b.get((int) name) == 'G' && b.get((int) name + 1) == 'N'
                        && b.get((int) name + 2) == 'U' && descsz > 0 && descsz <= 64) {
                    byte[] id = new byte[(int) descsz];
                    b.get((int) desc, id);
                    return Optional.of(id);
                }
                p = (int) next;
            }
        }
        return Optional.empty();
    }

    /**
     * {@code .gnu_debuglink}: the separate debug file's name and the CRC-32 of its contents, or empty.
     *
     * @since 1.1
     */
    public Optional<DebugLink> debugLink() throws ElfException {
        Optional<ElfSection> s = section(".gnu_debuglink");
        if (s.isEmpty()) return Optional.empty();
        ByteBuffer b = contents(s.get());
        int n = 0;
        while (n < b.limit() && b.get(n) != 0) n++;
        int crcAt = (n + 4) & ~3;
        if (n == 0 || crcAt + 4 > b.limit()) return Optional.empty();
        byte[] name = new byte[n];
        b.get(0, name);
        return Optional.of(new DebugLink(new String(name, StandardCharsets.UTF_8), b.getInt(crcAt)));
    }

    /**
     * A {@code .gnu_debuglink}: the debug file's base name and its CRC-32.
     *
     * @since 1.1
     */
    public record DebugLink(String name, int crc) {}

    @Override
    public synchronized void close() {
        closed = true;
        sections = null;
        segments = null;
        symbols = null;
        plt = null;
        sdtNotes = null;
    }

    @Override
    public String toString() {
        return "ElfFile[" + path + "]";
    }

    // ---- parsing ----

    private List<ElfSection> readSections() throws ElfException {
        if (shnum == 0) {
            return List.of();
        }
        long[][] raw = new long[shnum][];
        for (int i = 0; i < shnum; i++) {
            int o = (int) (shoff + (long) i * shentsize);
            raw[i] = new long[] {
                Integer.toUnsignedLong(buf.getInt(o)), Integer.toUnsignedLong(buf.getInt(o + 4)),
                buf.getLong(o + 8), buf.getLong(o + 16), buf.getLong(o + 24), buf.getLong(o + 32),
                Integer.toUnsignedLong(buf.getInt(o + 40)), Integer.toUnsignedLong(buf.getInt(o + 44)),
                buf.getLong(o + 56)
            };
        }
        long strOff = 0;
        long strSize = 0;
        // raw index: 0 name, 1 type, 2 flags, 3 addr, 4 offset, 5 size, 6 link, 7 info, 8 entsize
        if (shstrndx > 0 && shstrndx < shnum) {
            strOff = raw[shstrndx][4];
            strSize = raw[shstrndx][5];
            check(strOff, strSize, "section name table");
        }
        List<ElfSection> l = new ArrayList<>(shnum);
        for (int i = 0; i < shnum; i++) {
            long[] r = raw[i];
            String name = strSize == 0 ? "" : string(strOff, strSize, r[0], "section name");
            l.add(new ElfSection(i, name, (int) r[1], r[2], r[3], r[4], r[5], (int) r[6], (int) r[7], r[8]));
        }
        return Collections.unmodifiableList(l);
    }

    private Optional<ElfSection> sectionOfType(int t) throws ElfException {
        for (ElfSection s : sections()) {
            if (s.type() == t) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    private List<ElfSymbol> readSymbols(ElfSection tab) throws ElfException {
        List<ElfSymbol> all = readSymbolsWithNull(tab);
        return all.isEmpty() ? all : all.subList(1, all.size());
    }

    private List<ElfSymbol> readSymbolsWithNull(ElfSection tab) throws ElfException {
        RawSymbols raw = readRawSymbols(tab);
        long[] w = raw.words();
        List<ElfSymbol> l = new ArrayList<>(raw.count());
        for (int o = 0; o < w.length; o += 3) {
            l.add(symbol(raw, o));
        }
        return Collections.unmodifiableList(l);
    }

    /** The symbol whose entry is at {@code raw.words()[o]}. */
    private static ElfSymbol symbol(RawSymbols raw, int o) {
        long[] w = raw.words();
        long head = w[o];
        int info = (int) (head >>> 32) & 0xff;
        return new ElfSymbol(raw.strings().name((int) head), w[o + 1], w[o + 2], info & 0xf, info >>> 4,
                (int) (head >>> 40) & 0xff, (int) (head >>> 48));
    }

    private RawSymbols readRawSymbols(ElfSection tab) throws ElfException {
        if (tab.entsize() != 24 && tab.entsize() != 0) {
            throw new ElfException(path + ": section " + tab.name() + " has entry size " + tab.entsize());
        }
        check(tab.offset(), tab.size(), "section " + tab.name());
        if (tab.link() <= 0 || tab.link() >= sections().size()) {
            throw new ElfException(path + ": section " + tab.name() + " links to no string table");
        }
        ElfSection str = sections().get(tab.link());
        check(str.offset(), str.size(), "section " + str.name());
        int n = (int) (tab.size() / 24);
        // one bulk copy of the whole table (no per-field buffer call, which the interpreter that
        // runs a JVM's first table would pay 210,000 times for libjvm.so)
        long[] words = new long[3 * n];
        buf.slice((int) tab.offset(), 24 * n).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(words);
        ByteBuffer strings = buf.slice((int) str.offset(), (int) str.size()).asReadOnlyBuffer();
        // every name offset inside the table with a NUL at or after it: at or before the last NUL
        long lastNul = str.size() - 1;
        while (lastNul >= 0 && strings.get((int) lastNul) != 0) {
            lastNul--;
        }
        for (int i = 0; i < n; i += SymbolTable.CHUNK) {
            int bad = badName(words, i, Math.min(n, i + SymbolTable.CHUNK), lastNul);
            if (bad >= 0) {
                long nameOff = words[3 * bad] & 0xffffffffL;
                throw new ElfException(path + (nameOff >= str.size() ? ": symbol name offset " + nameOff
                        + " outside its string table" : ": unterminated symbol name at string table offset " + nameOff));
            }
        }
        return new RawSymbols(words, new StringTable(strings));
    }

    /** The first of entries {@code [from, to)} whose name offset is past {@code lastNul}, or -1 (a range a call: SymbolTable.CHUNK). */
    private static int badName(long[] words, int from, int to, long lastNul) {
        for (int i = from; i < to; i++) {
            if ((words[3 * i] & 0xffffffffL) > lastNul) return i;
        }
        return -1;
    }

    private void readSdtNotes(ByteBuffer b, List<SdtNote> out) throws ElfException {
        int pos = 0;
        int limit = b.limit();
        while (pos + 12 <= limit) {
            long namesz = Integer.toUnsignedLong(b.getInt(pos));
            long descsz = Integer.toUnsignedLong(b.getInt(pos + 4));
            int ntype = b.getInt(pos + 8);
            long nameStart = pos + 12L;
            long descStart = nameStart + align4(namesz);
            long next = descStart + align4(descsz);
            if (descStart + descsz > limit || next > limit + 3L) {
                throw new ElfException(path + ": truncated note in .note.stapsdt at offset " + pos);
            }
            String owner = cString(b, (int) nameStart, (int) (nameStart + namesz));
            if (ntype == NT_STAPSDT && owner.equals("stapsdt")) {
                int d = (int) descStart;
                int end = (int) (descStart + descsz);
                if (descsz < 24) {
                    throw new ElfException(path + ": SDT note too short at offset " + pos);
                }
                long pc = b.getLong(d);
                long base = b.getLong(d + 8);
                long sem = b.getLong(d + 16);
                int p = d + 24;
                String provider = cString(b, p, end);
                p += provider.getBytes(StandardCharsets.UTF_8).length + 1;
                String name = p < end ? cString(b, p, end) : "";
                p += name.getBytes(StandardCharsets.UTF_8).length + 1;
                String args = p < end ? cString(b, p, end) : "";
                if (provider.isEmpty() || name.isEmpty()) {
                    throw new ElfException(path + ": SDT note without provider or name at offset " + pos);
                }
                out.add(new SdtNote(provider, name, pc, base, sem, args));
            }
            pos = (int) Math.min(next, Integer.MAX_VALUE);
        }
    }

    private static long align4(long v) {
        return (v + 3) & ~3L;
    }

    /** A NUL-terminated string in b[from, end); the whole rest when there is no NUL. */
    private static String cString(ByteBuffer b, int from, int end) {
        int e = from;
        while (e < end && b.get(e) != 0) {
            e++;
        }
        byte[] s = new byte[e - from];
        b.get(from, s);
        return new String(s, StandardCharsets.UTF_8);
    }

    private String string(long tableOff, long tableSize, long index, String what) throws ElfException {
        if (index >= tableSize) {
            throw new ElfException(path + ": " + what + " offset " + index + " outside its string table");
        }
        int from = (int) (tableOff + index);
        int end = (int) (tableOff + tableSize);
        int e = from;
        while (e < end && buf.get(e) != 0) {
            e++;
        }
        if (e == end) {
            throw new ElfException(path + ": unterminated " + what + " at string table offset " + index);
        }
        byte[] s = new byte[e - from];
        buf.get(from, s);
        return new String(s, StandardCharsets.UTF_8);
    }

    private void check(long off, long len, String what) throws ElfException {
        if (off < 0 || len < 0 || off > length || len > length - off) {
            throw new ElfException(path + ": " + what + " (offset " + off + ", " + len
                    + " bytes) lies outside the file (" + length + " bytes)");
        }
    }

    private void ensureOpen() throws ElfException {
        if (closed) {
            throw new ElfException(path + ": closed");
        }
    }
}
