/*
 * DState: the D half of one consumer's state (dtrace_state_t plus libdtrace's view of it):
 * options, aggregation variables, global and thread-local variables, associative arrays, the
 * per-thread DThreads, and the exit status.
 *
 * Variables: scalars live in slot arrays indexed at compile time (longs and strings apart);
 * associative arrays and self-> variables are dynamic variables in concurrent maps, where
 * storing 0 (or "") deletes the entry and a missing entry reads as 0, as in DTrace. this->
 * variables never reach here: they are JVM locals of the generated clause.
 *
 * Thread-local (self->) variables are keyed by the firing context's tid, not by the Java
 * thread, since one Java thread (the pid provider's tracer) fires for many traced threads.
 */
package org.jdtrace.libdtrace.rt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

public final class DState {

    public final Options options = new Options();
    public final Speculations speculations = new Speculations(options);
    /** User pcs already symbolised (ustack() records and keys). */
    public final SymbolCache symbols = new SymbolCache();
    /** What curpsinfo and curlwpsinfo read (/proc through a cache). */
    public final ProcInfo procs = new ProcInfo();
    /** walltimestamp's clock (nanosecond steps between reads). */
    public final WallClock wallclock = new WallClock();
    private final List<Aggregation> aggregations = new ArrayList<>();
    private final CopyOnWriteArrayList<DThread> threads = new CopyOnWriteArrayList<>();
    private final ThreadLocal<DThread> current = ThreadLocal.withInitial(this::newThread);
    /**
     * A cache in front of {@code current}: slot threadId mod SLOTS holds the DThread of the last
     * thread that looked there. A firing checks its slot's owner against its own thread (two
     * loads, no hashing) and only on a miss asks the ThreadLocal and takes the slot over. Slots
     * are written plainly: a reader sees either an old DThread or a new one, whose final owner
     * it checks, so a thread never gets another's DThread; threads whose ids collide share the
     * slot and fall back to the ThreadLocal by turns.
     */
    private static final int SLOTS = 64;
    private final DThread[] byThread = new DThread[SLOTS];

    public volatile long[] longs = new long[0];
    public volatile String[] strings = new String[0];
    private final List<String> longNames = new ArrayList<>();
    private final List<String> stringNames = new ArrayList<>();
    private final List<ConcurrentHashMap<Tuple, Object>> assocs = new ArrayList<>();
    private final Map<String, Integer> assocNames = new ConcurrentHashMap<>();
    private final Map<String, Integer> tlsNames = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<TlsKey, Object> tls = new ConcurrentHashMap<>();
    private volatile ConcurrentHashMap<Tuple, Object>[] assocArray = newAssocArray(0);

    private volatile boolean exitRequested;
    private volatile int exitStatus;
    /** Set while END runs: the END clause's exit() still sets the status (DTrace's COOLDOWN). */
    private volatile boolean ending;

    private record TlsKey(long tid, int var) {}

    // ---- storage of struct and array variables (see Mem); offsets given at compile time

    private final Map<String, Integer> globalOffsets = new ConcurrentHashMap<>();
    private final Map<String, Integer> localOffsets = new ConcurrentHashMap<>();
    private volatile byte[] globalMemory = new byte[0];
    private volatile int localMemorySize;
    private volatile int[] tlsSizes = new int[0];

    /** The offset of global struct/array {@code name} of {@code size} bytes in Mem.GLOBAL. */
    public synchronized int globalMemoryOffset(String name, int size) {
        Integer o = globalOffsets.get(name);
        if (o != null) return o;
        int off = (globalMemory.length + 7) & ~7;
        globalMemory = java.util.Arrays.copyOf(globalMemory, off + Math.max(size, 1));
        globalOffsets.put(name, off);
        return off;
    }

    /** The offset of this-> struct/array {@code name} of {@code size} bytes in Mem.LOCAL. */
    public synchronized int localMemoryOffset(String name, int size) {
        Integer o = localOffsets.get(name);
        if (o != null) return o;
        int off = (localMemorySize + 7) & ~7;
        localMemorySize = off + Math.max(size, 1);
        localOffsets.put(name, off);
        return off;
    }

    /** Records the size of the thread-local struct/array in self-> slot {@code slot}. */
    public synchronized void tlsMemory(int slot, int size) {
        int[] s = tlsSizes;
        if (slot >= s.length) s = java.util.Arrays.copyOf(s, slot + 1);
        s[slot] = Math.max(s[slot], size);
        tlsSizes = s;
    }

    byte[] globalMemory() {
        return globalMemory;
    }

    int localMemorySize() {
        return localMemorySize;
    }

    int tlsMemorySize(int slot) {
        int[] s = tlsSizes;
        return slot < s.length ? s[slot] : 0;
    }

    int scratchSize() {
        return (int) Math.min(options.get("scratchsize"), 1 << 26);
    }

    private DThread newThread() {
        DThread t = new DThread(this);
        threads.add(t);
        return t;
    }

    /** This Java thread's buffers in this consumer (probe context: no lock, no allocation once made). */
    public DThread thread() {
        Thread me = Thread.currentThread();
        DThread t = byThread[(int) me.threadId() & (SLOTS - 1)];
        if (t != null && t.owner == me) return t;
        return threadSlow(me);
    }

    private DThread threadSlow(Thread me) {
        DThread t = current.get();
        assert t.owner == me;
        byThread[(int) me.threadId() & (SLOTS - 1)] = t;
        return t;
    }

    List<DThread> threads() {
        return threads;
    }

    // ---- aggregations

    public synchronized Aggregation aggregation(String name, AggKind kind, int[] keySizes,
                                                long lqBase, long lqLimit, long lqStep) {
        for (Aggregation a : aggregations) {
            if (a.name.equals(name)) return a;
        }
        Aggregation a = new Aggregation(aggregations.size(), name, kind, keySizes, lqBase, lqLimit, lqStep);
        aggregations.add(a);
        return a;
    }

    public synchronized Aggregation llquantizeAggregation(String name, int[] keySizes, LogLinear llq) {
        Aggregation a = findAggregation(name);
        if (a != null) return a;
        a = new Aggregation(aggregations.size(), name, keySizes, llq);
        aggregations.add(a);
        return a;
    }

    public synchronized Aggregation findAggregation(String name) {
        for (Aggregation a : aggregations) if (a.name.equals(name)) return a;
        return null;
    }

    public synchronized List<Aggregation> aggregations() {
        return List.copyOf(aggregations);
    }

    // ---- scalar globals

    public synchronized int longSlot(String name) {
        int i = longNames.indexOf(name);
        if (i >= 0) return i;
        longNames.add(name);
        longs = Arrays.copyOf(longs, longNames.size());
        return longNames.size() - 1;
    }

    public synchronized int stringSlot(String name) {
        int i = stringNames.indexOf(name);
        if (i >= 0) return i;
        stringNames.add(name);
        String[] grown = Arrays.copyOf(strings, stringNames.size());
        grown[grown.length - 1] = ""; // a global string is "" until assigned (null: NULL)
        strings = grown;
        return stringNames.size() - 1;
    }

    // ---- associative arrays

    @SuppressWarnings("unchecked")
    private static ConcurrentHashMap<Tuple, Object>[] newAssocArray(int n) {
        return new ConcurrentHashMap[n];
    }

    public synchronized int assocSlot(String name) {
        Integer i = assocNames.get(name);
        if (i != null) return i;
        assocs.add(new ConcurrentHashMap<>());
        assocNames.put(name, assocs.size() - 1);
        assocArray = assocs.toArray(newAssocArray(0));
        return assocs.size() - 1;
    }

    /** The element storage of associative arrays of structs/arrays, by number (Mem's ASSOC region). */
    private volatile byte[][] assocObjects = new byte[0][];

    /** An element that is a struct or array: its number in assocObjects (the array's value for the key). */
    private record AssocObject(int id) {}

    /**
     * The number of element {@code key} of associative array {@code slot}, whose value is a
     * struct or array of {@code size} bytes; made (zeroed) when missing if {@code create}, else
     * -1. Made under the lock (first store only); read without it.
     */
    public int assocObject(int slot, Tuple key, int size, boolean create) {
        if (assocArray[slot].get(key) instanceof AssocObject o) return o.id();
        if (!create) return -1;
        synchronized (this) {
            if (assocArray[slot].get(key) instanceof AssocObject o) return o.id();
            byte[][] objects = java.util.Arrays.copyOf(assocObjects, assocObjects.length + 1);
            objects[objects.length - 1] = new byte[Math.max(size, 1)];
            assocObjects = objects;
            assocArray[slot].put(key, new AssocObject(objects.length - 1));
            return objects.length - 1;
        }
    }

    /** The storage of associative element number {@code id} (see assocObject). */
    byte[] assocObject(int id) {
        byte[][] objects = assocObjects;
        if (id < 0 || id >= objects.length) throw new org.jdtrace.spi.FaultException(org.jdtrace.spi.FaultException.Kind.BADADDR, 0);
        return objects[id];
    }

    public Object assocGet(int slot, Tuple key) {
        return assocArray[slot].get(key);
    }

    public void assocPut(int slot, Tuple key, Object value) {
        if (isZero(value)) assocArray[slot].remove(key);
        else assocArray[slot].put(key, value);
    }

    // ---- thread-local (self->)

    public synchronized int tlsSlot(String name) {
        return tlsNames.computeIfAbsent(name, n -> tlsNames.size());
    }

    public Object tlsGet(long tid, int slot) {
        return tls.get(new TlsKey(tid, slot));
    }

    public void tlsPut(long tid, int slot, Object value) {
        if (isZero(value)) tls.remove(new TlsKey(tid, slot));
        else tls.put(new TlsKey(tid, slot), value);
    }

    static boolean isZero(Object v) {
        // a string is stored unless NULL: "" is a string (DTrace deallocates on a 0 value only)
        return v == null || (v instanceof Long l && l == 0);
    }

    // ---- exit

    /** exit(status): the first one wins, except in END, which may still change the status. */
    public synchronized void exit(int status) {
        if (!exitRequested || ending) {
            exitStatus = status;
            exitRequested = true;
        }
        Runnable w = onExit;
        if (w != null) w.run();
    }

    /** Run after exit() (the consumer's wake-up: LockSupport.unpark, which neither blocks nor allocates). */
    public volatile Runnable onExit;

    public boolean exitRequested() {
        return exitRequested;
    }

    public int exitStatus() {
        return exitStatus;
    }

    public void ending(boolean e) {
        ending = e;
    }

    // ---- snapshot

    /** The sum over threads of {@code a}'s current-generation data. */
    public Map<Tuple, long[]> collect(Aggregation a) {
        Map<Tuple, long[]> m = new java.util.HashMap<>();
        for (DThread t : threads) t.collect(a, m);
        return m;
    }

    /** Takes every thread's principal buffer contents and drop counts (the buffer switch). */
    public void drainBuffers(List<Record> into, Map<Integer, Long> drops) {
        for (DThread t : threads) into.addAll(t.buffer.drain(drops));
    }

    /** Bumps the generation: every thread's data for {@code a} is dropped at its next update. */
    public void resetThreads(Aggregation a) {
        a.gen++;
    }
}
