/*
 * UserProbes: kernel uprobes whose hits UprobeProgram captures, for the pid and USDT providers
 * (illumos' fasttrap probes, serviced in the kernel as there: the traced process is never
 * stopped, no ptrace is held, any number of consumers share an address).
 *
 * One capture is one program, its maps (the per-cookie pid filter, the per-CPU record buffer,
 * the perf-event array) and one BPF-output event set whose rings the service drains; each
 * attach() is one uprobe_multi link (BPF_LINK_CREATE) on one file, for one process or all. The
 * kernel owns the probes through the link's descriptor: close() detaches them, and a killed JVM
 * leaves nothing (the descriptors die with it, the kernel removes the probes and puts the
 * instructions back; a USDT semaphore given as ref_ctr_offset is counted down by the kernel).
 *
 * Records are parsed on the drain thread into one UserHit (a flyweight) and handed to the
 * handler; a record too short for the copy it says it holds (never) is skipped. Each cookie's
 * filter value (UprobeProgram: pid + 1 and the page count of its stack copy) is kept here as
 * well, so that filter() and stack() each change their half (under the capture's lock). A full ring is the kernel's PERF_RECORD_LOST:
 * counted (lost()) and reported to the handler as drops.
 *
 * Locking: attach/filter/close from any thread (links and maps are the kernel's, their
 * descriptors tracked in a concurrent set); the drain thread alone reads records.
 */
package org.jdtrace.perf.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.EventSet;
import org.jdtrace.perf.EventSpec;
import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.RecordHandler;
import org.jdtrace.perf.Sample;
import org.jdtrace.perf.UserHit;
import org.jdtrace.perf.UserProbeHandler;
import org.jdtrace.perf.UserProbes;

final class UprobeCapture implements UserProbes, RecordHandler {

    /** Data pages of each CPU's ring: room for several drain periods of hits at trap speed. */
    private static final int RING_PAGES = 1024;

    private final PerfEventsImpl perf;
    private final UserProbeHandler handler;
    private final int words, spWord, stackBytes;
    /** Each cookie's filter value as last written (guarded by this). */
    private final java.util.Map<Integer, Long> filterValues = new java.util.HashMap<>();
    private final UserHit hit;
    private final BpfObject filters, buf, events, program;
    private final EventSet output;
    private final Set<AutoCloseable> links = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    UprobeCapture(PerfEventsImpl perf, int words, int spWord, int stackBytes, UserProbeHandler handler) {
        this.perf = perf;
        this.handler = handler;
        this.words = words;
        this.spWord = spWord;
        this.stackBytes = stackBytes;
        this.hit = new UserHit(words);
        BpfObject f = null, b = null, ev = null, prog = null;
        EventSet out = null;
        try {
            f = perf.map(PerfSys.MAP_ARRAY, 4, 8, COOKIES, "jdtrace_upflt");
            b = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, UprobeProgram.bufferSize(words, stackBytes), 1, "jdtrace_upbuf");
            ev = perf.map(PerfSys.MAP_PERF_EVENT_ARRAY, 4, 4, perf.cpus(), "jdtrace_upout");
            prog = perf.uprobeProgram(UprobeProgram.build(words, spWord, stackBytes, f.fd(), b.fd(), ev.fd()), "jdtrace_uprobe");
            out = perf.open(new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_BPF_OUTPUT, 1, false,
                    EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU | EventSpec.SAMPLE_RAW, 0, 0, RING_PAGES, -1, false), this);
            int[] fds = out.fds();
            for (int cpu = 0; cpu < fds.length; cpu++) ev.update(cpu, fds[cpu]);
        } catch (RuntimeException e) {
            for (AutoCloseable c : new AutoCloseable[] {out, prog, ev, b, f}) quietly(c);
            throw e;
        }
        this.filters = f;
        this.buf = b;
        this.events = ev;
        this.program = prog;
        this.output = out;
    }

    @Override
    public AutoCloseable attach(String path, long[] offsets, long[] refCtrOffsets, long cookie, int pid, boolean onReturn) {
        if (closed) throw new PerfException("the uprobes are closed", 0);
        if (cookie < 0 || cookie >= COOKIES) throw new IllegalArgumentException("cookie " + cookie);
        if (offsets.length == 0) throw new IllegalArgumentException("no offset");
        long[] cookies = new long[offsets.length];
        java.util.Arrays.fill(cookies, cookie);
        AutoCloseable link = perf.uprobeLink(program, path, offsets, refCtrOffsets, cookies, pid, onReturn);
        links.add(link);
        return () -> {
            links.remove(link);
            link.close();
        };
    }

    @Override
    public synchronized void filter(long cookie, int pid) {
        long v = filterValues.getOrDefault((int) cookie, 0L);
        v = (v & 0xffffffff00000000L) | (pid == 0 ? 0 : pid + 1L);
        filterValues.put((int) cookie, v);
        filters.update((int) cookie, v);
    }

    @Override
    public synchronized void stack(long cookie, int bytes) {
        if (cookie < 0 || cookie >= COOKIES) throw new IllegalArgumentException("cookie " + cookie);
        int max = UprobeProgram.maxPages(words);
        // pages from the sp's page up that hold at least `bytes` above the sp wherever it is in its page
        long pages = bytes <= 0 ? 0 : Math.min(max, (bytes + 2L * UprobeProgram.PAGE - 1) / UprobeProgram.PAGE);
        long v = filterValues.getOrDefault((int) cookie, 0L);
        v = (v & 0xffffffffL) | pages << 32;
        filterValues.put((int) cookie, v);
        filters.update((int) cookie, v);
    }

    @Override
    public int maxStackBytes() {
        return (UprobeProgram.maxPages(words) - 1) * UprobeProgram.PAGE;
    }

    @Override
    public long lost() {
        return output.lost();
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        for (AutoCloseable l : links) quietly(l);
        links.clear();
        // the links first (no new records), then the rings (read on close), then the rest
        for (AutoCloseable c : new AutoCloseable[] {output, program, events, buf, filters}) quietly(c);
    }

    private static void quietly(AutoCloseable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (Exception e) {
            // closing what the kernel may have released already
        }
    }

    @Override
    public void sample(Sample s) {
        MemorySegment r = s.raw;
        long stackOff = UprobeProgram.stackOffset(words);
        if (r.byteSize() < stackOff) return;
        long len = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.STACK_LEN);
        if (len < 0 || len > r.byteSize() - stackOff) return;
        long pidTgid = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.PID_TGID);
        hit.pid = (int) (pidTgid >>> 32);
        hit.tid = (int) pidTgid;
        hit.cookie = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.COOKIE);
        hit.cpu = s.cpu;
        hit.time = s.time;
        MemorySegment.copy(r, ValueLayout.JAVA_BYTE, UprobeProgram.COMM, hit.commBytes(), 0, 16);
        for (int i = 0; i < words; i++) hit.regs[i] = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.REGS + 8L * i);
        hit.stack = len == 0 ? MemorySegment.NULL : r.asSlice(stackOff, len);
        hit.stackAddr = len == 0 ? 0 : r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.STACK_ADDR);
        handler.hit(hit);
    }

    @Override
    public void lost(int cpu, long count) {
        handler.lost(cpu, count);
    }
}
