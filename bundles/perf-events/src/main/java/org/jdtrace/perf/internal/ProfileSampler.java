/*
 * profile-N through the kernel: one cpu-clock perf event per CPU (PERF_COUNT_SW_CPU_CLOCK, period
 * = N's interval in ns, every task, kernel and user mode, the idle task included, as DTrace's
 * cyclic fires on idle CPUs too), sampling ip, pid/tid, cpu, time, the call chain and the user
 * registers, with comm records to name the processes. Each sample fires the probe once on the
 * drain thread with a SampleContext (arg0 kernel pc / arg1 user pc).
 *
 * tick-N (tick()): the same event on one CPU, picked at random as dtrace-utils' profile provider
 * places its tick event, but once for all tick-N probes (when the sampler is made), so that two
 * ticks come in the order of their times whether that CPU runs or idles (see Tick's watchdog).
 * The firing is in whatever that CPU ran when the clock fired, the idle task (pid 0, arg0 a kernel
 * pc, no user stack) included.
 *
 * Long periods: an interval above MAX_PERIOD is asked of the kernel as `every` equal shorter
 * periods, and each CPU fires its probe at every every-th sample (counted by the handler, which
 * drains run one at a time, under PerfEventsImpl's drain lock); such an event keeps every process's samples (no pid filter
 * in the kernel: a dropped sample would miscount), the clause's predicate still filters.
 *
 * Pid filter (Probe.pidFilter, `profile-997 /pid == $target/`): each probe's events run a
 * perf-event BPF program (filter()) that drops the samples of every other process before they
 * reach the ring; it reads the pid from a one-entry array map (pid + 1, 0 for every process), so
 * filterChanged only rewrites the map: no sample is lost or doubled by a change. The same program
 * records each kept sample's ppid at the event (real_parent->tgid at the kernel's BTF offsets) in
 * an LRU map that the firing looks up when a clause reads ppid (SampleContext.ppids), so a process
 * gone since still has the parent it had.
 *
 * ustack(): each profile-N sample also copies the top of the user stack (PERF_SAMPLE_STACK_USER,
 * ustackbytes bytes, default 8192 as perf's --call-graph dwarf; -x ustackbytes=N, rounded up to a
 * multiple of 8, at most 65528; 0 copies nothing and ustack() is the frame-pointer chain), which
 * SampleContext unwinds by CFI after the event, so a process gone since still has its stacks.
 * Its rings are larger then (RING_PAGES_STACK), as perf's are for dwarf call graphs.
 *
 * A rate above perf_event_max_sample_rate is clamped to it with one warning (the kernel would
 * refuse the event otherwise). A refusal of the kernel is a ProviderException in dtrace's words.
 */
package org.jdtrace.perf.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.EventSet;
import org.jdtrace.perf.EventSpec;
import org.jdtrace.perf.PerfEvents;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.RecordHandler;
import org.jdtrace.perf.Sample;
import org.jdtrace.spi.CpuSampler;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProviderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class ProfileSampler implements CpuSampler {

    private static final Logger LOG = LoggerFactory.getLogger(ProfileSampler.class);
    /**
     * The longest period asked of the kernel: on 6.18 a cpu-clock event of 2^32 ns or more never
     * fires (tick-4200ms fires every 4.2 s, tick-4300ms not once in 14 s).
     */
    static final long MAX_PERIOD = 1L << 31;
    private final PerfEvents perf;
    private final Comms comms;
    private final UserSymbols symbols;
    private final Abi abi;

    /** The default stack copy (perf's --call-graph dwarf default). */
    static final int USTACKBYTES = 8192;
    /**
     * Ring data pages per CPU when samples carry a stack copy: 8 MB, about 950 samples of an
     * 8 KB copy, a second of profile-997 on that CPU. The drain thread is cold at the start (it
     * reads each new object's symbols and CFI) and slow when the machine is busy; 2 MB (a
     * quarter second) lost about 230 samples a CPU in the first second of every run, idle
     * machine included. Root's rings are not charged to perf_event_mlock_kb (CAP_IPC_LOCK).
     */
    static final int RING_PAGES_STACK = 2048;
    /**
     * How long a sample may wait in its ring (RecordHandler.maxWaitMillis): a profile's
     * aggregations are read at the aggrate (a second), and its rings hold a second of samples.
     * Tick's watchdog waits longer (GRACE_NANOS) before it takes a period for idle.
     */
    static final int MAX_WAIT_MS = 100;
    /** Bytes of user stack each profile-N sample copies (-x ustackbytes). */
    private volatile int ustackbytes = USTACKBYTES;

    /** The CPU of every tick-N event (see above). */
    private final int tickCpu;
    /**
     * Where the filter finds a task's parent (Btf.parent), read at the first event opened and
     * kept; empty when the BTF does not say.
     */
    private volatile java.util.Optional<Btf.Parent> parent;

    ProfileSampler(PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi) {
        this.perf = perf;
        this.tickCpu = java.util.concurrent.ThreadLocalRandom.current().nextInt(Math.max(1, perf.cpus()));
        this.comms = comms;
        this.symbols = symbols;
        this.abi = abi;
    }

    @Override
    public void sync() {
        perf.drain();
    }

    @Override
    public void option(String name, long value) {
        if (name.equals("ustackbytes")) ustackbytes = (int) Math.min(65528, (Math.max(0, value) + 7) & ~7L);
    }

    /** The pid filter map of each sampled probe. */
    private final java.util.Map<Probe, BpfObject> filters = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void filterChanged(Probe probe) {
        BpfObject map = filters.get(probe);
        if (map != null) map.update(0, probe.pidFilter() + 1);
    }

    /** The filter: 1 (keep) when map[0] is 0 or the current process's pid + 1, else 0 (drop). */
    static long[] filter(int mapFd) {
        return filter(mapFd, -1, null);
    }

    /**
     * As above; with {@code ppidsFd} and {@code parent}, a kept sample also records its process's
     * ppid at the event in that map (CaptureProgram.ppids' map: u32 tgid -> u64 real_parent->tgid).
     */
    static long[] filter(int mapFd, int ppidsFd, Btf.Parent parent) {
        BpfAsm a = new BpfAsm()
                .call(BpfAsm.GET_CURRENT_PID_TGID)
                .mov(BpfAsm.R7, BpfAsm.R0)
                .rshImm(BpfAsm.R7, 32)
                .lookupKey0(mapFd)
                .jeqImm(BpfAsm.R0, 0, "keep")
                .ldxW(BpfAsm.R1, BpfAsm.R0, 0)
                .jeqImm(BpfAsm.R1, 0, "keep")
                .addImm(BpfAsm.R1, -1)
                .jneReg(BpfAsm.R1, BpfAsm.R7, "drop")
                .label("keep");
        if (parent != null) a.recordParent(BpfAsm.R7, ppidsFd, parent);
        return a
                .movImm(BpfAsm.R0, 1)
                .exit()
                .label("drop")
                .movImm(BpfAsm.R0, 0)
                .exit()
                .code();
    }

    @Override
    public AutoCloseable sample(Probe probe, long intervalNanos) {
        return open(probe, intervalNanos, -1);
    }

    /**
     * tick-N: the same event on the tick CPU (see above); the firing is in whatever that CPU ran
     * (pid 0, a kernel pc in arg0 and no user stack when it was idle). See Tick.
     */
    @Override
    public AutoCloseable tick(Probe probe, long intervalNanos) {
        return open(probe, intervalNanos, tickCpu);
    }

    int tickCpu() {
        return tickCpu;
    }

    private Btf.Parent parent() {
        java.util.Optional<Btf.Parent> p = parent;
        if (p == null) parent = p = java.util.Optional.ofNullable(Btf.parent()); // two racing reads give the same
        return p.orElse(null);
    }

    /** The sampling event of {@code probe} on {@code cpu}, or on every CPU when it is -1. */
    private AutoCloseable open(Probe probe, long intervalNanos, int cpu) {
        long minInterval = 1_000_000_000L / Math.max(1, perf.maxSampleRate());
        if (intervalNanos < minInterval) {
            LOG.warn("{}: rate clamped to perf_event_max_sample_rate ({}/s)", probe.name(), perf.maxSampleRate());
            intervalNanos = minInterval;
        }
        // a long interval is `every` shorter periods; each CPU's every-th sample fires (see Long periods)
        long every = (intervalNanos + MAX_PERIOD - 1) / MAX_PERIOD;
        long period = intervalNanos / every;
        int[] seen = new int[perf.cpus()];
        // profile-N drops other processes' samples in the kernel; tick-N keeps them all (a dropped
        // sample would be a period without one, which its watchdog would fire as idle)
        boolean filtered = cpu < 0 && every == 1;
        SampleContext ctx = new SampleContext(perf, comms, symbols, abi);
        Tick tick = cpu < 0 ? null
                : new Tick(probe, intervalNanos, period, cpu, () -> perf.kaddr("do_idle"), new SampleContext(perf, comms, symbols, abi),
                        new SampleContext(perf, comms, symbols, abi));
        RecordHandler h = new RecordHandler() {
            @Override
            public void sample(Sample s) {
                if (tick != null) {
                    if (tick.admit(s.time)) tick.fire(ctx.profile(s));
                    return;
                } else if (every > 1 && s.cpu >= 0 && s.cpu < seen.length) {
                    if (++seen[s.cpu] < every) return;
                    seen[s.cpu] = 0;
                }
                probe.fire(ctx.profile(s));
            }

            @Override
            public void comm(int pid, int tid, String comm) {
                comms.put(tid, comm);
            }

            @Override
            public int maxWaitMillis() {
                return MAX_WAIT_MS;
            }

            @Override
            public void lost(int cpu, long count) {
                if (tick != null) {
                    // no period is lost with them: the next sample's drain or the watchdog fires
                    // each unsampled period (Tick), so the user sees no drop
                    LOG.debug("{} {} samples lost on CPU {}", probe.name(), count, cpu);
                } else {
                    probe.lost(cpu, count); // dtrace: N drops on CPU c, from each consumer
                }
            }
        };
        // profile-N copies the user stack for ustack()'s unwinding; tick-N does not (one CPU, any task)
        int stackBytes = cpu < 0 && abi.perfRegsUserMask() != 0 && abi.dwarfNumbering() != null ? ustackbytes : 0;
        EventSpec spec = new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_CPU_CLOCK, period, false,
                EventSpec.SAMPLE_IP | EventSpec.SAMPLE_TID | EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU
                        | EventSpec.SAMPLE_CALLCHAIN | (abi.perfRegsUserMask() != 0 ? EventSpec.SAMPLE_REGS_USER : 0)
                        | (stackBytes > 0 ? EventSpec.SAMPLE_STACK_USER : 0),
                EventSpec.FLAG_COMM, abi.perfRegsUserMask(), stackBytes > 0 ? RING_PAGES_STACK : cpu < 0 ? 64 : 32, -1,
                true, cpu, stackBytes);
        BpfObject map = null, prog = null, ppids = null;
        EventSet set = null;
        // profile-N names processes gone before the drain too (UserSymbols' side-band), from before its first sample
        AutoCloseable followed = cpu < 0 ? symbols.track() : () -> { };
        try {
            map = perf.map(PerfSys.MAP_ARRAY, 4, 4, 1, "jdtrace_pidflt");
            if (filtered) map.update(0, probe.pidFilter() + 1); // else 0: every process
            Btf.Parent parent = parent();
            if (parent != null) {
                ppids = CaptureProgram.ppidMap(perf);
                ctx.ppids = ppids;
            }
            prog = perf.perfEventProgram(filter(map.fd(), ppids == null ? -1 : ppids.fd(), parent), "jdtrace_pidflt");
            set = perf.open(spec, h);
            set.attach(prog); // before the events start: no sample escapes the filter
            set.enable();
            if (filtered) filters.put(probe, map);
            EventSet s = set;
            BpfObject m = map, pr = prog, pp = ppids;
            AutoCloseable event = () -> {
                filters.remove(probe, m);
                s.close();
                followed.close(); // after the samples' last drain
                pr.close();
                m.close();
                if (pp != null) pp.close();
            };
            if (tick == null) return event;
            tick.event = event;
            tick.start();
            return tick;
        } catch (PerfException e) {
            for (AutoCloseable c : new AutoCloseable[] {set, followed, prog, map, ppids}) {
                if (c != null) {
                    try {
                        c.close();
                    } catch (Exception ignored) {
                        // closing what was half opened
                    }
                }
            }
            throw new ProviderException("cannot sample " + probe.name() + ": " + e.getMessage());
        }
    }
}
