/*
 * The BPF map of an aggregation a kernel program keeps (ClauseProgram: a per-CPU hash, key as
 * ClauseProgram lays it out, value ClauseProgram.words), read for the consumer as a
 * KernelClause.Source: fold() walks the map, sums each key's words over the CPUs (MIN and MAX: the
 * extreme of the CPUs that saw a value) and hands the consumer what changed since the previous
 * fold (deltas; MIN and MAX the extreme so far; STDDEV's sum of squares a 128-bit number, carried
 * and borrowed across its two words), keys decoded as the JVM would have made them
 * (execname a String up to its NUL, probefunc the call's name, integers as Longs, a stack() key's
 * id its frames through KernelStacks: keys whose stacks differ only below the clause's depth
 * become one key, the consumer merging their words). The drops slot
 * (the clause's index in the program's drops map, a per-CPU array) is reported the same way, by
 * the CPU whose insertion the full map refused.
 *
 * Events counted before the consumer went live (the program runs from the batch of enables, BEGIN
 * fires after) are left out: the provider's sync() as the consumer goes live takes the map's
 * first baseline(). A map made while its consumer is already live (Probe.live: the provider came
 * back mid-trace, a bundle restart) takes none: everything it counts is the consumer's.
 *
 * The map is never cleared while the clause runs (the program's in-place updates would race with
 * a delete), so `last` holds every key seen; it is as big as the map (at most ENTRIES keys).
 *
 * Locking: fold() is called from the consumer's thread, and by KernelCells.detach from the
 * provider's (framework lock), each under the KernelCells' lock; close() after the detach.
 */
package org.jdtrace.perf.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.perf.PerfException;
import org.jdtrace.spi.KernelClause;

final class ClauseMap implements KernelClause.Source, AutoCloseable {

    /** The keys one clause's map holds (more are aggregation drops), for values up to 1 KB. */
    static final int ENTRIES = 10240;

    /** The keys a map of {@code valueBytes} values holds: ENTRIES, fewer for bigger values (10 MB a CPU). */
    static int entries(int valueBytes) {
        return valueBytes <= 1024 ? ENTRIES : ENTRIES * 1024 / valueBytes;
    }

    final KernelClause clause;
    final BpfObject map;
    private final BpfObject drops;
    final int slot;
    private final int cpus;
    private final Map<Integer, String> names;
    private final KernelStacks stacks;
    private final int keySize, words;
    private final Map<ByteBuffer, long[]> last = new HashMap<>();
    private final long[] lastDrops;
    /**
     * Made during its consumer's warm-up, nothing handed over yet: the first sync() takes what the
     * map holds as its baseline. The provider clears it for a map made while the consumer is live.
     */
    volatile boolean fresh = true;

    ClauseMap(PerfEvents perf, KernelClause clause, int slot, BpfObject drops, Map<Integer, String> names) {
        this(perf, clause, slot, drops, names, null);
    }

    /** {@code stacks}: where the program's stack() keys' ids name their stacks (null: it has none). */
    ClauseMap(PerfEvents perf, KernelClause clause, int slot, BpfObject drops, Map<Integer, String> names, KernelStacks stacks) {
        this.stacks = stacks;
        this.clause = clause;
        this.slot = slot;
        this.drops = drops;
        this.names = names;
        this.cpus = possibleCpus();
        this.lastDrops = new long[cpus];
        this.keySize = ClauseProgram.keySize(clause.aggregation());
        this.words = ClauseProgram.words(clause.aggregation());
        this.map = perf.map(PerfSys.MAP_PERCPU_HASH, keySize, words * 8, entries(words * 8), "jdtrace_agg");
    }

    /**
     * What the map gathered so far is not the consumer's: the program ran while its ECBs were
     * being enabled, before BEGIN (dtrace_state_go's WARMUP, where nothing is recorded).
     */
    synchronized void baseline() {
        fold(new KernelClause.Folder() {
            @Override
            public void add(Object[] key, long[] data) {}

            @Override
            public void drops(long count) {}
        });
        fresh = false;
    }

    @Override
    public synchronized void fold(KernelClause.Folder folder) {
        KernelClause.Aggregation g = clause.aggregation();
        byte[] key = null, next = new byte[keySize], value = new byte[cpus * words * 8];
        ByteBuffer v = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        while (map.nextKey(key, next)) {
            key = next.clone();
            if (!map.lookup(key, value)) continue;
            long[] now = sum(g.function(), v);
            ByteBuffer k = ByteBuffer.wrap(key);
            long[] before = last.get(k);
            long[] out = delta(g, now, before);
            last.put(k, now);
            if (out != null) folder.add(decode(g.keys(), key), out);
        }
        byte[] dv = new byte[cpus * 8];
        if (drops.lookup(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(slot).array(), dv)) {
            ByteBuffer b = ByteBuffer.wrap(dv).order(ByteOrder.LITTLE_ENDIAN);
            for (int c = 0; c < cpus; c++) {
                long d = b.getLong(8 * c);
                if (d > lastDrops[c]) folder.drops(c, d - lastDrops[c]);
                lastDrops[c] = d;
            }
        }
    }

    /**
     * The CPUs' copies merged: sums (STDDEV's squares with the carry), or for MIN/MAX {n, the
     * extreme of the copies with n > 0}.
     */
    private long[] sum(KernelClause.Function f, ByteBuffer v) {
        long[] s = new long[words];
        boolean minmax = f == KernelClause.Function.MIN || f == KernelClause.Function.MAX;
        for (int c = 0; c < cpus; c++) {
            int base = c * words * 8;
            if (minmax) {
                long n = v.getLong(base), m = v.getLong(base + 8);
                if (n == 0) continue;
                s[1] = s[0] == 0 ? m : f == KernelClause.Function.MIN ? Math.min(s[1], m) : Math.max(s[1], m);
                s[0] += n;
            } else {
                for (int i = 0; i < words; i++) s[i] += v.getLong(base + 8 * i);
                if (f == KernelClause.Function.STDDEV && Long.compareUnsigned(s[3], v.getLong(base + 24)) < 0) s[2]++;
            }
        }
        return s;
    }

    /** The consumer's words for what changed since {@code before} (null: nothing). */
    private static long[] delta(KernelClause.Aggregation g, long[] now, long[] before) {
        switch (g.function()) {
            case MIN, MAX -> {
                if (now[0] == 0 || (before != null && before[0] == now[0])) return null;
                return new long[] {now[1]};
            }
            default -> {
                long[] d = now.clone();
                boolean any = false;
                for (int i = 0; i < d.length; i++) {
                    if (before != null) d[i] -= before[i];
                    any |= d[i] != 0;
                }
                if (g.function() == KernelClause.Function.STDDEV && before != null
                        && Long.compareUnsigned(now[3], before[3]) < 0) {
                    d[2]--; // the low word's borrow
                }
                return any ? d : null;
            }
        }
    }

    private Object[] decode(List<KernelClause.Expr> keys, byte[] key) {
        Object[] out = new Object[keys.size()];
        ByteBuffer b = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN);
        int off = 0;
        for (int i = 0; i < out.length; i++) {
            KernelClause.Expr k = keys.get(i);
            if (k instanceof KernelClause.Var var && var.which() == KernelClause.Variable.EXECNAME) {
                int n = 0;
                while (n < 16 && key[off + n] != 0) n++;
                out[i] = new String(key, off, n, StandardCharsets.UTF_8);
            } else if (k instanceof KernelClause.Var var && var.which() == KernelClause.Variable.PROBEFUNC) {
                long nr = b.getLong(off);
                out[i] = names.getOrDefault((int) nr, "");
            } else if (k instanceof KernelClause.Stack st) {
                out[i] = stacks.frames(b.getLong(off), st.frames());
            } else {
                out[i] = b.getLong(off);
            }
            off += ClauseProgram.keyWidth(k);
        }
        return out;
    }

    /**
     * Takes {@code c} into the program being built ({@code keep}, clause -> its map): the map the
     * running program has ({@code taken}, moved to {@code attached}), else a new one in a drops
     * slot neither has ({@code make}); null for a whole clause without an aggregation (its stores
     * touch the thread-locals map alone). False when no slot is left (the clause is not taken).
     */
    static boolean take(KernelClause c, Map<KernelClause, ClauseMap> keep, Map<KernelClause, ClauseMap> taken,
            java.util.Set<ClauseMap> attached, java.util.function.IntFunction<ClauseMap> make) {
        if (keep.containsKey(c)) return true;
        if (c.aggregation() == null) {
            keep.put(c, null);
            return true;
        }
        ClauseMap m = taken.remove(c);
        if (m != null) {
            attached.add(m);
        } else {
            int slot = freeSlot(keep.values(), taken.values());
            if (slot < 0) return false;
            m = make.apply(slot);
        }
        keep.put(c, m);
        return true;
    }

    /** The program's view of the clauses {@code keep} holds (a whole clause without a map: fd and slot -1). */
    static Map<KernelClause, ClauseProgram.Taken> program(Map<KernelClause, ClauseMap> keep) {
        Map<KernelClause, ClauseProgram.Taken> t = new java.util.IdentityHashMap<>();
        keep.forEach((c, m) -> t.put(c, taken(c, m)));
        return t;
    }

    /** The program's view of clause {@code c} taken with map {@code m} (null: a whole clause without one). */
    static ClauseProgram.Taken taken(KernelClause c, ClauseMap m) {
        return new ClauseProgram.Taken(c, m == null ? -1 : m.map.fd(), m == null ? -1 : m.slot);
    }

    /** The maps of clauses no program runs any more: detached (their last values folded in) and closed. */
    static void retire(java.util.Collection<ClauseMap> gone) {
        for (ClauseMap m : gone) {
            if (m == null) continue;
            m.clause.aggregation().sink().detach(m);
            m.close();
        }
    }

    /** A drops slot (ClauseProgram.MAX_CLAUSES of them) that none of {@code maps} has, or -1 (null maps: whole clauses without one). */
    @SafeVarargs
    static int freeSlot(java.util.Collection<ClauseMap>... maps) {
        java.util.BitSet used = new java.util.BitSet();
        for (java.util.Collection<ClauseMap> c : maps) {
            c.forEach(m -> {
                if (m != null) used.set(m.slot);
            });
        }
        int s = used.nextClearBit(0);
        return s < ClauseProgram.MAX_CLAUSES ? s : -1;
    }

    /**
     * Why the kernel would not run a program, in Probe.kernelRefused's one line: its verifier's
     * refusal (PerfException), or a program too big to encode or naming too many maps
     * (IllegalArgumentException).
     */
    static String refusal(RuntimeException e) {
        return e instanceof PerfException ? "the kernel refused its program: " + e.getMessage()
                : "its program is too big for BPF: " + e.getMessage();
    }

    /**
     * The maps made for a program the kernel refused given back: those already attached detached
     * (what they hold is kept), all closed; null entries (whole clauses without a map) skipped.
     */
    static void giveBack(java.util.Collection<ClauseMap> maps, java.util.Set<ClauseMap> attached) {
        for (ClauseMap m : maps) {
            if (m == null) continue;
            if (attached.contains(m)) m.clause.aggregation().sink().detach(m);
            m.close();
        }
    }

    /** The kernel's possible CPUs (a per-CPU map's lookup gives one value for each). */
    static int possibleCpus() {
        try {
            String s = java.nio.file.Files.readString(java.nio.file.Path.of("/sys/devices/system/cpu/possible")).strip();
            int n = 0;
            for (String r : s.split(",")) {
                String[] ab = r.split("-");
                n += ab.length == 1 ? 1 : Integer.parseInt(ab[1]) - Integer.parseInt(ab[0]) + 1;
            }
            return n;
        } catch (java.io.IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    @Override
    public void close() {
        map.close();
    }
}
