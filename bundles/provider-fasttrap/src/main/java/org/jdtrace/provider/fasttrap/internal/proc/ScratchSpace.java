package org.jdtrace.provider.fasttrap.internal.proc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/*
 * The target memory out-of-line instructions run from.
 *
 * Regions are anonymous RWX mappings made in the target by an injected mmap (SyscallInjector),
 * each placed near the code it serves (within +-1 GiB when the kernel grants the hint) so the
 * relocated copy of a rip-relative instruction keeps a 32-bit displacement. A region is cut in
 * fixed slots of the ISA's largest out-of-line sequence.
 *
 * Slots belong to an address, not to a thread (illumos uses per-thread scratch and rewrites it
 * at every hit): the slot's code depends only on the instruction and the slot, so it is
 * written once, any number of threads can run it at once, a signal handler that interrupts a
 * thread inside a slot and hits another tracepoint cannot clobber it, and a hit writes nothing
 * to the target. A slot is never given to another address while the process is traced, so a
 * thread that is still inside it after its tracepoint went away finishes correctly.
 *
 * Locking: the owner's tracepoint lock.
 */
final class ScratchSpace {

    static final long REGION_SIZE = 4L << 20;
    private static final long REACH = 1L << 30;

    record Region(long base, long size) {
        boolean contains(long a) {
            return a >= base && a < base + size;
        }
    }

    private final int slotSize;
    private final LongUnaryOperator mapper; // hint -> base of a new REGION_SIZE mapping
    private final List<Region> regions = new ArrayList<>();
    private final Map<Region, Long> next = new HashMap<>();
    private final Map<Long, Long> slots = new HashMap<>();

    ScratchSpace(int maxOutOfLine, LongUnaryOperator mapper) {
        this.slotSize = (maxOutOfLine + 15) & ~15;
        this.mapper = mapper;
    }

    /** The slot of {@code pc}, creating it (and a region near pc) when needed. */
    long slotFor(long pc) {
        Long s = slots.get(pc);
        if (s != null) return s;
        Region r = null;
        for (Region c : regions) {
            if (next.get(c) + slotSize <= c.base + c.size && Math.abs(c.base - pc) < REACH) {
                r = c;
                break;
            }
        }
        if (r == null) {
            long hint = Math.max(0x10000L, (pc - (REACH / 2)) & ~0xfffffL);
            long base = mapper.applyAsLong(hint);
            r = new Region(base, REGION_SIZE);
            regions.add(r);
            next.put(r, base);
        }
        long slot = next.get(r);
        next.put(r, slot + slotSize);
        slots.put(pc, slot);
        return slot;
    }

    boolean contains(long addr) {
        for (Region r : regions) if (r.contains(addr)) return true;
        return false;
    }

    List<Region> regions() {
        return List.copyOf(regions);
    }

    /** The tracepoint address whose slot holds {@code addr}, or -1. */
    long ownerOf(long addr) {
        for (Map.Entry<Long, Long> e : slots.entrySet()) {
            if (addr >= e.getValue() && addr < e.getValue() + slotSize) return e.getKey();
        }
        return -1;
    }

    long slotOf(long pc) {
        Long s = slots.get(pc);
        return s == null ? -1 : s;
    }

    /** The process exec'd or the scratch was unmapped: everything is gone. */
    void clear() {
        regions.clear();
        next.clear();
        slots.clear();
    }
}
