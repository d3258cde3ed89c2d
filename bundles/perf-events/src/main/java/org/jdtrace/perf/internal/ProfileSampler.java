/*
 * profile-N through the kernel: one cpu-clock perf event per CPU (PERF_COUNT_SW_CPU_CLOCK, period
 * = N's interval in ns, every task, kernel and user mode, the idle task included, as DTrace's
 * cyclic fires on idle CPUs too), sampling ip, pid/tid, cpu, time, the call chain and the user
 * registers, with comm records to name the processes. Each sample fires the probe once on the
 * drain thread with a SampleContext (arg0 kernel pc / arg1 user pc).
 *
 * Pid filter (Probe.pidFilter, `profile-997 /pid == $target/`): each probe's events run a
 * perf-event BPF program (filter()) that drops the samples of every other process before they
 * reach the ring; it reads the pid from a one-entry array map (pid + 1, 0 for every process), so
 * filterChanged only rewrites the map: no sample is lost or doubled by a change. The same program
 * records each kept sample's ppid at the event (real_parent->tgid at the kernel's BTF offsets) in
 * an LRU map that the firing looks up when a clause reads ppid (SampleContext.ppids), so a process
 * gone since still has the parent it had.
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
    private final PerfEvents perf;
    private final Comms comms;
    private final UserSymbols symbols;
    private final Abi abi;

    ProfileSampler(PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi) {
        this.perf = perf;
        this.comms = comms;
        this.symbols = symbols;
        this.abi = abi;
    }

    @Override
    public void sync() {
        perf.drain();
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
        long minInterval = 1_000_000_000L / Math.max(1, perf.maxSampleRate());
        if (intervalNanos < minInterval) {
            LOG.warn("{}: rate clamped to perf_event_max_sample_rate ({}/s)", probe.name(), perf.maxSampleRate());
            intervalNanos = minInterval;
        }
        SampleContext ctx = new SampleContext(perf, comms, symbols, abi);
        RecordHandler h = new RecordHandler() {
            @Override
            public void sample(Sample s) {
                probe.fire(ctx.profile(s));
            }

            @Override
            public void comm(int pid, int tid, String comm) {
                comms.put(tid, comm);
            }

            @Override
            public void lost(int cpu, long count) {
                LOG.warn("{} {} drops on CPU {}", probe.name(), count, cpu);
            }
        };
        EventSpec spec = new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_CPU_CLOCK, intervalNanos, false,
                EventSpec.SAMPLE_IP | EventSpec.SAMPLE_TID | EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU
                        | EventSpec.SAMPLE_CALLCHAIN | (abi.perfRegsUserMask() != 0 ? EventSpec.SAMPLE_REGS_USER : 0),
                EventSpec.FLAG_COMM, abi.perfRegsUserMask(), 64, -1, true);
        BpfObject map = null, prog = null, ppids = null;
        EventSet set = null;
        try {
            map = perf.map(PerfSys.MAP_ARRAY, 4, 4, 1, "jdtrace_pidflt");
            map.update(0, probe.pidFilter() + 1);
            Btf.Parent parent = Btf.parent();
            if (parent != null) {
                ppids = CaptureProgram.ppidMap(perf);
                ctx.ppids = ppids;
            }
            prog = perf.perfEventProgram(filter(map.fd(), ppids == null ? -1 : ppids.fd(), parent), "jdtrace_pidflt");
            set = perf.open(spec, h);
            set.attach(prog); // before the events start: no sample escapes the filter
            set.enable();
            filters.put(probe, map);
            EventSet s = set;
            BpfObject m = map, pr = prog, pp = ppids;
            return () -> {
                filters.remove(probe, m);
                s.close();
                pr.close();
                m.close();
                if (pp != null) pp.close();
            };
        } catch (PerfException e) {
            for (AutoCloseable c : new AutoCloseable[] {set, prog, map, ppids}) {
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
