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

    /**
     * What each compiled clause needs of the buffers, by its EcbBody (codegen.RecordSize): the
     * principal-buffer bytes of one firing and the bytes of one aggregation entry, computed from
     * the options when tracing starts (dtrace_state_go's checks, see DSessionImpl.begin).
     */
    public record BufferNeeds(java.util.function.ToLongFunction<Options> record,
            java.util.function.ToLongFunction<Options> aggregationEntry) {}

    private final Map<Object, BufferNeeds> needs = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

    /** Records what the clause compiled to {@code body} needs of the buffers. */
    public void needs(Object body, BufferNeeds n) {
        needs.put(body, n);
    }

    /** What the clause compiled to {@code body} needs; null for a body compiled elsewhere. */
    public BufferNeeds needs(Object body) {
        return needs.get(body);
    }

    private volatile boolean exitRequested;
    private volatile int exitStatus;
    /** Set while END runs: the END clause's exit() still sets the status (DTrace's COOLDOWN). */
    private volatile boolean ending;

    private record TlsKey(long tid, int var) {}

    // ---- storage of struct and array variables (see Mem); offsets given at compile time

    private final Map<String, Integer> globalOffsets = new ConcurrentHashMap<>();
    private final Map<String, Integer> localOffsets = new ConcurrentHashMap<>();
    private volatile byte[] globalMemory = new byte[0];
    private int globalMemoryUsed; // guarded by this
    /** The unit of globalMemory's block (see globalMemoryOffset). */
    private static final int PAGE = 4096;
    private volatile int localMemorySize;
    private volatile int[] tlsSizes = new int[0];

    /**
     * The offset of global struct/array {@code name} of {@code size} bytes in Mem.GLOBAL. The
     * variables lie one after the other (8-byte aligned) in one block of whole pages, as DTrace's
     * global variable storage is one allocation: a read or store through a cast pointer past a
     * variable reaches the next one or the block's unused rest, and faults only past the block's
     * last page ("out-of-bounds array dereferences work as long as you cast").
     */
    public synchronized int globalMemoryOffset(String name, int size) {
        Integer o = globalOffsets.get(name);
        if (o != null) return o;
        int off = (globalMemoryUsed + 7) & ~7;
        globalMemoryUsed = off + Math.max(size, 1);
        int block = (globalMemoryUsed + PAGE - 1) / PAGE * PAGE;
        if (block > globalMemory.length) {
            globalMemory = java.util.Arrays.copyOf(globalMemory, block);
        }
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

    /**
     * Records the size of the type of self-> variable {@code slot}: a struct or array's storage,
     * and what a scalar takes of dynvarsize.
     */
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
        ConcurrentHashMap<Tuple, Object> m = assocArray[slot];
        if (isZero(value)) {
            Object old = m.remove(key);
            if (old != null) dynvarUsed.addAndGet(-dynvarBytes(key, old));
        } else if (m.put(key, value) == null && !dynvarCharge(dynvarBytes(key, value))) {
            m.remove(key, value);
        }
    }

    // ---- thread-local (self->)

    public synchronized int tlsSlot(String name) {
        return tlsNames.computeIfAbsent(name, n -> tlsNames.size());
    }

    /** The name of thread-local {@code slot} (without self->), or "" if none has it. */
    public String tlsName(int slot) {
        for (Map.Entry<String, Integer> e : tlsNames.entrySet()) if (e.getValue() == slot) return e.getKey();
        return "";
    }

    public Object tlsGet(long tid, int slot) {
        return tls.get(new TlsKey(tid, slot));
    }

    public void tlsPut(long tid, int slot, Object value) {
        TlsKey k = new TlsKey(tid, slot);
        if (isZero(value)) {
            Object old = tls.remove(k);
            if (old != null) dynvarUsed.addAndGet(-tlsBytes(slot, old));
        } else if (tls.put(k, value) == null && !dynvarCharge(tlsBytes(slot, value))) {
            tls.remove(k, value);
        }
    }

    /** The layouts of the types print() records, by number (Ir.Print's layout). */
    private final List<org.jdtrace.libdtrace.ast.PrintLayout> printLayouts = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Registers a layout print() shows; its number. */
    public synchronized int printLayout(org.jdtrace.libdtrace.ast.PrintLayout l) {
        printLayouts.add(l);
        return printLayouts.size() - 1;
    }

    public org.jdtrace.libdtrace.ast.PrintLayout printLayout(int id) {
        return printLayouts.get(id);
    }

    /** Each associative array's element cost, by slot: {fixed bytes, string parts} (see assocElement). */
    private final Map<Integer, long[]> assocCosts = new ConcurrentHashMap<>();
    /** The self-> slots that hold strings. */
    private final java.util.Set<Integer> tlsStrings = ConcurrentHashMap.newKeySet();

    /**
     * Records the cost of an element of associative array {@code slot} (the compiler, from its
     * key and value types): {@code fixed} bytes of its scalar and struct parts, each 8-byte
     * aligned, and {@code strings} parts that each take strsize + 1, aligned.
     */
    public void assocElement(int slot, long fixed, int strings) {
        assocCosts.put(slot, new long[] {fixed, strings});
    }

    /** Records that self-> slot {@code slot} holds a string. */
    public void tlsString(int slot) {
        tlsStrings.add(slot);
    }

    /** The largest dynamic variable the compiled programs may make (0 when they make none). */
    public long largestDynamicVariable() {
        long str = (options.strsize() + 1 + 7) & ~7L;
        long max = 0;
        for (long[] c : assocCosts.values()) max = Math.max(max, c[0] + c[1] * str);
        int[] s = tlsSizes;
        for (int i = 0; i < s.length; i++) {
            max = Math.max(max, tlsStrings.contains(i) ? options.strsize() + 1 : s[i]);
        }
        return max;
    }

    /** What a self-> variable takes of dynvarsize (see Dynamic variable space). */
    private long tlsBytes(int slot, Object v) {
        if (v instanceof byte[] b) return b.length;
        if (v instanceof String) return options.strsize() + 1;
        int n = tlsMemorySize(slot);
        return n > 0 ? n : 8;
    }

    /*
     * Dynamic variable space (dynvarsize): associative array elements take it when made and give
     * it back when deleted (assigned 0); one that does not fit is not made and counts a dynamic
     * variable drop (DTRACEDROP_DYNAMIC), as dtrace_dynvar fails to allocate; so do self->
     * variables, each thread's made at its first non-zero store and deleted by a zero one.
     * An element costs its keys and its value, each 8-byte aligned, a string as strsize bytes and
     * its NUL; a self-> variable costs its value alone at its type's size (an int 4 bytes, a string
     * strsize + 1, a struct its size), as dtrace-utils sizes its table of dynamic variables by
     * the largest value (and tuple: none for thread-locals), so that dynvarsize=15 holds three int
     * thread-locals. The cost of an element is fixed by its variable's types, so what a delete
     * gives back is what the store took. Updating an element that exists costs nothing here.
     * Lock-free: one atomic add when an element is made or deleted.
     */
    private final java.util.concurrent.atomic.AtomicLong dynvarUsed = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong dynvarDrops = new java.util.concurrent.atomic.AtomicLong();

    private boolean dynvarCharge(long bytes) {
        if (dynvarUsed.addAndGet(bytes) <= options.dynvarsize()) return true;
        dynvarUsed.addAndGet(-bytes);
        dynvarDrops.incrementAndGet();
        return false;
    }

    private long dynvarBytes(Tuple key, Object value) {
        return key.dynvarBytes(options.strsize()) + dynvarValueBytes(value, options.strsize());
    }

    static long dynvarValueBytes(Object v, int strsize) {
        long n = v instanceof String ? strsize + 1 : v instanceof byte[] b ? b.length : 8;
        return (n + 7) & ~7L;
    }

    /**
     * This consumer's dynvarDrops for every whole KernelClause it offers: one object, by which a
     * provider tells this consumer's thread-locals from other consumers'.
     */
    public final java.util.function.LongConsumer kernelDynvarDrops = this::dynvarDrops;

    /** Stores a provider's kernel could not make (its per-thread map was full): dynamic variable drops. */
    public void dynvarDrops(long n) {
        if (n > 0) dynvarDrops.addAndGet(n);
    }

    /** Dynamic variable drops since the last call. */
    public long takeDynvarDrops() {
        return dynvarDrops.getAndSet(0);
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

    /** Under the fill policy: the bytes kept for the END clauses' records until END runs (dts_reserve). */
    public volatile long endReserve;

    /**
     * The ISA's ABI the session was made with (null without an ISA): uregs[] of a probe that
     * fires in the calling thread read that thread's registers through it (Subr.uregs).
     */
    public volatile org.jdtrace.isa.Abi abi;

    /**
     * A fill buffer is full: tracing stops as after exit(0) (dtrace(1M) ends on
     * DTRACE_STATUS_FILLED), an exit() already made keeping its status.
     */
    public synchronized void filled() {
        if (exitRequested) return;
        exitRequested = true;
        Runnable w = onExit;
        if (w != null) w.run();
    }

    /** The principal buffer's limit for a record now: under fill, less the END reserve until END runs. */
    long bufferLimit(boolean fill) {
        long size = options.bufsize();
        return fill && !ending ? size - endReserve : size;
    }

    boolean ending() {
        return ending;
    }

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
        for (KernelCells k : kernelCells) if (k.agg == a) k.collect(m);
        return m;
    }

    /** The sinks of the clauses offered to providers to aggregate in the kernel (KernelCells). */
    private final List<KernelCells> kernelCells = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** A new sink for a clause that aggregates into {@code a} (the compiler's, lower.KernelForm). */
    public KernelCells kernelCells(Aggregation a) {
        KernelCells k = new KernelCells(a);
        kernelCells.add(k);
        return k;
    }

    /** Takes every thread's principal buffer contents and drop counts (the buffer switch). */
    public void drainBuffers(List<Record> into, Map<Integer, Long> drops) {
        boolean fill = options.fill();
        for (DThread t : threads) into.addAll(t.buffer.drain(drops, fill));
    }

    /** Bumped by each consumer drain, which takes the aggregations: the threads' buffers are empty again. */
    public volatile long aggEpoch;

    /** Aggregation drops since the last call, by CPU (DThread.aggDrops). */
    public Map<Integer, Long> takeAggregationDrops() {
        Map<Integer, Long> m = new java.util.TreeMap<>();
        for (DThread t : threads) {
            long n = t.aggDrops.getAndSet(0);
            if (n > 0) m.merge(t.lastCpu, n, Long::sum);
        }
        for (KernelCells k : kernelCells) k.takeDrops().forEach((cpu, n) -> m.merge(cpu, n, Long::sum));
        return m;
    }

    /** Bumps the generation: every thread's data for {@code a} is dropped at its next update. */
    public void resetThreads(Aggregation a) {
        a.gen++;
    }
}
