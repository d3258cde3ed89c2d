/*
 * PrincipalBuffer: one firing thread's principal buffer (DTrace has one per CPU; jdtrace has one
 * per Java thread that fires probes, so firings never share a buffer).
 *
 * The writer is the owning thread; the consumer swaps the record list out at drain time. Both
 * take the buffer's monitor, which the owning thread holds alone except for the instant of a
 * drain, so the lock is uncontended (a biased/thin lock: a CAS) on the firing path. A record
 * that would take the buffer past bufsize bytes is dropped and counted against the CPU the
 * firing reported, as DTrace's "drops on CPU n". Under the fill policy a record that does not fit
 * is no drop: the buffer is full, the caller stops tracing (DTrace's DTRACEBUF_FULL), and a drain
 * takes the records but leaves the buffer as full as it was (a fill buffer fills once).
 *
 * Records committed by the firing thread are kept raw (RawRecords: words and references copied
 * from the DThread's record into arrays that grow to the buffer's high-water mark and are reused
 * after each drain), so a commit allocates nothing once warm; drain() decodes them into Record
 * objects on the consumer's thread. Records that are objects already (a speculation's, committed)
 * are kept as they are. Order inside the buffer does not matter: the drain sorts every thread's
 * records by time and sequence.
 */
package org.jdtrace.libdtrace.rt;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public final class PrincipalBuffer {

    private ArrayList<Record> records = new ArrayList<>();
    private long[] words = new long[256];
    private Object[] refs = new Object[64];
    private int nw;
    private int nr;
    private long used;
    /** Drops by CPU since the last drain, at index cpu + 1 (-1: unknown CPU): counting one allocates nothing. */
    private long[] drops = new long[8];

    /** Appends a record if it fits in {@code bufsize} bytes; counts a drop otherwise. */
    public synchronized boolean offer(Record r, int bytes, long bufsize, boolean fill) {
        if (used + bytes > bufsize) {
            if (!fill) drop(r.cpu());
            return false;
        }
        used += bytes;
        records.add(r);
        return true;
    }

    /** Appends a raw record (DThread's arrays, copied) if it fits in {@code bufsize} bytes; counts a drop otherwise. */
    public synchronized boolean offer(int epid, int cpu, long timestamp, long seq, long[] w, int nw, Object[] r, int nr,
            int ndata, int bytes, long bufsize, boolean fill) {
        if (used + bytes > bufsize) {
            if (!fill) drop(cpu);
            return false;
        }
        used += bytes;
        int need = this.nw + RawRecords.HEADER_WORDS + nw;
        if (need > words.length) words = java.util.Arrays.copyOf(words, Math.max(need, words.length * 2));
        if (this.nr + nr > refs.length) refs = java.util.Arrays.copyOf(refs, Math.max(this.nr + nr, refs.length * 2));
        long[] to = words;
        int at = this.nw;
        to[at] = epid;
        to[at + 1] = cpu;
        to[at + 2] = timestamp;
        to[at + 3] = seq;
        to[at + 4] = ndata;
        System.arraycopy(w, 0, to, at + RawRecords.HEADER_WORDS, nw);
        this.nw = need;
        System.arraycopy(r, 0, refs, this.nr, nr);
        this.nr += nr;
        return true;
    }

    private void drop(int cpu) {
        int c = Math.max(cpu, -1) + 1;
        if (c >= drops.length) drops = java.util.Arrays.copyOf(drops, Math.max(c + 1, drops.length * 2));
        drops[c]++;
    }

    /** Takes every record so far and the drops per CPU since the last drain (the buffer switch). */
    public synchronized List<Record> drain(Map<Integer, Long> dropsOut, boolean fill) {
        List<Record> out = records;
        records = new ArrayList<>();
        RawRecords.Cursor at = new RawRecords.Cursor(0, 0);
        while (at.w < nw) {
            int epid = (int) words[at.w];
            int cpu = (int) words[at.w + 1];
            long ts = words[at.w + 2];
            long seq = words[at.w + 3];
            int n = (int) words[at.w + 4];
            at.w += RawRecords.HEADER_WORDS;
            out.add(new Record(epid, cpu, ts, seq, RawRecords.decode(words, refs, at, n)));
        }
        assert at.w == nw && at.r == nr : "raw records end at " + at.w + "/" + at.r + ", not " + nw + "/" + nr;
        java.util.Arrays.fill(refs, 0, nr, null);
        nw = 0;
        nr = 0;
        if (!fill) used = 0;
        for (int i = 0; i < drops.length; i++) {
            if (drops[i] != 0) dropsOut.merge(i - 1, drops[i], Long::sum);
        }
        java.util.Arrays.fill(drops, 0);
        return out;
    }
}
