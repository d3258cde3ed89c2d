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
 * in) and closed. Group ids across rebuilds (GroupIds): a group the last program had (the same
 * clauses, the same argument layout) keeps its id, so the cookies that did not change run the same
 * code on the same maps across the swap; the new program also carries the last program's other
 * groups under their old ids, so a cookie whose group changed runs its complete old clauses on the
 * same maps until its filter is rewritten (a hit in that window is counted once, by the kernel,
 * never sent to a JVM that skips the clause); probefunc is the cookie, compared with the
 * cookies of a function name and keyed as the cookie, decoded through `names` (cookies are handed
 * out round robin by the provider, so a cookie keeps its function while a map may hold it).
 *
 * A program the kernel refuses (or one too big to encode), as the syscall provider does: each
 * clause it had is reported once through Probe.kernelRefused (its consumer prints one `dtrace:`
 * warning line, or fails the enabling under kernelclauses=force); they run in the JVM from then
 * on, predicates too (a refused clause is left out of every group, its cookies' hits all sent),
 * and the program is built again without them (predicates alone refused: none at all). A clause
 * of kernelclauses=force (KernelClause.required) that cannot be taken for a cookie is refused at
 * register(): PerfException. Whole clauses (thread-locals in the kernel, KernelClause.whole; the
 * pid and USDT providers answer Provider.kernelThreadLocals for probes on uprobes through
 * PerfEvents.userProbesRun, runs() here: every expression readable at the probe) are taken as the
 * syscall provider takes them, with or without an aggregation, their variables in the service's
 * one ThreadLocalsMap (the syscall programs' too); one the program cannot run fails register()
 * (the enable), and one never runs in the JVM (Probe.runInKernel true), where its variables do not
 * exist; the map's drops are dynamic variable drops, polled at sync() and at the close.
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
    private final Btf.Parent parent;
    private final Btf.Leader leader;
    private final Map<Integer, Entry> byCookie = new LinkedHashMap<>();
    /** cookie -> probefunc, for ClauseMap's keys (live: a cookie keeps its function while it may be in a map). */
    private final Map<Integer, String> names = new ConcurrentHashMap<>();
    private final Map<KernelClause, ClauseMap> taken = new IdentityHashMap<>();
    private final Set<KernelClause> refused = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private BpfObject zero, drops;
    /** The groups' ids, by key (clauses and argument layout), across rebuilds. */
    private final GroupIds<UprobeProgram.Group> ids = new GroupIds<>();
    /** The hold on the thread-locals map while whole clauses are taken. */
    private ThreadLocalsMap.Lease lease;
    private boolean dirty;

    UprobeClauses(PerfEventsImpl perf, Target target) {
        this.perf = perf;
        this.target = target;
        this.parent = perf.btf().parent();
        this.leader = perf.btf().leader();
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
            if (k != null && k.jvmOnly() != null) {
                throw new PerfException("clause " + k.name() + " cannot run in the kernel at " + probe.description()
                        + ": " + k.jvmOnly() + " (kernelclauses=force)", 0);
            }
            if (k != null && (k.required() && k.aggregation() != null || k.whole()) && !ClauseProgram.takes(k, ev)) {
                throw new PerfException("clause " + k.name() + " cannot run in the kernel at " + probe.description()
                        + (k.whole() ? " (it uses thread-locals that live in the kernel)" : " (kernelclauses=force)"), 0);
            }
        }
        byCookie.put(cookie, new Entry(probe, words, function));
        names.put(cookie, function);
        dirty = true;
    }

    /** Whether the program runs {@code clause} (its every expression) at a probe of arguments at {@code places} (PerfEvents.userProbesRun). */
    static boolean runs(KernelClause clause, int[] places, Btf.Parent parent, Btf.Leader leader) {
        return ClauseProgram.takes(clause, event(places, Map.of(), parent, leader));
    }

    private ClauseProgram.Event event(int[] places, Map<String, List<Integer>> numbers) {
        return event(places, numbers, parent, leader);
    }

    /** The event of arguments at {@code places} (UserProbes.argument's encoding, -1 none). */
    private static ClauseProgram.Event event(int[] places, Map<String, List<Integer>> numbers, Btf.Parent parent, Btf.Leader leader) {
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

    /**
     * Maps made since the last sync during their consumer's warm-up start from what they hold now
     * (ClauseMap.baseline); one made while its consumer is live (Probe.live) is not fresh.
     */
    void sync() {
        List<ClauseMap> fresh;
        synchronized (this) {
            fresh = taken.values().stream().filter(m -> m != null && m.fresh).toList();
        }
        perf.threadLocals.poll();
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
        Map<Integer, UprobeProgram.Group> groups = new LinkedHashMap<>();
        Map<Integer, Integer> groupOf = new HashMap<>();
        Map<KernelClause, ClauseMap> keep = new IdentityHashMap<>();
        Set<ClauseMap> attached = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        Set<ClauseMap> made = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Map.Entry<Integer, Entry> ce : byCookie.entrySet()) {
            Entry e = ce.getValue();
            // a refused clause has no kernel form any more: its hits always reach the JVM
            List<KernelClause> l = e.probe().kernelClauses().stream().map(c -> c != null && refused.contains(c) ? null : c).toList();
            if (l.stream().allMatch(java.util.Objects::isNull)) continue;
            if (zero == null) open();
            int id = ids.id(Arrays.asList(l, Arrays.toString(e.argWords())));
            groupOf.put(ce.getKey(), id);
            if (groups.containsKey(id)) continue;
            ClauseProgram.Event ev = event(e.argWords(), numbers);
            Map<KernelClause, ClauseProgram.Taken> t = new IdentityHashMap<>();
            for (KernelClause c : l) {
                if (c == null || !ClauseProgram.takes(c, ev)
                        || !ClauseMap.take(c, keep, taken, attached, slot -> {
                            ClauseMap m = new ClauseMap(perf, c, slot, drops, names);
                            made.add(m);
                            return m;
                        })) {
                    continue;
                }
                t.put(c, ClauseMap.taken(c, keep.get(c)));
            }
            groups.put(id, new UprobeProgram.Group(new ClauseProgram.Group(id, l), ev, t));
        }
        ClauseMap.retire(taken.values());
        taken.clear();
        boolean whole = keep.keySet().stream().anyMatch(KernelClause::whole);
        if (whole && lease == null) lease = perf.threadLocals.lease();
        // the last program's groups whose ids this one does not reuse (GroupIds: the swap's window),
        // on the maps of the clauses still taken
        List<UprobeProgram.Group> all = new ArrayList<>(groups.values());
        for (Map.Entry<Integer, UprobeProgram.Group> r : ids.retired()) {
            UprobeProgram.Group old = r.getValue();
            Map<KernelClause, ClauseProgram.Taken> t = new IdentityHashMap<>(ClauseMap.program(keep));
            t.keySet().retainAll(old.taken().keySet());
            all.add(new UprobeProgram.Group(old.group(), old.event(), t));
        }
        try {
            target.load(all.isEmpty() ? null : new UprobeProgram.Clauses(List.copyOf(all), zero.fd(), drops.fd(),
                    lease));
        } catch (PerfException | IllegalArgumentException e) { // the verifier's refusal, a program too big to encode
            ids.abandon();
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
                ids.clear();
                target.groups(Map.of());
                tell(Map.of(), Map.of(), Set.of());
                releaseThreadLocals();
                return;
            }
            refused.addAll(keep.keySet());
            rebuild();
            return;
        }
        taken.putAll(keep);
        target.groups(groupOf);
        ids.installed(groups);
        if (lease != null) lease.taken(keep.keySet());
        tell(groupOf, groups, made);
        for (ClauseMap m : taken.values()) {
            if (m != null) m.clause.aggregation().sink().attach(m);
        }
        if (!whole) releaseThreadLocals(); // the program that ran them is gone
    }

    /** The hold on the thread-locals map given back (their drops polled first). */
    private void releaseThreadLocals() {
        if (lease != null) lease.close();
        lease = null;
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

    /**
     * Each probe learns which of its aggregating clauses its group runs in the kernel; a map
     * {@code made} in this build for a clause whose consumer is already live (a provider that came
     * back mid-trace) takes no go-live baseline: everything it counts from now on is the consumer's.
     */
    private void tell(Map<Integer, Integer> groupOf, Map<Integer, UprobeProgram.Group> groups, Set<ClauseMap> made) {
        byCookie.forEach((cookie, e) -> {
            Integer id = groupOf.get(cookie);
            UprobeProgram.Group g = id == null ? null : groups.get(id);
            for (KernelClause c : e.probe().kernelClauses()) {
                // a whole clause never runs in the JVM, where its thread-locals do not exist
                if (c != null && (c.aggregation() != null || c.whole())) {
                    e.probe().runInKernel(c, g != null && g.taken().containsKey(c) || c.whole());
                    ClauseMap m = taken.get(c);
                    if (m != null && made.contains(m) && e.probe().live(c)) m.fresh = false;
                }
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
        ClauseMap.retire(taken.values());
        taken.clear();
        byCookie.clear();
        refused.clear();
        ids.clear();
        releaseThreadLocals();
        if (zero != null) zero.close();
        if (drops != null) drops.close();
        zero = drops = null;
    }
}
