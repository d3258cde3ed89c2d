/*
 * HotSpotVm: what another HotSpot JVM's own structures say about its Java frames, read from
 * /proc/PID/mem without stopping or attaching to it (what the serviceability agent does through
 * ptrace, here read-only). libjvm.so exports its vmStructs tables (gHotSpotVMStructs,
 * gHotSpotVMTypes, gHotSpotVMIntConstants and the gHotSpotVM*Offset/ArrayStride symbols that
 * describe their entries): each field's offset, each type's size, each static's address, so
 * nothing here depends on one JDK build's layout. From them:
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
 * is dropped and the pc looked up again); pcs in no blob and Method* names are cached for one
 * second at most. Whatever fails to read or does not look right (a block not in use, a pc past
 * the blob, a symbol with a NUL or past its length, a name index past the pool) gives no answer:
 * the frame keeps its perf-map name or none. Nothing throws out of this class after of(). A blob
 * is found with two or three reads: the segment map back from the pc's segment in one piece, the
 * block's header and CodeBlob fields in another.
 *
 * Thread safety: immutable layout; the blob ranges are a concurrent sorted map (a stale entry is
 * replaced under the lock that adds), the other caches concurrent maps replaced wholesale on
 * expiry; the /proc/PID/mem channel is read with positional reads (pread), safe from several
 * threads.
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
    private record Header(long block, long start, long end, int kind, long code, long frameBytes, long complete,
            long method, long nameAddr) {
        /** The same header (a record's generated equals is an invokedynamic call, slow in C1). */
        boolean same(Header o) {
            return o != null && o.block == block && o.start == start && o.end == end && o.kind == kind && o.code == code
                    && o.frameBytes == frameBytes && o.complete == complete && o.method == method && o.nameAddr == nameAddr;
        }
    }

    /** A cached blob: its header, its name (not an nmethod's), when it was last read or checked. */
    private static final class Blob {
        final Header h;
        final String name;
        volatile long checkedAt;

        Blob(Header h, String name, long checkedAt) {
            this.h = h;
            this.name = name;
            this.checkedAt = checkedAt;
        }
    }

    private static final long WORD = 8;
    private static final long CACHE_NANOS = 1_000_000_000L;
    private static final int CACHE_MAX = 1 << 16;

    private final int pid;
    private final FileChannel mem;
    private final Map<String, Long> fields, types, constants;
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

    /** Blobs by their block address (blob()), and lock for changing it. */
    private final java.util.concurrent.ConcurrentSkipListMap<Long, Blob> blobs = new java.util.concurrent.ConcurrentSkipListMap<>();
    private final Object blobsLock = new Object();
    /** Guarded by blobsLock: about how many blobs are kept (a map's size() sums a counter). */
    private int blobCount;
    /** pcs in no blob (cleared with the method names). */
    private volatile Map<Long, Boolean> noBlob = new ConcurrentHashMap<>();
    private volatile Map<Long, String> methods = new ConcurrentHashMap<>();
    private volatile long cachedAt = System.nanoTime();

    private HotSpotVm(int pid, FileChannel mem, Map<String, Long> fields, Map<String, Long> types,
            Map<String, Long> constants) throws IOException {
        this.pid = pid;
        this.mem = mem;
        this.fields = fields;
        this.types = types;
        this.constants = constants;
        long heapList = word(field("CodeCache::_heaps"));
        int n = (int) int32(heapList + field("GrowableArrayBase::_len"));
        long data = word(heapList + field("GrowableArray<int>::_data"));
        if (n < 0 || n > 16) throw new IOException("code heaps: " + n);
        heaps = new long[n][];
        long memory = field("CodeHeap::_memory"), segmap = field("CodeHeap::_segmap");
        long lowBoundary = field("VirtualSpace::_low_boundary"), highBoundary = field("VirtualSpace::_high_boundary");
        long low = field("VirtualSpace::_low");
        for (int i = 0; i < n; i++) {
            long h = word(data + i * WORD);
            heaps[i] = new long[] {word(h + memory + lowBoundary), word(h + memory + highBoundary), word(h + memory + low),
                word(h + segmap + low), int32(h + field("CodeHeap::_log2_segment_size"))};
        }
        long queue = word(field("AbstractInterpreter::_code"));
        interpLow = word(queue + field("StubQueue::_stub_buffer"));
        interpHigh = interpLow + int32(queue + field("StubQueue::_buffer_limit"));
        long lastSp = constant("frame::interpreter_frame_last_sp_offset");
        methodSlot = (lastSp - 1) * WORD;
        senderSlot = -constant("frame::interpreter_frame_sender_sp_offset") * WORD;
        kindNmethod = (int) constant("CodeBlobKind::Nmethod");
        kindFirstStub = (int) constant("CodeBlobKind::RuntimeStub");
        kindLastStub = (int) constant("CodeBlobKind::Upcall");
        long heapBlock = optional(types, "HeapBlock");
        long start = heapBlock < 0 ? -1 : heapBlock;
        offBlob = start;
        offUsed = plus(optional(fields, "HeapBlock::_header"), optional(fields, "HeapBlock::Header::_used"), 0);
        offSize = plus(start, optional(fields, "CodeBlob::_size"), 0);
        offKind = plus(start, optional(fields, "CodeBlob::_kind"), 0);
        offCode = plus(start, optional(fields, "CodeBlob::_code_offset"), 0);
        offFrame = plus(start, optional(fields, "CodeBlob::_frame_size"), 0);
        offComplete = plus(start, optional(fields, "CodeBlob::_frame_complete_offset"), 0);
        offName = plus(start, optional(fields, "CodeBlob::_name"), 0);
        offMethod = plus(start, optional(fields, "nmethod::_method"), 0);
        long most = 0;
        for (long o : new long[] {offUsed, offSize, offKind, offCode, offFrame, offComplete, offName, offMethod}) {
            most = Math.max(most, o + WORD);
        }
        headerBytes = (int) Math.min(most, 4096);
    }

    /** A table's value, -1 when it has none. */
    private static long optional(Map<String, Long> table, String name) {
        Long v = table.get(name);
        return v == null || v < 0 ? -1 : v;
    }

    /** a + b + c, -1 when a or b is -1 (a field vmStructs does not have). */
    private static long plus(long a, long b, long c) {
        return a < 0 || b < 0 ? -1 : a + b + c;
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
            for (Procfs.Mapping m : Procfs.maps(pid)) {
                if (!m.path().endsWith("/libjvm.so") || !m.executable()) continue;
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
                for (ElfSymbol s : elf.dynamicSymbols()) {
                    if (s.isDefined() && s.name().startsWith("gHotSpotVM")) sym.put(s.name(), s.value() + bias);
                }
            }
            if (!sym.containsKey("gHotSpotVMStructs")) return null;
            FileChannel c = FileChannel.open(Procfs.file(pid, "mem"), StandardOpenOption.READ);
            ch = c;
            Pages m = new Pages(c);
            Map<String, Long> fields = new HashMap<>(), types = new HashMap<>(), constants = new HashMap<>();
            readTable(m, sym, "gHotSpotVMStructs", "gHotSpotVMStructEntry", (e, o) -> {
                String type = m.string(m.word(e + o.get("TypeName"))), name = m.string(m.word(e + o.get("FieldName")));
                boolean isStatic = m.int32(e + o.get("IsStatic")) != 0;
                fields.put(type + "::" + name, m.word(e + (isStatic ? o.get("Address") : o.get("Offset"))));
            }, "TypeName", "FieldName", "IsStatic", "Offset", "Address");
            readTable(m, sym, "gHotSpotVMTypes", "gHotSpotVMTypeEntry",
                    (e, o) -> types.put(m.string(m.word(e + o.get("TypeName"))), m.word(e + o.get("Size"))), "TypeName", "Size");
            readTable(m, sym, "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntry",
                    (e, o) -> constants.put(m.string(m.word(e + o.get("Name"))), m.int32(e + o.get("Value"))), "Name", "Value");
            HotSpotVm vm = new HotSpotVm(pid, ch, fields, types, constants);
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

    private interface Entry {
        void read(long entry, Map<String, Long> offsets) throws IOException;
    }

    /** Reads one vmStructs-style table: entries of {@code prefix}ArrayStride bytes until a null first field. */
    private static void readTable(Pages m, Map<String, Long> sym, String table, String prefix, Entry each,
            String... names) throws IOException {
        Map<String, Long> o = new HashMap<>();
        for (String n : names) o.put(n, m.word(need(sym, prefix + n + "Offset")));
        long stride = m.word(need(sym, prefix + "ArrayStride"));
        long e = m.word(need(sym, table));
        if (stride <= 0 || stride > 256) throw new IOException(table + " stride " + stride);
        for (int i = 0; i < 100_000; i++, e += stride) {
            if (m.word(e + o.get(names[0])) == 0) return;
            each.read(e, o);
        }
        throw new IOException(table + " has no end");
    }

    /**
     * The JVM's memory as of() reads it, a page at a time, each page read once: the vmStructs
     * tables and the names they point to are libjvm.so's static data, which does not change, and
     * a word and a string read each with its own pread made thousands of system calls per JVM (a
     * whole-machine profile meets every JVM that starts).
     */
    private static final class Pages {
        private static final int PAGE = 4096;
        private final FileChannel ch;
        private final Map<Long, byte[]> pages = new HashMap<>();

        Pages(FileChannel ch) {
            this.ch = ch;
        }

        /** The byte at {@code addr}, or -1 where the memory cannot be read. */
        private int at(long addr) throws IOException {
            if (addr <= 0) throw new IOException("address 0x" + Long.toHexString(addr));
            long page = addr & -PAGE;
            byte[] b = pages.get(page);
            if (b == null) {
                b = new byte[PAGE];
                int got = readSome(ch, page, b);
                if (got < PAGE) b = java.util.Arrays.copyOf(b, got);
                pages.put(page, b);
            }
            int i = (int) (addr - page);
            return i < b.length ? b[i] & 0xff : -1;
        }

        private long bytes(long addr, int n) throws IOException {
            long v = 0;
            for (int i = n - 1; i >= 0; i--) {
                int b = at(addr + i);
                if (b < 0) throw new IOException("cannot read 0x" + Long.toHexString(addr));
                v = v << 8 | b;
            }
            return v;
        }

        long word(long addr) throws IOException {
            return bytes(addr, 8);
        }

        long int32(long addr) throws IOException {
            return (int) bytes(addr, 4);
        }

        /** The NUL-terminated string at {@code addr} (at most 1024 bytes), or null for address 0. */
        String string(long addr) throws IOException {
            if (addr == 0) return null;
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < 1024; i++) {
                int b = at(addr + i);
                if (b < 0) break;
                if (b == 0) return s.toString();
                s.append((char) b);
            }
            throw new IOException("no string end at 0x" + Long.toHexString(addr));
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
            name = b.h.kind == kindNmethod ? methodName(b.h.method) : b.name;
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
        expire();
        Map<Long, String> cache = methods;
        String cached = cache.get(method);
        if (cached != null) return cached.isEmpty() ? null : cached;
        String name = null;
        try {
            long cm = word(method + field("Method::_constMethod"));
            long cp = word(cm + field("ConstMethod::_constants"));
            int index = u2(cm + field("ConstMethod::_name_index"));
            int length = (int) int32(cp + field("ConstantPool::_length"));
            if (index > 0 && index < length) {
                String klass = symbol(word(word(cp + field("ConstantPool::_pool_holder")) + field("Klass::_name")));
                String member = symbol(word(cp + type("ConstantPool") + index * WORD));
                if (klass != null && member != null) name = klass.replace('/', '.') + "." + member;
            }
        } catch (IOException | RuntimeException e) {
            // unloaded, freed, not a method: unnamed
        }
        if (cache.size() < CACHE_MAX) cache.put(method, name == null ? "" : name);
        return name;
    }

    /** A Symbol's text, or null when it does not look like one (a NUL, a control byte, no length). */
    private String symbol(long sym) throws IOException {
        if (sym == 0) return null;
        int len = u2(sym + field("Symbol::_length"));
        if (len == 0 || len > 4096) return null;
        byte[] b = new byte[len];
        read(mem, sym + field("Symbol::_body"), b);
        for (byte x : b) {
            if (x >= 0 && x < 0x20) return null;
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    /** The code blob holding {@code pc} (CodeHeap::find_start), or null. */
    private Blob blob(long pc) {
        expire();
        Map.Entry<Long, Blob> e = blobs.floorEntry(pc);
        if (e != null) {
            Blob b = e.getValue();
            if (Long.compareUnsigned(pc, b.h.end) < 0) {
                long now = System.nanoTime();
                if (now - b.checkedAt <= CACHE_NANOS) return b;
                // a second old: the same header is the same blob, else it was freed (and reused)
                if (b.h.same(header(b.h.block))) {
                    b.checkedAt = now;
                    return b;
                }
                synchronized (blobsLock) {
                    if (blobs.remove(b.h.block, b)) blobCount--;
                }
            }
        }
        Map<Long, Boolean> none = noBlob;
        if (none.containsKey(pc)) return null;
        Blob b = findBlob(pc);
        if (b == null) {
            if (none.size() < CACHE_MAX) none.put(pc, Boolean.TRUE);
            return null;
        }
        synchronized (blobsLock) {
            if (blobCount >= CACHE_MAX) {
                blobs.clear();
                blobCount = 0;
            }
            // blocks do not overlap: one cached over this one's range is stale
            for (Map.Entry<Long, Blob> o = blobs.lowerEntry(b.h.end); o != null
                    && Long.compareUnsigned(o.getValue().h.end, b.h.block) > 0; o = blobs.lowerEntry(o.getKey())) {
                if (blobs.remove(o.getKey()) != null) blobCount--;
            }
            if (blobs.put(b.h.block, b) == null) blobCount++;
        }
        return b;
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
    private void expire() {
        long now = System.nanoTime();
        if (now - cachedAt > CACHE_NANOS) {
            cachedAt = now;
            noBlob = new ConcurrentHashMap<>();
            methods = new ConcurrentHashMap<>();
        }
    }

    private long field(String name) throws IOException {
        Long v = fields.get(name);
        if (v == null) throw new IOException("vmStructs has no " + name);
        return v;
    }

    private long type(String name) throws IOException {
        Long v = types.get(name);
        if (v == null) throw new IOException("vmTypes has no " + name);
        return v;
    }

    private long constant(String name) throws IOException {
        Long v = constants.get(name);
        if (v == null) throw new IOException("vmIntConstants has no " + name);
        return v;
    }

    private long word(long addr) throws IOException {
        return word(mem, addr);
    }

    private long int32(long addr) throws IOException {
        return int32(mem, addr);
    }

    private int u2(long addr) throws IOException {
        byte[] b = new byte[2];
        read(mem, addr, b);
        return (b[0] & 0xff) | (b[1] & 0xff) << 8;
    }

    private int u1(long addr) throws IOException {
        byte[] b = new byte[1];
        read(mem, addr, b);
        return b[0] & 0xff;
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
