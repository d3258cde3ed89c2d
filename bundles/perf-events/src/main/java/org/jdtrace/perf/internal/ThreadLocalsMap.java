/*
 * The per-thread store of the thread-locals that live in the kernel (KernelClause.whole; the code
 * that reads and writes it is ClauseProgram's): one BPF hash {u32 tid, u32 state << 8 | the
 * variable's id} -> u64 and an array, indexed by state, counting the stores the full hash refused,
 * one pair for the PerfEvents service, shared by every program that runs whole clauses (the
 * machine-wide syscall provider's two, each uprobe capture's one). So a variable stored at one
 * probe is read at any other: self->ts set at pid$target::foo:entry is the one read at its
 * return, or at a syscall probe of the same thread (Provider.kernelThreadLocals promises that to
 * the compiler).
 *
 * States: each consumer's variables are its own, as each dtrace_state_t has its own dstate. A
 * consumer is known by its clauses' KernelClause.dynvarDrops (one object per consumer); it gets a
 * state number, 1..MAX_STATES-1, the first time a program is built with one of its whole clauses
 * (Lease.state), and keeps it while a lease built or runs one of them (the clauses a build asked
 * for until its taken(), then those taken). When none does (its clauses went), its entries are
 * deleted from the hash and the number is free again; numbers are handed out round-robin, so one
 * is reused only after every other one was, long after any program that wrote with it is gone.
 *
 * Leased: the maps exist while some program builder holds a Lease (the first lease opens them,
 * the last close() closes them); a program loaded with their descriptors keeps them alive in the
 * kernel until it is closed itself, so a builder may give its lease back once the programs that
 * use them are gone or swapped.
 *
 * Dynamic variable drops: a refused store adds one to its state's slot of the drops array;
 * poll() hands what is new in each live state's slot to that state's consumer (a state freed is
 * polled first).
 *
 * Locking: synchronized on this; poll() calls the consumers' drop counters under it (they only
 * add to a counter).
 */
package org.jdtrace.perf.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.spi.KernelClause;

final class ThreadLocalsMap {

    /** The hash's capacity: threads times variables set at once, over every consumer. */
    static final int ENTRIES = 16384;
    /** State numbers are below this (0 is none); the drops array has a slot for each. */
    static final int MAX_STATES = 256;

    private final PerfEventsImpl perf;
    private final List<Lease> leases = new ArrayList<>();
    private BpfObject tls, drops;
    /** Each consumer's state number (its clauses' dynvarDrops), while some lease holds it. */
    private final Map<LongConsumer, Integer> states = new IdentityHashMap<>();
    /** Each state slot's drops counter at the last poll. */
    private final long[] seen = new long[MAX_STATES];
    /** The state number handed out last (round-robin). */
    private int last;

    ThreadLocalsMap(PerfEventsImpl perf) {
        this.perf = perf;
    }

    /** One builder's hold on the maps, and the states its programs use. */
    final class Lease implements AutoCloseable {
        /** The states of the whole clauses its programs run, and of those a build asked for since. */
        private Set<Integer> held = Set.of();
        private final Set<Integer> asked = new HashSet<>();
        private boolean closed;

        /** The hash's descriptor, for ClauseProgram.threadLocals. */
        int tlsFd() {
            synchronized (ThreadLocalsMap.this) {
                return tls.fd();
            }
        }

        /** The drops array's descriptor, for ClauseProgram.threadLocals. */
        int dropsFd() {
            synchronized (ThreadLocalsMap.this) {
                return drops.fd();
            }
        }

        /**
         * The state number of {@code c}'s consumer, given now if it has none (held until taken()
         * says the programs no longer run its clauses). IllegalArgumentException when every
         * number is in use (the builder's refusal path: the clause runs in the JVM).
         */
        int state(KernelClause c) {
            synchronized (ThreadLocalsMap.this) {
                assert !closed;
                Integer s = states.get(c.dynvarDrops());
                if (s == null) {
                    s = free();
                    states.put(c.dynvarDrops(), s);
                    long n = drops.lookup(s);
                    seen[s] = n == Long.MIN_VALUE ? 0 : n;
                }
                asked.add(s);
                return s;
            }
        }

        /** The whole clauses this builder's programs run now; the states no lease holds any more are freed. */
        void taken(Collection<KernelClause> whole) {
            synchronized (ThreadLocalsMap.this) {
                Set<Integer> h = new HashSet<>();
                for (KernelClause c : whole) {
                    Integer s = c.whole() ? states.get(c.dynvarDrops()) : null;
                    if (s != null) h.add(s);
                }
                held = h;
                asked.clear();
                release();
            }
        }

        /** Drops polled first (they are this lease's clauses' too); the maps closed with the last lease. */
        @Override
        public void close() {
            synchronized (ThreadLocalsMap.this) {
                if (closed) return;
                poll();
                closed = true;
                leases.remove(this);
                if (!leases.isEmpty()) {
                    release();
                    return;
                }
                tls.close();
                drops.close();
                tls = drops = null;
                states.clear();
            }
        }
    }

    /** A hold on the maps, opened now if no one holds them. */
    synchronized Lease lease() {
        if (tls == null) {
            BpfObject t = perf.map(PerfSys.MAP_HASH, 8, 8, ENTRIES, "jdtrace_tls");
            try {
                drops = perf.map(PerfSys.MAP_ARRAY, 4, 8, MAX_STATES, "jdtrace_tlsdrops");
            } catch (RuntimeException e) {
                t.close();
                throw e;
            }
            tls = t;
        }
        Lease l = new Lease();
        leases.add(l);
        return l;
    }

    /** The next state number no consumer has, round-robin. */
    private int free() {
        assert Thread.holdsLock(this);
        for (int i = 1; i < MAX_STATES; i++) {
            int s = (last + i - 1) % (MAX_STATES - 1) + 1;
            if (!states.containsValue(s)) return last = s;
        }
        throw new IllegalArgumentException("more than " + (MAX_STATES - 1) + " consumers keep thread-locals in the kernel");
    }

    /** Frees the states no lease holds: their drops polled, their variables deleted from the hash. */
    private void release() {
        assert Thread.holdsLock(this);
        Set<Integer> live = new HashSet<>();
        for (Lease l : leases) {
            live.addAll(l.held);
            live.addAll(l.asked);
        }
        if (live.containsAll(states.values())) return;
        poll();
        states.values().removeIf(s -> !live.contains(s));
        List<byte[]> gone = new ArrayList<>();
        byte[] key = null, next = new byte[8];
        while (tls.nextKey(key, next)) {
            int s = ByteBuffer.wrap(next).order(ByteOrder.nativeOrder()).getInt(4) >>> 8;
            if (!live.contains(s)) gone.add(next.clone());
            key = next.clone();
        }
        for (byte[] k : gone) perf.sys().mapDelete(tls.fd(), k);
    }

    /**
     * The stores the full hash refused since the last poll, handed to each live state's consumer
     * as dynamic variable drops.
     */
    synchronized void poll() {
        if (drops == null) return;
        for (Map.Entry<LongConsumer, Integer> e : states.entrySet()) {
            int s = e.getValue();
            long n = drops.lookup(s);
            if (n == Long.MIN_VALUE || n <= seen[s]) continue;
            e.getKey().accept(n - seen[s]);
            seen[s] = n;
        }
    }
}
