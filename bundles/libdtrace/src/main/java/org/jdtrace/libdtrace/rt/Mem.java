/*
 * Mem: D's memory model at a firing (the DIF VM's loads and stores, dtrace_canload/canstore's
 * checks, and the scratch region of dtrace_mstate_t). One 64-bit address space, cut into regions
 * by its top four bits:
 *
 *   other   the traced process (or, for JVM-side probes, the providers' handles such as Java
 *           string arguments): read through ProbeContext.copyin and copyinstr, never written (a store there is an invalid address, as a store to a
 *           non-scratch address is in DTrace);
 *   SCRATCH this firing thread's scratch (alloca, copyin, bcopy's destination): a byte[] made
 *           at the DThread's first firing (option scratchsize as it is then, default 256 bytes as in DTrace on Linux), reset at the start of each
 *           clause that uses memory, so alloca()'d memory lives until the end of its clause;
 *           only its allocated part [0, top) can be read or written;
 *   LOCAL   this thread's storage for clause-local (this->) structs and arrays: one byte[] per
 *           DThread, the offsets given at compile time; kept between clauses of one firing, as
 *           this-> variables are;
 *   GLOBAL  the consumer's storage for global structs and arrays (offsets given at compile time),
 *           one block of whole pages (DState.globalMemoryOffset): an access through a cast
 *           pointer past a variable but inside the block reads what is there, as in DTrace;
 *   TLS     a thread-local (self->) struct or array: slot in bits 32..59, offset below; the
 *           storage is the byte[] of (tid, slot) in DState's dynamic variables, made on first use.
 *   ASSOC   an element of an associative array of structs or arrays (a[k].m): the element's
 *           number in bits 32..59, offset below; the storage is DState's byte[] of that number,
 *           made (zeroed) by the first store to the element, kept as the array's value for k.
 *           A missing element read is address 0 (a read through it faults), as DTrace's lookup
 *           of a missing dynamic variable is 0.
 *
 * Every access is bounds-checked against its region; an address outside any region's storage,
 * below 4 KiB, or a scratch access outside [0, top), throws FaultException(BADADDR, address),
 * which the clause turns into dtrace:::ERROR ("invalid address (0x...) in action #N") while
 * tracing goes on. Values are little-endian (x86-64, and the traced process's layout).
 *
 * Probe context: allocation-free except for reads of the traced process (copyin's byte[]) and the
 * first store to a thread-local struct. No locks: each region but GLOBAL belongs to one thread;
 * GLOBAL is racy byte-wise as DTrace's global variables are.
 */
package org.jdtrace.libdtrace.rt;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

public final class Mem {

    public static final long SCRATCH = 1L << 60;
    public static final long LOCAL = 2L << 60;
    public static final long GLOBAL = 3L << 60;
    public static final long TLS = 4L << 60;
    public static final long ASSOC = 5L << 60;
    private static final long OFFSET = (1L << 32) - 1;

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Mem() {}

    /** The per-thread half: scratch and this-> storage. Owned by one DThread. */
    static final class ThreadMemory {
        byte[] scratch;
        int top;
        byte[] local = new byte[0];
    }

    // ---- allocation ------------------------------------------------------------------------

    /** Start of a clause that uses memory: scratch is empty again; this-> storage is sized. */
    public static void reset(DThread t) {
        ThreadMemory m = t.memory;
        m.top = 0;
        if (m.scratch == null) {
            m.scratch = new byte[t.state().scratchSize()]; // this thread's first firing: fixed from then on
        }
        int need = t.state().localMemorySize();
        if (m.local.length < need) {
            m.local = Arrays.copyOf(m.local, need);
        }
    }

    /** alloca(n): n zeroed bytes of scratch, 8-byte aligned; NOSCRATCH when it is full. */
    public static long alloca(DThread t, ProbeContext ctx, long n) {
        ThreadMemory m = t.memory;
        long start = (m.top + 7L) & ~7L;
        if (n < 0 || start + n > m.scratch.length) {
            throw new FaultException(FaultException.Kind.NOSCRATCH, 0);
        }
        Arrays.fill(m.scratch, (int) start, (int) (start + n), (byte) 0);
        m.top = (int) (start + n);
        return SCRATCH + start;
    }

    /**
     * A D string where a char * is wanted (char *p = probeprov): its bytes and NUL in fresh
     * scratch, the address of the first; NULL is 0. Like any scratch, it lasts until the clause ends.
     */
    public static long strptr(DThread t, ProbeContext ctx, String s) {
        if (s == null) return 0;
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        int n = Math.min(bytes.length, t.state().options.strsize());
        long dst = alloca(t, ctx, n + 1L);
        System.arraycopy(bytes, 0, t.memory.scratch, (int) (dst - SCRATCH), n);
        return dst;
    }

    /** copyin(addr, n): the traced process's bytes copied into fresh scratch. */
    public static long copyin(DThread t, ProbeContext ctx, long addr, long n) {
        long dst = alloca(t, ctx, n);
        byte[] b = ctx.copyin(addr, (int) n);
        System.arraycopy(b, 0, t.memory.scratch, (int) (dst - SCRATCH), (int) Math.min(n, b.length));
        return dst;
    }

    /** copyinto(addr, n, dst): the traced process's bytes into scratch the program allocated. */
    public static long copyinto(DThread t, ProbeContext ctx, long addr, long n, long dst) {
        if (region(dst) != SCRATCH) {
            throw new FaultException(FaultException.Kind.BADADDR, dst);
        }
        byte[] b = ctx.copyin(addr, (int) Math.max(0, Math.min(n, Integer.MAX_VALUE)));
        int off = check(t, ctx, dst, (int) n, true);
        System.arraycopy(b, 0, t.memory.scratch, off, (int) Math.min(n, b.length));
        return 0;
    }

    /**
     * bcopy(src, dst, n): {@code dst} must be allocated scratch. A negative size, or one that
     * runs past the end of the source's or destination's allocated D memory from a valid start,
     * is an invalid size (BADSIZE, the size); a start outside it is an invalid address.
     */
    public static long bcopy(DThread t, ProbeContext ctx, long src, long dst, long n) {
        if (region(dst) != SCRATCH) {
            throw new FaultException(FaultException.Kind.BADADDR, dst);
        }
        if (n < 0) {
            throw new FaultException(FaultException.Kind.BADSIZE, n);
        }
        sized(t, ctx, dst, n);
        if (inD(src)) sized(t, ctx, src, n);
        return copy(t, ctx, dst, src, n);
    }

    /** BADSIZE when [addr, addr + n) starts inside its region's allocated part but ends past it. */
    private static void sized(DThread t, ProbeContext ctx, long addr, long n) {
        int start = check(t, ctx, addr, 0, false); // an invalid start is BADADDR
        long limit = region(addr) == SCRATCH ? t.memory.top : start + n;
        if (start < limit && start + n > limit) {
            throw new FaultException(FaultException.Kind.BADSIZE, n);
        }
    }

    /** bcopy(s, dst, n) of a string: its bytes, then NULs (a D string is a strsize buffer). */
    public static long bcopystr(DThread t, ProbeContext ctx, String src, long dst, long n) {
        if (src == null) throw new FaultException(FaultException.Kind.BADADDR, 0);
        if (region(dst) != SCRATCH) {
            throw new FaultException(FaultException.Kind.BADADDR, dst);
        }
        if (n < 0) {
            throw new FaultException(FaultException.Kind.BADSIZE, n);
        }
        sized(t, ctx, dst, n);
        int len = (int) Math.max(0, Math.min(n, t.state().options.strsize() + 1L));
        byte[] to = storage(t, ctx, dst, true);
        int off = check(t, ctx, dst, len, true);
        for (int i = 0; i < len; i++) {
            to[off + i] = i < src.length() ? (byte) src.charAt(i) : 0;
        }
        return dst;
    }

    /** Copies {@code n} bytes between any readable and any writable storage (struct assignment). */
    public static long copy(DThread t, ProbeContext ctx, long dst, long src, long n) {
        if (n <= 0) {
            return dst;
        }
        int len = (int) n;
        byte[] to = storage(t, ctx, dst, true);
        int toOff = check(t, ctx, dst, len, true);
        if (!inD(src)) {
            if (Long.compareUnsigned(src, 4096) < 0) throw new FaultException(FaultException.Kind.BADADDR, src);
            byte[] b = ctx.copyin(src, len);
            System.arraycopy(b, 0, to, toOff, Math.min(len, b.length));
        } else {
            byte[] from = storage(t, ctx, src, false);
            int fromOff = check(t, ctx, src, len, false);
            if (from == null) {
                Arrays.fill(to, toOff, toOff + len, (byte) 0);
            } else {
                System.arraycopy(from, fromOff, to, toOff, len);
            }
        }
        return dst;
    }

    /** tracemem(addr, size, dsize): {@code size} bytes recorded, the first dsize shown (all when dsize &lt; 0). */
    public static void tracemem(DThread t, ProbeContext ctx, long addr, long size, long dsize) {
        int n = (int) Math.max(0, Math.min(size, Integer.MAX_VALUE));
        int shown = dsize < 0 || dsize > n ? n : (int) dsize;
        byte[] b;
        if (!inD(addr)) {
            if (Long.compareUnsigned(addr, 4096) < 0) throw new FaultException(FaultException.Kind.BADADDR, addr);
            b = Arrays.copyOf(ctx.copyin(addr, n), shown);
        } else {
            byte[] from = storage(t, ctx, addr, false);
            int off = check(t, ctx, addr, n, false);
            b = from == null ? new byte[shown] : Arrays.copyOfRange(from, off, off + shown);
        }
        t.add(new Datum.TraceMem(b, n));
    }

    /**
     * print(addr): the address and the {@code size} bytes of the pointed-to type there, shown
     * later as layout {@code layout} (DState.printLayout). A bad address faults as a load does.
     */
    public static void print(DThread t, ProbeContext ctx, long addr, int size, int layout) {
        t.add(new Datum.Print(addr, printed(t, ctx, addr, size), layout, false));
    }

    /** print() of the struct, union or array at addr itself: its bytes, shown in illumos' form. */
    public static void printObject(DThread t, ProbeContext ctx, long addr, int size, int layout) {
        t.add(new Datum.Print(addr, printed(t, ctx, addr, size), layout, true));
    }

    private static byte[] printed(DThread t, ProbeContext ctx, long addr, int size) {
        byte[] b;
        if (!inD(addr)) {
            if (Long.compareUnsigned(addr, 4096) < 0) throw new FaultException(FaultException.Kind.BADADDR, addr);
            b = ctx.copyin(addr, size);
        } else {
            byte[] from = storage(t, ctx, addr, false);
            int off = check(t, ctx, addr, size, false);
            b = from == null ? new byte[size] : Arrays.copyOfRange(from, off, off + size);
        }
        return b;
    }

    // ---- loads and stores ------------------------------------------------------------------

    /** A {@code width}-byte integer at {@code addr} (1, 2, 4 or 8), sign- or zero-extended. */
    public static long load(DThread t, ProbeContext ctx, long addr, long width, long signed) {
        int w = (int) width;
        byte[] b;
        int off;
        if (!inD(addr)) {
            if (Long.compareUnsigned(addr, 4096) < 0) throw new FaultException(FaultException.Kind.BADADDR, addr);
            b = ctx.copyin(addr, w);
            off = 0;
            if (b.length < w) throw new FaultException(FaultException.Kind.BADADDR, addr);
        } else {
            // any alignment: a variable's members lie where libctf put them (DType.Sou.layOut),
            // and a misaligned pointer is refused by loadptr
            b = storage(t, ctx, addr, false);
            off = check(t, ctx, addr, w, false);
            if (b == null) return 0; // a thread-local struct never stored to
        }
        boolean s = signed != 0;
        return switch (w) {
            case 1 -> s ? b[off] : b[off] & 0xffL;
            case 2 -> s ? (short) SHORT.get(b, off) : ((short) SHORT.get(b, off)) & 0xffffL;
            case 4 -> s ? (int) INT.get(b, off) : ((int) INT.get(b, off)) & 0xffffffffL;
            default -> (long) LONG.get(b, off);
        };
    }

    /** A bit-field: {@code bits} bits from bit {@code bit} of the {@code width}-byte unit at addr. */
    public static long loadbits(DThread t, ProbeContext ctx, long addr, long width, long bit, long bits, long signed) {
        long unit = load(t, ctx, addr, width, 0);
        long v = unit << (64 - bit - bits);
        return signed != 0 ? v >> (64 - bits) : v >>> (64 - bits);
    }

    /**
     * A load through a pointer value ({@code *p}, {@code p[i]}, {@code p->m}): in D's own memory
     * the address must be a multiple of the width, else DTRACEFLT_BADALIGN ("invalid alignment"),
     * the alignment error the DTrace guide describes for a misaligned pointer.
     */
    public static long loadptr(DThread t, ProbeContext ctx, long addr, long width, long signed) {
        if (inD(addr) && (addr & (width - 1)) != 0) {
            throw new FaultException(FaultException.Kind.BADALIGN, addr);
        }
        return load(t, ctx, addr, width, signed);
    }

    /** Stores the low {@code width} bytes of {@code value} at {@code addr}; yields the value. */
    public static long store(DThread t, ProbeContext ctx, long addr, long width, long value) {
        int w = (int) width;
        byte[] b = storage(t, ctx, addr, true);
        int off = check(t, ctx, addr, w, true);
        switch (w) {
            case 1 -> b[off] = (byte) value;
            case 2 -> SHORT.set(b, off, (short) value);
            case 4 -> INT.set(b, off, (int) value);
            default -> LONG.set(b, off, value);
        }
        return value;
    }

    /** Stores a bit-field (the value truncated to {@code bits} bits); yields the truncated value. */
    public static long storebits(DThread t, ProbeContext ctx, long addr, long width, long bit, long bits, long value) {
        long mask = bits == 64 ? -1L : (1L << bits) - 1;
        long unit = load(t, ctx, addr, width, 0);
        unit = (unit & ~(mask << bit)) | ((value & mask) << bit);
        store(t, ctx, addr, width, unit);
        return value & mask;
    }

    /** The NUL-terminated string at {@code addr}, at most {@code max} bytes (a char array or char *). */
    public static String str(DThread t, ProbeContext ctx, long addr, long max) {
        int n = (int) Math.max(0, Math.min(max, t.state().options.strsize()));
        if (!inD(addr)) {
            if (addr == 0) throw new FaultException(FaultException.Kind.BADADDR, addr);
            return ctx.copyinstr(addr, n);
        }
        byte[] b = storage(t, ctx, addr, false);
        int off = check(t, ctx, addr, 0, false);
        if (b == null) return "";
        int end = off;
        int limit = Math.min(b.length, off + n);
        while (end < limit && b[end] != 0) end++;
        return new String(b, off, end - off, StandardCharsets.ISO_8859_1);
    }

    /**
     * The {@code n} bytes at {@code addr}, wherever it points: D's own memory (scratch, this->,
     * globals, self->) or the traced process; for subroutines that read an object through a
     * pointer (inet_ntoa6, link_ntop...). NULL, or bytes outside their region, fault BADADDR.
     */
    public static byte[] bytes(DThread t, ProbeContext ctx, long addr, int n) {
        if (addr == 0) throw new FaultException(FaultException.Kind.BADADDR, 0);
        if (!inD(addr)) return ctx.copyin(addr, n);
        byte[] from = storage(t, ctx, addr, false);
        int off = check(t, ctx, addr, n, false);
        byte[] b = new byte[n];
        if (from != null) System.arraycopy(from, off, b, 0, n);
        return b;
    }

    /** A struct or array's bytes as a key of an associative array or aggregation (equal bytes, one key). */
    public static String keybytes(DThread t, ProbeContext ctx, long addr, long n) {
        byte[] b = new byte[(int) n];
        if (!inD(addr)) {
            byte[] in = ctx.copyin(addr, (int) n);
            System.arraycopy(in, 0, b, 0, Math.min(in.length, b.length));
        } else {
            byte[] from = storage(t, ctx, addr, false);
            int off = check(t, ctx, addr, (int) n, false);
            if (from != null) System.arraycopy(from, off, b, 0, b.length);
        }
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Stores {@code s} (cut to {@code size - 1} bytes, NUL-terminated) into a char array; yields s. */
    public static String storestr(DThread t, ProbeContext ctx, long addr, String s, long size) {
        if (s == null) throw new FaultException(FaultException.Kind.BADADDR, 0); // copied from NULL
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        int n = (int) Math.min(bytes.length, size - 1);
        byte[] b = storage(t, ctx, addr, true);
        int off = check(t, ctx, addr, n + 1, true);
        System.arraycopy(bytes, 0, b, off, n);
        b[off + n] = 0;
        return s;
    }

    /** An index into an array of {@code length} elements: itself, or BADINDEX outside [0, length). */
    public static long bound(DThread t, ProbeContext ctx, long index, long length) {
        if (Long.compareUnsigned(index, length) >= 0) throw new FaultException(FaultException.Kind.BADINDEX, index);
        return index;
    }

    /**
     * a[k] of an associative array of structs or arrays: the element's address (ASSOC region);
     * {@code create}: made, zeroed, if missing (a store), else 0 for a missing element (a read).
     */
    public static long assoc(DThread t, int slot, Object[] key, int size, boolean create) {
        int id = t.state().assocObject(slot, new Tuple(key), size, create);
        return id < 0 ? 0 : ASSOC | ((long) id << 32);
    }

    /** The storage of a thread-local struct or array, made on its first store. */
    public static long tls(DThread t, ProbeContext ctx, long slot) {
        return TLS | (slot << 32);
    }

    /** curpsinfo->field: an integer member of the firing process's psinfo_t (see {@link ProcInfo}). */
    public static long psinfo(DThread t, ProbeContext ctx, String field) {
        return t.state().procs.psinfo(ctx, field);
    }

    /** curpsinfo->field: a char array member (pr_fname, pr_psargs). */
    public static String psinfostr(DThread t, ProbeContext ctx, String field) {
        return t.state().procs.psinfoStr(ctx, field);
    }

    /** curlwpsinfo->field: an integer member of the firing thread's lwpsinfo_t. */
    public static long lwpsinfo(DThread t, ProbeContext ctx, String field) {
        return t.state().procs.lwpsinfo(ctx, field);
    }

    /** curlwpsinfo->field: a char array member (pr_name, pr_clname). */
    public static String lwpsinfostr(DThread t, ProbeContext ctx, String field) {
        return t.state().procs.lwpsinfoStr(ctx, field);
    }

    /** args[i]->field, args[i] a psinfo_t * (the proc provider's): an integer member of the process it names. */
    public static long argpsinfo(DThread t, ProbeContext ctx, long arg, String field) {
        return t.state().procs.psinfoOf(ctx, (int) arg, field);
    }

    /** args[i]->field, args[i] a psinfo_t *: a char array member (pr_fname, pr_psargs). */
    public static String argpsinfostr(DThread t, ProbeContext ctx, long arg, String field) {
        return t.state().procs.psinfoStrOf(ctx, (int) arg, field);
    }

    /** args[i]->field, args[i] a lwpsinfo_t *: an integer member of the thread it names. */
    public static long arglwpsinfo(DThread t, ProbeContext ctx, long arg, String field) {
        return t.state().procs.lwpsinfoOf(ctx, (int) arg, field);
    }

    /** args[i]->field, args[i] a lwpsinfo_t *: a char array member (pr_name, pr_clname). */
    public static String arglwpsinfostr(DThread t, ProbeContext ctx, long arg, String field) {
        return t.state().procs.lwpsinfoStrOf(ctx, (int) arg, field);
    }

    /** A fault of a clause that uses memory: at its action and the DIF offset of the operation (0: none). */
    public static org.jdtrace.engine.DFault fault(FaultException f, int action, int offset) {
        return new org.jdtrace.engine.DFault(f.kind(), f.address(), action, offset == 0 ? -1 : offset);
    }

    // ---- regions ---------------------------------------------------------------------------

    private static long region(long addr) {
        return addr & (0xfL << 60);
    }

    /** In D's own regions (scratch, this->, global, self->, associative storage); anything else is the process's. */
    private static boolean inD(long addr) {
        long r = region(addr);
        return r >= SCRATCH && r <= ASSOC;
    }

    /** The byte[] behind a D address (null: a thread-local struct not yet stored to). */
    private static byte[] storage(DThread t, ProbeContext ctx, long addr, boolean write) {
        long r = region(addr);
        if (r == SCRATCH) return t.memory.scratch;
        if (r == LOCAL) return t.memory.local;
        if (r == GLOBAL) return t.state().globalMemory();
        if (r == TLS) {
            int slot = (int) ((addr >>> 32) & 0x0fffffff);
            DState st = t.state();
            Object o = st.tlsGet(ctx.tid(), slot);
            if (o instanceof byte[] b) return b;
            if (!write) return null;
            byte[] b = new byte[st.tlsMemorySize(slot)];
            st.tlsPut(ctx.tid(), slot, b);
            return b;
        }
        if (r == ASSOC) return t.state().assocObject((int) ((addr >>> 32) & 0x0fffffff));
        throw new FaultException(FaultException.Kind.BADADDR, addr);
    }

    /** The offset of [addr, addr + n) in its region's storage, or a BADADDR fault. */
    private static int check(DThread t, ProbeContext ctx, long addr, int n, boolean write) {
        long r = region(addr);
        long off = r == TLS || r == ASSOC ? addr & OFFSET : addr - r;
        long limit;
        if (r == SCRATCH) {
            limit = t.memory.top;
        } else if (r == LOCAL) {
            limit = t.memory.local.length;
        } else if (r == GLOBAL) {
            limit = t.state().globalMemory().length;
        } else if (r == TLS) {
            limit = t.state().tlsMemorySize((int) ((addr >>> 32) & 0x0fffffff));
        } else if (r == ASSOC) {
            limit = t.state().assocObject((int) ((addr >>> 32) & 0x0fffffff)).length;
        } else {
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }
        if (off < 0 || n < 0 || off + n > limit || (n == 0 && off > limit)) {
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }
        return (int) off;
    }
}
