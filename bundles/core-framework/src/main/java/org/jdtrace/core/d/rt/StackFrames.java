package org.jdtrace.core.d.rt;

import java.util.Arrays;
import java.util.List;

/**
 * A stack as an aggregation key (the value of stack(), ustack() or jstack() in {@code @[...]}):
 * its frames, innermost first, already symbolised at the firing, since the traced process may be
 * gone when the consumer prints. Immutable; equal when the frames are, which is how DTrace's
 * dt_aggregate_hash/keycmp tell two stacks apart (by their pcs: one pc, one symbol here). Keys
 * order frame by frame (a tie-break only: aggregations sort by value first).
 */
public final class StackFrames implements Comparable<StackFrames> {

    public static final StackFrames EMPTY = new StackFrames(new String[0]);

    private final String[] frames;
    private final int hash;

    public StackFrames(String[] frames) {
        this.frames = frames.clone();
        this.hash = Arrays.hashCode(this.frames);
    }

    public List<String> frames() {
        return List.of(frames);
    }

    public int depth() {
        return frames.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StackFrames s && s.hash == hash && Arrays.equals(s.frames, frames);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(StackFrames o) {
        return Arrays.compare(frames, o.frames);
    }

    @Override
    public String toString() {
        return String.join(" <- ", frames);
    }
}
