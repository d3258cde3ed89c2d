package org.jdtrace.libdtrace.rt;

import java.util.List;

/**
 * A stack as an aggregation key (the value of stack(), ustack() or jstack() in {@code @[...]}):
 * its frames, innermost first, already symbolised at the firing, since the traced process may be
 * gone when the consumer prints. Immutable; equal when the frames are, which is how DTrace's
 * dt_aggregate_hash/keycmp tell two stacks apart (by their pcs: one pc, one symbol here). The
 * hash is made once (a lone stack key is no Tuple, which would cache it). Keys order frame by frame (a tie-break only: aggregations sort by
 * value first).
 */
public final class StackFrames implements Comparable<StackFrames> {

    public static final StackFrames EMPTY = new StackFrames(List.of());

    private final List<String> frames;
    /** The frames' hash, made once: a hot key is hashed at every firing that aggregates on it. */
    private final int hash;

    public StackFrames(List<String> frames) {
        this.frames = List.copyOf(frames);
        this.hash = this.frames.hashCode();
    }

    public StackFrames(String[] frames) {
        this(List.of(frames));
    }

    /** The frames, innermost first. */
    public List<String> frames() {
        return frames;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof StackFrames s && s.hash == hash && s.frames.equals(frames);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(StackFrames o) {
        int n = Math.min(frames.size(), o.frames.size());
        for (int i = 0; i < n; i++) {
            String l = frames.get(i), r = o.frames.get(i);
            if (l == r) continue; // one String names a pc of a process (SymbolCache): no need to look
            int c = l.compareTo(r);
            if (c != 0) return c;
        }
        return Integer.compare(frames.size(), o.frames.size());
    }

    @Override
    public String toString() {
        return String.join(" <- ", frames);
    }
}
