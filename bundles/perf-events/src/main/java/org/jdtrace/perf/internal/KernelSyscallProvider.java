/*
 * The syscall provider for the whole machine: syscall:vmlinux:<name>:entry|return for every call
 * of the ISA's table (the names the ptrace path uses), fired by two BPF programs attached to
 * raw_syscalls:sys_enter and sys_exit on every CPU. No process is ever stopped.
 *
 * In the kernel (SyscallProgram builds the programs): per call, `armed` (an array map indexed by
 * the call's number for its entry, number + maxNr + 1 for its return) says whether its entry (bit
 * 0) or return (bit 7) probe is enabled, which of arguments 0..3 are strings (bits 1..4, from the
 * ISA's syscall table, Abi.syscallStringArguments: paths and names, not buffers such as read's
 * or write's), and the probe's pid filter (Probe.pidFilter,
 * re-armed on filterChanged): calls of other processes are dropped in the kernel. A disarmed
 * call costs one map lookup. An armed one writes a record (pid/tgid, the
 * number, comm, the six arguments or the return value, the parent's pid (ppid, read through the
 * task's real_parent at the kernel's BTF offsets), the thread's time on CPU (vtimestamp: its
 * se.sum_exec_runtime, likewise), and each string argument read with
 * bpf_probe_read_user_str at the event, up to 256 bytes) and sends it with bpf_perf_event_output
 * into a per-CPU BPF-output perf event, whose ring the PerfEvents service drains. Strings are thus
 * read while the process still exists: copyinstr(arg1) at syscall::openat:entry returns the string
 * captured for argument 1 (copyinstr of any other address faults: nothing else was captured; so
 * does a string the kernel could not read, a bad address: dtrace:::ERROR, as DTrace).
 * A BPF program cannot fault a page in: a string whose page the process has not touched yet (a
 * path in a mapped file, the loader's) cannot be read at entry. Such an entry record is not sent
 * then: it waits in the deferred map (an LRU hash, tid -> the record, SyscallProgram.DEFERRED
 * threads at once) and the return program of the same call, where the kernel has just copied the
 * string in, reads it again and sends the record as the entry's, ahead of the return's (DEFER in
 * the call's mask; not execve/execveat, which return in a new address space). Such a firing's
 * timestamp is therefore the return's (the record's perf time); everything else in it (args,
 * pid, comm, ppid, vtimestamp) is the entry's. A full map sends the record at entry, unread.
 *
 * Clauses in the kernel (org.jdtrace.spi.KernelClause, ClauseProgram): the programs attached to
 * the tracepoints are trampolines that tail-call the real ones through a prog array (slot 0
 * entry, 1 return), so that those can be rebuilt and swapped in one map update. At commit(),
 * after any enable, disable or clausesChanged, both are rebuilt for the enabled probes' kernel
 * clauses: probes with the same clause list share a group (bits 16..31 of their armed mask), the
 * aggregations ClauseProgram can keep are taken (a ClauseMap each, attached to the clause's sink,
 * Probe.runInKernel), and the record of a call is sent only when some ECB in the JVM may want it.
 * A call is armed only then, with its group, never at enable(): a machine-wide probe armed
 * without its group would send every call while the rest of the batch is enabled. A clause of kernelclauses=force (KernelClause.required) that ClauseProgram cannot take fails
 * the enable. A program the kernel refuses (or one too big to encode): each clause it had is
 * reported through Probe.kernelRefused (its consumer prints one `dtrace:` warning line, or fails
 * under kernelclauses=force); they run in the JVM from then on, and the programs are built again
 * without them (predicates alone refused: none at all).
 * The maps are detached (their last values folded in) and closed before the programs go.
 * A call whose entry and return probes are both enabled (KEEP in the entry's mask) keeps its
 * entry record in the deferred map until the return, which sends the entry's args and strings with
 * its own record (read again there where they faulted at entry): copyinstr() of a pointer the
 * entry saved (`self->p = arg1` at openat:entry, `copyinstr(self->p)` at its return) is served by
 * address from them (capturedStrings: ENTRY_STRINGS); any other address faults.
 * Whole clauses (KernelClause.whole: thread-locals that live in the kernel, libdtrace's
 * KernelForm) are taken with or without an aggregation and keep their variables in the service's
 * one thread-locals map (ThreadLocalsMap, shared with the uprobe programs, leased while whole
 * clauses are taken; ClauseProgram). When one cannot run here (ClauseProgram.takes) or its
 * program is refused, every whole clause goes to the JVM (wholeToTheJvm, the refusal in
 * rebuild): libdtrace's KernelForm keeps a variable any JVM clause touches in the JVM, so each
 * variable still lives in one place; each clause's consumer prints one `dtrace: clause X runs in
 * the JVM` line (kernelclauses=force: an error). Values stored in the kernel before such a move
 * (a rebuild after tracing began) are not carried over. Stores the full map refused are polled
 * at each sync and at the close and handed to the clauses' consumers as dynamic variable drops.
 * Group ids across rebuilds (GroupIds): a clause list keeps its id, and the programs also carry the
 * last programs' other groups, so a call between the programs' swap and its re-arming runs the
 * complete old or new clauses on the maps the consumer folds.
 *
 * User stacks: a probe with a clause that walks the user stack (Probe.userStack: ustack(),
 * jstack(), ucaller, ustackdepth) is armed with a page count (SyscallProgram's USTACK bits, from
 * option ustackbytes, re-armed at commit after clausesChanged or the option): its calls' records
 * carry the thread's user registers and the top of its user stack copied at the event, which the
 * drain thread unwinds by CFI (SampleContext.userState, as profile-N's samples and the uprobe
 * hits), and uregs[] reads those registers. Other probes' records are as before, so a clause that
 * does not walk the stack costs what it did.
 *
 * Args: at entry arg0..arg5 are the call's arguments; at return arg0 and arg1 are the value the
 * kernel returns (a negative errno on failure, as dtrace-utils gives them) and errno is that
 * errno. pid, tid, execname are the calling thread's at the event.
 *
 * Drops: a record the full ring refuses is counted by the program (SyscallProgram.LOST_SLOT of
 * the drops map, by CPU) and reported (ProbeRegistry.lost) when the ring tells of a loss and at
 * each sync(): the ring's own PERF_RECORD_LOST comes only with a later record, never after a
 * traced process's last calls.
 *
 * Lifetime: the maps, programs and events exist only while at least one probe is enabled (the
 * first enable opens them, the last disable closes them; detach closes them too). A kernel refusal
 * (BPF verifier, permission) is a ProviderException with the kernel's reason.
 *
 * Locking: enable/disable/detach/commit are serialised on this; the drain thread reads `armed` (a
 * volatile array of probes) without a lock; the consumer's thread folds ClauseMaps (their own lock).
 */
package org.jdtrace.perf.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.EventSet;
import org.jdtrace.perf.EventSpec;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.RecordHandler;
import org.jdtrace.perf.Sample;
import org.jdtrace.perf.KernelTracepoint;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.KernelClause;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.jdtrace.spi.ProviderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class KernelSyscallProvider implements Provider {

    static final String NAME = "syscall", MODULE = "vmlinux";
    private static final Logger LOG = LoggerFactory.getLogger(KernelSyscallProvider.class);

    /** A probe's provider argument: the call's number and which end. */
    record Call(int number, String name, boolean entry) {}

    private final PerfEventsImpl perf;
    private final Comms comms;
    private final UserSymbols symbols;
    private final Abi abi;
    private final int maxNr;
    /** The user register frame a stack section holds (null: the ISA has none, no stack capture). */
    private final BpfAsm.UserRegs regs;
    /** -x ustackbytes: the user stack copied at a call whose probe walks it (Probe.userStack). */
    private volatile int ustackbytes = 8192;
    private volatile ProbeRegistry registry;
    /** [0] entry, [1] return: the enabled probe of each call number. */
    private volatile Probe[][] armed;
    /** The entry mask of each call (ENTRY and the string bits). */
    private final int[] masks;
    private int enabled;
    private Kernel kernel;
    /** The clause group of each armed key (bits 16..31 of its mask), 0: none (ClauseProgram). */
    private final int[] groups;
    /** Each program's (entry, return) groups' ids, by clause list, across rebuilds (the window between a swap and the re-arming). */
    private final List<GroupIds<ClauseProgram.Group>> ids = List.of(new GroupIds<>(), new GroupIds<>());
    /** The hold on the thread-locals map while whole clauses are taken. */
    private ThreadLocalsMap.Lease lease;
    /** The kernel clauses changed since the programs were built (rebuilt at commit). */
    private boolean dirty;
    /** The clauses the programs run now, with their maps. */
    private final Map<KernelClause, ClauseMap> taken = new IdentityHashMap<>();
    /**
     * Clauses whose program the kernel refused: they run in the JVM for the rest of the run, their
     * predicates too (no longer in any program).
     */
    private final Set<KernelClause> refused = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    /** Records the rings delivered to the JVM (drain thread; read by tests). */
    volatile long delivered;

    KernelSyscallProvider(PerfEventsImpl perf, Comms comms, UserSymbols symbols, Abi abi) {
        this.perf = perf;
        this.comms = comms;
        this.symbols = symbols;
        this.abi = abi;
        this.maxNr = abi.syscallNames().keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        this.regs = BpfAsm.UserRegs.of(abi);
        this.armed = new Probe[2][maxNr + 1];
        this.masks = new int[maxNr + 1];
        this.groups = new int[2 * (maxNr + 1)];
    }

    /**
     * The records so far are fired; a clause map made during its consumer's warm-up starts from
     * what it holds now (ClauseMap.baseline): the first sync after such an enabling is its
     * consumer's go-live. A map made while its consumer is live (Probe.live) is not fresh.
     */
    @Override
    public void sync() {
        perf.drain();
        List<ClauseMap> fresh;
        Kernel k;
        synchronized (this) {
            fresh = taken.values().stream().filter(m -> m != null && m.fresh).toList();
            k = kernel;
        }
        perf.threadLocals.poll();
        if (k != null) k.reportLost(); // drops no later record would tell of
        for (ClauseMap m : fresh) m.baseline();
    }

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return org.jdtrace.spi.ProviderAttributes.SYSCALL;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Makes every probe. fasttrap's ptrace syscall provider retires its probes of the same names
     * when this provider's service appears, but the framework may attach this one first: names
     * still held by the other are made again, on a thread of their own, once it has let them go.
     */
    @Override
    public void attach(ProbeRegistry registry) {
        synchronized (this) {
            this.registry = registry;
        }
        if (!createProbes(registry)) {
            Thread.ofPlatform().daemon().name("jdtrace-syscall-attach").start(() -> {
                for (int i = 0; i < 500 && this.registry == registry; i++) {
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (createProbes(registry)) return;
                }
                LOG.warn("syscall: probes still held by another syscall provider");
            });
        }
    }

    /** True when every probe exists. */
    private boolean createProbes(ProbeRegistry registry) {
        boolean all = true;
        for (Map.Entry<Integer, String> e : abi.syscallNames().entrySet()) {
            for (boolean entry : new boolean[] {true, false}) {
                try {
                    registry.create(NAME, MODULE, e.getValue(), entry ? "entry" : "return", new Call(e.getKey(), e.getValue(), entry));
                } catch (IllegalArgumentException clash) {
                    all = false;
                }
            }
        }
        return all;
    }

    @Override
    public synchronized void detach() {
        closeKernel();
        enabled = 0;
        armed = new Probe[2][maxNr + 1];
        java.util.Arrays.fill(masks, 0);
        registry = null;
    }

    @Override
    public synchronized void enable(Probe probe) {
        Call c = (Call) probe.providerArg();
        try {
            if (kernel == null) kernel = new Kernel();
            for (KernelClause k : probe.kernelClauses()) {
                if (k != null && k.jvmOnly() != null) {
                    if (enabled == 0) closeKernel();
                    throw new ProviderException("clause " + k.name() + " cannot run in the kernel at " + probe.description()
                            + ": " + k.jvmOnly() + " (kernelclauses=force)");
                }
                // a whole clause the kernel cannot run goes to the JVM at commit with its thread-locals' clauses (rebuild)
                if (k != null && k.required() && (k.aggregation() != null || k.whole())
                        && !ClauseProgram.takes(k, kernel.event(c.entry()))) {
                    if (enabled == 0) closeKernel();
                    throw new ProviderException("clause " + k.name() + " cannot run in the kernel at " + probe.description()
                            + " (kernelclauses=force)");
                }
            }
            if (c.entry()) masks[c.number()] = SyscallProgram.ENTRY | stringArgs(c.name()) | deferrable(c.name());
            // armed at commit, with its clause group (rebuild): armed now, without its group, it
            // would send every call to the JVM until then, a flood that overflows the rings while
            // the other probes of the batch are enabled
        } catch (PerfException e) {
            if (enabled == 0 && kernel != null) {
                kernel.close();
                kernel = null;
            }
            throw new ProviderException("cannot enable " + probe.description() + ": " + e.getMessage());
        }
        Probe[][] a = copy();
        a[c.entry() ? 0 : 1][c.number()] = probe;
        armed = a;
        enabled++;
        dirty = true;
    }

    @Override
    public synchronized void disable(Probe probe) {
        Call c = (Call) probe.providerArg();
        if (armed[c.entry() ? 0 : 1][c.number()] != probe || kernel == null) return;
        if (c.entry()) masks[c.number()] = 0;
        Probe[][] a = copy();
        a[c.entry() ? 0 : 1][c.number()] = null;
        armed = a;
        if (--enabled == 0) {
            closeKernel();
        } else {
            kernel.armed.update(SyscallProgram.armedKey(c.number(), c.entry(), maxNr), 0);
            dirty = true;
        }
    }

    /** The kernel side goes: the taken clauses' last values folded in first (KernelCells.detach). */
    private void closeKernel() {
        ClauseMap.retire(taken.values());
        taken.clear();
        refused.clear();
        java.util.Arrays.fill(groups, 0);
        ids.forEach(GroupIds::clear);
        dirty = false;
        if (kernel != null) kernel.close();
        kernel = null;
        releaseThreadLocals();
    }

    /** The hold on the thread-locals map given back (their drops polled first). */
    private void releaseThreadLocals() {
        if (lease != null) lease.close();
        lease = null;
    }

    @Override
    public synchronized void clausesChanged(Probe probe) {
        dirty = true; // Probe.userStack too: the call re-armed with its pages at commit
    }

    /** -x ustackbytes=N: the user stack a call copies for ustack() (as profile-N's samples and pid probes'). */
    @Override
    public synchronized void option(String name, long value) {
        if (!name.equals("ustackbytes")) return;
        ustackbytes = (int) Math.max(0, Math.min(Integer.MAX_VALUE, value));
        dirty = true;
    }

    /** The batch of enables is done: the programs are built anew for the probes' kernel clauses. */
    @Override
    public synchronized void commit() {
        if (dirty && kernel != null) rebuild();
    }

    /**
     * Builds the two programs for the armed probes' kernel clauses (ClauseProgram), swaps them in
     * through the prog array, re-arms every call with its group, and tells the probes which
     * clauses now run in the kernel. A program the kernel refuses: its clauses reported
     * (Probe.kernelRefused), run in the JVM from then on, and the programs built again without them.
     */
    private void rebuild() {
        assert Thread.holdsLock(this);
        dirty = false;
        Probe[][] now = armed;
        wholeToTheJvm(now);
        List<List<ClauseProgram.Group>> byEnd = List.of(new ArrayList<>(), new ArrayList<>());
        List<Map<Integer, ClauseProgram.Group>> built = List.of(new HashMap<>(), new HashMap<>());
        int[] next = new int[groups.length];
        Map<KernelClause, ClauseMap> keep = new IdentityHashMap<>();
        Set<ClauseMap> attached = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        Set<ClauseMap> made = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (int end = 0; end < 2; end++) {
            ClauseProgram.Event ev = kernel.event(end == 0);
            for (int nr = 0; nr <= maxNr; nr++) {
                Probe p = now[end][nr];
                if (p == null) continue;
                // a refused clause has no kernel form any more: its events always reach the JVM
                List<KernelClause> l = p.kernelClauses().stream().map(c -> c != null && refused.contains(c) ? null : c).toList();
                if (l.stream().allMatch(java.util.Objects::isNull)) continue;
                int id = ids.get(end).id(l);
                if (!built.get(end).containsKey(id)) {
                    built.get(end).put(id, new ClauseProgram.Group(id, l));
                    byEnd.get(end).add(built.get(end).get(id));
                }
                next[SyscallProgram.armedKey(nr, end == 0, maxNr)] = id;
                for (KernelClause c : l) {
                    if (c == null || refused.contains(c) || !ClauseProgram.takes(c, ev)) continue;
                    ClauseMap.take(c, keep, taken, attached, slot -> {
                        ClauseMap m = new ClauseMap(perf, c, slot, kernel.drops, abi.syscallNames(), kernel.stacks);
                        made.add(m);
                        return m;
                    });
                }
            }
        }
        ClauseMap.retire(taken.values());
        taken.clear();
        boolean whole = keep.keySet().stream().anyMatch(KernelClause::whole);
        if (whole && lease == null) lease = perf.threadLocals.lease();
        // the last programs' groups whose ids these do not reuse (GroupIds: the window before the
        // re-arming): a clause they list that is no longer taken runs in neither
        List<List<ClauseProgram.Group>> withRetired = List.of(new ArrayList<>(byEnd.get(0)), new ArrayList<>(byEnd.get(1)));
        for (int end = 0; end < 2; end++) {
            for (Map.Entry<Integer, ClauseProgram.Group> r : ids.get(end).retired()) withRetired.get(end).add(r.getValue());
        }
        try {
            kernel.load(withRetired.get(0), withRetired.get(1), ClauseMap.program(keep),
                    lease, stacksUsed(now));
        } catch (PerfException | IllegalArgumentException e) { // the verifier's refusal, a program too big to encode
            ids.forEach(GroupIds::abandon);
            List<KernelClause> named = keep.isEmpty()
                    ? byEnd.stream().flatMap(l -> l.stream()).flatMap(g -> g.clauses().stream()).filter(java.util.Objects::nonNull)
                            .distinct().toList()
                    : List.copyOf(keep.keySet());
            String reason = ClauseMap.refusal(e);
            // every taken clause is refused, whole ones too: they all go to the JVM, with every
            // thread-local they share (no whole clause stays in the kernel)
            for (KernelClause c : named) refusedAt(now, c, reason);
            ClauseMap.giveBack(keep.values(), attached);
            if (keep.isEmpty()) {
                refused.addAll(named);
                kernel.load(List.of(), List.of(), Map.of(), null, stacksUsed(now)); // predicates alone refused: none in the kernel
                ids.forEach(GroupIds::clear);
                built.forEach(Map::clear);
                java.util.Arrays.fill(next, 0);
                keep.clear();
                whole = false;
            } else {
                refused.addAll(keep.keySet());
                dirty = true;
                rebuild();
                return;
            }
        }
        taken.putAll(keep);
        System.arraycopy(next, 0, groups, 0, groups.length);
        for (int end = 0; end < 2; end++) {
            for (int nr = 0; nr <= maxNr; nr++) {
                Probe p = now[end][nr];
                if (p == null) continue;
                arm(p, (Call) p.providerArg());
                for (KernelClause c : p.kernelClauses()) {
                    // a whole clause runs in the JVM only once all of them do (refused, wholeToTheJvm)
                    if (c != null && (c.aggregation() != null || c.whole())) {
                        p.runInKernel(c, taken.containsKey(c) || c.whole() && !refused.contains(c));
                        // made while its consumer is live (this provider came back mid-trace): no
                        // go-live baseline, everything it counts from now on is the consumer's
                        ClauseMap m = taken.get(c);
                        if (m != null && made.contains(m) && p.live(c)) m.fresh = false;
                    }
                }
            }
        }
        for (int end = 0; end < 2; end++) ids.get(end).installed(built.get(end));
        if (lease != null) lease.taken(keep.keySet());
        for (ClauseMap m : taken.values()) {
            if (m != null) m.clause.aggregation().sink().attach(m);
        }
        if (!whole) releaseThreadLocals(); // the programs that ran them are gone
    }

    /**
     * A whole clause the programs cannot run (ClauseProgram.takes) cannot
     * keep its thread-locals in the kernel: then every whole clause not refused yet goes to the JVM
     * (refused, its consumer told through Probe.kernelRefused: one `dtrace: clause X runs in the
     * JVM` line, an error under kernelclauses=force). All of them, since the clauses that share a
     * thread-local are all whole clauses of this provider (libdtrace's KernelForm), and a variable
     * must live in one place; their JVM bodies keep it in the JVM's thread-locals from then on.
     */
    private void wholeToTheJvm(Probe[][] now) {
        assert Thread.holdsLock(this);
        String why = null;
        KernelClause culprit = null;
        Set<KernelClause> whole = new java.util.LinkedHashSet<>();
        for (int end = 0; end < 2; end++) {
            ClauseProgram.Event ev = kernel.event(end == 0);
            for (Probe p : now[end]) {
                if (p == null) continue;
                for (KernelClause c : p.kernelClauses()) {
                    if (c == null || !c.whole() || refused.contains(c)) continue;
                    whole.add(c);
                    if (why == null && !ClauseProgram.takes(c, ev)) {
                        why = "cannot run in the kernel at " + p.description();
                        culprit = c;
                    }
                }
            }
        }
        if (why == null) return;
        for (KernelClause c : whole) {
            ClauseMap m = taken.remove(c);
            if (m != null) {
                c.aggregation().sink().detach(m);
                m.close();
            }
            refused.add(c);
            refusedAt(now, c, c == culprit ? "it " + why
                    : "its thread-locals go to the JVM with clause " + culprit.name() + ", which " + why);
        }
    }

    /** Whether the programs take kernel stacks: for stack() in the JVM (Probe.kernelStack) or a stack() key. */
    private static boolean stacksUsed(Probe[][] now) {
        for (Probe[] end : now) {
            for (Probe p : end) {
                if (p == null) continue;
                if (p.kernelStack()) return true;
                for (KernelClause c : p.kernelClauses()) {
                    if (c != null && c.aggregation() != null
                            && c.aggregation().keys().stream().anyMatch(k -> k instanceof KernelClause.Stack)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Probe.kernelRefused on the first armed probe listing {@code clause}: its consumer is told once. */
    private static void refusedAt(Probe[][] armed, KernelClause clause, String reason) {
        for (Probe[] end : armed) {
            for (Probe p : end) {
                if (p != null && p.kernelClauses().stream().anyMatch(c -> c == clause)) {
                    p.kernelRefused(clause, reason);
                    return;
                }
            }
        }
    }

    /** The probe's pid filter changed: the kernel sends only that process's calls (or all). */
    @Override
    public synchronized void filterChanged(Probe probe) {
        Call c = (Call) probe.providerArg();
        if (armed[c.entry() ? 0 : 1][c.number()] != probe || kernel == null) return;
        try {
            arm(probe, c);
        } catch (PerfException e) {
            LOG.warn("syscall: cannot filter {}: {}", probe.description(), e.getMessage());
        }
    }

    /** Writes the call's armed entry (mask and pid filter) for {@code probe}'s end. */
    private void arm(Probe probe, Call c) {
        int key = SyscallProgram.armedKey(c.number(), c.entry(), maxNr);
        int mask = (c.entry() ? masks[c.number()] : SyscallProgram.RETURN) | groups[key] << 16;
        // USTACK: a clause walks the user stack: its registers and ustackbytes of it copied at the event
        if (probe.userStack() && regs != null) mask |= SyscallProgram.stackPages(ustackbytes, regs.words());
        mask |= probe.kernelStack() ? SyscallProgram.KSTACK : 0; // a clause in the JVM reads stack()
        // KEEP: the return probe is armed too and takes the entry's strings (capturedStrings)
        if (c.entry() && armed[1][c.number()] != null && (masks[c.number()] & SyscallProgram.DEFER) != 0) {
            mask |= SyscallProgram.KEEP;
        }
        kernel.armed.update(key, SyscallProgram.armedValue(mask, probe.pidFilter()));
    }

    private Probe[][] copy() {
        return new Probe[][] {armed[0].clone(), armed[1].clone()};
    }

    /** A whole clause runs at every probe that can evaluate it (thread-locals in the kernel, the shared ThreadLocalsMap). */
    @Override
    public boolean kernelThreadLocals(Probe probe, KernelClause clause) {
        Call c = (Call) probe.providerArg();
        Btf.Facts k = perf.btf();
        return ClauseProgram.takes(clause, new ClauseProgram.Event(c.entry(), 0, 0, k.parent(), k.leader(), Map.of()));
    }

    /**
     * The probe fires after the event: at entry, the strings of the call's string arguments (the
     * syscall table's, among arguments 0..3) were read there; nothing at return.
     */
    @Override
    public java.util.Set<Integer> capturedStrings(Probe probe) {
        Call c = (Call) probe.providerArg();
        java.util.Set<Integer> out = new java.util.TreeSet<>();
        if (!c.entry()) {
            // the entry's strings, by address, where the entry probe is enabled (KEEP)
            if (deferrable(c.name()) != 0) out.add(ENTRY_STRINGS);
            return out;
        }
        int bits = stringArgs(c.name());
        for (int i = 0; i < SyscallProgram.STRINGS; i++) {
            if ((bits & (SyscallProgram.STRING0 << i)) != 0) out.add(i);
        }
        return out;
    }

    /**
     * DEFER for a call with string arguments whose return can read them again (SyscallProgram):
     * all but execve and execveat, whose return (when they succeed) is in a new address space.
     */
    private int deferrable(String call) {
        return stringArgs(call) == 0 || call.equals("execve") || call.equals("execveat") ? 0 : SyscallProgram.DEFER;
    }

    /**
     * Bits 1..4: which of arguments 0..3 are strings, by the ISA's syscall table
     * (Abi.syscallStringArguments: paths and names, never a buffer such as read's).
     */
    private int stringArgs(String call) {
        int bits = 0;
        for (int arg : abi.syscallStringArguments(call)) {
            if (arg < SyscallProgram.STRINGS) bits |= SyscallProgram.STRING0 << arg;
        }
        return bits;
    }

    /**
     * The kernel side while any probe is enabled: maps, the events, the two trampolines attached
     * to the tracepoints and the two programs they tail-call (slot 0 entry, 1 return), which
     * load() replaces in one map update each.
     */
    private final class Kernel implements RecordHandler {
        final BpfObject armed, buf, events, progs, zero, drops, deferred, enterJump, exitJump;
        BpfObject enter, exit;
        final EventSet output;
        final AutoCloseable enterEvents, exitEvents;
        final KernelTracepoint enterTp, exitTp;
        final Btf.Parent parent = perf.btf().parent();
        final Btf.Task task = perf.btf().task();
        final Btf.Leader leader = perf.btf().leader();
        final Map<String, List<Integer>> numbers = new HashMap<>();
        final KernelStacks stacks;
        final SyscallContext ctx;
        /** UserSymbols' side-band, open before the programs: ustack() of a process gone before the drain. */
        final AutoCloseable followed = symbols.track();

        Kernel() {
            BpfObject a = null, b = null, ev = null, pa = null, z = null, d = null, df = null, te = null, tx = null;
            EventSet out = null;
            AutoCloseable en = null, ex = null;
            KernelStacks ks = null;
            abi.syscallNames().forEach((nr, name) -> numbers.computeIfAbsent(name, x -> new ArrayList<>()).add(nr));
            try {
                enterTp = perf.tracepoint("raw_syscalls", "sys_enter");
                exitTp = perf.tracepoint("raw_syscalls", "sys_exit");
                a = perf.map(PerfSys.MAP_ARRAY, 4, 8, 2 * (maxNr + 1), "jdtrace_armed");
                b = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, SyscallProgram.bufferSize(regs == null ? 0 : regs.words()), 1,
                        "jdtrace_buf");
                ev = perf.map(PerfSys.MAP_PERF_EVENT_ARRAY, 4, 4, perf.cpus(), "jdtrace_out");
                pa = perf.map(PerfSys.MAP_PROG_ARRAY, 4, 4, 2, "jdtrace_progs");
                z = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, ClauseProgram.MAX_VALUE, 1, "jdtrace_zero");
                d = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, 8, SyscallProgram.LOST_SLOT + 1, "jdtrace_kdrops");
                df = perf.map(PerfSys.MAP_LRU_HASH, 4, SyscallProgram.BUF_SIZE, SyscallProgram.DEFERRED, "jdtrace_defer");
                ks = new KernelStacks(perf);
                out = perf.open(new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_BPF_OUTPUT, 1, false,
                        EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU | EventSpec.SAMPLE_RAW, 0, 0, 512, -1, false), this);
                int[] fds = out.fds();
                for (int cpu = 0; cpu < fds.length; cpu++) ev.update(cpu, fds[cpu]);
                this.armed = a;
                this.buf = b;
                this.events = ev;
                this.progs = pa;
                this.zero = z;
                this.drops = d;
                this.deferred = df;
                this.stacks = ks;
                this.ctx = new SyscallContext(perf, comms, symbols, abi, ks);
                load(List.of(), List.of(), Map.of(), null, false);
                te = perf.program(SyscallProgram.trampoline(pa.fd(), 0), "jdtrace_sys_enter");
                tx = perf.program(SyscallProgram.trampoline(pa.fd(), 1), "jdtrace_sys_exit");
                en = perf.attach(enterTp, te);
                ex = perf.attach(exitTp, tx);
            } catch (RuntimeException e) {
                for (AutoCloseable c : new AutoCloseable[] {ex, en, tx, te, enter, exit, out, followed, ks, df, d, z, pa, ev, b, a}) close(c);
                throw e;
            }
            this.enterJump = te;
            this.exitJump = tx;
            this.output = out;
            this.enterEvents = en;
            this.exitEvents = ex;
        }

        ClauseProgram.Event event(boolean entry) {
            return new ClauseProgram.Event(entry, 0, 0, parent, leader, numbers).withStacks(stacks.map.fd());
        }

        /**
         * Loads both programs with these clause groups and swaps them in; the old ones closed.
         * {@code tls}: the thread-locals maps' lease (ThreadLocalsMap), null without whole clauses.
         */
        void load(List<ClauseProgram.Group> enterGroups, List<ClauseProgram.Group> exitGroups,
                Map<KernelClause, ClauseProgram.Taken> t, ThreadLocalsMap.Lease tls, boolean withStacks) {
            // the stack map only where it is used: a program may name 64 maps at most
            int stackFd = withStacks ? stacks.map.fd() : -1;
            BpfObject pe = null, px = null;
            try {
                pe = perf.program(SyscallProgram.enter(enterTp, maxNr, armed.fd(), buf.fd(), events.fd(), parent, task,
                        new SyscallProgram.Clauses(enterGroups, t, zero.fd(), drops.fd(), leader, numbers, tls),
                        deferred.fd(), regs, stackFd),
                        "jdtrace_sys_enter");
                px = perf.program(SyscallProgram.exit(exitTp, maxNr, armed.fd(), buf.fd(), events.fd(), parent, task,
                        new SyscallProgram.Clauses(exitGroups, t, zero.fd(), drops.fd(), leader, numbers, tls),
                        deferred.fd(), regs, stackFd),
                        "jdtrace_sys_exit");
                progs.update(0, pe.fd());
                progs.update(1, px.fd());
            } catch (RuntimeException e) {
                close(pe);
                close(px);
                throw e;
            }
            close(enter);
            close(exit);
            enter = pe;
            exit = px;
        }

        void close() {
            // the programs first (no new records), then the rings (drained on close), then the maps
            for (AutoCloseable c : new AutoCloseable[] {enterEvents, exitEvents, enterJump, exitJump, enter, exit, output,
                    followed, events, buf, armed, progs, zero, drops, deferred, stacks}) {
                close(c);
            }
        }

        private static void close(AutoCloseable c) {
            if (c == null) return;
            try {
                c.close();
            } catch (Exception e) {
                LOG.debug("close failed", e);
            }
        }

        @Override
        public void sample(Sample s) {
            delivered++;
            MemorySegment r = s.raw;
            if (r.byteSize() < SyscallProgram.EXIT_SIZE) return;
            int nr = r.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
            int kind = r.get(ValueLayout.JAVA_INT_UNALIGNED, 12);
            boolean entry = (kind & SyscallProgram.RETURN_RECORD) == 0;
            Probe[] slots = KernelSyscallProvider.this.armed[entry ? 0 : 1];
            Probe p = nr >= 0 && nr < slots.length ? slots[nr] : null;
            if (p != null) p.fire(ctx.at(s, entry, kind));
        }

        /** The ring's PERF_RECORD_LOST: the programs counted those records already (reportLost). */
        @Override
        public void lost(int cpu, long count) {
            reportLost();
        }

        private final long[] lastLost = new long[ClauseMap.possibleCpus()];

        /**
         * The records a full ring refused since the last report, counted by the programs by CPU
         * (SyscallProgram.LOST_SLOT), told to the consumers: dtrace: N drops on CPU c.
         */
        synchronized void reportLost() {
            byte[] v = new byte[8 * lastLost.length];
            try {
                if (!drops.lookup(java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .putInt(SyscallProgram.LOST_SLOT).array(), v)) return;
            } catch (RuntimeException closed) { // the provider closed the kernel side meanwhile
                return;
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ProbeRegistry r = registry;
            for (int cpu = 0; cpu < lastLost.length; cpu++) {
                long n = b.getLong(8 * cpu);
                if (n > lastLost[cpu] && r != null) r.lost(cpu, n - lastLost[cpu]);
                lastLost[cpu] = n;
            }
        }
    }

    /** A syscall firing: the record's thread, args or return value, and captured strings. */
    static final class SyscallContext extends SampleContext {
        private boolean entry;
        private int kind;
        private long pidTgid;
        private String comm;

        private final Comms comms;
        private final KernelStacks stacks;

        SyscallContext(PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi, KernelStacks stacks) {
            super(perf, comms, symbols, abi);
            this.comms = comms;
            this.stacks = stacks;
        }

        /** The registers and the stack copy the program captured at the call (SyscallProgram's stack section). */
        @Override
        protected long userState(long[] dwarf, org.jdtrace.unwind.StackSnapshot snapshot) {
            return sectionState(s.raw, SyscallProgram.STACK, dwarf, snapshot);
        }

        /** uregs[] of the registers captured at the call (a probe that walks the user stack), else none. */
        @Override
        public long uregs(int reg) throws FaultException {
            org.jdtrace.isa.RegisterFile rf = sectionRegs(s.raw, SyscallProgram.STACK);
            return rf == null ? super.uregs(reg) : ureg(rf, reg);
        }

        SyscallContext at(Sample s, boolean entry, int kind) {
            event(s);
            this.entry = entry;
            this.kind = kind;
            MemorySegment r = s.raw;
            pidTgid = r.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            comm = null;
            if (entry) {
                for (int i = 0; i < 6; i++) args[i] = r.get(ValueLayout.JAVA_LONG_UNALIGNED, 32 + 8 * i);
            } else {
                args[0] = args[1] = r.get(ValueLayout.JAVA_LONG_UNALIGNED, 32);
            }
            return this;
        }

        @Override
        public long pid() {
            return pidTgid >>> 32;
        }

        @Override
        public long tid() {
            return pidTgid & 0xffffffffL;
        }

        @Override
        public String execname() {
            // the process's name (its main thread's comm), as DTrace's execname; the record's comm
            // is the calling thread's, right for the main thread and for a process already gone
            if (comm == null) {
                String thread = string(s.raw, 16, 16);
                comm = pid() == tid() ? thread : comms.known((int) pid(), thread);
            }
            return comm;
        }

        /** The parent at the event, captured in the kernel (from /proc when the kernel had no BTF). */
        @Override
        public long ppid() {
            long p = s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, entry ? SyscallProgram.ENTRY_PPID : SyscallProgram.EXIT_PPID);
            return p != 0 ? p : super.ppid();
        }

        /** The calling thread's time on CPU at the event, captured in the kernel (from /proc when the kernel had no BTF). */
        @Override
        public long vtimestamp() {
            long v = s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, entry ? SyscallProgram.ENTRY_RUNTIME : SyscallProgram.EXIT_RUNTIME);
            return v != 0 ? v : super.vtimestamp();
        }

        @Override
        public long errno() {
            long r = args[0];
            return !entry && r < 0 && r >= -4095 ? -r : 0;
        }

        @Override
        public long[] stack(int max) {
            return stacks.pcs(s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, entry ? SyscallProgram.ENTRY_STACK : SyscallProgram.EXIT_STACK), max);
        }

        @Override
        public String copyinstr(long addr, int max) throws FaultException {
            if (entry) {
                for (int i = 0; i < SyscallProgram.STRINGS; i++) {
                    if ((kind & (SyscallProgram.STRING0 << i)) != 0 && args[i] == addr
                            && s.raw.byteSize() >= SyscallProgram.ENTRY_STRINGS_SIZE) {
                        // the kernel could not read it at the event: DTrace's fault, not an empty string
                        if ((s.raw.get(ValueLayout.JAVA_INT_UNALIGNED, SyscallProgram.FAULTS) & 1 << i) != 0) break;
                        return string(s.raw, SyscallProgram.ENTRY_SIZE + SyscallProgram.STRING_SIZE * i,
                                Math.min(max, SyscallProgram.STRING_SIZE));
                    }
                }
            }
            if (!entry && s.raw.byteSize() >= SyscallProgram.EXIT_KEEP_SIZE) {
                // a KEEP return: the entry's string arguments, by address (self->p saved there)
                int entryKind = s.raw.get(ValueLayout.JAVA_INT_UNALIGNED, SyscallProgram.EXIT_KIND);
                int faults = s.raw.get(ValueLayout.JAVA_INT_UNALIGNED, SyscallProgram.EXIT_FAULTS);
                for (int i = 0; i < SyscallProgram.STRINGS; i++) {
                    if ((entryKind & (SyscallProgram.STRING0 << i)) != 0
                            && s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, SyscallProgram.EXIT_ARGS + 8 * i) == addr) {
                        if ((faults & 1 << i) != 0) break;
                        return string(s.raw, SyscallProgram.EXIT_STRINGS + SyscallProgram.STRING_SIZE * i,
                                Math.min(max, SyscallProgram.STRING_SIZE));
                    }
                }
            }
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }

        private static String string(MemorySegment r, long off, int max) {
            return TracepointProvider.cstring(r, off, (int) Math.min(max, r.byteSize() - off));
        }
    }
}
