package org.jdtrace.provider.fasttrap.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

/*
 * The memory a clause sees at a uprobe hit handled after the fact: reads that fall wholly inside
 * the top of the user stack the kernel captured at the hit (stack pointer up) come from that
 * copy, so the frame-pointer walk of ustack() and the return address at an entry probe are
 * those of the event; every other read and every write goes to the live process (/proc/PID/mem).
 * The user strings the kernel read at the hit (copyinstr(argN) of the clauses: UserHit.string)
 * are served by string() the same way.
 * One instance per process and drain thread, refilled per record (at()); the segment is valid
 * only while the record is handled.
 */
final class CapturedStack implements Memory {

    private final Memory live;
    private MemorySegment stack = MemorySegment.NULL;
    private long base;
    private org.jdtrace.perf.UserHit hit;

    CapturedStack(Memory live) {
        this.live = live;
    }

    CapturedStack at(long base, MemorySegment stack) {
        this.base = base;
        this.stack = stack;
        this.hit = null;
        return this;
    }

    /** As at(), for a hit whose strings string() serves. */
    CapturedStack at(org.jdtrace.perf.UserHit h) {
        at(h.stackAddr, h.stack);
        this.hit = h;
        return this;
    }

    /** The user string at {@code addr} as the kernel read it at the hit, or null when it read none there. */
    String string(long addr, int max) {
        return hit == null ? null : hit.string(addr, max);
    }

    @Override
    public void read(long addr, byte[] buf, int off, int len) throws IsaException {
        long rel = addr - base;
        if (rel >= 0 && rel + len <= stack.byteSize() && len >= 0) {
            MemorySegment.copy(stack, ValueLayout.JAVA_BYTE, rel, buf, off, len);
            return;
        }
        live.read(addr, buf, off, len);
    }

    @Override
    public long readLong(long addr) throws IsaException {
        long rel = addr - base;
        if (rel >= 0 && rel + 8 <= stack.byteSize()) return stack.get(ValueLayout.JAVA_LONG_UNALIGNED, rel);
        return live.readLong(addr);
    }

    @Override
    public void write(long addr, byte[] buf, int off, int len) throws IsaException {
        live.write(addr, buf, off, len);
    }
}
