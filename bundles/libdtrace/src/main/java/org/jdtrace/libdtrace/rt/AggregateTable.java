/*
 * AggregateTable: the consumer's view of the aggregations (libdtrace's dt_aggregate hash).
 *
 * The value of a key is its base (what clear()/trunc() left, held here) merged with every
 * thread's data of the current generation. clear() and trunc() are consumer actions, processed
 * in record order at drain time as libdtrace does: they fold the current data into the base
 * (zeroed for clear, cut down for trunc) and bump the aggregation's generation so the threads
 * restart from nothing. Used by the consumer thread only.
 */
package org.jdtrace.libdtrace.rt;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class AggregateTable {

    /** One key's value at snapshot time. */
    public record Entry(Tuple key, long[] data) {}

    /** One key of printa(@a, @b, ...): each aggregation's value (its identity where it has none). */
    public record JoinedEntry(Tuple key, long[][] data) {}

    private final DState state;
    private final Map<Integer, Map<Tuple, long[]>> base = new HashMap<>();
    private final Set<Integer> printed = new HashSet<>();
    /** normalize(): each aggregation's normalization factor (dtagd_normal), absent for 1. */
    private final Map<Integer, Long> normals = new HashMap<>();

    public AggregateTable(DState state) {
        this.state = state;
    }

    /**
     * The current value of every key of {@code a}, unsorted: what clear()/trunc() left merged
     * with the threads' data, or the threads' merged data itself (a fresh map, in the same order)
     * when they left nothing.
     */
    public Map<Tuple, long[]> snapshot(Aggregation a) {
        Map<Tuple, long[]> b = base.get(a.id);
        if (b == null || b.isEmpty()) return state.collect(a);
        Map<Tuple, long[]> m = new LinkedHashMap<>();
        b.forEach((k, v) -> m.put(k, v.clone()));
        state.collect(a).forEach((k, v) -> a.merge(m.computeIfAbsent(k, x -> a.identity()), v));
        return m;
    }

    /** Entries in dtrace's default order: by value, then by key (aggsortkey: key, then value). */
    public List<Entry> sorted(Aggregation a) {
        Map<Tuple, long[]> snap = snapshot(a);
        List<Entry> list = new ArrayList<>(snap.size());
        snap.forEach((k, v) -> list.add(new Entry(k, v)));
        Options o = state.options;
        int keypos = (int) Math.max(0, o.get("aggsortkeypos") == Options.UNSET ? 0 : o.get("aggsortkeypos"));
        list.sort(new EntryOrder(a, keypos, o.isSet("aggsortkey"), o.isSet("aggsortrev")));
        return list;
    }

    /**
     * The order of {@link #sorted}, as one comparator: by value then key, or by key then value
     * (aggsortkey), reversed with aggsortrev. A profile's sort at exit compares some hundred
     * thousand times, mostly interpreted: this is one call a comparison where the
     * thenComparing/reversed chain it stands for made four.
     */
    private static final class EntryOrder implements Comparator<Entry> {
        private final Aggregation a;
        private final int keypos;
        private final boolean keyFirst;
        private final boolean reverse;

        EntryOrder(Aggregation a, int keypos, boolean keyFirst, boolean reverse) {
            this.a = a;
            this.keypos = keypos;
            this.keyFirst = keyFirst;
            this.reverse = reverse;
        }

        @Override
        public int compare(Entry x, Entry y) {
            if (reverse) {
                Entry t = x;
                x = y;
                y = t;
            }
            int c;
            if (keyFirst) {
                c = compareKeys(a, x.key, y.key, keypos);
                return c != 0 ? c : compareValues(a, x.data, y.data);
            }
            c = compareValues(a, x.data, y.data);
            return c != 0 ? c : compareKeys(a, x.key, y.key, keypos);
        }
    }

    /**
     * The keys of several aggregations joined (dt_aggregate_walk_joined): every key any of them
     * has, ordered by the aggregations' values in turn (then keys, or keys first with aggsortkey).
     */
    public List<JoinedEntry> joined(Aggregation[] aggs) {
        List<Map<Tuple, long[]>> snaps = new ArrayList<>();
        Map<Tuple, Boolean> keys = new LinkedHashMap<>();
        for (Aggregation a : aggs) {
            Map<Tuple, long[]> s = snapshot(a);
            snaps.add(s);
            s.keySet().forEach(k -> keys.put(k, true));
        }
        List<JoinedEntry> list = new ArrayList<>();
        for (Tuple k : keys.keySet()) {
            long[][] d = new long[aggs.length][];
            for (int i = 0; i < aggs.length; i++) {
                long[] v = snaps.get(i).get(k);
                d[i] = v != null ? v : new long[aggs[i].identity().length]; // printed as 0
            }
            list.add(new JoinedEntry(k, d));
        }
        Aggregation first = aggs[0];
        Options o = state.options;
        int keypos = (int) Math.max(0, o.get("aggsortkeypos") == Options.UNSET ? 0 : o.get("aggsortkeypos"));
        Comparator<JoinedEntry> byVal = (x, y) -> {
            for (int i = 0; i < aggs.length; i++) {
                int c = compareValues(aggs[i], x.data()[i], y.data()[i]);
                if (c != 0) return c;
            }
            return 0;
        };
        Comparator<JoinedEntry> byKey = (x, y) -> compareKeys(first, x.key(), y.key(), keypos);
        Comparator<JoinedEntry> cmp = o.isSet("aggsortkey") ? byKey.thenComparing(byVal) : byVal.thenComparing(byKey);
        if (o.isSet("aggsortrev")) cmp = cmp.reversed();
        list.sort(cmp);
        return list;
    }

    /** clear(@a): values to zero, keys stay. */
    public void clear(Aggregation a) {
        Map<Tuple, long[]> now = snapshot(a);
        Map<Tuple, long[]> b = new LinkedHashMap<>();
        for (Tuple k : now.keySet()) b.put(k, a.identity());
        base.put(a.id, b);
        state.resetThreads(a);
    }

    /** trunc(@a): all keys go; trunc(@a, n): the n largest values stay (n &lt; 0: the -n smallest). */
    public void trunc(Aggregation a, long keep, boolean all) {
        Map<Tuple, long[]> b = new LinkedHashMap<>();
        if (!all) {
            List<Entry> list = new ArrayList<>();
            snapshot(a).forEach((k, v) -> list.add(new Entry(k, v)));
            Comparator<Entry> cmp = (x, y) -> compareValues(a, x.data, y.data);
            cmp = cmp.thenComparing((x, y) -> compareKeys(a, x.key, y.key));
            if (keep >= 0) cmp = cmp.reversed();
            list.sort(cmp);
            long n = Math.abs(keep);
            for (int i = 0; i < list.size() && i < n; i++) b.put(list.get(i).key, list.get(i).data);
        }
        base.put(a.id, b);
        state.resetThreads(a);
    }

    /**
     * normalize(@a, n) (and denormalize(@a), n = 1), processed in record order as dt_normalize
     * does: from now on @a prints divided by n. A factor that is not positive leaves it as it was.
     */
    public void normalize(Aggregation a, long normal) {
        if (normal == 1) {
            normals.remove(a.id);
        } else if (normal > 0) {
            normals.put(a.id, normal);
        }
    }

    /** The normalization factor of {@code a} (1 unless normalize() set one). */
    public long normal(Aggregation a) {
        return normals.getOrDefault(a.id, 1L);
    }

    public void markPrinted(Aggregation a) {
        printed.add(a.id);
    }

    public boolean wasPrinted(Aggregation a) {
        return printed.contains(a.id);
    }

    /** dt_aggregate_valcmp: scalars by value, histograms by their weighted sum, then their zero bucket. */
    static int compareValues(Aggregation a, long[] x, long[] y) {
        switch (a.kind) {
            case AVG -> {
                double ax = x[0] == 0 ? 0 : (double) x[1] / x[0];
                double ay = y[0] == 0 ? 0 : (double) y[1] / y[0];
                return Double.compare(ax, ay);
            }
            case STDDEV -> {
                return Long.compare(Aggregation.stddev(x), Aggregation.stddev(y));
            }
            case QUANTIZE, LQUANTIZE, LLQUANTIZE -> {
                // exact sums: dtrace's long double tells apart counts a double cannot
                BigInteger wx = BigInteger.ZERO, wy = BigInteger.ZERO;
                for (int i = 0; i < x.length; i++) {
                    BigInteger v = BigInteger.valueOf(a.kind == AggKind.QUANTIZE ? AggKind.bucketValue(i)
                            : a.kind == AggKind.LLQUANTIZE ? a.llq.value(i)
                            : i == 0 ? a.lqBase - 1 : a.lqBase + (long) (i - 1) * a.lqStep);
                    wx = wx.add(v.multiply(BigInteger.valueOf(x[i])));
                    wy = wy.add(v.multiply(BigInteger.valueOf(y[i])));
                }
                int c = wx.compareTo(wy);
                int z = a.zeroBucket(); // equal sums: the counts of the zero bucket decide, as dtrace's
                return c != 0 ? c : Long.compare(x[z], y[z]);
            }
            default -> {
                return Long.compare(x[0], y[0]);
            }
        }
    }

    /** dt_aggregate_keycmp: integers unsigned at their width, strings bytewise. */
    static int compareKeys(Aggregation a, Tuple x, Tuple y) {
        return compareKeys(a, x, y, 0);
    }

    /** Keys compared from position {@code keypos} on, wrapping around (option aggsortkeypos). */
    static int compareKeys(Aggregation a, Tuple x, Tuple y, int keypos) {
        int n = Math.min(x.size(), y.size());
        for (int j = 0; j < n; j++) {
            int i = keypos < n ? (j + keypos) % n : j;
            Object l = x.get(i), r = y.get(i);
            int c;
            if (l instanceof String ls && r instanceof String rs) {
                c = ls.compareTo(rs);
            } else if (l instanceof StackFrames ls && r instanceof StackFrames rs) {
                c = ls.compareTo(rs);
            } else {
                int w = i < a.keySizes.length && a.keySizes[i] > 0 ? a.keySizes[i] : 8;
                long mask = w >= 8 ? -1L : (1L << (w * 8)) - 1;
                long lv = (l instanceof Long ll ? ll : 0) & mask;
                long rv = (r instanceof Long rl ? rl : 0) & mask;
                c = Long.compareUnsigned(lv, rv);
            }
            if (c != 0) return c;
        }
        return Integer.compare(x.size(), y.size());
    }
}
