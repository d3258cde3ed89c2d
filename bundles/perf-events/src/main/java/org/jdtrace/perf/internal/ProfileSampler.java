/*
 * profile-N through the kernel: one cpu-clock perf event per CPU (PERF_COUNT_SW_CPU_CLOCK, period
 * = N's interval in ns, every task, kernel and user mode, the idle task included, as DTrace's
 * cyclic fires on idle CPUs too), sampling ip, pid/tid, cpu, time, the call chain and the user
 * registers, with comm records to name the processes. Each sample fires the probe once on the
 * drain thread with a SampleContext (arg0 kernel pc / arg1 user pc).
 *
 * A rate above perf_event_max_sample_rate is clamped to it with one warning (the kernel would
 * refuse the event otherwise). A refusal of the kernel is a ProviderException in dtrace's words.
 */
package org.jdtrace.perf.internal;

import org.jdtrace.isa.Abi;
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
                EventSpec.FLAG_COMM, abi.perfRegsUserMask(), 64, -1, false);
        try {
            EventSet set = perf.open(spec, h);
            return set::close;
        } catch (PerfException e) {
            throw new ProviderException("cannot sample " + probe.name() + ": " + e.getMessage());
        }
    }
}
