/*
 * PrincipalBuffer: one firing thread's principal buffer (DTrace has one per CPU; jdtrace has one
 * per Java thread that fires probes, so firings never share a buffer).
 *
 * The writer is the owning thread; the consumer swaps the record list out at drain time. Both
 * take the buffer's monitor, which the owning thread holds alone except for the instant of a
 * drain, so the lock is uncontended (a biased/thin lock: a CAS) on the firing path. A record
 * that would take the buffer past bufsize bytes is dropped and counted against the CPU the
 * firing reported, as DTrace's "drops on CPU n".
 */
package org.jdtrace.libdtrace.rt;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public final class PrincipalBuffer {

    private ArrayList<Record> records = new ArrayList<>();
    private long used;
    private final Map<Integer, Long> drops = new java.util.HashMap<>();

    /** Appends a record if it fits in {@code bufsize} bytes; counts a drop otherwise. */
    public synchronized boolean offer(Record r, int bytes, long bufsize) {
        if (used + bytes > bufsize) {
            drops.merge(r.cpu(), 1L, Long::sum);
            return false;
        }
        used += bytes;
        records.add(r);
        return true;
    }

    /** Takes every record so far and the drops per CPU since the last drain (the buffer switch). */
    public synchronized List<Record> drain(Map<Integer, Long> dropsOut) {
        List<Record> out = records;
        records = new ArrayList<>();
        used = 0;
        drops.forEach((cpu, n) -> dropsOut.merge(cpu, n, Long::sum));
        drops.clear();
        return out;
    }
}
