package org.jdtrace.libdtrace.rt;

import java.util.function.LongFunction;

/**
 * Symbolised user pcs of one consumer, so a hot {@code @[ustack()]} (or ustack() action) does not
 * look the same pcs up in the target's symbol tables at every firing: the pid provider's lookup
 * scans the mapped objects' function lists. Keyed by (pid, pc): the same pc means the same
 * symbol within a process as long as its mappings stay (an exec or a dlclose/dlopen at the same
 * address could make a cached name stale; the cache is bounded and a pc's entry is replaced by
 * another pc's that falls on its slot, which limits how long that lasts). Pcs that no object maps
 * (null) are not cached.
 *
 * Whole stacks too ({@link #frames}): a profile's {@code @[ustack()]} sees the same few stacks
 * thousands of times, so a stack seen before is one hash of its pcs and one slot compared, not a
 * lookup and a name per frame and a new key. A stack with a frame no object named is not kept
 * (a perf map may name it later), as such a pc is not. Equal stacks of different processes share
 * one StackFrames (same()), so an aggregation finds their cell by identity.
 *
 * Both caches are tables of slots in pairs (two-way set-associative), found by a hash of the key
 * without a key object: a hit allocates nothing and calls no hashCode/equals (the firing path runs
 * C1 code, where a record's generated ones are invokedynamic calls). A new entry takes its pair's
 * first slot and moves the one there to the second, and a hit in the second slot swaps the two
 * (the pair is least-recently-used), so a stack or pc seen again stays while others pass through. Safe for concurrent firings without a lock: an entry is immutable (final fields,
 * so a reader that sees it through a racing slot write sees it whole) and a slot holds one entry
 * or none; a lost write only costs a later lookup.
 */
public final class SymbolCache {

    /** Slots of the pc cache (a power of two: a few hot stacks' worth of pcs, many times over). */
    static final int LIMIT = 16384;

    /** Slots of the stack cache (a power of two). */
    static final int STACK_LIMIT = 4096;

    /** A named pc of a process. */
    private static final class Name {
        final long pid, pc;
        final String name;

        Name(long pid, long pc, String name) {
            this.pid = pid;
            this.pc = pc;
            this.name = name;
        }
    }

    /** A process's stack as pcs, innermost first (the array is the entry's own: never changed), and its frames. */
    private static final class Stack {
        final long pid;
        final long[] pcs;
        final long hash;
        final StackFrames frames;

        Stack(long pid, long[] pcs, long hash, StackFrames frames) {
            this.pid = pid;
            this.pcs = pcs;
            this.hash = hash;
            this.frames = frames;
        }

        boolean is(long pid, long[] pcs, long hash) {
            if (this.hash != hash || this.pid != pid || this.pcs.length != pcs.length) return false;
            for (int i = 0; i < pcs.length; i++) {
                if (this.pcs[i] != pcs[i]) return false;
            }
            return true;
        }
    }

    private final Name[] names = new Name[LIMIT];
    private final Stack[] stacks = new Stack[STACK_LIMIT];
    /** The StackFrames made, by their frames (same()). */
    private final java.util.concurrent.ConcurrentHashMap<StackFrames, StackFrames> made = new java.util.concurrent.ConcurrentHashMap<>();

    private static final long MIX = 0x9E3779B97F4A7C15L;

    /** A 64-bit hash of (pid, pc): its high bits pick a slot. */
    private static long hash(long pid, long pc) {
        long h = (pc ^ pid * 0xC2B2AE3D27D4EB4FL) * MIX;
        return h ^ h >>> 29;
    }

    /** The first slot of the pair {@code hash} picks in a table of {@code slots} (a power of two). */
    private static int pair(long hash, int slots) {
        return (int) (hash >>> 40) & (slots - 2);
    }

    /**
     * The frames of the stack {@code pcs} of process {@code pid}, each pc named by {@link #lookup}
     * (its address in hex where nothing names it), the same StackFrames for the same pcs while
     * the stack stays cached. {@code pcs} must not be changed afterwards.
     */
    public StackFrames frames(long pid, long[] pcs, LongFunction<String> lookup) {
        if (pcs.length == 0) return StackFrames.EMPTY;
        long h = pid * MIX;
        for (long pc : pcs) h = (h ^ pc) * MIX;
        h ^= h >>> 29;
        Stack[] table = stacks;
        int i = pair(h, table.length);
        Stack s = table[i];
        if (s != null && s.is(pid, pcs, h)) return s.frames;
        Stack t = table[i + 1];
        if (t != null && t.is(pid, pcs, h)) {
            table[i] = t;
            table[i + 1] = s;
            return t.frames;
        }
        String[] frames = new String[pcs.length];
        boolean named = true;
        for (int k = 0; k < pcs.length; k++) {
            String n = lookup(pid, pcs[k], lookup);
            named &= n != null;
            frames[k] = n == null ? "0x" + Long.toHexString(pcs[k]) : n;
        }
        StackFrames f = new StackFrames(frames);
        if (named) {
            f = same(f);
            table[i + 1] = s;
            table[i] = new Stack(pid, pcs, h, f);
        }
        return f;
    }

    /**
     * The StackFrames already made with the same frames, else {@code f}: processes running one
     * program have the same stacks at different pids, and an aggregation keyed by ustack() finds
     * its cell by the key's identity first; two equal keys made it compare every frame at every
     * firing (StackFrames.equals and List.equals: 10% of a whole-machine profile's drain thread
     * with two cfiprof, perf record -g of the JVM). Bounded: emptied when full (an equal key made
     * then is still equal, only slower to find).
     */
    private StackFrames same(StackFrames f) {
        if (made.size() >= STACK_LIMIT) made.clear();
        StackFrames old = made.putIfAbsent(f, f);
        return old != null ? old : f;
    }

    /** The name of {@code pc} in process {@code pid}, looked up with {@code lookup} once while it stays cached. */
    public String lookup(long pid, long pc, LongFunction<String> lookup) {
        Name[] table = names;
        int i = pair(hash(pid, pc), table.length);
        Name n = table[i];
        if (n != null && n.pc == pc && n.pid == pid) return n.name;
        Name m = table[i + 1];
        if (m != null && m.pc == pc && m.pid == pid) {
            table[i] = m;
            table[i + 1] = n;
            return m.name;
        }
        String s = lookup.apply(pc);
        if (s != null) {
            table[i + 1] = n;
            table[i] = new Name(pid, pc, s);
        }
        return s;
    }

    /** The pcs cached. */
    int size() {
        return count(names);
    }

    /** The stacks cached. */
    int stacks() {
        return count(stacks);
    }

    private static int count(Object[] table) {
        int n = 0;
        for (Object o : table) {
            if (o != null) n++;
        }
        return n;
    }
}
