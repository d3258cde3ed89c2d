package org.jdtrace.libdtrace.rt;

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
 */
public final class SymbolCache {

    /** Entries before the cache is emptied (a few hot stacks' worth of pcs, many times over). */
    static final int LIMIT = 16384;

    private record Pc(long pid, long pc) {}

    private final ConcurrentHashMap<Pc, String> names = new ConcurrentHashMap<>();

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
}
