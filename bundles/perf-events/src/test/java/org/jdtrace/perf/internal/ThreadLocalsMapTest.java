package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.spi.KernelClause;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ThreadLocalsMap's states on the service's real BPF maps: a consumer (its clauses'
 * dynvarDrops) has one state number across its clauses and builders, another consumer another;
 * a full hash's drops counted in a state's slot go to that state's consumer alone; a state whose
 * clauses went is freed, its variables deleted from the hash, and its number not handed out again
 * at once.
 */
class ThreadLocalsMapTest {

    final PerfEventsImpl perf = new PerfEventsImpl(new Amd64Isa());

    @AfterEach
    void tearDown() {
        perf.close();
    }

    static KernelClause whole(String name, LongConsumer drops) {
        return new KernelClause(name, null, null, false, List.of(), true, drops);
    }

    static byte[] key(int tid, int word) {
        return java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putInt(tid).putInt(word).array();
    }

    /** The hash's keys {tid, state << 8 | id}, sorted. */
    List<List<Integer>> keys(int fd) {
        List<List<Integer>> out = new java.util.ArrayList<>();
        byte[] k = null, next = new byte[8];
        while (perf.sys().mapBytes(PerfSys.BPF_MAP_GET_NEXT_KEY, fd, k, next)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(next).order(java.nio.ByteOrder.nativeOrder());
            out.add(List.of(b.getInt(0), b.getInt(4)));
            k = next.clone();
        }
        out.sort(java.util.Comparator.comparing((List<Integer> l) -> l.get(0)).thenComparing(l -> l.get(1)));
        return out;
    }

    @Test
    void eachConsumerHasItsOwnStateAndItsOwnDrops() {
        AtomicLong aDrops = new AtomicLong(), bDrops = new AtomicLong();
        LongConsumer a = aDrops::addAndGet, b = bDrops::addAndGet, c = n -> { };
        KernelClause a1 = whole("a1", a), a2 = whole("a2", a), b1 = whole("b1", b);
        ThreadLocalsMap tlm = perf.threadLocals;
        ThreadLocalsMap.Lease sys = tlm.lease(), uprobes = tlm.lease();
        int sa = sys.state(a1), sb = sys.state(b1);
        assertNotEquals(sa, sb, "two consumers, two states");
        assertEquals(sa, sys.state(a2), "one consumer's clauses share its variables");
        assertEquals(sa, uprobes.state(a1), "at every provider's programs");
        sys.taken(List.of(a1, a2, b1));
        uprobes.taken(List.of(a1));

        perf.sys().mapUpdate(sys.dropsFd(), sb, 5, 8); // what 5 refused stores of b's leave
        tlm.poll();
        assertEquals(5, bDrops.get());
        assertEquals(0, aDrops.get(), "a's stores were not refused");

        // variables of a's and b's left set by threads 7 and 8 (values 0: the update writes a zeroed value)
        for (int[] k : new int[][] {{7, sa << 8}, {7, sb << 8}, {8, sb << 8 | 3}}) {
            perf.sys().mapBytes(PerfSys.BPF_MAP_UPDATE_ELEM, sys.tlsFd(), key(k[0], k[1]), new byte[8]);
        }
        assertEquals(List.of(List.of(7, sa << 8), List.of(7, sb << 8), List.of(8, sb << 8 | 3)), keys(sys.tlsFd()));

        sys.taken(List.of(a1, a2)); // b's clauses went: its state is freed, its variables deleted
        assertEquals(List.of(List.of(7, sa << 8)), keys(sys.tlsFd()));
        int sc = sys.state(whole("c1", c));
        assertNotEquals(sb, sc, "a freed state is not handed out again at once");
        assertNotEquals(sa, sc);
        assertEquals(sa, sys.state(a1), "a's state stays while its clauses run");
        perf.sys().mapUpdate(sys.dropsFd(), sa, 2, 8);
        sys.close();
        assertEquals(2, aDrops.get(), "drops are polled when a lease goes");
        assertEquals(5, bDrops.get());
        uprobes.close();
    }
}
