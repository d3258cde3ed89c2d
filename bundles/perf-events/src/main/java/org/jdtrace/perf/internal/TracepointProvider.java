/*
 * A provider whose probes are kernel tracepoints (illumos' proc and sched providers are SDT probes
 * of its kernel; Linux's tracepoints play that role). Each probe names the tracepoint that fires
 * it and a Firing that reads the raw record into DTrace's arguments (and, for probes that fire
 * in another thread's name such as sched:::on-cpu, the pid/tid/execname of that thread), or
 * declines the record (proc:::exit fires only for the thread that ends its process).
 *
 * Probes exist only for the tracepoints this kernel has (attach() looks each one up; a missing
 * one makes no probe, so a description of it matches nothing). While at least one probe of a
 * tracepoint is enabled, a CaptureProgram is attached to it: at each event it sends, to a
 * per-CPU BPF-output event (call chains for stack()/ustack()), what the probes read of the
 * process that may have exec'd or gone when the record is read (its identity, parent, time on
 * CPU, credentials, a proc probe's psargs, a capture's string, task member and field) with a
 * copy of the tracepoint's own record, which the probe's Firing reads (field(), chars(),
 * dataLoc()) to fill DTrace's arguments (and, for probes that fire in another thread's name such
 * as sched:::on-cpu, the pid/tid/execname of that thread), or to decline the record
 * (proc:::exit fires only for the thread that ends its process). The enabled probes of one
 * tracepoint and capture share one group; its records fire them in order on the drain thread.
 * The last disable closes the group: the program's attachment, then the ring, then the maps.
 *
 * Pid filter (Probe.pidFilter): the capture program drops other processes' events in the kernel
 * (its filter map follows the group's probes, and filterChanged); it still returns 1, so the
 * tracepoint's other perf users keep theirs. At sched_switch the program also lets through the
 * switches to a thread of the filtered process (on-cpu fires in its name; see CaptureProgram).
 * While a probe of the group walks the user stack (Probe.userStack, told again through
 * clausesChanged), the filter also names a page count (-x ustackbytes) and the program copies the
 * current thread's user registers and stack top into its record (CaptureProgram's user stack
 * section), which ustack() unwinds by CFI (EventContext.userState) instead of the call chain.
 *
 * Locking: enable/disable/detach are serialised on this; the drain thread reads a group's armed
 * probes through a volatile array (copy on write), without a lock.
 */
package org.jdtrace.perf.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.EventSet;
import org.jdtrace.perf.EventSpec;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.RecordHandler;
import org.jdtrace.perf.Sample;
import org.jdtrace.perf.KernelTracepoint;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.jdtrace.spi.ProviderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class TracepointProvider implements Provider {

    static final String MODULE = "vmlinux";
    private static final Logger LOG = LoggerFactory.getLogger(TracepointProvider.class);

    /** Reads a record into ctx's args (and overrides); false declines it. Drain thread only. */
    interface Firing {
        boolean fill(Sample s, KernelTracepoint tp, EventContext ctx);
    }

    /**
     * One probe: its function and name, the tracepoint, what its BPF program captures at the
     * event, the reading and the arguments' C types.
     */
    record Spec(String function, String name, String category, String tracepoint, CaptureProgram.Capture capture,
            Firing firing, String... argTypes) {

        String key() {
            return category + ":" + tracepoint + ":" + capture;
        }
    }

    private final String name;
    private final List<Spec> specs;
    private final PerfEvents perf;
    private final Comms comms;
    private final UserSymbols symbols;
    private final Abi abi;
    /** The user register frame of a capture's user stack section (null: the ISA has none). */
    private final BpfAsm.UserRegs regs;
    /** -x ustackbytes: the user stack an event copies while a probe walks it (guarded by this). */
    private int ustackbytes = 8192;
    private volatile ProbeRegistry registry;
    private final Map<String, Group> groups = new HashMap<>();
    /** Records the rings delivered to the JVM (drain thread; read by tests). */
    volatile long delivered;

    TracepointProvider(String name, List<Spec> specs, PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi) {
        this.name = name;
        this.regs = BpfAsm.UserRegs.of(abi);
        this.specs = specs;
        this.perf = perf;
        this.comms = comms;
        this.symbols = symbols;
        this.abi = abi;
    }

    @Override
    public void sync() {
        perf.drain();
    }

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return name.equals("sched") ? org.jdtrace.spi.ProviderAttributes.SCHED : org.jdtrace.spi.ProviderAttributes.PROC;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized void attach(ProbeRegistry registry) {
        this.registry = registry;
        for (Spec s : specs) {
            try {
                perf.tracepoint(s.category, s.tracepoint);
            } catch (PerfException e) {
                LOG.debug("{}:::{} not offered: {}", name, s.name, e.getMessage());
                continue;
            }
            registry.create(name, MODULE, s.function, s.name, s);
        }
    }

    @Override
    public synchronized void detach() {
        for (Group g : groups.values()) g.close();
        groups.clear();
        registry = null;
    }

    @Override
    public synchronized void enable(Probe probe) {
        Spec spec = (Spec) probe.providerArg();
        String key = spec.key();
        Group g = groups.get(key);
        if (g == null) {
            KernelTracepoint tp;
            try {
                tp = perf.tracepoint(spec.category, spec.tracepoint);
                g = new Group(tp);
                g.capture(spec.capture);
            } catch (PerfException | IllegalArgumentException e) {
                if (g != null) g.close();
                throw new ProviderException("cannot enable " + probe.description() + ": " + e.getMessage());
            }
            groups.put(key, g);
        }
        g.add(probe);
    }

    /** A probe's clauses changed (Probe.userStack among them): its group's filter follows. */
    @Override
    public synchronized void clausesChanged(Probe probe) {
        filterChanged(probe);
    }

    /** -x ustackbytes=N: the user stack an event copies for ustack() (as the syscall provider's). */
    @Override
    public synchronized void option(String option, long value) {
        if (!option.equals("ustackbytes")) return;
        ustackbytes = (int) Math.max(0, Math.min(Integer.MAX_VALUE, value));
        for (Group g : groups.values()) {
            try {
                g.refilter();
            } catch (PerfException e) {
                LOG.warn("{}: cannot size the stack copy: {}", name, e.getMessage());
            }
        }
    }

    /** The probe's pid filter changed: its group's capture program follows it. */
    @Override
    public synchronized void filterChanged(Probe probe) {
        Group g = groups.get(((Spec) probe.providerArg()).key());
        if (g == null) return;
        try {
            g.refilter();
        } catch (PerfException e) {
            LOG.warn("{}: cannot filter {}: {}", name, probe.description(), e.getMessage());
        }
    }

    @Override
    public synchronized void disable(Probe probe) {
        Spec spec = (Spec) probe.providerArg();
        String key = spec.key();
        Group g = groups.get(key);
        if (g == null) return;
        if (g.remove(probe)) {
            groups.remove(key);
            g.close();
        }
    }

    /**
     * The probe fires after the event: only the string of a capture's string field (proc:::exec's
     * path, arg0) was read at the event.
     */
    @Override
    public java.util.Set<Integer> capturedStrings(Probe probe) {
        Spec s = (Spec) probe.providerArg();
        return s.capture != null && s.capture.stringField() != null ? java.util.Set.of(0) : java.util.Set.of();
    }

    @Override
    public ArgDesc argDesc(Probe probe, int index) {
        Spec s = (Spec) probe.providerArg();
        if (index >= s.argTypes.length) return null;
        String t = s.argTypes[index];
        // a psinfo_t */lwpsinfo_t * is translated from the raw pid or tid it describes
        if (t.equals("psinfo_t *")) return new ArgDesc(index, "pid_t", t);
        if (t.equals("lwpsinfo_t *")) return new ArgDesc(index, "id_t", t);
        return new ArgDesc(index, t, null);
    }

    /** The enabled probes of one tracepoint and its events. */
    private final class Group implements RecordHandler {
        final KernelTracepoint tp;
        EventSet set;
        volatile Probe[] armed = new Probe[0];
        final EventContext ctx = new EventContext(perf, comms, symbols, abi);

        /** The capture's pid filter map (key 0: 0 every process, else pid + 1). */
        BpfObject filter;
        /** True when the kernel's BTF gave the task's members (time on CPU, credentials, psargs). */
        boolean taskKnown;

        /** The capture's BPF objects (program attachment first), closed after the set. */
        final List<AutoCloseable> bpf = new ArrayList<>();

        Group(KernelTracepoint tp) {
            this.tp = tp;
        }

        /** Opens a CaptureProgram on the tracepoint, its records read instead of the tracepoint's (see there). */
        void capture(CaptureProgram.Capture c) {
            Btf.Types types = null;
            try {
                types = Btf.read();
            } catch (PerfException e) {
                if (c.taskMember() != null) throw e;
                LOG.debug("{}: no task members captured: {}", tp.name(), e.getMessage());
            }
            int taskOffset = -1;
            Btf.Task task = null;
            Btf.Parent parent = null;
            if (types != null) {
                try (Btf.Types t = types) { // one session for them all
                    if (c.taskMember() != null) taskOffset = t.offset("task_struct", c.taskMember());
                    task = Btf.task(t);
                    parent = Btf.parent(t);
                }
            }
            taskKnown = task != null;
            BpfObject buf = track(perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, CaptureProgram.bufferSize(regs), 1, "jdtrace_capbuf"));
            filter = track(perf.map(PerfSys.MAP_ARRAY, 4, CaptureProgram.FILTER_VALUE, 1, "jdtrace_capfilt"));
            BpfObject events = track(perf.map(PerfSys.MAP_PERF_EVENT_ARRAY, 4, 4, perf.cpus(), "jdtrace_capout"));
            int ppidsFd = -1, runtimesFd = -1;
            if (c.switches()) {
                // the incoming thread's parent and time on CPU (sched:::on-cpu fires in its name)
                BpfObject ppids = track(CaptureProgram.ppidMap(perf));
                runtimesFd = track(CaptureProgram.runtimeMap(perf)).fd();
                ppidsFd = ppids.fd();
                ctx.ppids = parent == null ? null : ppids;
            }
            bpf.add(symbols.track()); // ustack() of a process gone before the drain; closed after the set
            set = perf.open(new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_BPF_OUTPUT, 1, false,
                    EventSpec.SAMPLE_TID | EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU | EventSpec.SAMPLE_RAW
                            | EventSpec.SAMPLE_CALLCHAIN, 0, 0, 128, -1, false), this);
            int[] fds = set.fds();
            for (int cpu = 0; cpu < fds.length; cpu++) events.update(cpu, fds[cpu]);
            BpfObject prog = track(perf.program(CaptureProgram.build(tp, c, taskOffset, parent, task, filter.fd(),
                    buf.fd(), events.fd(), ppidsFd, runtimesFd, regs), "jdtrace_capture"));
            bpf.add(0, perf.attach(tp, prog));
        }

        private BpfObject track(BpfObject o) {
            bpf.add(0, o);
            return o;
        }

        /** The program's attachment first (no new records), then the ring (drained), then the maps. */
        void close() {
            if (!bpf.isEmpty()) closeQuietly(bpf.remove(0));
            if (set != null) set.close();
            for (AutoCloseable c : bpf) closeQuietly(c);
            bpf.clear();
        }

        private static void closeQuietly(AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.debug("close failed", e);
            }
        }

        void add(Probe p) {
            List<Probe> l = new ArrayList<>(Arrays.asList(armed));
            if (!l.contains(p)) l.add(p);
            armed = l.toArray(Probe[]::new);
            refilter();
        }

        /** True when none is left. */
        boolean remove(Probe p) {
            List<Probe> l = new ArrayList<>(Arrays.asList(armed));
            l.remove(p);
            armed = l.toArray(Probe[]::new);
            if (!l.isEmpty()) refilter();
            return l.isEmpty();
        }

        /**
         * A capture's filter: the one process every armed probe is confined to, else every
         * process. Widened before a new probe's records could be missed: add() arms the probe
         * first, and a wider filter only lets more through (the predicates still decide).
         */
        void refilter() {
            assert Thread.holdsLock(TracepointProvider.this);
            long pid = -2;
            boolean stack = false;
            for (Probe p : armed) {
                long f = p.pidFilter();
                pid = pid == -2 || pid == f ? f : -1;
                stack |= p.userStack();
            }
            // the user stack section while a probe walks the user stack (Probe.userStack)
            long pages = stack ? CaptureProgram.stackPages(ustackbytes, regs) : 0;
            filter.update(0, (pid < 0 ? 0 : pid + 1) | pages << 32);
        }

        @Override
        public void sample(Sample s) {
            delivered++;
            if (s.raw.byteSize() < CaptureProgram.SHORT_SIZE) return;
            for (Probe p : armed) {
                ctx.event(s);
                ctx.reset();
                ctx.captured(s.raw, taskKnown);
                if (((Spec) p.providerArg()).firing.fill(s, tp, ctx)) p.fire(ctx);
            }
        }

        @Override
        public void comm(int pid, int tid, String comm) {
            comms.put(tid, comm);
        }

        @Override
        public void lost(int cpu, long count) {
            ProbeRegistry r = registry;
            if (r != null) r.lost(cpu, count); // dtrace: N drops on CPU c, from each consumer
        }
    }

    // ---- reading the tracepoint's record in a capture's (at CaptureProgram.RAW)

    static long field(Sample s, KernelTracepoint tp, String f) {
        int[] d = tp.fields().get(f);
        if (d == null) return 0;
        MemorySegment r = s.raw;
        long o = CaptureProgram.RAW + d[0];
        return switch (d[1]) {
            case 1 -> d[2] == 1 ? r.get(ValueLayout.JAVA_BYTE, o) : Byte.toUnsignedLong(r.get(ValueLayout.JAVA_BYTE, o));
            case 2 -> d[2] == 1 ? r.get(ValueLayout.JAVA_SHORT_UNALIGNED, o) : Short.toUnsignedLong(r.get(ValueLayout.JAVA_SHORT_UNALIGNED, o));
            case 4 -> d[2] == 1 ? r.get(ValueLayout.JAVA_INT_UNALIGNED, o) : Integer.toUnsignedLong(r.get(ValueLayout.JAVA_INT_UNALIGNED, o));
            default -> r.get(ValueLayout.JAVA_LONG_UNALIGNED, o);
        };
    }

    /** A char[N] field, up to its NUL. */
    static String chars(Sample s, KernelTracepoint tp, String f) {
        int[] d = tp.fields().get(f);
        return d == null ? "" : cstring(s.raw, CaptureProgram.RAW + d[0], d[1]);
    }

    /** A __data_loc char[] field (u32: offset in the low half, length in the high half). */
    static String dataLoc(Sample s, KernelTracepoint tp, String f) {
        int[] d = tp.fields().get(f);
        if (d == null) return "";
        int loc = s.raw.get(ValueLayout.JAVA_INT_UNALIGNED, CaptureProgram.RAW + d[0]);
        int off = loc & 0xffff, len = loc >>> 16;
        if (off + len > CaptureProgram.RAW_SIZE) return "";
        return cstring(s.raw, CaptureProgram.RAW + off, len);
    }

    /** The bytes at {@code off} up to a NUL or {@code max}, as UTF-8. */
    static String cstring(MemorySegment r, long off, int max) {
        int n = 0;
        while (n < max && r.get(ValueLayout.JAVA_BYTE, off + n) != 0) n++;
        byte[] b = new byte[n];
        MemorySegment.copy(r, ValueLayout.JAVA_BYTE, off, b, 0, n);
        return new String(b, StandardCharsets.UTF_8);
    }
}
