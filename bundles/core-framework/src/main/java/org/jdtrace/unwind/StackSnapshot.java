/*
 * StackSnapshot: the memory an unwind reads when the thread was not stopped for it: the bytes of
 * its stack copied at the event (perf's PERF_SAMPLE_STACK_USER, a BPF program's copy of the stack
 * top: a uprobe hit's, a syscall's or tracepoint's user stack section), starting at a known
 * address (the sp of that moment, or the start of its page). Reads inside the copy come from it;
 * a read outside (the stack above the copy, a frame-pointer link in a JIT's heap, the data a DWARF
 * expression dereferences, a clause's copyin of the heap) goes to the fallback (the process's live
 * memory, read after the event), or faults when there is none (the stack then ends there, as
 * perf's does when the copy ends mid-frame: an expected end, so the fault is an IsaException
 * without a stack trace, which a walk of every sample would otherwise fill in). Writes go to the fallback; without one a snapshot is
 * read-only. The copy is a byte array or a MemorySegment (a ring's record, read in place: no copy
 * is made of it), whichever the capture has; or a MemorySegment read through a caller's array
 * (reset with a buffer): its words are read from the array (a segment's access is slow in C1),
 * which takes the copy's bytes only as far as reads have reached, CHUNK bytes at a time. A walk
 * reads the top few frames of a copy of 8 KB: copying each profile sample's whole copy out of its
 * ring was 9% of the drain thread of a whole-machine profile (perf record -g of the JVM: 262 of
 * 2885 samples in Ring.sample's copy).
 *
 * Reusable: reset() points it at another copy, so a sampler fills one instance per firing and
 * allocates nothing (an array is wrapped once while the same one comes back). Not thread-safe
 * (one per drain thread); a segment's copy is valid only as long as the segment.
 */
package org.jdtrace.unwind;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

/** A copy of the top of a user stack at a known address, with an optional fallback memory. */
public final class StackSnapshot implements Memory {

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private long base;
    private MemorySegment bytes = MemorySegment.NULL;
    private long offset, length;
    private Memory fallback;
    /** The last array reset() was given and its segment. */
    private byte[] array;
    private MemorySegment arraySegment;
    /**
     * The copy's bytes [0, copied) in an array, readLong's source (a segment's access is slow in
     * C1): the array reset() was given (copied: all of it), or a buffer filled from the segment
     * as reads reach further (null: read the segment in place).
     */
    private byte[] heap;
    private int copied;
    /** The buffer's fill step (a frame or two of a deep stack). */
    private static final int CHUNK = 512;

    /** An empty snapshot; {@link #reset} gives it content. */
    public StackSnapshot() {}

    public StackSnapshot(long base, byte[] bytes, int length, Memory fallback) {
        reset(base, bytes, length, fallback);
    }

    /** Points this snapshot at {@code bytes[0..length)}, copied from address {@code base}. */
    public StackSnapshot reset(long base, byte[] bytes, int length, Memory fallback) {
        if (length < 0 || length > bytes.length) throw new IllegalArgumentException("length " + length);
        if (bytes != array) {
            array = bytes;
            arraySegment = MemorySegment.ofArray(bytes);
        }
        reset(base, arraySegment, 0, length, fallback);
        heap = bytes;
        copied = length;
        return this;
    }

    /**
     * Points this snapshot at {@code bytes[offset..offset + length)}, copied from address
     * {@code base}, read through {@code buffer} (at least {@code length} bytes; see above): the
     * segment must stay valid while this snapshot is used, the buffer unchanged by others.
     *
     * @since 1.4
     */
    public StackSnapshot reset(long base, MemorySegment bytes, long offset, int length, byte[] buffer, Memory fallback) {
        if (buffer.length < length) throw new IllegalArgumentException("buffer " + buffer.length + " < " + length);
        reset(base, bytes, offset, length, fallback);
        heap = buffer;
        copied = 0;
        return this;
    }

    /**
     * Points this snapshot at {@code bytes[offset..offset + length)}, copied from address
     * {@code base}; read in place while it is used.
     *
     * @since 1.2
     */
    public StackSnapshot reset(long base, MemorySegment bytes, long offset, long length, Memory fallback) {
        if (offset < 0 || length < 0 || offset + length > bytes.byteSize()) {
            throw new IllegalArgumentException("bytes " + offset + "+" + length + " of " + bytes.byteSize());
        }
        this.base = base;
        this.heap = null;
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
        this.fallback = fallback;
        return this;
    }

    /** As above, the whole of {@code bytes}. @since 1.2 */
    public StackSnapshot reset(long base, MemorySegment bytes, Memory fallback) {
        return reset(base, bytes, 0, bytes.byteSize(), fallback);
    }

    @Override
    public void read(long addr, byte[] buf, int off, int len) throws IsaException {
        long rel = addr - base;
        if (rel >= 0 && len >= 0 && rel <= length - len) {
            MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, offset + rel, buf, off, len);
            return;
        }
        if (fallback == null) throw new Outside(addr);
        fallback.read(addr, buf, off, len);
    }

    @Override
    public long readLong(long addr) throws IsaException {
        long rel = addr - base;
        if (rel >= 0 && rel <= length - 8) {
            byte[] h = heap;
            if (h == null) return bytes.get(LONG, offset + rel);
            int i = (int) rel;
            if (i + 8 > copied) fill(i + 8);
            return (h[i] & 0xffL) | (h[i + 1] & 0xffL) << 8 | (h[i + 2] & 0xffL) << 16 | (h[i + 3] & 0xffL) << 24
                    | (h[i + 4] & 0xffL) << 32 | (h[i + 5] & 0xffL) << 40 | (h[i + 6] & 0xffL) << 48 | (h[i + 7] & 0xffL) << 56;
        }
        if (fallback == null) throw new Outside(addr);
        return fallback.readLong(addr);
    }

    /** Takes the copy's bytes into the buffer up to at least {@code end} (at most the copy's length). */
    private void fill(int end) {
        int to = (int) Math.min(length, (end + CHUNK - 1) & -CHUNK);
        MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, offset + copied, heap, copied, to - copied);
        copied = to;
    }

    /** A read past the copy with no fallback: the stack ends there (no stack trace: a walk meets one per sample). */
    private static final class Outside extends IsaException {
        Outside(long addr) {
            super("outside the copied stack", addr);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** True when there is no fallback: a read outside the copy faults (Unwinder's walk cache). */
    boolean alone() {
        return fallback == null;
    }

    /** True when the word at {@code addr} is in the copy. */
    boolean covers(long addr) {
        long rel = addr - base;
        return rel >= 0 && rel <= length - 8;
    }

    /** The word at {@code addr}, which {@link #covers} the copy. */
    long word(long addr) {
        try {
            return readLong(addr);
        } catch (IsaException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A write goes to the fallback (the live process), the copy unchanged; without one it faults. */
    @Override
    public void write(long addr, byte[] buf, int off, int len) throws IsaException {
        if (fallback == null) throw new IsaException("a stack copy is read-only", addr);
        fallback.write(addr, buf, off, len);
    }
}
