/*
 * CallFrameInfo: the call-frame information of one ELF object (DWARF 5 section 6.4; the LSB's
 * .eh_frame and .eh_frame_hdr), read-only and shared by every thread and process that maps the
 * object.
 *
 * Lookup: a pc (a file address: process address minus the load bias) is found through
 * .eh_frame_hdr's binary search table when it has the encoding every GNU toolchain writes
 * (datarel sdata4 pairs, sorted), else through an index of every FDE made once by scanning the
 * section; .debug_frame (absolute addresses, CIE id 0xffffffff) is indexed the same way and asked
 * only when .eh_frame has no FDE for the pc. The FDE's CIE and instructions are then executed up
 * to the pc into a caller-owned FrameRow, so a lookup allocates nothing after the indexes exist.
 *
 * Augmentations: 'z' (augmentation data length), 'R' (FDE pointer encoding), 'P' (personality,
 * skipped), 'L' (LSDA encoding, its pointer skipped), 'S' (signal frame), 'B' (skipped, no data);
 * any other letter ends the parse of that CIE (its FDEs give no row), as libgcc does.
 * Pointer encodings: absptr, (s|u)data2/4/8, (s|u)leb128, applied absolutely or pcrel (datarel in
 * the header); textrel/funcrel/indirect pointers give no row for a pc (none are used for pc_begin).
 *
 * Failure behaviour: the reader trusts nothing it reads. Every length, offset and count is
 * checked against its section; a bad entry, an unknown opcode, remember_state nested deeper than
 * FrameRow.STATE_DEPTH, or a location that moves backwards makes find() answer false (no row:
 * the unwinder ends the stack there). No exception escapes find() or of(). Thread safety: the
 * sections are read through absolute gets of read-only buffers; the lazily built indexes are
 * published through volatile fields (two threads may both build one; either result is the same).
 */
package org.jdtrace.unwind;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Optional;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSection;

/** The .eh_frame / .debug_frame call-frame information of one ELF object. */
public final class CallFrameInfo {

    private static final long SHF_COMPRESSED = 0x800;
    private static final CallFrameInfo NONE = new CallFrameInfo("", null, 0, null, 0, null);

    private final String name;
    private final ByteBuffer eh;
    private final long ehAddr;
    private final ByteBuffer hdr;
    private final long hdrAddr;
    private final ByteBuffer debug;
    /** .eh_frame_hdr's table: entry count, or -1 when it cannot be searched directly. */
    private final int tableCount;
    private volatile Index ehIndex;
    private volatile Index debugIndex;

    /** FDEs sorted by pc_begin: {begin, end} file addresses and the FDE's offset in its section. */
    private record Index(long[] begin, long[] end, int[] offset) {}

    private CallFrameInfo(String name, ByteBuffer eh, long ehAddr, ByteBuffer hdr, long hdrAddr, ByteBuffer debug) {
        this.name = name;
        this.eh = eh;
        this.ehAddr = ehAddr;
        this.hdr = hdr;
        this.hdrAddr = hdrAddr;
        this.debug = debug;
        this.tableCount = hdr == null ? -1 : searchTableCount(hdr);
    }

    /**
     * The call-frame information of {@code elf}: {@code .eh_frame} (with {@code .eh_frame_hdr}) and
     * {@code .debug_frame} where present; an object with neither (or unreadable ones) gives an
     * empty CallFrameInfo. Never throws.
     */
    public static CallFrameInfo of(ElfFile elf) {
        try {
            ByteBuffer eh = null, hdr = null, debug = null;
            long ehAddr = 0, hdrAddr = 0;
            Optional<ElfSection> s = elf.section(".eh_frame");
            if (s.isPresent() && s.get().type() != ElfSection.SHT_NOBITS) {
                eh = elf.contents(s.get());
                ehAddr = s.get().addr();
                Optional<ElfSection> h = elf.section(".eh_frame_hdr");
                if (h.isPresent() && h.get().type() != ElfSection.SHT_NOBITS) {
                    hdr = elf.contents(h.get());
                    hdrAddr = h.get().addr();
                }
            }
            Optional<ElfSection> d = elf.section(".debug_frame");
            if (d.isPresent() && d.get().type() != ElfSection.SHT_NOBITS && (d.get().flags() & SHF_COMPRESSED) == 0) {
                debug = elf.contents(d.get());
            }
            if (eh == null && debug == null) return NONE;
            return new CallFrameInfo(elf.path().toString(), eh, ehAddr, hdr, hdrAddr, debug);
        } catch (ElfException | RuntimeException e) {
            return NONE;
        }
    }

    /**
     * Call-frame information from raw sections (a copy read from memory, a fuzzed section):
     * {@code ehFrame} at file address {@code ehFrameAddr}, {@code ehFrameHdr} (or null) at
     * {@code ehFrameHdrAddr}.
     */
    public static CallFrameInfo of(String name, byte[] ehFrame, long ehFrameAddr, byte[] ehFrameHdr, long ehFrameHdrAddr) {
        return new CallFrameInfo(name, ehFrame == null ? null : ByteBuffer.wrap(ehFrame).order(ByteOrder.LITTLE_ENDIAN),
                ehFrameAddr, ehFrameHdr == null ? null : ByteBuffer.wrap(ehFrameHdr).order(ByteOrder.LITTLE_ENDIAN),
                ehFrameHdrAddr, null);
    }

    /** True when the object has no call-frame information at all. */
    public boolean isEmpty() {
        return eh == null && debug == null;
    }

    /**
     * Fills {@code row} with the rules at file address {@code vaddr}; false when no FDE covers it
     * or its CFI is corrupt (row's content is then unspecified).
     */
    public boolean find(long vaddr, FrameRow row) {
        try {
            if (eh != null) {
                int fde = tableCount >= 0 ? searchTable(vaddr) : searchIndex(ehIndex(), vaddr);
                if (fde >= 0 && execute(eh, ehAddr, true, fde, vaddr, row)) return true;
            }
            if (debug != null) {
                int fde = searchIndex(debugIndex(), vaddr);
                if (fde >= 0 && execute(debug, 0, false, fde, vaddr, row)) return true;
            }
        } catch (RuntimeException e) {
            // a corrupt section read out of its bounds: no row
        }
        return false;
    }

    /**
     * Every function the CFI describes: {begin, end} file addresses of each FDE of .eh_frame and
     * .debug_frame, sorted by begin (duplicates kept).
     */
    public long[][] functions() {
        Index e = eh == null ? new Index(new long[0], new long[0], new int[0]) : ehIndex();
        Index d = debug == null ? new Index(new long[0], new long[0], new int[0]) : debugIndex();
        long[][] out = new long[e.begin.length + d.begin.length][];
        int n = 0;
        for (int i = 0; i < e.begin.length; i++) out[n++] = new long[] {e.begin[i], e.end[i]};
        for (int i = 0; i < d.begin.length; i++) out[n++] = new long[] {d.begin[i], d.end[i]};
        Arrays.sort(out, (a, b) -> Long.compareUnsigned(a[0], b[0]));
        return out;
    }

    @Override
    public String toString() {
        return "CallFrameInfo[" + name + "]";
    }

    // ---- .eh_frame_hdr ----------------------------------------------------------------------

    /** The table's entry count when it is version 1 with datarel sdata4 entries, else -1. */
    private static int searchTableCount(ByteBuffer h) {
        try {
            if (h.limit() < 12 || h.get(0) != 1) return -1;
            int ptrEnc = h.get(1) & 0xff, countEnc = h.get(2) & 0xff, tableEnc = h.get(3) & 0xff;
            if (tableEnc != 0x3b || (countEnc != 0x03 && countEnc != 0x0b) || ptrEnc != 0x1b) return -1;
            long count = h.getInt(8) & 0xffffffffL;
            if (count > (h.limit() - 12) / 8) return -1;
            return (int) count;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The offset in .eh_frame of the FDE whose initial location is the last one <= vaddr, or -1. */
    private int searchTable(long vaddr) {
        int lo = 0, hi = tableCount - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long init = hdrAddr + hdr.getInt(12 + mid * 8);
            if (init <= vaddr) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) return -1;
        long fde = hdrAddr + hdr.getInt(12 + found * 8 + 4) - ehAddr;
        return fde >= 0 && fde < eh.limit() ? (int) fde : -1;
    }

    // ---- scanned indexes -------------------------------------------------------------------

    private Index ehIndex() {
        Index i = ehIndex;
        if (i == null) ehIndex = i = scan(eh, ehAddr, true);
        return i;
    }

    private Index debugIndex() {
        Index i = debugIndex;
        if (i == null) debugIndex = i = scan(debug, 0, false);
        return i;
    }

    private static int searchIndex(Index x, long vaddr) {
        int lo = 0, hi = x.begin.length - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (x.begin[mid] <= vaddr) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        // an FDE nested in an earlier one's range is not possible in sane CFI; take the nearest
        return found >= 0 && vaddr < x.end[found] ? x.offset[found] : -1;
    }

    /** Every FDE of a section with its range; entries that do not parse are left out. */
    private static Index scan(ByteBuffer sec, long secAddr, boolean isEh) {
        int cap = 64, n = 0;
        long[] begin = new long[cap], end = new long[cap];
        int[] offset = new int[cap];
        FrameRow row = new FrameRow();
        int off = 0;
        try {
            while (off + 4 <= sec.limit()) {
                long len = sec.getInt(off) & 0xffffffffL;
                int head = 4;
                if (len == 0xffffffffL) {
                    len = sec.getLong(off + 4);
                    head = 12;
                }
                if (len == 0) {
                    if (isEh) break; // .eh_frame's terminator
                    off += head;
                    continue;
                }
                if (len < 0 || len > sec.limit() - off - head) break;
                int next = (int) (off + head + len);
                if (!isCie(sec, off + head, head == 12, isEh) && entry(sec, secAddr, isEh, off, row)) {
                    if (n == cap) {
                        cap *= 2;
                        begin = Arrays.copyOf(begin, cap);
                        end = Arrays.copyOf(end, cap);
                        offset = Arrays.copyOf(offset, cap);
                    }
                    begin[n] = row.pcBegin;
                    end[n] = row.pcEnd;
                    offset[n] = off;
                    n++;
                }
                off = next;
            }
        } catch (RuntimeException e) {
            // what was read before the damage stays
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        long[] b = begin;
        Arrays.sort(order, (x, y) -> Long.compare(b[x], b[y]));
        long[] sb = new long[n], se = new long[n];
        int[] so = new int[n];
        for (int i = 0; i < n; i++) {
            sb[i] = begin[order[i]];
            se[i] = end[order[i]];
            so[i] = offset[order[i]];
        }
        return new Index(sb, se, so);
    }

    private static boolean isCie(ByteBuffer sec, int idPos, boolean is64, boolean isEh) {
        if (isEh) return sec.getInt(idPos) == 0;
        return is64 ? sec.getLong(idPos) == -1L : sec.getInt(idPos) == -1;
    }

    // ---- entries and instructions ----------------------------------------------------------

    /**
     * Parses the FDE at {@code off} and its CIE into {@code row}: the FDE's range, the CIE's
     * facts, and the cursor left on the CIE's initial instructions ({@code row.pos..row.limit});
     * the FDE's own instructions are {@code row.fdeStart..row.fdeEnd}.
     */
    private static boolean entry(ByteBuffer sec, long secAddr, boolean isEh, int off, FrameRow row) {
        long extent = extent(sec, off);
        if (extent < 0) return false;
        int p = (int) extent, end = (int) (extent >>> 32);
        boolean is64 = p - off == 12;
        int idPos = p;
        long cieOff;
        if (isEh) {
            long id = sec.getInt(idPos) & 0xffffffffL;
            if (id == 0) return false;
            cieOff = idPos - id;
            p += 4;
        } else {
            long id = is64 ? sec.getLong(idPos) : sec.getInt(idPos) & 0xffffffffL;
            if (id == (is64 ? -1L : 0xffffffffL)) return false;
            cieOff = id;
            p += is64 ? 8 : 4;
        }
        if (cieOff < 0 || cieOff >= sec.limit()) return false;
        int fdeEnc = cie(sec, (int) cieOff, isEh, row);
        if (fdeEnc < 0) return false;
        row.fdeEncoding = fdeEnc;
        int ciePos = row.pos, cieLimit = row.limit;
        row.pos = p;
        row.limit = end;
        long begin = pointer(sec, secAddr, fdeEnc, row);
        long range = pointer(sec, secAddr, fdeEnc & 0x0f, row);
        if (begin == Long.MIN_VALUE || range == Long.MIN_VALUE) return false;
        if ((row.augmentation & AUG_Z) != 0) {
            long alen = uleb(sec, row);
            if (alen < 0 || alen > end - row.pos) return false;
            row.pos += (int) alen;
        }
        row.pcBegin = begin;
        row.pcEnd = begin + range;
        row.fdeStart = row.pos;
        row.fdeEnd = end;
        row.pos = ciePos;
        row.limit = cieLimit;
        return true;
    }

    static final int AUG_Z = 1;

    /**
     * The extent of the CIE or FDE at {@code off}: (end << 32 | the offset of its id field, which
     * is off + 12 for a 64-bit entry, else off + 4), or -1 when its length is 0 or runs past the
     * section.
     */
    private static long extent(ByteBuffer sec, int off) {
        long len = sec.getInt(off) & 0xffffffffL;
        int p = off + 4;
        if (len == 0xffffffffL) {
            len = sec.getLong(p);
            p += 8;
        }
        if (len <= 0 || len > sec.limit() - p) return -1;
        return ((p + len) << 32) | p;
    }

    /**
     * Parses the CIE at {@code off} into {@code row} (alignment factors, return column, signal
     * flag, augmentation) and leaves the cursor on its initial instructions; answers the FDE
     * pointer encoding, or -1 when the CIE is not one this reader can use.
     */
    private static int cie(ByteBuffer sec, int off, boolean isEh, FrameRow row) {
        long extent = extent(sec, off);
        if (extent < 0) return -1;
        int p = (int) extent, end = (int) (extent >>> 32);
        boolean is64 = p - off == 12;
        if (!isCie(sec, p, is64, isEh)) return -1;
        p += isEh ? 4 : is64 ? 8 : 4;
        row.pos = p;
        row.limit = end;
        int version = u8(sec, row);
        if (version != 1 && version != 3 && version != 4) return -1;
        int augStart = row.pos;
        while (u8(sec, row) != 0) {
            // the augmentation string
        }
        int augEnd = row.pos - 1;
        int fdeEnc = isEh ? 0x00 : 0x04; // absptr (8 bytes); .debug_frame: udata8
        if (version == 4) {
            int addressSize = u8(sec, row);
            u8(sec, row); // segment selector size
            if (addressSize == 4) fdeEnc = 0x03;
        }
        row.codeAlign = uleb(sec, row);
        row.dataAlign = sleb(sec, row);
        row.returnColumn = version == 1 ? u8(sec, row) : (int) uleb(sec, row);
        row.signalFrame = false;
        row.augmentation = 0;
        int augDataEnd = -1;
        for (int a = augStart; a < augEnd; a++) {
            char c = (char) sec.get(a);
            switch (c) {
                case 'z' -> {
                    if (a != augStart) return -1;
                    long alen = uleb(sec, row);
                    if (alen < 0 || alen > end - row.pos) return -1;
                    augDataEnd = row.pos + (int) alen;
                    row.augmentation |= AUG_Z;
                }
                case 'R' -> fdeEnc = u8(sec, row);
                case 'L' -> u8(sec, row); // the LSDA's encoding: its pointer is in the FDE's skipped data
                case 'P' -> {
                    int enc = u8(sec, row);
                    pointer(sec, 0, enc & 0x0f, row); // the personality routine: only skipped
                }
                case 'S' -> row.signalFrame = true;
                case 'B' -> { }
                default -> {
                    // an augmentation this reader does not know: with 'z' its data can be skipped,
                    // but its meaning for the FDEs cannot be known
                    return -1;
                }
            }
        }
        if (augDataEnd >= 0) row.pos = augDataEnd;
        if (row.pos > end || fdeEnc == 0xff) return -1;
        row.limit = end;
        return fdeEnc;
    }

    /** Runs the CIE's then the FDE's instructions up to {@code vaddr}. */
    private static boolean execute(ByteBuffer sec, long secAddr, boolean isEh, int fde, long vaddr, FrameRow row) {
        if (!entry(sec, secAddr, isEh, fde, row)) return false;
        if (vaddr < row.pcBegin || vaddr >= row.pcEnd) return false;
        boolean signal = row.signalFrame;
        row.reset();
        row.signalFrame = signal;
        row.section = sec;
        long loc = row.pcBegin;
        if (run(sec, secAddr, row, loc, vaddr, true) == Long.MIN_VALUE) return false;
        System.arraycopy(row.rule, 0, row.initialRule, 0, FrameRow.COLUMNS);
        System.arraycopy(row.operand, 0, row.initialOperand, 0, FrameRow.COLUMNS);
        row.pos = row.fdeStart;
        row.limit = row.fdeEnd;
        return run(sec, secAddr, row, loc, vaddr, false) != Long.MIN_VALUE;
    }

    /**
     * Executes instructions from row.pos to row.limit while the location is <= vaddr; answers the
     * location reached, or Long.MIN_VALUE when the instructions are corrupt.
     */
    private static long run(ByteBuffer sec, long secAddr, FrameRow row, long loc, long vaddr, boolean inCie) {
        while (row.pos < row.limit) {
            int op = u8(sec, row);
            int hi = op & 0xc0, lo = op & 0x3f;
            long adv = -1;
            switch (hi) {
                case 0x40 -> adv = lo * row.codeAlign;
                case 0x80 -> set(row, lo, FrameRow.OFFSET, uleb(sec, row) * row.dataAlign);
                case 0xc0 -> restore(row, lo);
                default -> {
                    switch (op) {
                        case 0x00 -> { } // nop
                        case 0x01 -> { // set_loc
                            long to = pointer(sec, secAddr, row.fdeEncoding, row);
                            if (to == Long.MIN_VALUE || to < loc) return Long.MIN_VALUE;
                            adv = to - loc;
                        }
                        case 0x02 -> adv = u8(sec, row) * row.codeAlign;
                        case 0x03 -> adv = (sec.getShort(take(row, 2)) & 0xffffL) * row.codeAlign;
                        case 0x04 -> adv = (sec.getInt(take(row, 4)) & 0xffffffffL) * row.codeAlign;
                        case 0x05 -> { int r = reg(sec, row); set(row, r, FrameRow.OFFSET, uleb(sec, row) * row.dataAlign); }
                        case 0x06 -> restore(row, reg(sec, row));
                        case 0x07 -> set(row, reg(sec, row), FrameRow.UNDEFINED, 0);
                        case 0x08 -> set(row, reg(sec, row), FrameRow.SAME_VALUE, 0);
                        case 0x09 -> { int r = reg(sec, row); set(row, r, FrameRow.REGISTER, reg(sec, row)); }
                        case 0x0a -> { // remember_state
                            if (row.depth == FrameRow.STATE_DEPTH) return Long.MIN_VALUE;
                            System.arraycopy(row.rule, 0, row.savedRule[row.depth], 0, FrameRow.COLUMNS);
                            System.arraycopy(row.operand, 0, row.savedOperand[row.depth], 0, FrameRow.COLUMNS);
                            row.savedCfa[row.depth * 3] = row.cfaRegister;
                            row.savedCfa[row.depth * 3 + 1] = row.cfaOffset;
                            row.savedCfa[row.depth * 3 + 2] = row.cfaExpression;
                            row.depth++;
                        }
                        case 0x0b -> { // restore_state
                            if (row.depth == 0) return Long.MIN_VALUE;
                            row.depth--;
                            System.arraycopy(row.savedRule[row.depth], 0, row.rule, 0, FrameRow.COLUMNS);
                            System.arraycopy(row.savedOperand[row.depth], 0, row.operand, 0, FrameRow.COLUMNS);
                            row.cfaRegister = (int) row.savedCfa[row.depth * 3];
                            row.cfaOffset = row.savedCfa[row.depth * 3 + 1];
                            row.cfaExpression = row.savedCfa[row.depth * 3 + 2];
                        }
                        case 0x0c -> { row.cfaRegister = reg(sec, row); row.cfaOffset = uleb(sec, row); row.cfaExpression = -1; }
                        case 0x0d -> { row.cfaRegister = reg(sec, row); row.cfaExpression = -1; }
                        case 0x0e -> row.cfaOffset = uleb(sec, row);
                        case 0x0f -> row.cfaExpression = block(sec, row);
                        case 0x10 -> { int r = reg(sec, row); set(row, r, FrameRow.EXPRESSION, block(sec, row)); }
                        case 0x11 -> { int r = reg(sec, row); set(row, r, FrameRow.OFFSET, sleb(sec, row) * row.dataAlign); }
                        case 0x12 -> {
                            row.cfaRegister = reg(sec, row);
                            row.cfaOffset = sleb(sec, row) * row.dataAlign;
                            row.cfaExpression = -1;
                        }
                        case 0x13 -> row.cfaOffset = sleb(sec, row) * row.dataAlign;
                        case 0x14 -> { int r = reg(sec, row); set(row, r, FrameRow.VAL_OFFSET, uleb(sec, row) * row.dataAlign); }
                        case 0x15 -> { int r = reg(sec, row); set(row, r, FrameRow.VAL_OFFSET, sleb(sec, row) * row.dataAlign); }
                        case 0x16 -> { int r = reg(sec, row); set(row, r, FrameRow.VAL_EXPRESSION, block(sec, row)); }
                        case 0x2e -> uleb(sec, row); // GNU_args_size
                        case 0x2f -> { int r = reg(sec, row); set(row, r, FrameRow.OFFSET, -uleb(sec, row) * row.dataAlign); }
                        default -> {
                            return Long.MIN_VALUE; // unknown opcode: the rest cannot be parsed
                        }
                    }
                }
            }
            if (adv >= 0) {
                if (inCie) return Long.MIN_VALUE; // a CIE's initial instructions do not advance
                if (loc + adv > vaddr) return loc; // the row for vaddr is complete
                loc += adv;
            }
        }
        return loc;
    }

    private static void set(FrameRow row, int reg, byte rule, long operand) {
        if (reg >= FrameRow.COLUMNS) return;
        row.rule[reg] = rule;
        row.operand[reg] = operand;
    }

    private static void restore(FrameRow row, int reg) {
        if (reg >= FrameRow.COLUMNS) return;
        row.rule[reg] = row.initialRule[reg];
        row.operand[reg] = row.initialOperand[reg];
    }

    private static int reg(ByteBuffer sec, FrameRow row) {
        long r = uleb(sec, row);
        if (r < 0 || r > 0xffff) throw new IndexOutOfBoundsException("register " + r);
        return (int) r;
    }

    /** A DW_FORM_block: its (offset << 32 | length), the cursor moved past it. */
    private static long block(ByteBuffer sec, FrameRow row) {
        long len = uleb(sec, row);
        if (len < 0 || len > row.limit - row.pos) throw new IndexOutOfBoundsException("block");
        long b = ((long) row.pos << 32) | len;
        row.pos += (int) len;
        return b;
    }

    private static int take(FrameRow row, int n) {
        if (row.pos + n > row.limit) throw new IndexOutOfBoundsException("past the entry");
        int p = row.pos;
        row.pos += n;
        return p;
    }

    static int u8(ByteBuffer sec, FrameRow row) {
        return sec.get(take(row, 1)) & 0xff;
    }

    static long uleb(ByteBuffer sec, FrameRow row) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = u8(sec, row);
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) return v;
        }
        throw new IndexOutOfBoundsException("LEB128 too long");
    }

    static long sleb(ByteBuffer sec, FrameRow row) {
        long v = 0;
        int shift = 0, b;
        do {
            if (shift >= 64) throw new IndexOutOfBoundsException("LEB128 too long");
            b = u8(sec, row);
            v |= (long) (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        if (shift < 64 && (b & 0x40) != 0) v |= -1L << shift;
        return v;
    }

    /**
     * A pointer in encoding {@code enc} at the cursor: its value (pcrel resolved against
     * {@code secAddr}), or Long.MIN_VALUE for an application this reader cannot resolve.
     */
    private static long pointer(ByteBuffer sec, long secAddr, int enc, FrameRow row) {
        if (enc == 0xff) return Long.MIN_VALUE;
        int at = row.pos;
        long v = switch (enc & 0x0f) {
            case 0x00, 0x04, 0x0c -> sec.getLong(take(row, 8));
            case 0x01 -> uleb(sec, row);
            case 0x02 -> sec.getShort(take(row, 2)) & 0xffffL;
            case 0x03 -> sec.getInt(take(row, 4)) & 0xffffffffL;
            case 0x09 -> sleb(sec, row);
            case 0x0a -> sec.getShort(take(row, 2));
            case 0x0b -> sec.getInt(take(row, 4));
            default -> throw new IndexOutOfBoundsException("pointer encoding " + enc);
        };
        return switch (enc & 0x70) {
            case 0x00 -> (enc & 0x80) != 0 ? Long.MIN_VALUE : v;
            case 0x10 -> (enc & 0x80) != 0 ? Long.MIN_VALUE : secAddr + at + v;
            default -> Long.MIN_VALUE;
        };
    }
}
