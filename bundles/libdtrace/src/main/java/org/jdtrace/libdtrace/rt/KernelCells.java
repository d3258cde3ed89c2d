/*
 * KernelCells: the consumer's side of an aggregation a provider keeps in the kernel (a taken
 * KernelClause, see org.jdtrace.spi.KernelClause): the KernelClause.Sink of one aggregating
 * clause. It plays a DThread's part for the aggregation: the sources the providers attach are
 * folded in at each snapshot (DState.collect, consumer's thread), their deltas accumulated here
 * under the aggregation's generation, so clear() and trunc() (which bump the generation) drop
 * what was gathered before them exactly as they drop the threads' cells. MIN and MAX come as the
 * extreme so far, so after a clear() they still include values from before it (the kernel map is
 * never reset: a reset would race with the program's updates).
 *
 * Locking: attach/detach come from providers (framework lock), fold from the consumer's thread:
 * the sources are a copy-on-write list; the cells are touched by the consumer's thread only.
 */
package org.jdtrace.libdtrace.rt;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jdtrace.spi.KernelClause;

public final class KernelCells implements KernelClause.Sink, KernelClause.Folder {

    final Aggregation agg;
    private final List<KernelClause.Source> sources = new CopyOnWriteArrayList<>();
    private final Map<Tuple, long[]> cells = new HashMap<>();
    private int gen;
    /** Aggregation drops by CPU, until DState.takeAggregationDrops takes them. */
    private final Map<Integer, Long> drops = new java.util.TreeMap<>();

    KernelCells(Aggregation agg) {
        this.agg = agg;
        this.gen = agg.gen;
    }

    @Override
    public void attach(KernelClause.Source source) {
        if (!sources.contains(source)) sources.add(source);
    }

    @Override
    public void detach(KernelClause.Source source) {
        // what it gathered last is folded in before it goes (it may still hold updates)
        synchronized (this) {
            source.fold(this);
        }
        sources.remove(source);
    }

    /** True while some provider gathers for this clause. */
    public boolean attached() {
        return !sources.isEmpty();
    }

    /** Folds every source in and merges this clause's current-generation data into {@code into}. */
    synchronized void collect(Map<Tuple, long[]> into) {
        for (KernelClause.Source s : sources) s.fold(this);
        if (gen != agg.gen) cells.clear();
        gen = agg.gen;
        cells.forEach((k, v) -> agg.merge(into.computeIfAbsent(k, x -> agg.identity()), v.clone()));
    }

    @Override
    public void add(Object[] key, long[] data) {
        assert Thread.holdsLock(this);
        if (gen != agg.gen) {
            cells.clear();
            gen = agg.gen;
        }
        Object[] k = key.clone();
        for (int i = 0; i < k.length; i++) {
            // a kernel stack (KernelClause.Stack): its frames, as the firing's stack() key makes them
            if (k[i] instanceof String[] frames) k[i] = frames.length == 0 ? StackFrames.EMPTY : new StackFrames(frames);
        }
        agg.merge(cells.computeIfAbsent(new Tuple(k), x -> agg.identity()), data);
    }

    @Override
    public void drops(long count) {
        drops(0, count);
    }

    @Override
    public void drops(int cpu, long count) {
        synchronized (drops) {
            drops.merge(cpu, count, Long::sum);
        }
    }

    /** The drops by CPU since the last call. */
    Map<Integer, Long> takeDrops() {
        synchronized (drops) {
            Map<Integer, Long> m = new java.util.TreeMap<>(drops);
            drops.clear();
            return m;
        }
    }
}
