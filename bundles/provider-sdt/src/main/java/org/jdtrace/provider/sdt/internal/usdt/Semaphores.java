/*
 * The is-enabled semaphores of one traced process (SystemTap's `unsigned short
 * <provider>_<name>_semaphore` in the object's .probes section; DTrace's is-enabled probes).
 *
 * Each enabled probe adds one to every semaphore its sites name, in the process's memory, and
 * takes it away when it is disabled: the program's `if (PROBE_ENABLED())` guard sees a
 * non-zero value exactly while some probe wants the site, and other tracers that count the
 * same way (bpftrace, stap) coexist. The write is a read-modify-write of two bytes through
 * /proc/PID/mem; the program only reads them. What this table holds per address is what it
 * added, so that the value from before is put back on every way out: disable (the normal
 * way), TargetListener.releasing (dtrace ends, the bundle stops), and nothing at all for an
 * object unmapped or a process defunct (forget: the memory is gone or another program's).
 *
 * An address must lie in a writable PT_LOAD segment of its object, as mapped: anything else is
 * refused (one warning line), never written (see UsdtScan).
 *
 * Locking: the table's monitor; memory writes are made under it (short, no callbacks).
 */
package org.jdtrace.provider.sdt.internal.usdt;

import java.util.HashMap;
import java.util.Map;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

final class Semaphores {

    private final Memory memory;
    private final Map<Long, Integer> added = new HashMap<>();

    Semaphores(Memory memory) {
        this.memory = memory;
    }

    /** Adds {@code delta} (+1 or -1) to the semaphore at {@code addr}; false if the memory could not be written. */
    synchronized boolean add(long addr, int delta) {
        byte[] b = new byte[2];
        try {
            memory.read(addr, b, 0, 2);
            int v = ((b[0] & 0xff) | (b[1] & 0xff) << 8) + delta;
            b[0] = (byte) v;
            b[1] = (byte) (v >> 8);
            memory.write(addr, b, 0, 2);
        } catch (IsaException e) {
            return false;
        }
        added.merge(addr, delta, (x, y) -> x + y == 0 ? null : x + y);
        return true;
    }

    /** The memory in [start, end) is gone: forget what was added there, write nothing. */
    synchronized void forget(long start, long end) {
        added.keySet().removeIf(a -> a >= start && a < end);
    }

    synchronized void forgetAll() {
        added.clear();
    }

    /** What this table has added at {@code addr} now (tests). */
    synchronized int added(long addr) {
        return added.getOrDefault(addr, 0);
    }
}
