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
 * The links run a trampoline that tail-calls the real program through a one-slot prog array
 * (SyscallProgram.trampoline): UprobeClauses rebuilds that program when the kernel clauses of the
 * cookies change (UserProbes.clauses, at commit) and load() swaps it in with one map update, no
 * hit seen twice or missed. The filter map's value per cookie is {pid filter, clause group}, both
 * kept here (pids, groups) and written together.
 *
 * Records are parsed on the drain thread into one UserHit (a flyweight) and handed to the
 * handler; a record too short for the copy it says it holds (never) is skipped. Each cookie's
 * filter value (UprobeProgram: pid + 1, signal, clause group and strings, the page count of its
 * stack copy) is kept here as well and written whole under filterLock, so that filter(),
 * signal(), clauses() and stack() each change their part. A full ring: the program counts each
 * record it could not write in a per-CPU map; lost() reads it and reports what is new to the
 * handler as drops (called by the ring's own PERF_RECORD_LOST, which comes only with a later
 * record, by the pid provider's sync before END, and on close), so losses at the very end are
 * reported too.
 *
 * Locking: attach/filter/close from any thread (links and maps are the kernel's, their
 * descriptors tracked in a concurrent set); the drain thread alone reads records. close() marks
 * the capture closed under filterLock, so a filter(), signal(), stack() or clauses() racing with
 * it (a user that fetched the capture before its bundle stopped) writes nothing and never fails.
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
    private final UserHit hit;
    private final BpfObject filters, buf, events, progs, trampoline, lostMap;
    /** Per possible CPU: the lost map's count already reported to the handler (guarded by lostLock). */
    private final long[] reported;
    /** The program the trampoline tail-calls now (load() replaces it). */
    private BpfObject program;
    private final EventSet output;
    private final Set<AutoCloseable> links = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Per cookie: the pid filter (0 every process, else pid + 1) and the clause group (0 none); under filterLock. */
    private final int[] pids = new int[COOKIES], groups = new int[COOKIES];
    /** Per cookie: the signal each hit sends (0 none); under filterLock. */
    private final int[] signals = new int[COOKIES];
    /** Per cookie: the pages of user stack each hit copies (0: the small copy); under filterLock. */
    private final int[] pages = new int[COOKIES];
    /** Per cookie: the words of the registers whose user strings its clauses read (null: none); under filterLock. */
    private final int[][] strings = new int[COOKIES][];
    private final Object filterLock = new Object();
    private final UprobeClauses clauses;

    UprobeCapture(PerfEventsImpl perf, int words, int spWord, int stackBytes, UserProbeHandler handler) {
        this.perf = perf;
        this.handler = handler;
        this.words = words;
        this.spWord = spWord;
        this.stackBytes = stackBytes;
        this.hit = new UserHit(words);
        BpfObject f = null, b = null, ev = null, pa = null, prog = null, tr = null, l = null;
        EventSet out = null;
        try {
            f = perf.map(PerfSys.MAP_ARRAY, 4, UprobeProgram.FILTER_VALUE, COOKIES, "jdtrace_upflt");
            b = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, UprobeProgram.bufferSize(words, stackBytes), 1, "jdtrace_upbuf");
            ev = perf.map(PerfSys.MAP_PERF_EVENT_ARRAY, 4, 4, perf.cpus(), "jdtrace_upout");
            pa = perf.map(PerfSys.MAP_PROG_ARRAY, 4, 4, 1, "jdtrace_upprogs");
            l = perf.map(PerfSys.MAP_PERCPU_ARRAY, 4, 8, 1, "jdtrace_uplost");
            prog = perf.uprobeProgram(UprobeProgram.build(words, spWord, stackBytes, f.fd(), b.fd(), ev.fd(), l.fd()), "jdtrace_uprobe");
            pa.update(0, prog.fd());
            tr = perf.uprobeProgram(SyscallProgram.trampoline(pa.fd(), 0), "jdtrace_uprobe");
            out = perf.open(new EventSpec(EventSpec.TYPE_SOFTWARE, PerfSys.SW_BPF_OUTPUT, 1, false,
                    EventSpec.SAMPLE_TIME | EventSpec.SAMPLE_CPU | EventSpec.SAMPLE_RAW, 0, 0, RING_PAGES, -1, false), this);
            int[] fds = out.fds();
            for (int cpu = 0; cpu < fds.length; cpu++) ev.update(cpu, fds[cpu]);
        } catch (RuntimeException e) {
            for (AutoCloseable c : new AutoCloseable[] {out, tr, prog, pa, l, ev, b, f}) quietly(c);
            throw e;
        }
        this.lostMap = l;
        this.reported = new long[ClauseMap.possibleCpus()];
        this.filters = f;
        this.buf = b;
        this.events = ev;
        this.progs = pa;
        this.program = prog;
        this.trampoline = tr;
        this.output = out;
        this.clauses = new UprobeClauses(perf, new UprobeClauses.Target() {
            @Override
            public void load(UprobeProgram.Clauses c) {
                swap(c);
            }

            @Override
            public void groups(java.util.Map<Integer, Integer> groupOf) {
                synchronized (filterLock) {
                    for (int cookie = 0; cookie < COOKIES; cookie++) {
                        int g = groupOf.getOrDefault(cookie, 0);
                        if (groups[cookie] != g) {
                            groups[cookie] = g;
                            writeFilter(cookie);
                        }
                    }
                }
            }
        });
    }

    /** The program with these clauses (null: none) built, loaded and swapped in; the old one closed. */
    private void swap(UprobeProgram.Clauses c) {
        BpfObject p = perf.uprobeProgram(UprobeProgram.build(words, spWord, stackBytes, filters.fd(), buf.fd(), events.fd(), lostMap.fd(), c),
                "jdtrace_uprobe");
        BpfObject old;
        synchronized (filterLock) {
            if (closed) {
                p.close();
                return;
            }
            try {
                progs.update(0, p.fd());
            } catch (RuntimeException e) {
                p.close();
                throw e;
            }
            old = program;
            program = p;
        }
        quietly(old);
    }

    private void writeFilter(int cookie) {
        assert Thread.holdsLock(filterLock);
        if (closed) return; // closed under its user (the bundle stops): the hits are gone with the links
        filters.update(cookie, (pids[cookie] & 0xffffffffL) | (long) signals[cookie] << 32,
                UprobeProgram.high(groups[cookie], strings[cookie] == null ? new int[0] : strings[cookie])
                        | (long) pages[cookie] << 32);
    }

    @Override
    public AutoCloseable attach(String path, long[] offsets, long[] refCtrOffsets, long cookie, int pid, boolean onReturn) {
        if (closed) throw new PerfException("the uprobes are closed", 0);
        if (cookie < 0 || cookie >= COOKIES) throw new IllegalArgumentException("cookie " + cookie);
        if (offsets.length == 0) throw new IllegalArgumentException("no offset");
        long[] cookies = new long[offsets.length];
        java.util.Arrays.fill(cookies, cookie);
        AutoCloseable link = perf.uprobeLink(trampoline, path, offsets, refCtrOffsets, cookies, pid, onReturn);
        links.add(link);
        return () -> {
            links.remove(link);
            link.close();
        };
    }

    @Override
    public void filter(long cookie, int pid) {
        synchronized (filterLock) {
            pids[(int) cookie] = pid == 0 ? 0 : pid + 1;
            writeFilter((int) cookie);
        }
    }

    @Override
    public void stack(long cookie, int bytes) {
        if (cookie < 0 || cookie >= COOKIES) throw new IllegalArgumentException("cookie " + cookie);
        int max = UprobeProgram.maxPages(words);
        // pages from the sp's page up that hold at least `bytes` above the sp wherever it is in its page
        long n = bytes <= 0 ? 0 : Math.min(max, (bytes + 2L * UprobeProgram.PAGE - 1) / UprobeProgram.PAGE);
        synchronized (filterLock) {
            pages[(int) cookie] = (int) n;
            writeFilter((int) cookie);
        }
    }

    @Override
    public int maxStackBytes() {
        return (UprobeProgram.maxPages(words) - 1) * UprobeProgram.PAGE;
    }

    @Override
    public void signal(long cookie, int signal) {
        synchronized (filterLock) {
            signals[(int) cookie] = signal;
            writeFilter((int) cookie);
        }
    }

    @Override
    public void clauses(long cookie, org.jdtrace.spi.Probe probe, int[] argWords, String function) {
        if (cookie < 0 || cookie >= COOKIES) throw new IllegalArgumentException("cookie " + cookie);
        if (probe == null) {
            synchronized (filterLock) { // the cookie's hits are sent from now on, whatever its old group ran
                groups[(int) cookie] = 0;
                strings[(int) cookie] = null;
                writeFilter((int) cookie);
            }
        }
        clauses.register((int) cookie, probe, argWords, function);
        if (probe != null) {
            // copyinstr(argN) of its clauses: argument N's register read as a string at the hit
            int[] w = probe.userStrings().stream().filter(n -> n >= 0 && n < argWords.length)
                    .mapToInt(n -> argWords[n]).filter(p -> p >= 0 && (p >> 8 & 0xff) == 8)
                    .map(p -> p & 0xff).distinct().limit(UprobeProgram.STRINGS).toArray();
            synchronized (filterLock) {
                strings[(int) cookie] = w.length == 0 ? null : w;
                writeFilter((int) cookie);
            }
        }
    }

    @Override
    public void commit() {
        if (!closed) clauses.commit();
    }

    @Override
    public void sync() {
        clauses.sync();
    }

    /**
     * The records the program could not write so far (its lost map, all CPUs); what the handler
     * has not been told yet is reported to it now, per CPU.
     */
    @Override
    public long lost() {
        long[] fresh = new long[reported.length];
        long sum = 0;
        synchronized (lostLock) {
            if (closedLost) return total;
            byte[] values = new byte[8 * reported.length];
            if (!lostMap.lookup(new byte[4], values)) return total;
            java.nio.ByteBuffer v = java.nio.ByteBuffer.wrap(values).order(java.nio.ByteOrder.nativeOrder());
            for (int cpu = 0; cpu < reported.length; cpu++) {
                long n = v.getLong(8 * cpu);
                sum += n;
                if (n > reported[cpu]) {
                    fresh[cpu] = n - reported[cpu];
                    reported[cpu] = n;
                }
            }
            total = sum;
        }
        // told outside the lock: the handler may take its registry's (filter() may be called under it)
        for (int cpu = 0; cpu < fresh.length; cpu++) if (fresh[cpu] > 0) handler.lost(cpu, fresh[cpu]);
        return sum;
    }

    private final Object lostLock = new Object();
    /** Guarded by lostLock. */
    private long total;
    private boolean closedLost;

    @Override
    public void close() {
        synchronized (filterLock) { // no filter or program written from now on (writeFilter, swap)
            if (closed) return;
            closed = true;
        }
        for (AutoCloseable l : links) quietly(l);
        links.clear();
        clauses.close(); // the taken maps' last values folded into the consumer's aggregations
        // the links first (no new records), then the rings (read on close), the losses, the rest
        quietly(output);
        lost();
        synchronized (lostLock) {
            closedLost = true;
        }
        for (AutoCloseable c : new AutoCloseable[] {trampoline, program, progs, events, buf, lostMap, filters}) quietly(c);
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
        if (r.byteSize() < UprobeProgram.stringsOffset(words)) return;
        long stringsLen = r.get(ValueLayout.JAVA_INT_UNALIGNED, UprobeProgram.STRINGS_LEN) & 0xffffffffL;
        if (stringsLen != 0 && stringsLen != UprobeProgram.STRINGS_BYTES) return;
        long stackOff = UprobeProgram.stringsOffset(words) + stringsLen;
        if (r.byteSize() < stackOff) return;
        long len = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.STACK_LEN);
        if (len < 0 || len > r.byteSize() - stackOff) return;
        long pidTgid = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.PID_TGID);
        hit.pid = (int) (pidTgid >>> 32);
        hit.tid = (int) pidTgid;
        hit.cookie = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.COOKIE);
        hit.signal = r.get(ValueLayout.JAVA_INT_UNALIGNED, UprobeProgram.SIGNAL_SENT);
        hit.cpu = s.cpu;
        hit.time = s.time;
        MemorySegment.copy(r, ValueLayout.JAVA_BYTE, UprobeProgram.COMM, hit.commBytes(), 0, 16);
        for (int i = 0; i < words; i++) hit.regs[i] = r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.REGS + 8L * i);
        hit.stack = len == 0 ? MemorySegment.NULL : r.asSlice(stackOff, len);
        hit.stackAddr = len == 0 ? 0 : r.get(ValueLayout.JAVA_LONG_UNALIGNED, UprobeProgram.STACK_ADDR);
        hit.strings = stringsLen == 0 ? MemorySegment.NULL
                : r.asSlice(UprobeProgram.stringsOffset(words), UprobeProgram.STRINGS_BYTES);
        handler.hit(hit);
    }

    /** The ring's own lost record (the kernel writes it with the next record): the lost map counted them already. */
    @Override
    public void lost(int cpu, long count) {
        lost();
    }
}
