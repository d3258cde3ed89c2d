/*
 * Speculations: a consumer's speculative buffers (dtrace_speculation_t), nspec of them, each
 * holding the records of clauses that called speculate(id) until commit(id) moves them into the
 * committing thread's principal buffer or discard(id) drops them.
 *
 * States are DTrace's, simplified to those a consumer can observe: INACTIVE (free for
 * speculation()), ACTIVE (handed out; records go in; ACTIVEONE/ACTIVEMANY by whether the
 * records came from one CPU or several) and BUSY (DTrace's COMMITTINGMANY/DISCARDING: committed
 * or discarded while another CPU's records may be in it). commit and discard of a speculation
 * that nothing was written to, or that one CPU wrote, on that same CPU, make it inactive at once,
 * as dtrace_speculation_commit and _discard do (ACTIVE, or ACTIVEONE with a non-empty buffer on
 * the committing CPU); one several CPUs wrote (ACTIVEMANY), or one CPU wrote and another commits
 * or discards (ACTIVEONE with an empty buffer there: COMMITTINGMANY/DISCARDING), stays busy until
 * the consumer's next clean (each drain here; dtrace_speculation_clean at cleanrate there), its
 * records all committed at once.
 * IDs are 1..nspec; 0 is "no speculation": speculate(0), like speculate() of
 * an inactive or unknown ID, abandons the rest of the clause; commit(0)/discard(0) do nothing. An ID above nspec is an illegal operation (a fault);
 * speculating on an inactive buffer drops the data silently, as does a record that would take a
 * buffer past specsize (counted: "N speculative drops"). speculation() with no free buffer
 * returns 0 and counts a failed speculation: "busy" when a busy buffer was among those it
 * passed (DTRACEDROP_SPECBUSY), else "unavailable" (DTRACEDROP_SPECUNAVAIL), as
 * dtrace_speculation() attributes it. Counters are reported and reset at each drain.
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
    /** The CPU whose records a buffer holds, -1 for none yet; -2 once records of several came. */
    private int[] writer;
    private boolean[] busy;
    private long failed;
    private long failedBusy;
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
            writer = new int[n];
            busy = new boolean[n];
        }
    }

    /** speculation(): a free buffer's ID, or 0. */
    public synchronized long allocate() {
        ensure();
        boolean sawBusy = false;
        for (int i = 0; i < buffers.length; i++) {
            if (busy[i]) {
                sawBusy = true;
            } else if (!active[i]) {
                active[i] = true;
                buffers[i] = new ArrayList<>();
                used[i] = 0;
                writer[i] = -1;
                return i + 1;
            }
        }
        if (sawBusy) failedBusy++;
        else failed++;
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
        writer[i] = writer[i] == -1 || writer[i] == r.cpu() ? r.cpu() : -2;
        if (used[i] + bytes > options.get("specsize")) {
            drops++;
            return;
        }
        used[i] += bytes;
        buffers[i].add(r);
    }

    /**
     * commit(id) on CPU {@code cpu}: the buffer's records, in order; the buffer becomes free, or
     * busy until the next clean if a CPU other than {@code cpu} wrote to it.
     */
    public synchronized List<Record> commit(long id, int cpu) {
        return take(id, cpu);
    }

    /** discard(id) on CPU {@code cpu}: free or busy as {@link #commit} leaves it. */
    public synchronized void discard(long id, int cpu) {
        take(id, cpu);
    }

    private List<Record> take(long id, int cpu) {
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
        busy[i] = writer[i] != -1 && writer[i] != cpu;
        buffers[i] = null;
        return out;
    }

    /** The consumer's clean (dtrace_speculation_clean): buffers committed or discarded since are free. */
    public synchronized void clean() {
        if (busy != null) java.util.Arrays.fill(busy, false);
    }

    /** Speculations that failed while a buffer was busy, since the last call; resets the count. */
    public synchronized long takeFailedBusy() {
        long n = failedBusy;
        failedBusy = 0;
        return n;
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
