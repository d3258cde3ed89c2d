/*
 * HotSpotVm: what another HotSpot JVM's own structures say about its Java frames, read from
 * /proc/PID/mem without stopping or attaching to it (what the serviceability agent does through
 * ptrace, here read-only). libjvm.so exports its vmStructs tables (gHotSpotVMStructs,
 * gHotSpotVMTypes, gHotSpotVMIntConstants and the gHotSpotVM*Offset/ArrayStride symbols that
 * describe their entries): each field's offset, each type's size, each static's address, so
 * nothing here depends on one JDK build's layout. Only the entries this class reads are kept
 * (StructField, VmValue: one list, so a name read is a name looked for), found by
 * comparing the bytes of each entry's name where it lies with the names wanted (no String per
 * entry: the dtrace JVM reads its own thousands of entries in its first seconds, interpreted);
 * one the tables lack is missing as before (of() gives null, or that piece of a blob's header
 * is unknown). From them:
 *   - the code cache: CodeCache::_heaps, each CodeHeap's reserved range, segment map and segment
 *     size; a pc's CodeBlob is found as CodeHeap::find_start finds it (walk the segment map back
 *     to the block's first segment, skip the HeapBlock header), then its kind (CodeBlobKind),
 *     size, code offset, frame size (words) and frame-complete offset;
 *   - the interpreter's code: AbstractInterpreter::_code's StubQueue buffer;
 *   - method names: nmethod::_method, Method::_constMethod, ConstMethod::_constants and
 *     _name_index, ConstantPool::_pool_holder and its entries after the ConstantPool header,
 *     Klass::_name, Symbol::_length/_body: "pkg.Class$Inner.method", as the JVM's perf map names it.
 * What the unwinder needs (codeFrame, Unwinder.Modules' convention): a compiled method's or
 * runtime stub's frame size in bytes (its caller's pc in the frame's last word, fp below it:
 * frame::sender_for_compiled_frame), 8 for a pc before its frame is complete (only the return
 * address pushed), the interpreter's sender-sp slot for an interpreter frame (frame-pointer
 * frames: frame::interpreter_frame_sender_sp_offset), 0 (frame pointers) for anything else.
 * An interpreter frame's Method* is at fp + 8 * (interpreter_frame_last_sp_offset - 1)
 * (interpreter_frame_method_offset, not exported, one below last_sp on every HotSpot port).
 *
 * Staleness: the JVM runs on while this reads (a profile drains its samples after the fact):
 * code freed and reused, a method unloaded. Blobs are cached by their address range (every pc of
 * a blob answers from it: a JVM's samples fall on many pcs of the same few methods), each checked
 * again once it is a second old by reading its header afresh (one read: the same block in use
 * with the same size, kind, offsets, frame size and Method* or name is the same answer; else it
 * is dropped and the pc looked up again). An nmethod's name is read once and kept with its blob,
 * as its frame size is: the same header is the same Method*, and an nmethod in use keeps its
 * method's class loaded (class unloading frees the nmethods of a class before its metadata, and a
 * freed blob fails its check); pcs in no blob and other Method* names (interpreter frames) are
 * cached for one second at most. Whatever fails to read or does not look right (a block not in use, a pc past
 * the blob, a symbol with a NUL or past its length, a name index past the pool) gives no answer:
 * the frame keeps its perf-map name or none. Nothing throws out of this class after of(). A blob
 * is found with two or three reads: the segment map back from the pc's segment in one piece, the
 * block's header and CodeBlob fields in another.
 *
 * Thread safety: immutable layout; the blob ranges are an immutable sorted index (Index) replaced
 * whole under the lock that adds (a stale blob is flagged dropped, and left out at the next merge)
 * behind a direct-mapped array of recently used blobs (racy slots of immutable headers: a lost
 * write costs an index search; a dropped blob is flagged, so no slot still holding it answers),
 * the other caches concurrent maps replaced wholesale on expiry; the /proc/PID/mem channel is
 * read with positional reads (pread), safe from several threads.
 */
package org.jdtrace.proc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

/** Another HotSpot JVM's code cache, interpreter and method names, read through /proc/PID/mem. */
public final class HotSpotVm implements AutoCloseable {

    /**
     * A code blob as its header says: its heap block, [start, end), kind (CodeBlobKind), code
     * start, frame bytes, frame-complete offset, nmethod's Method* or another blob's name pointer
     * (equal headers: the same answers).
     */
    record Header(long block, long start, long end, int kind, long code, long frameBytes, long complete,
            long method, long nameAddr) {
        /** The same header (a record's generated equals is an invokedynamic call, slow in C1). */
        boolean same(Header o) {
            return o != null && o.block == block && o.start == start && o.end == end && o.kind == kind && o.code == code
                    && o.frameBytes == frameBytes && o.complete == complete && o.method == method && o.nameAddr == nameAddr;
        }
    }

    /**
     * A cached blob: its header, its name (not an nmethod's), an nmethod's method's name once
     * read, when it was last read or checked, whether it was dropped (found stale or replaced: no
     * longer an answer).
     */
    static final class Blob {
        final Header h;
        final String name;
        volatile String method;
        volatile long checkedAt;
        volatile boolean dropped;

        Blob(Header h, String name, long checkedAt) {
            this.h = h;
            this.name = name;
            this.checkedAt = checkedAt;
        }

        /** Whether {@code pc} is in this blob's heap block. */
        boolean holds(long pc) {
            return Long.compareUnsigned(pc, h.block) >= 0 && Long.compareUnsigned(pc, h.end) < 0;
        }
    }

    private static final long WORD = 8;
    /** The bytes of a Symbol's body read with its length (a class or method name is mostly shorter). */
    private static final int SYMBOL_HEAD = 64;
    private static final long CACHE_NANOS = 1_000_000_000L;
    /**
     * Slots of the cache of blobs by pc (a power of two), the shift that takes a hash to one, and
     * the log2 of the bytes of code that share a slot (a leaf pc new to the cache still hits the
     * blob a pc near it put there).
     */
    private static final int RECENT = 4096, RECENT_SHIFT = 64 - 12, GRANULE = 7;
    private static final int CACHE_MAX = 1 << 16;

    private final int pid;
    private final FileChannel mem;
    /** The vmStructs entries of StructField and the values of VmValue by ordinal, ABSENT where the tables have none. */
    private final long[] fields, values;
    /** Each code heap: reserved low, reserved high, memory low, segment map low, log2 segment size. */
    private final long[][] heaps;
    private final long interpLow, interpHigh;
    private final long methodSlot, senderSlot;
    private final int kindNmethod, kindFirstStub, kindLastStub;
    /**
     * Where a block's header fields are, from the block: used flag, CodeBlob size, kind, code
     * offset, frame size, frame-complete offset, name, nmethod's method (-1: vmStructs has none),
     * and the bytes one read of a header takes.
     */
    private final long offBlob, offUsed, offSize, offKind, offCode, offFrame, offComplete, offName, offMethod;
    private final int headerBytes;

    /** The blobs kept (blob()): replaced whole under blobsLock, read without it. */
    private volatile Index blobs = Index.EMPTY;
    private final Object blobsLock = new Object();
    /**
     * In front of blobs: slot i holds a blob that held a pc whose hash picks i (a stack's pcs come
     * back), so a hit is one slot and two compares, without the index's search.
     */
    private final Blob[] recent = new Blob[RECENT];

    /**
     * Blobs by block address, immutable: those sorted (a binary search finds a pc's) and up to
     * ADDED more since, in the order they came (scanned). A dropped blob stays until the next
     * merge but is no answer; live blobs never overlap (adding one drops those it overlaps). Own
     * code rather than a ConcurrentSkipListMap: a JDK map called on recent's misses only stays
     * interpreted in the dtrace JVM (its compile thresholds are scaled up, this class's are not),
     * and an interpreted put's VarHandle CASes are slow.
     */
    static final class Index {
        static final int ADDED = 64;
        static final Index EMPTY = new Index(new long[0], new Blob[0], new Blob[0]);
        final long[] blocks;
        final Blob[] sorted, added;

        Index(long[] blocks, Blob[] sorted, Blob[] added) {
            this.blocks = blocks;
            this.sorted = sorted;
            this.added = added;
        }

        /** The live blob holding {@code pc}, or null. */
        Blob find(long pc) {
            // the nearest live blob at or below pc: live blobs do not overlap, so no earlier one holds it
            int at = floor(pc);
            while (at >= 0 && sorted[at].dropped) at--;
            if (at >= 0 && sorted[at].holds(pc)) return sorted[at];
            for (Blob b : added) {
                if (!b.dropped && b.holds(pc)) return b;
            }
            return null;
        }

        /** The index of the last sorted blob whose block is at or below {@code addr}, or -1. */
        private int floor(long addr) {
            int lo = 0, hi = blocks.length - 1, at = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (Long.compareUnsigned(blocks[mid], addr) <= 0) {
                    at = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return at;
        }

        /** This index with {@code b} added and the live blobs it overlaps dropped; merged (and the dropped left out) every ADDED. */
        Index with(Blob b) {
            // the live sorted blobs below b's end, back to the first that ends at or below its block
            for (int i = floor(b.h.end - 1); i >= 0; i--) {
                Blob o = sorted[i];
                if (o.dropped) continue;
                if (Long.compareUnsigned(o.h.end, b.h.block) <= 0) break;
                o.dropped = true;
            }
            for (Blob o : added) {
                if (Long.compareUnsigned(o.h.block, b.h.end) < 0 && Long.compareUnsigned(b.h.block, o.h.end) < 0) o.dropped = true;
            }
            Blob[] more = java.util.Arrays.copyOf(added, added.length + 1);
            more[added.length] = b;
            if (more.length < ADDED) return new Index(blocks, sorted, more);
            // insertion sort of the few added, then one merge with the sorted, the dropped left out
            for (int i = 1; i < more.length; i++) {
                Blob x = more[i];
                int j = i - 1;
                for (; j >= 0 && Long.compareUnsigned(more[j].h.block, x.h.block) > 0; j--) more[j + 1] = more[j];
                more[j + 1] = x;
            }
            Blob[] all = new Blob[sorted.length + more.length];
            int n = 0, i = 0, j = 0;
            while (i < sorted.length || j < more.length) {
                Blob next = j == more.length || i < sorted.length && Long.compareUnsigned(sorted[i].h.block, more[j].h.block) <= 0
                        ? sorted[i++] : more[j++];
                if (!next.dropped) all[n++] = next;
            }
            all = java.util.Arrays.copyOf(all, n);
            long[] at = new long[n];
            for (int k = 0; k < n; k++) at[k] = all[k].h.block;
            return new Index(at, all, new Blob[0]);
        }

        int size() {
            return blocks.length + added.length;
        }
    }
    /** pcs in no blob (cleared with the method names). */
    private volatile Map<Long, Boolean> noBlob = new ConcurrentHashMap<>();
    private volatile Map<Long, String> methods = new ConcurrentHashMap<>();
    private volatile long cachedAt = System.nanoTime();

    private HotSpotVm(int pid, FileChannel mem, long[] fields, long[] values) throws IOException {
        this.pid = pid;
        this.mem = mem;
        this.fields = fields;
        this.values = values;
        long heapList = word(field(StructField.CODE_CACHE_HEAPS));
        int n = (int) int32(heapList + field(StructField.GROWABLE_ARRAY_LEN));
        long data = word(heapList + field(StructField.GROWABLE_ARRAY_DATA));
        if (n < 0 || n > 16) throw new IOException("code heaps: " + n);
        heaps = new long[n][];
        long memory = field(StructField.CODE_HEAP_MEMORY), segmap = field(StructField.CODE_HEAP_SEGMAP);
        long lowBoundary = field(StructField.VIRTUAL_SPACE_LOW_BOUNDARY), highBoundary = field(StructField.VIRTUAL_SPACE_HIGH_BOUNDARY);
        long low = field(StructField.VIRTUAL_SPACE_LOW);
        for (int i = 0; i < n; i++) {
            long h = word(data + i * WORD);
            heaps[i] = new long[] {word(h + memory + lowBoundary), word(h + memory + highBoundary), word(h + memory + low),
                word(h + segmap + low), int32(h + field(StructField.CODE_HEAP_LOG2_SEGMENT_SIZE))};
        }
        long queue = word(field(StructField.INTERPRETER_CODE));
        interpLow = word(queue + field(StructField.STUB_QUEUE_STUB_BUFFER));
        interpHigh = interpLow + int32(queue + field(StructField.STUB_QUEUE_BUFFER_LIMIT));
        long lastSp = value(VmValue.INTERPRETER_FRAME_LAST_SP_OFFSET);
        methodSlot = (lastSp - 1) * WORD;
        senderSlot = -value(VmValue.INTERPRETER_FRAME_SENDER_SP_OFFSET) * WORD;
        kindNmethod = (int) value(VmValue.KIND_NMETHOD);
        kindFirstStub = (int) value(VmValue.KIND_RUNTIME_STUB);
        kindLastStub = (int) value(VmValue.KIND_UPCALL);
        long start = optional(values[VmValue.HEAP_BLOCK_SIZE.ordinal()]);
        offBlob = start;
        offUsed = plus(optional(StructField.HEAP_BLOCK_HEADER), optional(StructField.HEAP_BLOCK_HEADER_USED));
        offSize = plus(start, optional(StructField.CODE_BLOB_SIZE));
        offKind = plus(start, optional(StructField.CODE_BLOB_KIND));
        offCode = plus(start, optional(StructField.CODE_BLOB_CODE_OFFSET));
        offFrame = plus(start, optional(StructField.CODE_BLOB_FRAME_SIZE));
        offComplete = plus(start, optional(StructField.CODE_BLOB_FRAME_COMPLETE_OFFSET));
        offName = plus(start, optional(StructField.CODE_BLOB_NAME));
        offMethod = plus(start, optional(StructField.NMETHOD_METHOD));
        long most = 0;
        for (long o : new long[] {offUsed, offSize, offKind, offCode, offFrame, offComplete, offName, offMethod}) {
            most = Math.max(most, o + WORD);
        }
        headerBytes = (int) Math.min(most, 4096);
    }

    /** A table's value, -1 when it has none (or a negative one). */
    private static long optional(long v) {
        return v == ABSENT || v < 0 ? -1 : v;
    }

    /** A field's offset, -1 when vmStructs has none. */
    private long optional(StructField f) {
        return optional(fields[f.ordinal()]);
    }

    /** a + b, -1 when a or b is -1 (a field vmStructs does not have). */
    private static long plus(long a, long b) {
        return a < 0 || b < 0 ? -1 : a + b;
    }

    /**
     * The HotSpot JVM running as {@code pid}, or null when it is none (no libjvm.so mapped, no
     * vmStructs) or its memory cannot be read. Close it when done (it holds /proc/PID/mem open).
     */
    public static HotSpotVm of(int pid) {
        FileChannel ch = null;
        try {
            // the load bias from libjvm.so's code mapping: another mapping of the file (one a
            // reader of it mmap()ed, this JVM's own ElfFile of its libjvm.so) is no part of the image
            String lib = null;
            long codeStart = 0, codeOffset = 0;
            for (Procfs.Mapping m : Procfs.maps(pid, "/libjvm.so")) {
                if (!m.executable()) continue;
                lib = m.path();
                codeStart = m.start();
                codeOffset = m.offset();
                break;
            }
            if (lib == null) return null;
            Map<String, Long> sym = new HashMap<>();
            try (ElfFile elf = ElfFile.open(Procfs.file(pid, "root" + lib))) {
                long bias = ElfSegment.loadBias(elf.segments(), codeStart, codeOffset);
                if (bias == Long.MIN_VALUE) return null;
                for (ElfSymbol s : elf.dynamicSymbols("gHotSpotVM")) {
                    if (s.isDefined()) sym.put(s.name(), s.value() + bias);
                }
            }
            if (!sym.containsKey("gHotSpotVMStructs")) return null;
            FileChannel c = FileChannel.open(Procfs.file(pid, "mem"), StandardOpenOption.READ);
            ch = c;
            Pages m = new Pages(c);
            long[] fields = readStructs(m, sym);
            long[] values = absent(VmValue.values().length);
            readValues(m, sym, true, values);
            readValues(m, sym, false, values);
            HotSpotVm vm = new HotSpotVm(pid, ch, fields, values);
            ch = null;
            return vm;
        } catch (Exception | AssertionError e) {
            return null;
        } finally {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing held
                }
            }
        }
    }

    /** Where a value is missing from the tables (a constant is an int, a size or offset never this). */
    private static final long ABSENT = Long.MIN_VALUE;

    /** The vmStructs fields (an offset) and statics (an address) this class reads. */
    private enum StructField {
        CODE_CACHE_HEAPS("CodeCache", "_heaps"),
        GROWABLE_ARRAY_LEN("GrowableArrayBase", "_len"),
        GROWABLE_ARRAY_DATA("GrowableArray<int>", "_data"),
        CODE_HEAP_MEMORY("CodeHeap", "_memory"),
        CODE_HEAP_SEGMAP("CodeHeap", "_segmap"),
        CODE_HEAP_LOG2_SEGMENT_SIZE("CodeHeap", "_log2_segment_size"),
        VIRTUAL_SPACE_LOW_BOUNDARY("VirtualSpace", "_low_boundary"),
        VIRTUAL_SPACE_HIGH_BOUNDARY("VirtualSpace", "_high_boundary"),
        VIRTUAL_SPACE_LOW("VirtualSpace", "_low"),
        INTERPRETER_CODE("AbstractInterpreter", "_code"),
        STUB_QUEUE_STUB_BUFFER("StubQueue", "_stub_buffer"),
        STUB_QUEUE_BUFFER_LIMIT("StubQueue", "_buffer_limit"),
        HEAP_BLOCK_HEADER("HeapBlock", "_header"),
        HEAP_BLOCK_HEADER_USED("HeapBlock::Header", "_used"),
        CODE_BLOB_SIZE("CodeBlob", "_size"),
        CODE_BLOB_KIND("CodeBlob", "_kind"),
        CODE_BLOB_CODE_OFFSET("CodeBlob", "_code_offset"),
        CODE_BLOB_FRAME_SIZE("CodeBlob", "_frame_size"),
        CODE_BLOB_FRAME_COMPLETE_OFFSET("CodeBlob", "_frame_complete_offset"),
        CODE_BLOB_NAME("CodeBlob", "_name"),
        NMETHOD_METHOD("nmethod", "_method"),
        METHOD_CONST_METHOD("Method", "_constMethod"),
        CONST_METHOD_CONSTANTS("ConstMethod", "_constants"),
        CONST_METHOD_NAME_INDEX("ConstMethod", "_name_index"),
        CONSTANT_POOL_LENGTH("ConstantPool", "_length"),
        CONSTANT_POOL_POOL_HOLDER("ConstantPool", "_pool_holder"),
        KLASS_NAME("Klass", "_name"),
        SYMBOL_LENGTH("Symbol", "_length"),
        SYMBOL_BODY("Symbol", "_body");

        final String type, field;
        final byte[] fieldBytes;

        StructField(String type, String field) {
            this.type = type;
            this.field = field;
            this.fieldBytes = field.getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public String toString() {
            return type + "::" + field;
        }
    }

    /** The vmTypes sizes ({@code isSize}) and vmIntConstants values this class reads. */
    private enum VmValue {
        HEAP_BLOCK_SIZE(true, "HeapBlock"),
        CONSTANT_POOL_SIZE(true, "ConstantPool"),
        INTERPRETER_FRAME_LAST_SP_OFFSET(false, "frame::interpreter_frame_last_sp_offset"),
        INTERPRETER_FRAME_SENDER_SP_OFFSET(false, "frame::interpreter_frame_sender_sp_offset"),
        KIND_NMETHOD(false, "CodeBlobKind::Nmethod"),
        KIND_RUNTIME_STUB(false, "CodeBlobKind::RuntimeStub"),
        KIND_UPCALL(false, "CodeBlobKind::Upcall");

        final boolean isSize;
        final String name;

        VmValue(boolean isSize, String name) {
            this.isSize = isSize;
            this.name = name;
        }
    }

    /**
     * gHotSpotVMStructs' entries of StructField, by ordinal: a static's address, a field's
     * offset; the last entry of a name wins. Entries are matched on their names' bytes where they
     * lie (no String per entry); entries of one type share its name's address, so a type is
     * compared once per run of its entries.
     */
    private static long[] readStructs(Pages m, Map<String, Long> sym) throws IOException {
        StructField[] wanted = StructField.values();
        // the wanted types' names, and each field's type among them
        byte[][] types = new byte[wanted.length][];
        int[] typeOf = new int[wanted.length];
        int nTypes = 0;
        for (int f = 0; f < wanted.length; f++) {
            int t = 0;
            while (t < f && !wanted[t].type.equals(wanted[f].type)) t++;
            typeOf[f] = t < f ? typeOf[t] : nTypes++;
            if (t == f) types[typeOf[f]] = wanted[f].type.getBytes(StandardCharsets.ISO_8859_1);
        }
        types = java.util.Arrays.copyOf(types, nTypes);
        String prefix = "gHotSpotVMStructEntry";
        long oType = m.word(need(sym, prefix + "TypeNameOffset")), oField = m.word(need(sym, prefix + "FieldNameOffset"));
        long oStatic = m.word(need(sym, prefix + "IsStaticOffset")), oOffset = m.word(need(sym, prefix + "OffsetOffset"));
        long oAddress = m.word(need(sym, prefix + "AddressOffset"));
        long[] out = absent(wanted.length);
        long lastType = 0;
        int type = -1;
        long stride = stride(m, sym, "gHotSpotVMStructs", prefix), e = m.word(need(sym, "gHotSpotVMStructs"));
        for (int i = 0; i < MAX_ENTRIES; i++, e += stride) {
            long typeName = m.word(e + oType);
            if (typeName == 0) return out;
            if (typeName != lastType) {
                lastType = typeName;
                type = m.match(typeName, types);
            }
            if (type < 0) continue;
            long fieldName = m.word(e + oField);
            for (int f = 0; f < wanted.length; f++) {
                if (typeOf[f] == type && m.equals(fieldName, wanted[f].fieldBytes)) {
                    out[f] = m.word(e + (m.int32(e + oStatic) != 0 ? oAddress : oOffset));
                }
            }
        }
        throw new IOException("gHotSpotVMStructs has no end");
    }

    /**
     * The VmValue entries of a table of names and values into {@code out}, by ordinal: those of
     * gHotSpotVMTypes' sizes (a word; {@code sizes}) or of gHotSpotVMIntConstants' values (an int).
     */
    private static void readValues(Pages m, Map<String, Long> sym, boolean sizes, long[] out) throws IOException {
        String table = sizes ? "gHotSpotVMTypes" : "gHotSpotVMIntConstants";
        String prefix = sizes ? "gHotSpotVMTypeEntry" : "gHotSpotVMIntConstantEntry";
        long oName = m.word(need(sym, prefix + (sizes ? "TypeName" : "Name") + "Offset"));
        long oValue = m.word(need(sym, prefix + (sizes ? "Size" : "Value") + "Offset"));
        VmValue[] all = VmValue.values();
        byte[][] want = new byte[all.length][];
        for (VmValue v : all) want[v.ordinal()] = v.isSize == sizes ? v.name.getBytes(StandardCharsets.ISO_8859_1) : null;
        long stride = stride(m, sym, table, prefix), e = m.word(need(sym, table));
        for (int n = 0; n < MAX_ENTRIES; n++, e += stride) {
            long name = m.word(e + oName);
            if (name == 0) return;
            int i = m.match(name, want);
            if (i >= 0) out[i] = sizes ? m.word(e + oValue) : m.int32(e + oValue);
        }
        throw new IOException(table + " has no end");
    }

    /** A table's entry size ({@code prefix}ArrayStride): more than 0, at most 256. */
    private static long stride(Pages m, Map<String, Long> sym, String table, String prefix) throws IOException {
        long s = m.word(need(sym, prefix + "ArrayStride"));
        if (s <= 0 || s > 256) throw new IOException(table + " stride " + s);
        return s;
    }

    /** Entries a table must end within (a null name): a table without one is not read on. */
    private static final int MAX_ENTRIES = 100_000;

    private static long[] absent(int n) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, ABSENT);
        return a;
    }

    /**
     * The JVM's memory as of() reads it, a page at a time, each page read once: the vmStructs
     * tables and the names they point to are libjvm.so's static data, which does not change, and
     * a word and a string read each with its own pread made thousands of system calls per JVM (a
     * whole-machine profile meets every JVM that starts). Cheap per byte: the dtrace JVM reads its
     * own tables in its first seconds, interpreted, so a word or a name is read from its page's
     * array in place, and the pages in use sit in a small direct-mapped cache in front of the map
     * (no boxed key per read).
     */
    private static final class Pages {
        private static final int PAGE = 4096;
        private static final int SLOTS = 16;
        private final FileChannel ch;
        private final Map<Long, byte[]> pages = new HashMap<>();
        /** The cache in front of pages: slot i holds page tag[i] (0: none), indexed by page number. */
        private final long[] tag = new long[SLOTS];
        private final byte[][] slot = new byte[SLOTS][];
        Pages(FileChannel ch) {
            this.ch = ch;
        }

        /** The page holding {@code addr} (shorter than PAGE where the memory ends early). */
        private byte[] page(long addr) throws IOException {
            if (addr <= 0) throw new IOException("address 0x" + Long.toHexString(addr));
            long page = addr & -PAGE;
            int i = (int) (page >>> 12) & (SLOTS - 1);
            if (tag[i] == page) return slot[i];
            byte[] b = pages.get(page);
            if (b == null) {
                b = new byte[PAGE];
                int got = readSome(ch, page, b);
                if (got < PAGE) b = java.util.Arrays.copyOf(b, got);
                pages.put(page, b);
            }
            tag[i] = page;
            slot[i] = b;
            return b;
        }

        /** The byte at {@code addr}, or -1 where the memory cannot be read. */
        private int at(long addr) throws IOException {
            byte[] b = page(addr);
            int i = (int) (addr & (PAGE - 1));
            return i < b.length ? b[i] & 0xff : -1;
        }

        private long bytes(long addr, int n) throws IOException {
            byte[] b = page(addr);
            int i = (int) (addr & (PAGE - 1));
            long v = 0;
            if (i + n <= b.length) { // in one page
                for (int k = i + n - 1; k >= i; k--) v = v << 8 | (b[k] & 0xff);
                return v;
            }
            for (int k = n - 1; k >= 0; k--) {
                int x = at(addr + k);
                if (x < 0) throw new IOException("cannot read 0x" + Long.toHexString(addr));
                v = v << 8 | x;
            }
            return v;
        }

        long word(long addr) throws IOException {
            return bytes(addr, 8);
        }

        long int32(long addr) throws IOException {
            return (int) bytes(addr, 4);
        }

        /**
         * Whether the NUL-terminated string at {@code addr} is {@code want}: compared where it
         * lies, up to the first byte that differs (a name not wanted is not read to its end).
         */
        boolean equals(long addr, byte[] want) throws IOException {
            byte[] b = page(addr);
            int i = (int) (addr & (PAGE - 1)), n = want.length;
            if (i + n < b.length) { // the name and its NUL in one page
                for (int k = 0; k < n; k++) {
                    if (b[i + k] != want[k]) return false;
                }
                return b[i + n] == 0;
            }
            for (int k = 0; k <= n; k++) {
                int x = at(addr + k);
                if (x < 0) throw new IOException("no string end at 0x" + Long.toHexString(addr));
                if (x != (k < n ? want[k] & 0xff : 0)) return false;
            }
            return true;
        }

        /** The index in {@code names} of the NUL-terminated string at {@code addr} (null names: none), or -1. */
        int match(long addr, byte[][] names) throws IOException {
            for (int i = 0; i < names.length; i++) {
                if (names[i] != null && equals(addr, names[i])) return i;
            }
            return -1;
        }
    }

    private static long need(Map<String, Long> sym, String name) throws IOException {
        Long v = sym.get(name);
        if (v == null) throw new IOException("no " + name);
        return v;
    }

    public int pid() {
        return pid;
    }

    /** True when {@code pc} is in the interpreter's code. */
    public boolean isInterpreter(long pc) {
        return Long.compareUnsigned(pc, interpLow) >= 0 && Long.compareUnsigned(pc, interpHigh) < 0;
    }

    /**
     * How the unwinder leaves a frame at {@code pc} (Unwinder.Modules.codeFrame's convention):
     * a compiled method's or runtime stub's frame size in bytes, 8 before its frame is complete,
     * -(the interpreter's sender-sp slot below fp) in the interpreter, 0 (frame pointers) else.
     */
    public long codeFrame(long pc) {
        if (isInterpreter(pc)) return -senderSlot;
        Blob b = blob(pc);
        if (b == null || b.h.frameBytes <= 0) return 0;
        if (b.h.kind != kindNmethod && (b.h.kind < kindFirstStub || b.h.kind > kindLastStub)) return 0;
        if (b.h.complete >= 0 && pc < b.h.code + b.h.complete) return WORD;
        return b.h.frameBytes;
    }

    /**
     * {@code pc} named as the JVM's perf map names it: a compiled method's {@code pkg.Class.method},
     * another blob by its own name, the interpreter as {@code Interpreter}; {@code +0xoff} from
     * the code's start. Null when no blob holds it or its name cannot be read.
     */
    public String describe(long pc) {
        String name;
        long off;
        if (isInterpreter(pc)) {
            name = "Interpreter";
            off = pc - interpLow;
        } else {
            Blob b = blob(pc);
            if (b == null) return null;
            name = b.h.kind == kindNmethod ? b.method : b.name;
            if (name == null && b.h.kind == kindNmethod) b.method = name = methodName(b.h.method);
            off = pc - b.h.code;
            if (name == null || off < 0) return null;
        }
        return off == 0 ? name : name + "+0x" + Long.toHexString(off);
    }

    /**
     * The method of the interpreter frame whose fp is {@code fp}, read from its Method* slot in
     * {@code stack} (the thread's stack as captured, or live), as {@code pkg.Class.method}; null
     * when the slot cannot be read or does not hold a method.
     */
    public String interpretedMethod(long fp, Memory stack) {
        if (fp == 0) return null;
        long m;
        try {
            m = stack.readLong(fp + methodSlot);
        } catch (IsaException | RuntimeException e) {
            return null;
        }
        return methodName(m);
    }

    /**
     * jstack()'s name of the frame at {@code pc} with frame pointer {@code fp} when it is an
     * interpreter frame: {@code [interpreter]`pkg.Class.method}, or {@code [interpreter]} when its
     * method cannot be read from {@code stack}; null for any other frame.
     */
    public String interpreterFrame(long pc, long fp, Memory stack) {
        if (!isInterpreter(pc)) return null;
        String m = interpretedMethod(fp, stack);
        return m == null ? "[interpreter]" : "[interpreter]`" + m;
    }

    /** A Method*'s {@code pkg.Class.method}, or null. */
    public String methodName(long method) {
        if (method == 0 || (method & (WORD - 1)) != 0) return null;
        expire(System.nanoTime());
        Map<Long, String> cache = methods;
        String cached = cache.get(method);
        if (cached != null) return cached.isEmpty() ? null : cached;
        String name = null;
        try {
            // each structure's fields in one read: seven reads a name (five with the symbols' bodies)
            long cm = word(method + field(StructField.METHOD_CONST_METHOD));
            long oConstants = field(StructField.CONST_METHOD_CONSTANTS), oIndex = field(StructField.CONST_METHOD_NAME_INDEX);
            long[] c = fields(cm, oConstants, 8, oIndex, 2);
            long cp = c[0];
            int index = (int) c[1];
            long[] p = fields(cp, field(StructField.CONSTANT_POOL_LENGTH), 4, field(StructField.CONSTANT_POOL_POOL_HOLDER), 8);
            int length = (int) p[0];
            if (index > 0 && index < length) {
                String klass = symbol(word(p[1] + field(StructField.KLASS_NAME)));
                String member = symbol(word(cp + value(VmValue.CONSTANT_POOL_SIZE) + index * WORD));
                if (klass != null && member != null) name = klass.replace('/', '.') + "." + member;
            }
        } catch (IOException | RuntimeException e) {
            // unloaded, freed, not a method: unnamed
        }
        if (cache.size() < CACHE_MAX) cache.put(method, name == null ? "" : name);
        return name;
    }

    /**
     * Two fields of the structure at {@code addr}, at offsets {@code a} and {@code b}, of 2
     * (unsigned), 4 (signed) or 8 bytes, in one read; fields more than a page apart are not read.
     */
    private long[] fields(long addr, long a, int aBytes, long b, int bBytes) throws IOException {
        long lo = Math.min(a, b), hi = Math.max(a + aBytes, b + bBytes);
        if (hi - lo > 4096) throw new IOException("fields at " + a + " and " + b + " more than a page apart");
        byte[] bytes = new byte[(int) (hi - lo)];
        read(mem, addr + lo, bytes);
        ByteBuffer f = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return new long[] {field(f, (int) (a - lo), aBytes), field(f, (int) (b - lo), bBytes)};
    }

    private static long field(ByteBuffer f, int at, int bytes) {
        return bytes == 2 ? Short.toUnsignedInt(f.getShort(at)) : bytes == 4 ? f.getInt(at) : f.getLong(at);
    }

    /** A Symbol's text, or null when it does not look like one (a NUL, a control byte, no length). */
    private String symbol(long sym) throws IOException {
        if (sym == 0) return null;
        // the length and the body's first SYMBOL_HEAD bytes in one read (most names are shorter),
        // the rest of the body in a second
        long oLength = field(StructField.SYMBOL_LENGTH), oBody = field(StructField.SYMBOL_BODY);
        long lo = Math.min(oLength, oBody), hi = Math.max(oLength + 2, oBody + SYMBOL_HEAD);
        if (hi - lo > 4096) throw new IOException("Symbol fields more than a page apart");
        byte[] head = new byte[(int) (hi - lo)];
        int got = readSome(mem, sym + lo, head); // less near the end of a mapping
        int at = (int) (oLength - lo);
        if (got < at + 2) throw new IOException("cannot read 0x" + Long.toHexString(sym));
        int len = (head[at] & 0xff) | (head[at + 1] & 0xff) << 8;
        if (len == 0 || len > 4096) return null;
        byte[] b = new byte[len];
        int have = (int) Math.max(0, Math.min(len, got - (oBody - lo)));
        System.arraycopy(head, (int) (oBody - lo), b, 0, have);
        if (have < len) {
            byte[] rest = new byte[len - have];
            read(mem, sym + oBody + have, rest);
            System.arraycopy(rest, 0, b, have, rest.length);
        }
        for (byte x : b) {
            if (x >= 0 && x < 0x20) return null;
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    /** The code blob holding {@code pc} (CodeHeap::find_start), or null. */
    private Blob blob(long pc) {
        long now = System.nanoTime();
        expire(now);
        long granule = pc >>> GRANULE;
        int slot = recentSlot(granule);
        Blob b = recent[slot];
        // a pc new to its granule is mostly in the blob of the granule before or after it
        if (!answers(b, pc)) b = recent[recentSlot(granule - 1)];
        if (!answers(b, pc)) b = recent[recentSlot(granule + 1)];
        if (!answers(b, pc)) b = blobs.find(pc);
        if (b != null) {
            if (now - b.checkedAt <= CACHE_NANOS || check(b, now)) {
                recent[slot] = b;
                return b;
            }
            b.dropped = true; // found stale: no slot answers with it
        }
        if (!inHeap(pc)) return null;
        Map<Long, Boolean> none = noBlob;
        if (none.containsKey(pc)) return null;
        b = findBlob(pc);
        if (b == null) {
            if (none.size() < CACHE_MAX) none.put(pc, Boolean.TRUE);
            return null;
        }
        synchronized (blobsLock) {
            Index index = blobs;
            if (index.size() >= CACHE_MAX) {
                for (Blob o : index.sorted) o.dropped = true;
                for (Blob o : index.added) o.dropped = true;
                index = Index.EMPTY;
            }
            // blocks do not overlap: one cached over this one's range is stale
            blobs = index.with(b);
        }
        recent[slot] = b;
        return b;
    }

    /** The slot of recent that a granule of code falls on. */
    private static int recentSlot(long granule) {
        return (int) ((granule * 0x9E3779B97F4A7C15L) >>> RECENT_SHIFT);
    }

    /** Whether a slot's blob {@code b} is a live one holding {@code pc}. */
    private static boolean answers(Blob b, long pc) {
        return b != null && !b.dropped && b.holds(pc);
    }

    /** Whether {@code pc} is in a code heap's reserved range. */
    private boolean inHeap(long pc) {
        for (long[] h : heaps) {
            if (Long.compareUnsigned(pc, h[0]) >= 0 && Long.compareUnsigned(pc, h[1]) < 0) return true;
        }
        return false;
    }

    /**
     * Whether {@code b}, more than CACHE_NANOS old, still has its header (the same block in use
     * with the same fields: the same blob), read {@code now}; if so it is checked as of now.
     */
    private boolean check(Blob b, long now) {
        boolean same = b.h.same(header(b.h.block));
        if (same) b.checkedAt = now;
        return same;
    }

    private Blob findBlob(long pc) {
        for (long[] h : heaps) {
            if (Long.compareUnsigned(pc, h[0]) < 0 || Long.compareUnsigned(pc, h[1]) >= 0) continue;
            try {
                long seg = (pc - h[2]) >>> h[4];
                // the segment map back from seg, read a piece at a time (a block's first segment is
                // at most a few hops back, each at most 0xfe segments)
                byte[] map = new byte[256];
                long mapLow = -1;
                for (int hops = 0; ; hops++) {
                    if (mapLow < 0 || seg < mapLow) {
                        mapLow = Math.max(0, seg - (map.length - 1));
                        read(mem, h[3] + mapLow, map, (int) (seg - mapLow + 1));
                    }
                    int v = map[(int) (seg - mapLow)] & 0xff;
                    if (v == 0xff || hops > 100_000) return null; // an unused segment, or a map gone wrong
                    if (v == 0) break;
                    seg -= v;
                    if (seg < 0) return null;
                }
                Header hd = header(h[2] + (seg << h[4]));
                if (hd == null || Long.compareUnsigned(pc, hd.end) >= 0) return null;
                String name = hd.kind == kindNmethod ? null : cString(hd.nameAddr);
                return new Blob(hd, name, System.nanoTime());
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /** The header of the code blob in heap block {@code block}, in one read; null when it is not in use or cannot be read. */
    private Header header(long block) {
        if (headerBytes <= 0 || offBlob < 0 || offUsed < 0 || offSize < 0 || offKind < 0 || offCode < 0 || offFrame < 0 || offComplete < 0) {
            return null;
        }
        byte[] b = new byte[headerBytes];
        try {
            read(mem, block, b);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        if (h.get((int) offUsed) == 0) return null; // a free block
        long start = block + offBlob;
        long end = start + h.getInt((int) offSize);
        int kind = h.get((int) offKind) & 0xff;
        long code = start + h.getInt((int) offCode);
        long frame = h.getInt((int) offFrame) * WORD;
        long complete = h.getShort((int) offComplete);
        long method = 0, nameAddr = 0;
        if (kind == kindNmethod) {
            if (offMethod < 0) return null;
            method = h.getLong((int) offMethod);
        } else {
            if (offName < 0) return null;
            nameAddr = h.getLong((int) offName);
        }
        return new Header(block, start, end, kind, code, frame, complete, method, nameAddr);
    }

    /** Empties the caches of method names and of pcs in no blob once they are older than CACHE_NANOS (methods unloaded, code made). */
    private void expire(long now) {
        if (now - cachedAt > CACHE_NANOS) {
            cachedAt = now;
            noBlob = new ConcurrentHashMap<>();
            methods = new ConcurrentHashMap<>();
        }
    }

    private long field(StructField f) throws IOException {
        long v = fields[f.ordinal()];
        if (v == ABSENT) throw new IOException("vmStructs has no " + f);
        return v;
    }

    private long value(VmValue v) throws IOException {
        long x = values[v.ordinal()];
        if (x == ABSENT) throw new IOException((v.isSize ? "vmTypes" : "vmIntConstants") + " has no " + v.name);
        return x;
    }

    private long word(long addr) throws IOException {
        return word(mem, addr);
    }

    private long int32(long addr) throws IOException {
        return int32(mem, addr);
    }

    private String cString(long addr) throws IOException {
        return string(mem, addr);
    }

    private static long word(FileChannel ch, long addr) throws IOException {
        byte[] b = new byte[8];
        read(ch, addr, b);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static long int32(FileChannel ch, long addr) throws IOException {
        byte[] b = new byte[4];
        read(ch, addr, b);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    private static String string(FileChannel ch, long addr) throws IOException {
        if (addr == 0) return null;
        byte[] b = new byte[128];
        StringBuilder s = new StringBuilder();
        for (int part = 0; part < 8; part++) {
            int got = readSome(ch, addr + part * 128L, b);
            for (int i = 0; i < got; i++) {
                if (b[i] == 0) return s.toString();
                s.append((char) (b[i] & 0xff));
            }
            if (got < b.length) break;
        }
        throw new IOException("no string end at 0x" + Long.toHexString(addr));
    }

    private static void read(FileChannel ch, long addr, byte[] b) throws IOException {
        read(ch, addr, b, b.length);
    }

    /** Reads {@code b[0..len)} at {@code addr}. */
    private static void read(FileChannel ch, long addr, byte[] b, int len) throws IOException {
        if (readSome(ch, addr, b, len) != len) throw new IOException("cannot read 0x" + Long.toHexString(addr));
    }

    private static int readSome(FileChannel ch, long addr, byte[] b) throws IOException {
        return readSome(ch, addr, b, b.length);
    }

    private static int readSome(FileChannel ch, long addr, byte[] b, int len) throws IOException {
        if (addr <= 0) throw new IOException("address 0x" + Long.toHexString(addr));
        ByteBuffer buf = ByteBuffer.wrap(b, 0, len);
        while (buf.hasRemaining()) {
            int r = ch.read(buf, addr + buf.position());
            if (r <= 0) break;
        }
        return buf.position();
    }

    @Override
    public void close() {
        try {
            mem.close();
        } catch (IOException e) {
            // nothing held
        }
    }

    @Override
    public String toString() {
        return "HotSpotVm[" + pid + ", " + heaps.length + " code heaps, interpreter 0x" + Long.toHexString(interpLow) + "]";
    }
}
