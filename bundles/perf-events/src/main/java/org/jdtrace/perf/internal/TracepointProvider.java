/*
 * A provider whose probes are kernel tracepoints (illumos' proc and sched providers are SDT probes
 * of its kernel; Linux's tracepoints play that role). Each probe names the tracepoint that fires
 * it and a Firing that reads the raw record into DTrace's arguments (and, for probes that fire
 * in another thread's name such as sched:::on-cpu, the pid/tid/execname of that thread), or
 * declines the record (proc:::exit fires only for the thread that ends its process).
 *
 * Probes exist only for the tracepoints this kernel has (attach() looks each one up; a missing
 * one makes no probe, so a description of it matches nothing). While at least one probe of a
 * tracepoint is enabled, one perf event per CPU is open on it (every task, PERF_SAMPLE_RAW, the
 * call chain for stack()/ustack(), comm records to keep execname current) and its records fire
 * the enabled probes in order on the drain thread. The last disable closes the events. A probe
 * whose Spec has a capture (proc:::exec's path, proc:::exit's exit code) reads, instead of the
 * tracepoint's record, the record a CaptureProgram attached to the tracepoint sends to a per-CPU
 * BPF-output event; its group closes the program's attachment, then the ring, then the maps.
 * A group reading the tracepoint's own records attaches CaptureProgram.ppids to it (each
 * process's ppid at its latest event, in an LRU map the firing looks up when a clause reads ppid),
 * closed with the group as a capture's objects are.
 *
 * Pid filter (Probe.pidFilter): a capture program drops other processes' events in the kernel
 * (its filter map follows the group's probes, and filterChanged). A tracepoint's own records are
 * filtered in the JVM only: a BPF program on the tracepoint is shared by every perf user of it
 * (one that returned 0 for other processes would hide their events from other tools too), an
 * ftrace filter on the event knows only the thread (common_pid), not its process, and per-process
 * perf events would have to be reopened when a clause widens the filter mid-trace.
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
     * One probe: its function and name, the tracepoint, what a BPF program captures at the event
     * (null: the tracepoint's own record is read), the reading and the arguments' C types.
     */
    record Spec(String function, String name, String category, String tracepoint, CaptureProgram.Capture capture,
            Firing firing, String... argTypes) {

        Spec(String function, String name, String category, String tracepoint, Firing firing, String... argTypes) {
            this(function, name, category, tracepoint, null, firing, argTypes);
        }

        String key() {
            return category + ":" + tracepoint + (capture == null ? "" : ":" + capture);
        }
    }

    private final String name;
    private final List<Spec> specs;
    private final PerfEvents perf;
    private final Comms comms;
    private final UserSymbols symbols;
    private final Abi abi;
    private ProbeRegistry registry;
    private final Map<String, Group> groups = new HashMap<>();
    /** Records the rings delivered to the JVM (drain thread; read by tests). */
    volatile long delivered;

    TracepointProvider(String name, List<Spec> specs, PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi) {
        this.name = name;
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
                if (spec.capture == null) {
                    g.set = perf.open(new EventSpec(EventSpec.TYPE_TRACEPOINT, tp.id(), 1, false,
                            EventSpec.SAMPLE_TID | EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU | EventSpec.SAMPLE_RAW
                                    | EventSpec.SAMPLE_CALLCHAIN, EventSpec.FLAG_COMM, 0, 128, -1, false), g);
                    g.ppids();
                } else {
                    g.capture(spec.capture);
                }
            } catch (PerfException e) {
                if (g != null) g.close();
                throw new ProviderException("cannot enable " + probe.description() + ": " + e.getMessage());
            }
            groups.put(key, g);
        }
        g.add(probe);
    }

    /** The probe's pid filter changed: a capture program follows it (tracepoint records do not: see the README). */
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

        /** True when the records are a CaptureProgram's (they carry the ppid at the event). */
        boolean captured;
        /** A capture's pid filter map (key 0: 0 every process, else pid + 1), else null. */
        BpfObject filter;

        /** A capture's BPF objects (program attachment first), closed after the set. */
        final List<AutoCloseable> bpf = new ArrayList<>();

        Group(KernelTracepoint tp) {
            this.tp = tp;
        }

        /** Opens a CaptureProgram on the tracepoint instead of its own record (see there). */
        void capture(CaptureProgram.Capture c) {
            int taskOffset = c.taskMember() == null ? -1 : Btf.memberOffset("task_struct", c.taskMember());
            BpfObject buf = track(perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, CaptureProgram.SIZE, 1, "jdtrace_capbuf"));
            filter = track(perf.map(PerfSys.MAP_ARRAY, 4, 4, 1, "jdtrace_capfilt"));
            BpfObject events = track(perf.map(PerfSys.MAP_PERF_EVENT_ARRAY, 4, 4, perf.cpus(), "jdtrace_capout"));
            set = perf.open(new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_BPF_OUTPUT, 1, false,
                    EventSpec.SAMPLE_TID | EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU | EventSpec.SAMPLE_RAW
                            | EventSpec.SAMPLE_CALLCHAIN, 0, 0, 64, -1, false), this);
            int[] fds = set.fds();
            for (int cpu = 0; cpu < fds.length; cpu++) events.update(cpu, fds[cpu]);
            BpfObject prog = track(perf.program(CaptureProgram.build(tp, c, taskOffset, Btf.parent(), filter.fd(), buf.fd(), events.fd()),
                    "jdtrace_capture"));
            captured = true;
            bpf.add(0, perf.attach(tp, prog));
        }

        /**
         * The ppid at the event for the tracepoint's own records (CaptureProgram.ppids); without
         * the kernel's BTF, or when the kernel refuses the program, ppid is read from /proc after
         * the event, as before.
         */
        void ppids() {
            Btf.Parent parent = Btf.parent();
            if (parent == null) return;
            try {
                BpfObject map = track(CaptureProgram.ppidMap(perf));
                BpfObject prog = track(perf.program(CaptureProgram.ppids(map.fd(), parent), "jdtrace_ppids"));
                bpf.add(0, perf.attach(tp, prog));
                ctx.ppids = map;
            } catch (PerfException e) {
                LOG.debug("{}: ppid from /proc after the event: {}", tp.name(), e.getMessage());
            }
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
            if (filter == null) return;
            long pid = -2;
            for (Probe p : armed) {
                long f = p.pidFilter();
                pid = pid == -2 || pid == f ? f : -1;
            }
            filter.update(0, pid < 0 ? 0 : pid + 1);
        }

        @Override
        public void sample(Sample s) {
            delivered++;
            for (Probe p : armed) {
                ctx.event(s);
                ctx.reset();
                if (captured && s.raw.byteSize() >= CaptureProgram.SIZE) {
                    ctx.ppid = s.raw.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.PPID);
                }
                if (((Spec) p.providerArg()).firing.fill(s, tp, ctx)) p.fire(ctx);
            }
        }

        @Override
        public void comm(int pid, int tid, String comm) {
            comms.put(tid, comm);
        }

        @Override
        public void lost(int cpu, long count) {
            LOG.warn("{}: {} drops on CPU {}", tp.category() + ":" + tp.name(), count, cpu);
        }
    }

    // ---- reading raw records

    static long field(Sample s, KernelTracepoint tp, String f) {
        int[] d = tp.fields().get(f);
        if (d == null) return 0;
        MemorySegment r = s.raw;
        return switch (d[1]) {
            case 1 -> d[2] == 1 ? r.get(ValueLayout.JAVA_BYTE, d[0]) : Byte.toUnsignedLong(r.get(ValueLayout.JAVA_BYTE, d[0]));
            case 2 -> d[2] == 1 ? r.get(ValueLayout.JAVA_SHORT_UNALIGNED, d[0]) : Short.toUnsignedLong(r.get(ValueLayout.JAVA_SHORT_UNALIGNED, d[0]));
            case 4 -> d[2] == 1 ? r.get(ValueLayout.JAVA_INT_UNALIGNED, d[0]) : Integer.toUnsignedLong(r.get(ValueLayout.JAVA_INT_UNALIGNED, d[0]));
            default -> r.get(ValueLayout.JAVA_LONG_UNALIGNED, d[0]);
        };
    }

    /** A char[N] field, up to its NUL. */
    static String chars(Sample s, KernelTracepoint tp, String f) {
        int[] d = tp.fields().get(f);
        return d == null ? "" : cstring(s.raw, d[0], d[1]);
    }

    /** A __data_loc char[] field (u32: offset in the low half, length in the high half). */
    static String dataLoc(Sample s, KernelTracepoint tp, String f) {
        int[] d = tp.fields().get(f);
        if (d == null) return "";
        int loc = s.raw.get(ValueLayout.JAVA_INT_UNALIGNED, d[0]);
        int off = loc & 0xffff, len = loc >>> 16;
        if (off + len > s.raw.byteSize()) return "";
        return cstring(s.raw, off, len);
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
