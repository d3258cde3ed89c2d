/*
 * The per-thread store of the thread-locals that live in the kernel (KernelClause.whole; the code
 * that reads and writes it is ClauseProgram's): one BPF hash {u32 tid, u32 the variable's id} ->
 * u64 and a one-slot array counting the stores the full hash refused, one pair for the PerfEvents
 * service, shared by every program that runs whole clauses (the machine-wide syscall provider's
 * two, each uprobe capture's one). So a variable stored at one probe is read at any other:
 * self->ts set at pid$target::foo:entry is the one read at its return, or at a syscall probe of
 * the same thread (Provider.kernelThreadLocals promises that to the compiler).
 *
 * Leased: the maps exist while some program builder holds a Lease (the first lease opens them,
 * the last close() closes them); a program loaded with their descriptors keeps them alive in the
 * kernel until it is closed itself, so a builder may give its lease back once the programs that
 * use them are gone or swapped. Variables left set by a consumer's threads die with the maps.
 *
 * Dynamic variable drops: each lease names the whole clauses its programs run now (taken());
 * poll() reads the counter and hands what is new to the consumers of all leases' whole clauses,
 * each consumer once (the drops counter cannot tell which store was refused).
 *
 * Locking: synchronized on this; poll() calls the consumers' drop counters under it (they only
 * add to a counter).
 */
package org.jdtrace.perf.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.spi.KernelClause;

final class ThreadLocalsMap {

    /** The hash's capacity: threads times variables set at once, over every consumer. */
    static final int ENTRIES = 16384;

    private final PerfEventsImpl perf;
    private final List<Lease> leases = new ArrayList<>();
    private BpfObject tls, drops;
    /** The drops counter's value at the last poll. */
    private long seen;

    ThreadLocalsMap(PerfEventsImpl perf) {
        this.perf = perf;
    }

    /** One builder's hold on the maps, and the whole clauses its programs run. */
    final class Lease implements AutoCloseable {
        private List<KernelClause> clauses = List.of();
        private boolean closed;

        /** The hash's descriptor, for ClauseProgram.threadLocals. */
        int tlsFd() {
            synchronized (ThreadLocalsMap.this) {
                return tls.fd();
            }
        }

        /** The drops counter's descriptor, for ClauseProgram.threadLocals. */
        int dropsFd() {
            synchronized (ThreadLocalsMap.this) {
                return drops.fd();
            }
        }

        /** The whole clauses this builder's programs run now (their consumers get the drops). */
        void taken(Collection<KernelClause> whole) {
            synchronized (ThreadLocalsMap.this) {
                clauses = whole.stream().filter(KernelClause::whole).toList();
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
                if (!leases.isEmpty()) return;
                tls.close();
                drops.close();
                tls = drops = null;
                seen = 0;
            }
        }
    }

    /** A hold on the maps, opened now if no one holds them. */
    synchronized Lease lease() {
        if (tls == null) {
            BpfObject t = perf.map(PerfSys.MAP_HASH, 8, 8, ENTRIES, "jdtrace_tls");
            try {
                drops = perf.map(PerfSys.MAP_ARRAY, 4, 8, 1, "jdtrace_tlsdrops");
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

    /**
     * The stores the full hash refused since the last poll, handed to the consumers of the leases'
     * whole clauses as dynamic variable drops (each consumer once).
     */
    synchronized void poll() {
        if (drops == null) return;
        long n = drops.lookup(0);
        if (n == Long.MIN_VALUE || n <= seen) return;
        long d = n - seen;
        seen = n;
        Set<LongConsumer> told = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Lease l : leases) {
            for (KernelClause c : l.clauses) {
                if (told.add(c.dynvarDrops())) c.dynvarDrops().accept(d);
            }
        }
    }
}
