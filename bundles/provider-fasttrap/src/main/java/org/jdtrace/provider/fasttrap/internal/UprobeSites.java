/*
 * The pid and USDT probes' sites on kernel uprobes (illumos' fasttrap tracepoints, serviced in
 * the kernel as there): through perf-events' UserProbes, each enabled probe is one uprobe_multi
 * link on the file of the object that holds its sites, for its process only, with a cookie that
 * names the probe's slot here. The BPF program captures at the hit the thread, its pt_regs and
 * STACK_BYTES of its stack (an org.jdtrace.unwind.StackSnapshot over the live memory), or for a probe whose clauses walk the user stack
 * (Probe.userStack) as many bytes as option ustackbytes asks (Handle.stack; UserProbes.stack,
 * whole pages up to the end of the stack's mapping), which ustack() unwinds by CFI; the drain thread hands each record to its slot's
 * TracepointHandler with a captured HitContext of the process (one per process, drain thread
 * only), so PidContext and SiteContext read arguments, uregs and the return value as at a ptrace
 * stop. The process is never stopped and holds no ptrace attachment while it is traced; the
 * kernel serves any number of consumers at one address, and removes the probes when the links'
 * descriptors close, by close() or by the death of the JVM (nothing is left in the process).
 *
 * Availability: refusal() opens the capture once to learn whether the kernel allows it; a
 * refusal (no BPF privilege, no uprobe_multi, no perf events service) is remembered with the
 * kernel's reason, which PidProvider reports in one warning line before it falls back on ptrace.
 * The capture (a program, maps, a ring per CPU) is open only while some link is: the first
 * attach opens it, the last link's close closes it (under this object's lock, `open` counting
 * the links), so a dtrace run without uprobes holds nothing of it.
 *
 * Slots: an AtomicReferenceArray indexed by cookie, published before the link exists and
 * cleared after it is closed; a record whose slot is empty (the probe disabled since) is
 * dropped. Cookies are handed out round robin and reused once freed (under this object's lock):
 * a cookie is also what a kernel aggregation keyed by probefunc holds, so a freed one is not
 * given to another function at once. Kernel drops (a full
 * ring) are the consumers' drops (ProbeRegistry.lost: dtrace's "N drops on CPU c"), reported as
 * the capture learns of them and at each sync (reportLost), the losses of the last moments too.
 *
 * Holds (Holds): a probe whose clauses act on the process (Probe.procDestructive: stop(),
 * raise(), copyout()) makes its cookie send SIGSTOP at each hit (set with its clauses, in
 * clauses()); hit() takes the hold of every record that says its hit sent SIGSTOP
 * (UserHit.signal, so a hold is never missed while the cookie's signal changes) before the probe
 * fires and releases it after, and Holds continues the process once no hold of it is left. A
 * handle of one process arms the ContinueGuard for it while it can hold.
 *
 * Kernel clauses (issue 23 at uprobes): clauses() registers a handle's probe with the capture
 * (UserProbes.clauses: its Probe.kernelClauses, the words of pt_regs its arguments are in, its
 * function), commit() rebuilds the capture's program at the end of the provider's batch, sync()
 * baselines the aggregations as the consumer goes live; a hit whose clauses all ran in the kernel
 * never reaches the ring. Handle.close() unregisters its cookie.
 */
package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.UserHit;
import org.jdtrace.perf.UserProbeHandler;
import org.jdtrace.perf.UserProbes;
import org.jdtrace.provider.fasttrap.internal.proc.TracepointHandler;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class UprobeSites implements UserProbeHandler {

    private static final Logger LOG = LoggerFactory.getLogger(UprobeSites.class);
    /** The top of the user stack captured at each hit (ustack's frames, an entry's return address). */
    static final int STACK_BYTES = 256;

    /** What a slot does with a record: fire its probe (drain thread). */
    interface HitHandler {
        void hit(UserHit h);
    }

    private final PerfEvents perf;
    private final Abi abi;
    private UserProbes probes;
    private String refusal;
    private boolean tried;
    /** Links open (attach .. Handle.close); the capture is open while it is not 0. */
    private int open;
    private final AtomicReferenceArray<HitHandler> slots = new AtomicReferenceArray<>(UserProbes.COOKIES);
    private final BitSet used = new BitSet();
    /** Where the next cookie is looked for (round robin). */
    private int nextCookie;
    /** Records the ring delivered to the JVM (drain thread alone writes it; read by tests). */
    volatile long delivered;
    /** Of those, the records whose hit held its process (SIGSTOP; drain thread alone writes it; read by tests). */
    volatile long held;
    /** Records lost in the kernel (a full ring), over the capture's life. */
    final AtomicLong drops = new AtomicLong();

    /** Where lost records are reported (the provider's registry while it is attached, else null). */
    private final java.util.function.Supplier<org.jdtrace.spi.ProbeRegistry> registry;

    /** The processes held at hits, shared with the dynamic linker's watch. */
    final Holds holds;

    UprobeSites(PerfEvents perf, Abi abi, java.util.function.Supplier<org.jdtrace.spi.ProbeRegistry> registry, Holds holds) {
        this.perf = perf;
        this.abi = abi;
        this.registry = registry;
        this.holds = holds;
    }

    /** Null when uprobes serve the probes, else why not (the kernel's reason); tried once. */
    synchronized String refusal() {
        if (tried) return refusal;
        tried = true;
        if (perf == null) return refusal = "no perf events service";
        if (abi.kernelRegsWords() == 0) return refusal = "no kernel register frame for this ISA";
        try {
            capture();
            if (open == 0) {
                probes.close();
                probes = null;
            }
        } catch (PerfException e) {
            refusal = e.getMessage();
        }
        return refusal;
    }

    private UserProbes capture() {
        assert Thread.holdsLock(this);
        if (probes == null) probes = perf.userProbes(abi.kernelRegsWords(), abi.kernelRegsSpWord(), STACK_BYTES, this);
        return probes;
    }

    /**
     * Uprobes at process addresses {@code pcs} of {@code s} (all in mapped objects; with
     * {@code onReturn}, uretprobes of the functions that start there), each hit handed to
     * {@code handler} with a captured context. Closing the handle removes them.
     *
     * @throws UprobeRefused with the kernel's reason (or ours: an address in no object's file)
     */
    Handle attach(ProcessState s, List<Long> pcs, long semaphore, boolean onReturn, int stackBytes, TracepointHandler handler)
            throws UprobeRefused {
        Map<String, List<Long>> byFile = new LinkedHashMap<>();
        Map<String, List<Long>> refs = semaphore == 0 ? null : new LinkedHashMap<>();
        try {
            List<MappedObject> objects = s.modules();
            for (long pc : pcs) {
                MappedObject o = objects.stream().filter(m -> m.contains(pc)).findFirst().orElse(null);
                if (o == null || o.path() == null) {
                    throw new UprobeRefused("0x" + Long.toHexString(pc) + " is in no file of process " + s.pid());
                }
                byFile.computeIfAbsent(o.path().toString(), k -> new ArrayList<>()).add(o.elf().fileOffset(pc - o.bias(), 1));
                // the semaphore lies in the same object (a USDT note's), as a file offset
                if (refs != null) refs.computeIfAbsent(o.path().toString(), k -> new ArrayList<>()).add(o.elf().fileOffset(semaphore - o.bias(), 2));
            }
        } catch (IOException e) {
            throw new UprobeRefused(e.getMessage());
        }
        Handle h = attach(byFile, refs, s.pid(), onReturn, stackBytes, hit -> handler.hit(s.captured(hit, abi)));
        h.pid = s.pid();
        return h;
    }

    /**
     * Uprobes at the file offsets of each file of {@code byFile} (with the semaphores' file offsets
     * of {@code refCtrs}, the kernel counting them, or null), in process {@code pid} (0: every
     * process that maps the file, now or later), each record handed to {@code handler} with
     * {@code stackBytes} of user stack (0: STACK_BYTES); the cookie of their slot, for
     * {@link #filter}, is the handle's. Closing the handle removes them.
     */
    Handle attach(Map<String, List<Long>> byFile, Map<String, List<Long>> refCtrs, int pid, boolean onReturn, int stackBytes,
            HitHandler handler) throws UprobeRefused {
        UserProbes u;
        int cookie;
        synchronized (this) {
            if (refusal != null) throw new UprobeRefused(refusal);
            try {
                u = capture();
            } catch (PerfException e) {
                throw new UprobeRefused(e.getMessage());
            }
            cookie = used.nextClearBit(nextCookie);
            if (cookie >= UserProbes.COOKIES) cookie = used.nextClearBit(0);
            if (cookie >= UserProbes.COOKIES) throw new UprobeRefused("more than " + UserProbes.COOKIES + " uprobe probes enabled");
            used.set(cookie);
            nextCookie = (cookie + 1) % UserProbes.COOKIES;
            open++;
        }
        slots.set(cookie, handler);
        u.filter(cookie, 0); // a reused cookie keeps no filter, signal or stack copy of its last probe
        u.signal(cookie, 0);
        u.stack(cookie, stackBytes);
        List<AutoCloseable> links = new ArrayList<>();
        try {
            for (Map.Entry<String, List<Long>> e : byFile.entrySet()) {
                long[] offsets = e.getValue().stream().mapToLong(Long::longValue).toArray();
                long[] refs = refCtrs == null ? null : refCtrs.get(e.getKey()).stream().mapToLong(Long::longValue).toArray();
                links.add(u.attach(e.getKey(), offsets, refs, cookie, pid, onReturn));
            }
        } catch (PerfException e) {
            closeAll(links);
            slots.set(cookie, null);
            free(cookie);
            throw new UprobeRefused(e.getMessage());
        }
        return new Handle(cookie, links);
    }

    /** The links of one attach; close() removes them and frees the slot. */
    final class Handle implements AutoCloseable {
        final int cookie;
        private final List<AutoCloseable> links;
        /** The one process its probes are in (the ContinueGuard armed for it while it holds), 0 for every process. */
        private int pid;
        /** Its hits hold their process (SIGSTOP) for destructive clauses; guarded by the handle. */
        private boolean holding;

        Handle(int cookie, List<AutoCloseable> links) {
            this.cookie = cookie;
            this.links = links;
        }

        /** Later hits copy {@code bytes} of user stack (0: STACK_BYTES); see UserProbes.stack. */
        void stack(int bytes) {
            UserProbes u;
            synchronized (UprobeSites.this) {
                u = probes;
            }
            if (u != null && slots.get(cookie) != null) u.stack(cookie, bytes);
        }

        @Override
        public void close() {
            closeAll(links);
            UserProbes u;
            synchronized (UprobeSites.this) {
                u = probes;
            }
            if (u != null) u.clauses(cookie, null, null, null);
            hold(false);
            if (slots.getAndSet(cookie, null) != null) free(cookie);
        }

        /**
         * Hits hold their process ({@code on}: SIGSTOP from the BPF program, see Holds) or not;
         * the guard is armed for the handle's process while they may. A probe of every process
         * never holds for its clauses: its context (EveryProcessContext) cannot act on the
         * process, so a hold would only stop every process that maps the file, for nothing.
         */
        synchronized void hold(boolean on) {
            on &= pid != 0;
            if (holding == on) return;
            holding = on;
            if (on) holds.arm(pid);
            UserProbes u;
            synchronized (UprobeSites.this) {
                u = probes;
            }
            if (u != null && slots.get(cookie) != null) u.signal(cookie, on ? Sys.SIGSTOP : 0);
            if (!on) holds.disarm(pid); // held records still in the rings register at their acquire
        }
    }

    /**
     * The kernel may run {@code probe}'s clauses at the hits of {@code h} (see the file comment),
     * argument i in word {@code argWords[i]} of the register frame (-1: not there). Takes effect
     * at {@link #commit}.
     *
     * @throws UprobeRefused when a clause of kernelclauses=force cannot run in the kernel there
     */
    void clauses(Handle h, org.jdtrace.spi.Probe probe, int[] argWords) throws UprobeRefused {
        UserProbes u;
        synchronized (this) {
            u = probes;
        }
        if (u == null) return;
        try {
            u.clauses(h.cookie, probe, argWords, probe.function());
        } catch (PerfException e) {
            throw new UprobeRefused(e.getMessage());
        }
        h.hold(probe.procDestructive());
    }

    /** Whether the capture's program runs {@code clause} at a hit of arguments at {@code args} (PerfEvents.userProbesRun). */
    boolean runs(org.jdtrace.spi.KernelClause clause, int[] args) {
        return perf.userProbesRun(clause, args);
    }

    /** The provider's batch is done: the capture's program rebuilt if its clauses changed. */
    void commit() {
        UserProbes u;
        synchronized (this) {
            u = probes;
        }
        if (u != null) u.commit();
    }

    /** The consumer goes live (or stops): the kernel aggregations made since the last sync start from now. */
    void sync() {
        UserProbes u;
        synchronized (this) {
            u = probes;
        }
        if (u != null) u.sync();
    }

    /** Only process {@code pid}'s hits of {@code h} reach the ring (-1 or 0: every process's); dropped in the kernel. */
    void filter(Handle h, long pid) {
        UserProbes u;
        synchronized (this) {
            u = probes;
        }
        if (u != null) u.filter(h.cookie, pid > 0 && pid <= Integer.MAX_VALUE ? (int) pid : 0);
    }

    /**
     * Every hit of {@code h} that reaches the ring also sends {@code signal} to the hitting
     * process, in the kernel (UserProbes.signal; 0: none): SIGSTOP holds it at the probe.
     */
    void signal(Handle h, int signal) {
        UserProbes u;
        synchronized (this) {
            u = probes;
        }
        if (u != null) u.signal(h.cookie, signal);
    }

    /** The slot and its link count go; the last one closes the capture. */
    private synchronized void free(int cookie) {
        used.clear(cookie);
        if (--open == 0 && probes != null) {
            probes.close();
            probes = null;
        }
    }

    private static void closeAll(List<AutoCloseable> links) {
        for (AutoCloseable l : links) {
            try {
                l.close();
            } catch (Exception e) {
                LOG.debug("uprobe link close failed", e);
            }
        }
    }

    /** Drain thread: one captured hit to its probe's handler (dropped when the probe is gone). */
    @Override
    public void hit(UserHit h) {
        delivered++;
        if (h.cookie < 0 || h.cookie >= UserProbes.COOKIES) return;
        HitHandler handler = slots.get((int) h.cookie);
        if (h.signal != Sys.SIGSTOP) {
            if (handler != null) handler.hit(h);
            return;
        }
        int pid = h.pid;
        held++;
        holds.acquire(pid);
        try {
            if (handler != null) handler.hit(h);
        } finally {
            holds.release(pid);
        }
    }

    @Override
    public void lost(int cpu, long count) {
        drops.addAndGet(count);
        org.jdtrace.spi.ProbeRegistry r = registry.get();
        if (r != null) r.lost(cpu, count); // dtrace: N drops on CPU c, from each consumer
        else LOG.debug("pid: {} drops on CPU {} with no consumer", count, cpu);
    }

    /**
     * Reports the records the kernel could not write that nobody was told of yet (losses at the
     * end of tracing, with no later record to bring the ring's own lost record).
     */
    void reportLost() {
        UserProbes u;
        synchronized (this) {
            u = probes;
        }
        if (u != null) u.lost();
    }

    /** Closes the capture and every link (the bundle stops). */
    synchronized void close() {
        if (probes != null) probes.close();
        probes = null;
        tried = true;
        refusal = "closed";
    }

    /** The kernel (or we) would not place a uprobe: the message is one line for the user. */
    static final class UprobeRefused extends Exception {
        private static final long serialVersionUID = 1L;

        UprobeRefused(String message) {
            super(message, null, false, false);
        }
    }
}
