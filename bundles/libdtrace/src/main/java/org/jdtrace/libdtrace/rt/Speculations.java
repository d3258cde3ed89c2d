/*
 * Speculations: a consumer's speculative buffers (dtrace_speculation_t), nspec of them, each
 * holding the records of clauses that called speculate(id) until commit(id) moves them into the
 * committing thread's principal buffer or discard(id) drops them.
 *
 * States are DTrace's, simplified to the two a consumer can observe: INACTIVE (free for
 * speculation()) and ACTIVE (handed out; records go in). commit and discard make a buffer
 * inactive at once. IDs are 1..nspec; 0 is "no speculation": speculate(0), like speculate() of
 * an inactive or unknown ID, abandons the rest of the clause; commit(0)/discard(0) do nothing. An ID above nspec is an illegal operation (a fault);
 * speculating on an inactive buffer drops the data silently, as does a record that would take a
 * buffer past specsize (counted: "N speculative drops"). speculation() with no free buffer
 * returns 0 and counts a failed speculation. Counters are reported and reset at each drain.
 *
 * Locking: one monitor; speculation is rare and each operation is short.
 */
package org.jdtrace.libdtrace.rt;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.spi.FaultException;

public final class Speculations {

    private final Options options;
    private List<Record>[] buffers;
    private long[] used;
    private boolean[] active;
    private long failed;
    private long drops;

    Speculations(Options options) {
        this.options = options;
    }

    @SuppressWarnings("unchecked")
    private void ensure() {
        if (buffers == null) {
            int n = (int) Math.max(0, Math.min(options.get("nspec"), 1 << 16));
            buffers = new List[n];
            used = new long[n];
            active = new boolean[n];
        }
    }

    /** speculation(): a free buffer's ID, or 0. */
    public synchronized long allocate() {
        ensure();
        for (int i = 0; i < buffers.length; i++) {
            if (!active[i]) {
                active[i] = true;
                buffers[i] = new ArrayList<>();
                used[i] = 0;
                return i + 1;
            }
        }
        failed++;
        return 0;
    }

    /** speculate(id) can proceed: id names an active buffer. */
    public synchronized boolean isActive(long id) {
        ensure();
        return id >= 1 && id <= buffers.length && active[(int) id - 1];
    }

    /** The record of a clause that called speculate(id). */
    public synchronized void record(long id, Record r, int bytes) {
        ensure();
        if (id < 1 || id > buffers.length || !active[(int) id - 1]) {
            return;
        }
        int i = (int) id - 1;
        if (used[i] + bytes > options.get("specsize")) {
            drops++;
            return;
        }
        used[i] += bytes;
        buffers[i].add(r);
    }

    /** commit(id): the buffer's records, in order; the buffer becomes free. */
    public synchronized List<Record> commit(long id) {
        return take(id);
    }

    /** discard(id). */
    public synchronized void discard(long id) {
        take(id);
    }

    private List<Record> take(long id) {
        ensure();
        if (id == 0) {
            return List.of();
        }
        if (id < 0 || id > buffers.length) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
        int i = (int) id - 1;
        if (!active[i]) {
            return List.of();
        }
        List<Record> out = buffers[i];
        active[i] = false;
        buffers[i] = null;
        return out;
    }

    /** Failed speculations since the last call, and resets the count. */
    public synchronized long takeFailed() {
        long n = failed;
        failed = 0;
        return n;
    }

    /** Speculative drops since the last call, and resets the count. */
    public synchronized long takeDrops() {
        long n = drops;
        drops = 0;
        return n;
    }
}
