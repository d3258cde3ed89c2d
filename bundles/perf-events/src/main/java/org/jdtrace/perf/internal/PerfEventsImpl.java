/*
 * The PerfEvents service: owns every perf event, ring and BPF object opened through it, and the
 * one drain thread that reads the rings (perf's mmap reader; DTrace's buffer switch).
 *
 * Draining: the drain thread reads each open set's rings and calls its handler with each record
 * (samples, comm records, lost counts). It blocks while there is nothing to read: parked while no
 * set is open (open() unparks it), else in poll(2) on every ring's descriptor and an eventfd that
 * open() and close() signal (the poll list is made anew only when the open sets change). A ring
 * wakes its poller every WAKEUP_EVENTS samples, not at each: a wake-up is an irq_work and a
 * scheduler wake-up charged to the thread that fired, and one per event made machine-wide syscall
 * tracing cost 5x bpftrace on a getppid loop. A ring of user stack copies (a profile's
 * --call-graph dwarf, 8 KB a sample) wakes it once a quarter of the ring is written
 * (wakeupEvents(): ~230 samples of an 8 MB ring, 4 times a second per CPU at 997 Hz; perf record
 * waits for half). After a wakeup the drain thread waits DRAIN_NANOS for the burst to gather,
 * then drains, so it drains at most every DRAIN_NANOS. Fewer than a wake-up's records wait for
 * the poll's timeout, the least of the open sets' RecordHandler.maxWaitMillis (20 ms unless a
 * handler allows more: a profile's 100, Tick's GRACE_NANOS being longer; a uprobe record that
 * holds its process stopped allows no more than 20), after which it drains at once
 * (they have gathered for that long) if some ring holds unread records (Ring.unread: two loads of
 * the mmap'd page), so an open event that never fires still wakes nothing but the timeout. The
 * rings are sized so that a burst of that length fits; a full ring makes the kernel count
 * PERF_RECORD_LOST, which the set adds up and its handler reports as drops. Records a drain held
 * back (see Order) count as unread like any others: they go out at the next wakeup or timeout,
 * within the poll's timeout, as records below a wake-up's always did; a consumer's drain() takes
 * them at once. (Polling again after 2 ms for them made a steady profile-997 loop ~140 times a
 * second, most of them to read a millisecond's records.) A round costs its poll, two wake-ups and
 * the drain's set-up, ~60 us of this machine's CPU: a whole-machine profile polling every 20 ms
 * spent 13% of its drain thread there (perf record -g of the JVM: 377 of 2885 samples in
 * PerfSys.poll), hence its longer wait. The loop's round is a method of its own and jvm.options lowers the
 * compile thresholds of it and the few methods it calls: at tens of rounds a second, the round,
 * its poll and the FFM call behind it otherwise stay interpreted for the whole run.
 *
 * Ownership and cleanup: every EventSetImpl and BpfObjectImpl registers in `open` and leaves it
 * on close(). deactivate() (bundle stop, framework shutdown) stops the drain thread and closes
 * whatever is still open, so no perf event or BPF program of jdtrace survives the bundle; the
 * JVM's exit closes the descriptors in any case (perf events and BPF programs are released with
 * their last descriptor).
 *
 * Order: one drain reads the records stamped up to a cutoff (PERF_SAMPLE_TIME, on
 * CLOCK_MONOTONIC) in every ring of every open set and hands them over merged by that time (a
 * k-way merge of the rings; each CPU's ring is in time order already); later records wait for the
 * next drain. The periodic drain's cutoff is MERGE_MARGIN_NANOS before its start, far more than
 * the kernel takes between a record's stamp and its write into the ring, so records of different
 * CPUs and providers come out in event order across drains too. drain() (a consumer's sync before
 * END) takes everything. Non-sample records (comm, lost) go first among their ring's pending
 * records, except where the event stamps them too (sample_id_all with PERF_SAMPLE_TIME: UserSymbols'
 * side-band), which are merged by their time like samples: a process's fork on one CPU is read
 * before its exec and mappings on another, and both before its samples. close() reads what is
 * left of its own rings unmerged.
 *
 * Locking: each set has its own lock, held by the drain while it reads that set's rings and by
 * close() while it unmaps them, so a ring is never read after its munmap. A drain takes
 * drainLock, then every open set's lock in list order (the list only appends and removes, so
 * every drain takes them in one order; close() takes only its own). Handlers run with them held
 * and must not close their own set from the handler (they never need to).
 */
package org.jdtrace.perf.internal;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import org.jdtrace.isa.Isa;
import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.EventSet;
import org.jdtrace.perf.EventSpec;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.RecordHandler;
import org.jdtrace.perf.Sample;
import org.jdtrace.perf.KernelTracepoint;
import org.jdtrace.perf.UserProbeHandler;
import org.jdtrace.perf.UserProbes;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Component(service = PerfEvents.class, immediate = true)
public final class PerfEventsImpl implements PerfEvents {

    private static final Logger LOG = LoggerFactory.getLogger(PerfEventsImpl.class);
    static final long DRAIN_NANOS = 5_000_000;
    /** The periodic drain leaves the records of its last millisecond for the next (see Order). */
    static final long MERGE_MARGIN_NANOS = 1_000_000;
    /** Samples a ring takes before it wakes the drain thread (perf_event_attr.wakeup_events), at least. */
    static final int WAKEUP_EVENTS = 64;

    /**
     * A ring's wakeup_events: WAKEUP_EVENTS, or for samples with a user stack copy as many as fill
     * a quarter of the ring, each taken as the copy and 1 KB (its registers, chains and header at
     * the most a call chain of 128 frames takes).
     */
    static int wakeupEvents(EventSpec spec) {
        if (spec.stackUser() <= 0) return WAKEUP_EVENTS;
        long perSample = spec.stackUser() + 1024L;
        return (int) Math.max(WAKEUP_EVENTS, Math.min(Integer.MAX_VALUE, Ring.PAGE * spec.ringPages() / 4 / perSample));
    }
    /**
     * Signalled by open() and close(): the drain thread's poll then takes the new set of rings.
     * Made by the drain thread when the first set opens (the bundle's start links no native call).
     */
    private volatile int wakeFd = -1;
    private final MemorySegment wakeBuf = java.lang.foreign.Arena.ofAuto().allocate(8, 8);
    private final MemorySegment wakeState = PerfSys.callState();

    private final PerfSys sys;
    private final Tracefs tracefs = new Tracefs();
    private final int cpus;
    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    /**
     * The open sets in the order they opened: replaced, never changed in place (copy on write,
     * under {@code setsLock}), so the drain thread reads it without a copy and sees a change as
     * another array.
     */
    private volatile EventSetImpl[] sets = new EventSetImpl[0];
    private final Object setsLock = new Object();
    private volatile Kallsyms kallsyms;
    private volatile boolean running = true;
    final Thread drainer;
    /** The drain thread's drains (read by tests: it must not wake while nothing happens). */
    volatile long drains;
    /** Serialises drains (the drain thread's, drain() from a consumer's thread). */
    private final Object drainLock = new Object();

    private final KernelProviders providers;
    /** The thread-locals that live in the kernel, one store for every program of this service. */
    final ThreadLocalsMap threadLocals = new ThreadLocalsMap(this);

    /** Without a bundle (tests): the service alone, no providers registered. */
    public PerfEventsImpl(Isa isa) {
        this(isa, null, new org.jdtrace.elf.ObjectFiles());
    }

    /**
     * {@code objects}: the platform's one reading of each ELF file (symbols, CFI), shared with the
     * pid provider.
     */
    @Activate
    public PerfEventsImpl(@Reference(target = "(isa=amd64)") Isa isa, BundleContext ctx, @Reference org.jdtrace.elf.ObjectFiles objects) {
        this.sys = new PerfSys(isa.abi());
        this.cpus = onlineCpus();
        this.drainer = new Thread(this::drainLoop, "jdtrace-perf-drain");
        drainer.setDaemon(true);
        drainer.start();
        this.providers = ctx == null ? null : new KernelProviders(this, isa, ctx, objects);
    }

    @Deactivate
    public void close() {
        if (providers != null) providers.close();
        running = false;
        wake();
        try {
            drainer.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (AutoCloseable c : List.copyOf(open)) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.debug("close failed", e);
            }
        }
        if (!drainer.isAlive()) sys.close(wakeFd);
    }

    /** Ends the drain thread's park or poll (the set of rings changed, or the service stops). */
    private void wake() {
        int fd = wakeFd;
        if (fd >= 0) {
            synchronized (wakeBuf) {
                sys.signal(wakeState, wakeBuf, fd);
            }
        }
        LockSupport.unpark(drainer);
    }

    PerfSys sys() {
        return sys;
    }

    @Override
    public int cpus() {
        return cpus;
    }

    @Override
    public String narrowed() {
        if (PerfSys.root()) return null;
        int paranoid = readInt("/proc/sys/kernel/perf_event_paranoid", 2);
        if (paranoid <= -1) return null;
        return "perf_event_paranoid is " + paranoid + ": tracing only this user's processes, "
                + (paranoid >= 2 ? "user mode only" : "kernel and user mode") + "; no tracepoints or BPF";
    }

    @Override
    public int maxSampleRate() {
        return readInt("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
    }

    @Override
    public KernelTracepoint tracepoint(String category, String name) {
        return tracefs.tracepoint(category, name);
    }

    @Override
    public EventSet open(EventSpec spec, RecordHandler handler) {
        if (!running) throw new PerfException("the perf events service is stopping", 0);
        EventSetImpl set = new EventSetImpl(spec, handler);
        try {
            int n = spec.pid() >= 0 || spec.cpu() >= 0 ? 1 : cpus;
            for (int i = 0; i < n; i++) {
                int c = spec.cpu() >= 0 ? spec.cpu() : i;
                long flags = spec.flags() | (spec.disabled() ? PerfSys.F_DISABLED : 0)
                        | (spec.pid() >= 0 ? PerfSys.F_INHERIT : 0);
                // a wake-up of the drain thread's poll every wakeupEvents() samples (see Draining)
                PerfSys.Attr a = new PerfSys.Attr(spec.type(), spec.config(), spec.period(), spec.freq(),
                        spec.sampleType(), flags, spec.regsUser(), wakeupEvents(spec), spec.stackUser());
                int fd = sys.perfEventOpen(a, spec.pid(), spec.pid() >= 0 ? -1 : c);
                MemorySegment m;
                try {
                    m = sys.mmap(fd, Ring.PAGE * (1 + spec.ringPages()));
                } catch (PerfException e) {
                    sys.close(fd);
                    throw e;
                }
                set.rings.add(new Ring(c, fd, m));
            }
        } catch (RuntimeException e) {
            set.close();
            throw e;
        }
        open.add(set);
        synchronized (setsLock) {
            EventSetImpl[] now = Arrays.copyOf(sets, sets.length + 1);
            now[now.length - 1] = set;
            sets = now;
        }
        wake();
        return set;
    }

    @Override
    public BpfObject map(int type, int keySize, int valueSize, int maxEntries, String name) {
        int fd = sys.mapCreate(type, keySize, valueSize, maxEntries, name);
        return track(new BpfObjectImpl(fd, valueSize));
    }

    @Override
    public BpfObject program(long[] insns, String name) {
        int fd = sys.progLoad(insns, name);
        return track(new BpfObjectImpl(fd, 0));
    }

    @Override
    public BpfObject perfEventProgram(long[] insns, String name) {
        int fd = sys.progLoad(PerfSys.PROG_PERF_EVENT, insns, name);
        return track(new BpfObjectImpl(fd, 0));
    }

    /** Loads a uprobe_multi program (UprobeProgram). */
    BpfObject uprobeProgram(long[] insns, String name) {
        int fd = sys.progLoad(PerfSys.PROG_KPROBE, PerfSys.TRACE_UPROBE_MULTI, insns, name);
        return track(new BpfObjectImpl(fd, 0));
    }

    /** One uprobe_multi link of {@code program} (PerfSys.uprobeMultiLink); closing it removes the probes. */
    AutoCloseable uprobeLink(BpfObject program, String path, long[] offsets, long[] refCtrOffsets, long[] cookies, int pid,
            boolean onReturn) {
        int fd = sys.uprobeMultiLink(program.fd(), path, offsets, refCtrOffsets, cookies, pid, onReturn);
        return track(new BpfObjectImpl(fd, 0));
    }

    @Override
    public boolean userProbesRun(org.jdtrace.spi.KernelClause clause, int[] args) {
        Btf.Facts k = btf();
        return UprobeClauses.runs(clause, args, k.parent(), k.leader());
    }

    private volatile Btf.Facts btf;

    /**
     * What the programs read of the kernel's BTF (null members: the BTF does not say), read once
     * in one session (the compiler asks for each clause and probe; the kernel's types never change).
     */
    Btf.Facts btf() {
        Btf.Facts k = btf;
        if (k == null) btf = k = Btf.facts(); // two racing reads give the same
        return k;
    }

    @Override
    public UserProbes userProbes(int regsWords, int spWord, int stackBytes, UserProbeHandler handler) {
        if (!running) throw new PerfException("the perf events service is stopping", 0);
        return new UprobeCapture(this, regsWords, spWord, stackBytes, handler);
    }

    @Override
    public AutoCloseable attach(KernelTracepoint tp, BpfObject program) {
        int fd = sys.perfEventOpen(new PerfSys.Attr(PerfSys.TYPE_TRACEPOINT, tp.id(), 1, false, 0,
                PerfSys.F_DISABLED, 0, 0), -1, 0);
        try {
            sys.ioctl(fd, PerfSys.IOC_SET_BPF, program.fd());
            sys.ioctl(fd, PerfSys.IOC_ENABLE, 0);
        } catch (RuntimeException e) {
            sys.close(fd);
            throw e;
        }
        BpfObjectImpl handle = new BpfObjectImpl(fd, 0);
        open.add(handle);
        return handle;
    }

    private BpfObject track(BpfObjectImpl o) {
        open.add(o);
        return o;
    }

    @Override
    public String ksym(long pc) {
        return kallsyms().lookup(pc);
    }

    @Override
    public long kaddr(String name) {
        // tick-N asks for one address at start: a scan, not the whole table (read at the first stack())
        Kallsyms k = kallsyms;
        return k != null ? k.address(name) : Kallsyms.address(Path.of("/proc/kallsyms"), name);
    }

    private Kallsyms kallsyms() {
        Kallsyms k = kallsyms;
        if (k == null) {
            synchronized (this) {
                if ((k = kallsyms) == null) kallsyms = k = Kallsyms.load();
            }
        }
        return k;
    }

    /** Some set holds records no drain has read (the drain thread, between drains). */
    private static boolean unread(EventSetImpl[] sets) {
        for (EventSetImpl set : sets) {
            if (set.unread()) return true;
        }
        return false;
    }

    /** The drain thread's body (see Draining): park while no set is open, else rounds. */
    private void drainLoop() {
        Drainer d = new Drainer();
        while (running) {
            if (sets.length == 0) {
                LockSupport.park(this); // open() and close() unpark
                continue;
            }
            if (wakeFd < 0) {
                try {
                    wakeFd = sys.eventfd(); // before the sets are read: a set opened later signals it
                } catch (PerfException e) {
                    LOG.warn("perf events: no eventfd ({}); draining every {} ms", e.getMessage(), DRAIN_NANOS / 1_000_000);
                    wakeFd = Integer.MIN_VALUE;
                }
            }
            if (wakeFd == Integer.MIN_VALUE) { // the old way: a drain every DRAIN_NANOS
                LockSupport.parkNanos(this, DRAIN_NANOS);
                drainAll(d.sample, System.nanoTime() - MERGE_MARGIN_NANOS);
                drains++;
                continue;
            }
            d.round();
        }
    }

    /**
     * The drain thread's state between rounds (that thread's alone): its poll list, made anew only
     * when the open sets change (another array in {@code sets}), its sample and call buffers. A
     * round is a method of its own, not the loop's body, so that the JIT compiles it by its
     * invocation count (jvm.options lowers its thresholds: the loop runs tens of times a
     * second, too few for the launcher's scaled ones; jvm.options names these methods, so a
     * rename goes there too).
     */
    private final class Drainer {
        final Sample sample = new Sample();
        final MemorySegment st = PerfSys.callState();
        final MemorySegment buf = java.lang.foreign.Arena.ofAuto().allocate(8, 8);
        MemorySegment fds = MemorySegment.NULL;
        /** The sets {@code fds} lists (entry 0 is the eventfd), and how many entries it has. */
        EventSetImpl[] polled;
        int nfds;
        /** The poll's timeout: the least of the polled sets' maxWaitMillis (at least 1). */
        int timeoutMs = 20;

        /**
         * One round: poll until a ring wakes the thread (then wait DRAIN_NANOS for the burst to
         * gather) or the sets' wait passes (then go on only if some ring holds unread records), drain.
         */
        void round() {
            EventSetImpl[] now = sets;
            if (now != polled) pollList(now);
            int ready = sys.poll(st, fds, nfds, timeoutMs);
            boolean signalled = ready > 0 && PerfSys.readable(fds, 0);
            if (signalled) sys.consume(st, buf, wakeFd); // open(), close() or close of the service
            if (!running || ready < 0) return;
            if (ready > (signalled ? 1 : 0)) {
                LockSupport.parkNanos(this, DRAIN_NANOS); // let the burst gather: at most a drain every DRAIN_NANOS
            } else if (signalled || !unread(now)) {
                return; // the sets changed (the next round polls the new list), or nothing came
            }
            drainAll(sample, System.nanoTime() - MERGE_MARGIN_NANOS);
            drains++;
        }

        private void pollList(EventSetImpl[] now) {
            int n = 1;
            for (EventSetImpl set : now) n += set.ringCount();
            if (fds.byteSize() < (long) n * PerfSys.POLLFD_SIZE) {
                fds = java.lang.foreign.Arena.ofAuto().allocate((long) 2 * n * PerfSys.POLLFD_SIZE, 8);
            }
            PerfSys.pollfd(fds, 0, wakeFd);
            int i = 1, wait = Integer.MAX_VALUE;
            for (EventSetImpl set : now) {
                i = set.pollfds(fds, i);
                wait = Math.min(wait, Math.max(1, set.handler.maxWaitMillis()));
            }
            nfds = i;
            timeoutMs = wait == Integer.MAX_VALUE ? 20 : wait;
            polled = now;
        }
    }

    @Override
    public void drain() {
        drainAll(new Sample(), Long.MAX_VALUE);
    }

    // the merge's arrays, reused from drain to drain (drainLock)
    private Ring[] mergeRings = new Ring[0];
    private EventSetImpl[] mergeOwners = new EventSetImpl[0];
    private long[] mergeTimes = new long[0];

    /**
     * One drain of every open set's rings, merged by event time (see the theory above): the
     * records stamped up to {@code cutoff} (CLOCK_MONOTONIC, the events' clock); later ones wait.
     */
    private void drainAll(Sample s, long cutoff) {
        synchronized (drainLock) {
            lockAndMerge(sets, 0, s, cutoff);
        }
    }

    /** Takes the sets' locks in list order (drainLock held: one drain at a time), then merges. */
    private void lockAndMerge(EventSetImpl[] all, int i, Sample s, long cutoff) {
        if (i < all.length) {
            synchronized (all[i]) {
                lockAndMerge(all, i + 1, s, cutoff);
            }
            return;
        }
        assert Thread.holdsLock(drainLock);
        int n = 0;
        for (EventSetImpl set : all) n += set.closed ? 0 : set.rings.size();
        if (mergeRings.length < n) {
            mergeRings = new Ring[n];
            mergeOwners = new EventSetImpl[n];
            mergeTimes = new long[n];
        }
        Ring[] rings = mergeRings;
        EventSetImpl[] owners = mergeOwners;
        long[] times = mergeTimes;
        int live = 0;
        for (EventSetImpl set : all) {
            if (set.closed) continue;
            for (Ring r : set.rings) {
                r.begin();
                long t;
                if (r.pending() && (t = r.nextTime(set.spec.sampleType(), set.spec.flags())) <= cutoff) {
                    rings[live] = r;
                    owners[live] = set;
                    times[live] = t;
                    live++;
                } else {
                    r.end();
                }
            }
        }
        try {
            while (live > 0) {
                int min = 0;
                for (int i2 = 1; i2 < live; i2++) {
                    if (times[i2] < times[min]) min = i2;
                }
                Ring r = rings[min];
                EventSetImpl set = owners[min];
                try {
                    r.next(set.spec.sampleType(), set.nregs, s, set.handler);
                } catch (RuntimeException e) {
                    LOG.warn("perf event handler failed: {}", e.toString());
                    LOG.debug("handler failure", e);
                }
                long t;
                if (r.pending() && (t = r.nextTime(set.spec.sampleType(), set.spec.flags())) <= cutoff) {
                    times[min] = t;
                } else {
                    r.end();
                    live--;
                    rings[min] = rings[live];
                    owners[min] = owners[live];
                    times[min] = times[live];
                }
            }
        } finally {
            for (int i2 = 0; i2 < live; i2++) rings[i2].end();
        }
    }

    private static int onlineCpus() {
        try {
            // "0-1" or "0,2-3"
            int n = 0;
            for (String part : org.jdtrace.proc.Procfs.read(Path.of("/sys/devices/system/cpu/online")).strip().split(",")) {
                String[] r = part.split("-");
                n = Math.max(n, Integer.parseInt(r[r.length - 1]) + 1);
            }
            return n;
        } catch (Exception e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    private static int readInt(String path, int dflt) {
        try {
            return Integer.parseInt(org.jdtrace.proc.Procfs.read(Path.of(path)).strip());
        } catch (Exception e) {
            return dflt;
        }
    }

    final class EventSetImpl implements EventSet {
        final EventSpec spec;
        final RecordHandler handler;
        final List<Ring> rings = new ArrayList<>();
        private final int nregs;
        /** Guarded by this set's lock. */
        private boolean closed;

        EventSetImpl(EventSpec spec, RecordHandler handler) {
            this.spec = spec;
            this.handler = handler;
            this.nregs = Long.bitCount(spec.regsUser());
        }

        /** The number of rings (0 once closed). Any thread. */
        synchronized int ringCount() {
            return rings.size();
        }

        /** Some ring holds records not read yet (the drain thread, between drains). */
        synchronized boolean unread() {
            if (closed) return false;
            for (Ring r : rings) {
                if (r.unread()) return true;
            }
            return false;
        }

        /** Writes this set's ring descriptors into {@code fds} from entry {@code i}; the next entry. */
        synchronized int pollfds(MemorySegment fds, int i) {
            if (closed) return i;
            for (Ring r : rings) {
                if ((long) (i + 1) * PerfSys.POLLFD_SIZE > fds.byteSize()) break; // a set opened meanwhile
                PerfSys.pollfd(fds, i++, r.fd);
            }
            return i;
        }

        @Override
        public synchronized int[] fds() {
            return rings.stream().mapToInt(r -> r.fd).toArray();
        }

        @Override
        public synchronized long lost() {
            return rings.stream().mapToLong(r -> r.lost).sum();
        }

        @Override
        public synchronized void attach(BpfObject program) {
            for (Ring r : rings) sys.ioctl(r.fd, PerfSys.IOC_SET_BPF, program.fd());
        }

        @Override
        public synchronized void enable() {
            for (Ring r : rings) sys.ioctl(r.fd, PerfSys.IOC_ENABLE, 0);
        }

        synchronized void drain(Sample s) {
            if (closed) return;
            for (Ring r : rings) {
                try {
                    r.drain(spec.sampleType(), nregs, s, handler);
                } catch (RuntimeException e) {
                    LOG.warn("perf event handler failed: {}", e.toString());
                    LOG.debug("handler failure", e);
                }
            }
        }

        @Override
        public void close() {
            synchronized (setsLock) {
                EventSetImpl[] now = sets;
                for (int i = 0; i < now.length; i++) {
                    if (now[i] == this) {
                        EventSetImpl[] less = Arrays.copyOf(now, now.length - 1);
                        System.arraycopy(now, i + 1, less, i, now.length - i - 1);
                        sets = less;
                        break;
                    }
                }
            }
            open.remove(this);
            wake();
            synchronized (this) {
                if (closed) return;
                // the records still in the rings belong to the trace: read them before closing
                for (Ring r : rings) sys.ioctl(r.fd, PerfSys.IOC_DISABLE, 0);
                closed = false;
                drain(new Sample());
                closed = true;
                for (Ring r : rings) {
                    sys.munmap(r.mapping());
                    sys.close(r.fd);
                }
                rings.clear();
            }
        }
    }

    final class BpfObjectImpl implements BpfObject {
        private final int valueSize;
        private volatile int fd;

        BpfObjectImpl(int fd, int valueSize) {
            this.fd = fd;
            this.valueSize = valueSize;
        }

        @Override
        public int fd() {
            return fd;
        }

        @Override
        public void update(int key, long value) {
            sys.mapUpdate(fd, key, value, valueSize);
        }

        @Override
        public void update(int key, long low, long high) {
            if (valueSize != 16) throw new UnsupportedOperationException("a map of " + valueSize + "-byte values");
            sys.mapUpdate(fd, key, low, high);
        }

        @Override
        public long lookup(int key) {
            return sys.mapLookup(fd, key);
        }

        @Override
        public boolean lookup(byte[] key, byte[] value) {
            return sys.mapBytes(PerfSys.BPF_MAP_LOOKUP_ELEM, fd, key, value);
        }

        @Override
        public boolean nextKey(byte[] key, byte[] next) {
            return sys.mapBytes(PerfSys.BPF_MAP_GET_NEXT_KEY, fd, key, next);
        }

        @Override
        public synchronized void close() {
            open.remove(this);
            if (fd >= 0) {
                sys.close(fd);
                fd = -1;
            }
        }
    }
}
