/*
 * DThread: what one firing (Java) thread owns in one consumer: its principal buffer, its
 * aggregation buffer (an AggCell per keyless aggregation, a map per keyed one) and the record
 * under construction of the clause it is running. Everything here is written by that thread
 * only; the consumer reads the aggregation cells at snapshot time and swaps the principal buffer
 * at drain time. There is no lock on the aggregation path: count() on a keyless aggregation is a
 * DState.thread() lookup (a slot check, see there), an array load, a volatile (plain on amd64)
 * generation read and an increment.
 */
package org.jdtrace.libdtrace.rt;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

public final class DThread {

    private final DState state;
    /** The Java thread this DThread belongs to (DState.thread's check). */
    final Thread owner;
    final PrincipalBuffer buffer = new PrincipalBuffer();
    /** Scratch and this-> struct storage (see {@link Mem}). */
    final Mem.ThreadMemory memory = new Mem.ThreadMemory();
    volatile AggCell[] keyless = new AggCell[0];
    /** Per keyed aggregation: its cells by key, the Tuple, or for a one-key aggregation the key itself. */
    @SuppressWarnings("unchecked")
    volatile ConcurrentHashMap<Object, AggCell>[] keyed = new ConcurrentHashMap[0];

    /** Per one-key aggregation: the key object of this thread's last firing and its cell (this thread only). */
    private Object[] lastKey = new Object[0];
    private AggCell[] lastCell = new AggCell[0];

    /*
     * The record under construction, in raw form (RawRecords' encoding): words and references,
     * grown when a record needs more and then reused, so recording trace() and printf() data
     * allocates nothing once warm (dtrace_probe writes into its principal buffer the same way).
     */
    private long[] words = new long[32];
    private Object[] refs = new Object[8];
    private int nw;
    private int nr;
    private int n;
    private int bytes;
    /** The word of the printf() under way that holds its byte count. */
    private int printfBytes;
    private long seq;
    /** speculate(id) ran in the clause under way: its record goes to speculation {@code specId}. */
    private boolean speculating;
    private long specId;
    /** exit() ran in the clause under way: the consumer is told once the clause's record is committed. */
    private boolean exiting;
    private int exitStatus;
    /** What strtok(NULL, delim) goes on with: the rest of the last string strtok() was given (null: none yet). */
    public String strtok;
    /** This firing's this-> scalars, kept across its clauses (see {@link FiringLocals}). */
    final FiringLocals firingLocals = new FiringLocals();

    DThread(DState state) {
        this.state = state;
        this.owner = Thread.currentThread();
    }

    DState state() {
        return state;
    }

    /** Starts the record of a clause (dtrace_probe's offset reservation). */
    public void begin() {
        n = 0;
        nw = 0;
        clearRefs();
        bytes = 0;
        speculating = false;
        exiting = false;
    }

    /**
     * exit(status) in the clause under way: requested when its record is committed, as DTrace's
     * exit is an action the consumer sees in the buffer, so the clause's own data (a printf before
     * the exit) is never drained after the run ended; a clause that faults exits nothing.
     */
    public void exitAtCommit(int status) {
        exiting = true;
        exitStatus = status;
    }

    /** speculate(id): this clause's record is speculative; false if {@code id} is not active. */
    public boolean speculate(long id) {
        if (!state.speculations.isActive(id)) return false;
        speculating = true;
        specId = id;
        return true;
    }

    /** commit(id) on CPU {@code cpu}: the speculation's records join this thread's principal buffer now. */
    public void commitSpeculation(long id, int cpu) {
        boolean fill = state.options.fill();
        for (Record r : state.speculations.commit(id, cpu)) {
            int size = Record.HEADER;
            for (Datum d : r.data()) size += d.size();
            if (!buffer.offer(new Record(r.epid(), r.cpu(), System.nanoTime(), seq++, r.data()), size,
                    state.bufferLimit(fill), fill) && fill) {
                state.filled();
            }
        }
    }

    /** Any datum, as the object it is (the actions with no raw form). */
    public void add(Datum d) {
        word(RawRecords.OBJ);
        ref(d);
        n++;
        bytes += d.size();
    }

    /** trace() of an integer: no object made. */
    public void traceInt(long v, int width, boolean signed) {
        word(RawRecords.INT);
        word(v);
        word((long) width << 1 | (signed ? 1 : 0));
        n++;
        bytes += width;
    }

    /** trace() of a string (cut to strsize already). */
    public void traceStr(String s, int strsize) {
        word(RawRecords.STR);
        word(strsize);
        ref(s);
        n++;
        bytes += strsize + 1;
    }

    /** printf(): the format; its {@code nargs} arguments follow (argLong, argStr). */
    public void printf(RecordFormat format, int[] widths, int nargs) {
        word(RawRecords.PRINTF);
        word(nargs);
        printfBytes = nw;
        word(0);
        ref(format);
        ref(widths);
        n++;
    }

    /** An integer argument of the printf() under way. */
    public void argLong(long v) {
        word(RawRecords.ARG_LONG);
        word(v);
        words[printfBytes] += 8;
        bytes += 8;
    }

    /** A string argument of the printf() under way (cut to strsize already). */
    public void argStr(String s, int strsize) {
        word(RawRecords.ARG_STR);
        ref(s);
        words[printfBytes] += strsize;
        bytes += strsize;
    }

    private void word(long w) {
        if (nw == words.length) words = Arrays.copyOf(words, nw * 2);
        words[nw++] = w;
    }

    private void ref(Object o) {
        if (nr == refs.length) refs = Arrays.copyOf(refs, nr * 2);
        refs[nr++] = o;
    }

    private void clearRefs() {
        for (int i = 0; i < nr; i++) refs[i] = null;
        nr = 0;
    }

    /**
     * This thread's aggregation buffer (a CPU's in DTrace): the bytes of the entries it made
     * (Aggregation.entryBytes) since the consumer last took the aggregations (DState.aggEpoch:
     * DTrace's consumer empties each CPU's buffer at every snapshot), bounded by aggsize; an
     * entry that does not fit is not made and counts an aggregation drop, reported by the
     * consumer with the CPU of the thread's last record (lastCpu: written by this thread, read by
     * the drain as a hint for the report only).
     */
    private long aggBytes;
    private long aggEpoch;
    final java.util.concurrent.atomic.AtomicLong aggDrops = new java.util.concurrent.atomic.AtomicLong();
    int lastCpu;

    /** Whether a new entry of {@code a} fits the aggregation buffer (taken if so), else a drop. */
    private boolean takeAggEntry(Aggregation a) {
        long cost = a.entryBytes(state.options);
        long epoch = state.aggEpoch;
        if (epoch != aggEpoch) {
            aggEpoch = epoch;
            aggBytes = 0;
        }
        if (aggBytes + cost > state.options.get("aggsize")) {
            aggDrops.incrementAndGet();
            return false;
        }
        aggBytes += cost;
        return true;
    }

    /** Commits the clause's record to the principal buffer, or counts a drop. */
    public void commit(int epid, int cpu) {
        lastCpu = cpu;
        long ts = System.nanoTime();
        if (speculating) {
            // a speculation keeps records as objects (made here, off the usual path)
            speculating = false;
            Record r = new Record(epid, cpu, ts, seq++, RawRecords.decode(words, 0, refs, 0, n));
            state.speculations.record(specId, r, Record.HEADER + bytes);
        } else {
            boolean fill = state.options.fill();
            if (!buffer.offer(epid, cpu, ts, seq++, words, nw, refs, nr, n, Record.HEADER + bytes,
                    state.bufferLimit(fill), fill) && fill) {
                state.filled();
            }
        }
        n = 0;
        nw = 0;
        clearRefs();
        if (exiting) {
            exiting = false;
            state.exit(exitStatus);
        }
    }

    /** Keyless aggregation update: no allocation once the cell exists. */
    public void aggregate(Aggregation a, long value, long incr) {
        AggCell[] cells = keyless;
        AggCell c;
        int g = a.gen;
        if (a.id >= cells.length || (c = cells[a.id]) == null || c.gen != g) {
            c = newKeyless(a, g);
            if (c == null) return; // an aggregation drop
        }
        a.apply(c.data, value, incr);
    }

    /** sum(value) on a keyless aggregation: count()'s path, no dispatch on the function. */
    public void sum(Aggregation a, long value) {
        assert a.kind == AggKind.SUM && !a.keyed();
        AggCell[] cells = keyless;
        AggCell c;
        if (a.id < cells.length && (c = cells[a.id]) != null && c.gen == a.gen) {
            c.data[0] += value;
            return;
        }
        aggregate(a, value, 1);
    }

    /** count() on a keyless aggregation, the cheapest firing there is. */
    public void count(Aggregation a) {
        AggCell[] cells = keyless;
        AggCell c;
        if (a.id < cells.length && (c = cells[a.id]) != null && c.gen == a.gen) {
            c.data[0]++;
            return;
        }
        aggregate(a, 0, 1);
    }

    private AggCell newKeyless(Aggregation a, int g) {
        AggCell[] cells = keyless;
        if (a.id >= cells.length) {
            cells = Arrays.copyOf(cells, Math.max(a.id + 1, cells.length * 2));
        }
        AggCell c = cells[a.id];
        if (c == null) {
            if (!takeAggEntry(a)) return null;
            c = new AggCell(g, a.identity());
            cells[a.id] = c;
        } else {
            long[] id = a.identity();
            System.arraycopy(id, 0, c.data, 0, id.length);
            c.gen = g;
        }
        keyless = cells;
        return c;
    }

    /** Keyed aggregation update. */
    @SuppressWarnings("unchecked")
    public void aggregate(Aggregation a, Tuple key, long value, long incr) {
        aggregateKey(a, key, value, incr);
    }

    /**
     * An aggregation with one key: the cell is found by the key itself (a String or a Long), so
     * a string key such as probefunc allocates nothing once its cell exists.
     */
    public void aggregate1(Aggregation a, Object key, long value, long incr) {
        // the same key object as this thread's last firing (probefunc of one probe): its cell
        AggCell c;
        if (a.id < lastKey.length && lastKey[a.id] == key && (c = lastCell[a.id]).gen == a.gen) {
            a.apply(c.data, value, incr);
            return;
        }
        c = aggregateKey(a, key, value, incr);
        if (c == null) return; // an aggregation drop
        if (a.id >= lastKey.length) {
            lastKey = Arrays.copyOf(lastKey, Math.max(a.id + 1, lastKey.length * 2));
            lastCell = Arrays.copyOf(lastCell, lastKey.length);
        }
        lastKey[a.id] = key;
        lastCell[a.id] = c;
    }

    private AggCell aggregateKey(Aggregation a, Object key, long value, long incr) {
        ConcurrentHashMap<Object, AggCell>[] maps = keyed;
        if (a.id >= maps.length || maps[a.id] == null) {
            if (a.id >= maps.length) maps = Arrays.copyOf(maps, Math.max(a.id + 1, maps.length * 2));
            maps[a.id] = new ConcurrentHashMap<>();
            keyed = maps;
        }
        ConcurrentHashMap<Object, AggCell> m = maps[a.id];
        int g = a.gen;
        AggCell c = m.get(key);
        if (c == null) {
            if (!takeAggEntry(a)) return null;
            c = new AggCell(g, a.identity());
            m.put(key, c);
        } else if (c.gen != g) {
            long[] id = a.identity();
            System.arraycopy(id, 0, c.data, 0, id.length);
            c.gen = g;
        }
        a.apply(c.data, value, incr);
        return c;
    }

    /** Adds this thread's current-generation data for {@code a} into {@code into}. */
    void collect(Aggregation a, java.util.Map<Tuple, long[]> into) {
        int g = a.gen;
        if (a.keyed()) {
            ConcurrentHashMap<Object, AggCell>[] maps = keyed;
            if (a.id >= maps.length || maps[a.id] == null) return;
            maps[a.id].forEach((k, c) -> {
                if (c.gen == g) {
                    Tuple t = k instanceof Tuple kt ? kt : Tuple.of(k);
                    a.merge(into.computeIfAbsent(t, x -> a.identity()), c.data.clone());
                }
            });
        } else {
            AggCell[] cells = keyless;
            AggCell c;
            if (a.id < cells.length && (c = cells[a.id]) != null && c.gen == g) {
                a.merge(into.computeIfAbsent(Tuple.EMPTY, x -> a.identity()), c.data.clone());
            }
        }
    }
}
