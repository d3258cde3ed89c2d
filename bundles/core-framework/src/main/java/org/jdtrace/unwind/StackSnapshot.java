/*
 * StackSnapshot: the memory an unwind reads when the thread was not stopped for it: the bytes of
 * its stack copied at the event (perf's PERF_SAMPLE_STACK_USER, a BPF program's copy of the stack
 * top), starting at the sp of that moment. Reads inside the copy come from it; a read outside
 * (the stack above the copy, a frame-pointer link in a JIT's heap, the data a DWARF expression
 * dereferences) goes to the fallback, or faults when there is none (the stack then ends there,
 * as perf's does when the copy ends mid-frame).
 *
 * Reusable: reset() points it at another copy, so a sampler fills one instance per firing and
 * allocates nothing. Not thread-safe (one per drain thread).
 */
package org.jdtrace.unwind;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

/** A copy of the top of a user stack at a known address, with an optional fallback memory. */
public final class StackSnapshot implements Memory {

    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private long base;
    private byte[] bytes = new byte[0];
    private int length;
    private Memory fallback;

    /** An empty snapshot; {@link #reset} gives it content. */
    public StackSnapshot() {}

    public StackSnapshot(long base, byte[] bytes, int length, Memory fallback) {
        reset(base, bytes, length, fallback);
    }

    /** Points this snapshot at {@code bytes[0..length)}, copied from address {@code base}. */
    public StackSnapshot reset(long base, byte[] bytes, int length, Memory fallback) {
        if (length < 0 || length > bytes.length) throw new IllegalArgumentException("length " + length);
        this.base = base;
        this.bytes = bytes;
        this.length = length;
        this.fallback = fallback;
        return this;
    }

    @Override
    public void read(long addr, byte[] buf, int off, int len) throws IsaException {
        long rel = addr - base;
        if (rel >= 0 && rel <= length - len) {
            System.arraycopy(bytes, (int) rel, buf, off, len);
            return;
        }
        if (fallback == null) throw new IsaException("outside the copied stack", addr);
        fallback.read(addr, buf, off, len);
    }

    @Override
    public long readLong(long addr) throws IsaException {
        long rel = addr - base;
        if (rel >= 0 && rel <= length - 8) return (long) LONG.get(bytes, (int) rel);
        if (fallback == null) throw new IsaException("outside the copied stack", addr);
        return fallback.readLong(addr);
    }

    @Override
    public void write(long addr, byte[] buf, int off, int len) throws IsaException {
        throw new IsaException("a stack copy is read-only", addr);
    }
}
