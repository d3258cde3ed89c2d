package org.jdtrace.libdtrace.rt;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * Symbolised user pcs of one consumer, so a hot {@code @[ustack()]} (or ustack() action) does not
 * look the same pcs up in the target's symbol tables at every firing: the pid provider's lookup
 * scans the mapped objects' function lists. Keyed by (pid, pc): the same pc means the same
 * symbol within a process as long as its mappings stay (an exec or a dlclose/dlopen at the same
 * address could make a cached name stale; the cache is bounded and emptied when full, which
 * limits how long that lasts). Safe for concurrent firings; pcs that no object maps (null) are
 * not cached.
 *
 * Whole stacks too ({@link #frames}): a profile's {@code @[ustack()]} sees the same few stacks
 * thousands of times, so a stack seen before is one hash of its pcs and one map lookup, not a
 * lookup and a name per frame and a new key. A stack with a frame no object named is not kept
 * (a perf map may name it later), as such a pc is not.
 */
public final class SymbolCache {

    /** Entries before the cache is emptied (a few hot stacks' worth of pcs, many times over). */
    static final int LIMIT = 16384;

    private record Pc(long pid, long pc) {}

    private final ConcurrentHashMap<Pc, String> names = new ConcurrentHashMap<>();

    /** Whole stacks kept before that cache is emptied. */
    static final int STACK_LIMIT = 4096;

    /** A process's stack as pcs, innermost first (the array is the key's own: never changed). */
    private static final class Stack {
        final long pid;
        final long[] pcs;
        final int hash;

        Stack(long pid, long[] pcs) {
            this.pid = pid;
            this.pcs = pcs;
            this.hash = 31 * Long.hashCode(pid) + Arrays.hashCode(pcs);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Stack s && s.hash == hash && s.pid == pid && Arrays.equals(s.pcs, pcs);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final ConcurrentHashMap<Stack, StackFrames> stacks = new ConcurrentHashMap<>();

    /**
     * The frames of the stack {@code pcs} of process {@code pid}, each pc named by {@link #lookup}
     * (its address in hex where nothing names it), the same StackFrames for the same pcs.
     * {@code pcs} must not be changed afterwards.
     */
    public StackFrames frames(long pid, long[] pcs, LongFunction<String> lookup) {
        if (pcs.length == 0) return StackFrames.EMPTY;
        Stack key = new Stack(pid, pcs);
        StackFrames f = stacks.get(key);
        if (f != null) return f;
        String[] frames = new String[pcs.length];
        boolean named = true;
        for (int i = 0; i < pcs.length; i++) {
            String s = lookup(pid, pcs[i], lookup);
            named &= s != null;
            frames[i] = s == null ? "0x" + Long.toHexString(pcs[i]) : s;
        }
        f = new StackFrames(frames);
        if (named) {
            if (stacks.size() >= STACK_LIMIT) stacks.clear();
            stacks.put(key, f);
        }
        return f;
    }

    /** The name of {@code pc} in process {@code pid}, looked up with {@code lookup} once. */
    public String lookup(long pid, long pc, LongFunction<String> lookup) {
        Pc key = new Pc(pid, pc);
        String s = names.get(key);
        if (s != null) return s;
        s = lookup.apply(pc);
        if (s != null) {
            if (names.size() >= LIMIT) names.clear();
            names.put(key, s);
        }
        return s;
    }

    int size() {
        return names.size();
    }

    int stacks() {
        return stacks.size();
    }
}
