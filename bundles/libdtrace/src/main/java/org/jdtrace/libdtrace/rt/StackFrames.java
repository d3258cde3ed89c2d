package org.jdtrace.libdtrace.rt;

import java.util.List;

/**
 * A stack as an aggregation key (the value of stack(), ustack() or jstack() in {@code @[...]}):
 * its frames, innermost first, already symbolised at the firing, since the traced process may be
 * gone when the consumer prints. Immutable; equal when the frames are, which is how DTrace's
 * dt_aggregate_hash/keycmp tell two stacks apart (by their pcs: one pc, one symbol here). The
 * key Tuple caches the hash. Keys order frame by frame (a tie-break only: aggregations sort by
 * value first).
 */
public record StackFrames(List<String> frames) implements Comparable<StackFrames> {

    public static final StackFrames EMPTY = new StackFrames(List.of());

    public StackFrames {
        frames = List.copyOf(frames);
    }

    public StackFrames(String[] frames) {
        this(List.of(frames));
    }

    @Override
    public int compareTo(StackFrames o) {
        int n = Math.min(frames.size(), o.frames.size());
        for (int i = 0; i < n; i++) {
            int c = frames.get(i).compareTo(o.frames.get(i));
            if (c != 0) return c;
        }
        return Integer.compare(frames.size(), o.frames.size());
    }

    @Override
    public String toString() {
        return String.join(" <- ", frames);
    }
}
