/*
 * The kernel clauses of a UprobeCapture (org.jdtrace.spi.KernelClause at uprobe-based pid and USDT
 * probes, issue 23's last step): which clauses the capture's program runs for which cookie, the
 * BPF maps of the aggregations it keeps (ClauseMap, one per taken clause, shared by every cookie
 * whose probe lists it), and the rebuild of the program when they change.
 *
 * Each cookie (one enabled probe) registers its probe, the words of the register frame its
 * arguments are in (an entry's calling-convention registers, a return's value register) and its
 * function (probefunc). rebuild() at the provider's commit groups the cookies whose probes list
 * the same clauses with the same argument layout (one block of code each, UprobeProgram.Group),
 * takes in each group the aggregations ClauseProgram can keep there, hands the program to the
 * capture (which swaps it in through its prog array) and then rewrites each cookie's group; the
 * probes are told which of their clauses now run in the kernel (Probe.runInKernel), the taken
 * maps attached to their clauses' sinks, maps no longer taken detached (their last values folded
 * in) and closed. A group the last program had (the same clauses, the same argument layout) keeps
 * its id, so the cookies that did not change run the same code on the same maps across the swap
 * (a hit between the program's swap and the filters' rewrite is counted once, by the kernel);
 * other ids only grow (mod 0xfffe, skipping those in use), so a cookie still naming an old group
 * while the new program runs sends its records, as group 0 does; probefunc is the cookie, compared with the
 * cookies of a function name and keyed as the cookie, decoded through `names` (cookies are handed
 * out round robin by the provider, so a cookie keeps its function while a map may hold it).
 *
 * A program the kernel refuses (or one too big to encode), as the syscall provider does: each
 * clause it had is reported once through Probe.kernelRefused (its consumer prints one `dtrace:`
 * warning line, or fails the enabling under kernelclauses=force); they run in the JVM from then
 * on, predicates too (a refused clause is left out of every group, its cookies' hits all sent),
 * and the program is built again without them (predicates alone refused: none at all). A clause
 * of kernelclauses=force (KernelClause.required) that cannot be taken for a cookie is refused at
 * register(): PerfException. Whole clauses (thread-locals in the kernel) are never offered here:
 * libdtrace's KernelForm makes them for syscall probes alone.
 *
 * Locking: every method but fold (ClauseMap's own lock) is synchronized on this; the capture calls
 * load and group writes from inside rebuild.
 */
package org.jdtrace.perf.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.PerfException;
import org.jdtrace.spi.KernelClause;
import org.jdtrace.spi.Probe;

final class UprobeClauses {

    /** What the capture does with a rebuilt program: load and swap it in; write each cookie's group. */
    interface Target {
        void load(UprobeProgram.Clauses clauses);

        void groups(Map<Integer, Integer> groupOf);
    }

    private record Entry(Probe probe, int[] argWords, String function) {}

    private final PerfEventsImpl perf;
    private final Target target;
    private final Btf.Parent parent = Btf.parent();
    private final Btf.Leader leader = Btf.leader();
    private final Map<Integer, Entry> byCookie = new LinkedHashMap<>();
    /** cookie -> probefunc, for ClauseMap's keys (live: a cookie keeps its function while it may be in a map). */
    private final Map<Integer, String> names = new ConcurrentHashMap<>();
    private final Map<KernelClause, ClauseMap> taken = new IdentityHashMap<>();
    private final Set<KernelClause> refused = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private BpfObject zero, drops;
    private int nextGroup = 1;
    /** The group ids of the program running now, by group key (clauses and argument layout). */
    private Map<List<Object>, Integer> lastIds = Map.of();
    private boolean dirty;

    UprobeClauses(PerfEventsImpl perf, Target target) {
        this.perf = perf;
        this.target = target;
    }

    /** Cookie {@code cookie}'s probe and its argument words (null probe: none); see UserProbes.clauses. */
    synchronized void register(int cookie, Probe probe, int[] argWords, String function) {
        if (probe == null) {
            if (byCookie.remove(cookie) != null) dirty = true;
            return;
        }
        int[] words = argWords.clone();
        ClauseProgram.Event ev = event(words, Map.of());
        for (KernelClause k : probe.kernelClauses()) {
            assert k == null || !k.whole() : "a whole clause at a uprobe: " + k.name();
            if (k != null && k.jvmOnly() != null) {
                throw new PerfException("clause " + k.name() + " cannot run in the kernel at " + probe.description()
                        + ": " + k.jvmOnly() + " (kernelclauses=force)", 0);
            }
            if (k != null && k.required() && k.aggregation() != null && !ClauseProgram.takes(k, ev)) {
                throw new PerfException("clause " + k.name() + " cannot run in the kernel at " + probe.description()
                        + " (kernelclauses=force)", 0);
            }
        }
        byCookie.put(cookie, new Entry(probe, words, function));
        names.put(cookie, function);
        dirty = true;
    }

    /** The event of arguments at {@code places} (UserProbes.argument's encoding, -1 none). */
    private ClauseProgram.Event event(int[] places, Map<String, List<Integer>> numbers) {
        int[] offsets = new int[places.length], bytes = new int[places.length];
        for (int i = 0; i < places.length; i++) {
            int p = places[i], n = p >> 8 & 0xff;
            offsets[i] = p < 0 || (n != 1 && n != 2 && n != 4 && n != 8) ? -1 : 8 * (p & 0xff);
            bytes[i] = (p >> 16 & 1) != 0 ? -n : n;
        }
        // entry = true: errno reads 0 at a uprobe, as the JVM's pid context gives it
        return new ClauseProgram.Event(true, 0, 0, parent, leader, numbers, offsets, bytes);
    }

    /** The program is built anew when the clauses changed since the last build. */
    synchronized void commit() {
        if (dirty) rebuild();
    }

    /** Maps made since the last sync start from what they hold now (ClauseMap.baseline). */
    void sync() {
        List<ClauseMap> fresh;
        synchronized (this) {
            fresh = taken.values().stream().filter(m -> m.fresh).toList();
        }
        for (ClauseMap m : fresh) m.baseline();
    }

    private void rebuild() {
        assert Thread.holdsLock(this);
        dirty = false;
        // the capture outlives consumers: a refusal is forgotten with the last probe listing its clause
        Set<KernelClause> listed = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        byCookie.values().forEach(e -> listed.addAll(e.probe().kernelClauses().stream().filter(java.util.Objects::nonNull).toList()));
        refused.retainAll(listed);
        Map<String, List<Integer>> numbers = new HashMap<>();
        byCookie.forEach((cookie, e) -> numbers.computeIfAbsent(e.function(), f -> new ArrayList<>()).add(cookie));
        Map<List<Object>, Integer> ids = new HashMap<>();
        Map<Integer, UprobeProgram.Group> groups = new LinkedHashMap<>();
        Map<Integer, Integer> groupOf = new HashMap<>();
        Map<KernelClause, ClauseMap> keep = new IdentityHashMap<>();
        Set<ClauseMap> attached = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Map.Entry<Integer, Entry> ce : byCookie.entrySet()) {
            Entry e = ce.getValue();
            // a refused clause has no kernel form any more: its hits always reach the JVM
            List<KernelClause> l = e.probe().kernelClauses().stream().map(c -> c != null && refused.contains(c) ? null : c).toList();
            if (l.stream().allMatch(java.util.Objects::isNull)) continue;
            if (zero == null) open();
            List<Object> key = Arrays.asList(l, Arrays.toString(e.argWords()));
            int id = ids.computeIfAbsent(key, x -> {
                Integer kept = lastIds.get(x);
                if (kept != null) return kept;
                int g;
                do {
                    g = nextGroup;
                    nextGroup = nextGroup % 0xfffe + 1;
                } while (lastIds.containsValue(g) || ids.containsValue(g));
                return g;
            });
            groupOf.put(ce.getKey(), id);
            if (groups.containsKey(id)) continue;
            ClauseProgram.Event ev = event(e.argWords(), numbers);
            Map<KernelClause, ClauseProgram.Taken> t = new IdentityHashMap<>();
            for (KernelClause c : l) {
                if (c == null || !ClauseProgram.takes(c, ev)) continue;
                ClauseMap m = keep.get(c);
                if (m == null) {
                    m = taken.remove(c);
                    if (m != null) {
                        attached.add(m);
                    } else {
                        int slot = ClauseMap.freeSlot(keep.values(), taken.values());
                        if (slot < 0) continue;
                        m = new ClauseMap(perf, c, slot, drops, names);
                    }
                    keep.put(c, m);
                }
                t.put(c, new ClauseProgram.Taken(c, m.map.fd(), m.slot));
            }
            groups.put(id, new UprobeProgram.Group(new ClauseProgram.Group(id, l), ev, t));
        }
        for (ClauseMap gone : taken.values()) {
            gone.clause.aggregation().sink().detach(gone);
            gone.close();
        }
        taken.clear();
        try {
            target.load(groups.isEmpty() ? null : new UprobeProgram.Clauses(List.copyOf(groups.values()), zero.fd(), drops.fd()));
        } catch (PerfException | IllegalArgumentException e) { // the verifier's refusal, a program too big to encode
            List<KernelClause> named = keep.isEmpty()
                    ? groups.values().stream().flatMap(g -> g.group().clauses().stream()).filter(java.util.Objects::nonNull)
                            .distinct().toList()
                    : List.copyOf(keep.keySet());
            String reason = ClauseMap.refusal(e);
            for (KernelClause c : named) refusedAt(c, reason);
            ClauseMap.giveBack(keep.values(), attached);
            if (keep.isEmpty()) {
                refused.addAll(named);
                target.load(null); // predicates alone refused: none in the kernel
                lastIds = Map.of();
                target.groups(Map.of());
                tell(Map.of(), Map.of());
                return;
            }
            refused.addAll(keep.keySet());
            rebuild();
            return;
        }
        taken.putAll(keep);
        lastIds = ids;
        target.groups(groupOf);
        tell(groupOf, groups);
        for (ClauseMap m : taken.values()) m.clause.aggregation().sink().attach(m);
    }

    /** Probe.kernelRefused on the first registered probe listing {@code clause}: its consumer is told once. */
    private void refusedAt(KernelClause clause, String reason) {
        for (Entry e : byCookie.values()) {
            if (e.probe().kernelClauses().stream().anyMatch(c -> c == clause)) {
                e.probe().kernelRefused(clause, reason);
                return;
            }
        }
    }

    /** Each probe learns which of its aggregating clauses its group runs in the kernel. */
    private void tell(Map<Integer, Integer> groupOf, Map<Integer, UprobeProgram.Group> groups) {
        byCookie.forEach((cookie, e) -> {
            Integer id = groupOf.get(cookie);
            UprobeProgram.Group g = id == null ? null : groups.get(id);
            for (KernelClause c : e.probe().kernelClauses()) {
                if (c != null && c.aggregation() != null) e.probe().runInKernel(c, g != null && g.taken().containsKey(c));
            }
        });
    }

    private void open() {
        zero = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, ClauseProgram.MAX_VALUE, 1, "jdtrace_upzero");
        try {
            drops = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, 8, ClauseProgram.MAX_CLAUSES, "jdtrace_updrops");
        } catch (RuntimeException e) {
            zero.close();
            zero = null;
            throw e;
        }
    }

    /** Every taken map detached (its last values folded in) and closed; the scratch maps closed. */
    synchronized void close() {
        for (ClauseMap m : taken.values()) {
            m.clause.aggregation().sink().detach(m);
            m.close();
        }
        taken.clear();
        byCookie.clear();
        refused.clear();
        lastIds = Map.of();
        if (zero != null) zero.close();
        if (drops != null) drops.close();
        zero = drops = null;
    }
}
