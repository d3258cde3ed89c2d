/*
 * One perf event's mmap'd ring (perf_event_mmap_page + 2^n data pages) and the reader of its
 * records. The kernel writes at data_head; we read from data_tail to data_head (head read with
 * acquire semantics) and then publish the new tail with release semantics, as perf_event.h's
 * comment on data_head prescribes. A record that wraps the end of the data area is copied into a
 * scratch segment first. A drain is begin(), then next() while pending() (nextTime() tells the
 * pending record's time, for the service's merge of several rings), then end(); the kernel sees
 * the space free only at end().
 *
 * Threading: drain() runs on the service's drain thread only; unmap() is called by EventSetImpl
 * under the same lock as drain(), so a ring is never read after it is unmapped.
 */
package org.jdtrace.perf.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

import org.jdtrace.perf.RecordHandler;
import org.jdtrace.perf.Sample;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

final class Ring {

    static final long PAGE = 4096;
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    private static final long HEAD = 1024, TAIL = 1032;
    /** PERF_CONTEXT_* markers: any chain entry at or above -4095 (unsigned). */
    private static final long CONTEXT_KERNEL = -128, CONTEXT_USER = -512, CONTEXT_MAX = -4095;

    final int cpu;
    final int fd;
    private final MemorySegment map;
    private final MemorySegment data;
    private final long mask;
    private final MemorySegment scratch = Arena.ofAuto().allocate(65536, 8);
    long lost;

    Ring(int cpu, int fd, MemorySegment map) {
        this.cpu = cpu;
        this.fd = fd;
        this.map = map;
        this.data = map.asSlice(PAGE);
        this.mask = data.byteSize() - 1;
    }

    MemorySegment mapping() {
        return map;
    }

    /** Reads every record written since the last call. Returns the number of records read. */
    int drain(long sampleType, int nregs, Sample s, RecordHandler h) {
        begin();
        int n = 0;
        try {
            while (pending()) {
                next(sampleType, nregs, s, h);
                n++;
            }
        } finally {
            end();
        }
        return n;
    }

    // ---- one drain, record by record (for merging several rings by time)

    private long head, tail;

    /** Starts a drain: the records written up to now are pending (head read with acquire). */
    void begin() {
        head = (long) LONG_VH.getAcquire(map, HEAD);
        tail = map.get(JAVA_LONG, TAIL);
        if (tail < head && Short.toUnsignedInt(data.get(JAVA_SHORT, (tail & mask) + 6)) < 8) tail = head; // corrupt: skip
    }

    boolean pending() {
        return tail < head;
    }

    /** Outside a drain (the set's lock held): has the kernel written past what was read? Two loads, no system call. */
    boolean unread() {
        return map.get(JAVA_LONG, TAIL) < (long) LONG_VH.getAcquire(map, HEAD);
    }

    /**
     * The pending record's time: a sample's PERF_SAMPLE_TIME (0 if the event has none); any other
     * record (comm, lost) Long.MIN_VALUE, so that it is read before the samples that follow it,
     * unless the event ({@code flags}) stamps every record (sample_id_all with PERF_SAMPLE_TIME):
     * then its sample_id's time.
     */
    long nextTime(long sampleType, long flags) {
        long off = tail & mask;
        if (data.get(JAVA_INT, off) != PerfSys.RECORD_SAMPLE) {
            if ((flags & PerfSys.F_SAMPLE_ID_ALL) == 0 || (sampleType & PerfSys.SAMPLE_TIME) == 0) return Long.MIN_VALUE;
            // sample_id: {pid, tid}, time, {id}, {stream_id}, {cpu, res}, {identifier}, at the record's end
            int size = Short.toUnsignedInt(data.get(JAVA_SHORT, (off + 6) & mask));
            long after = 8L * Long.bitCount(sampleType & (SAMPLE_ID | SAMPLE_STREAM_ID | PerfSys.SAMPLE_CPU | SAMPLE_IDENTIFIER));
            return bytesAt(off + size - after - 8);
        }
        if ((sampleType & PerfSys.SAMPLE_TIME) == 0) return 0;
        long at = 8 + ((sampleType & PerfSys.SAMPLE_IP) != 0 ? 8 : 0) + ((sampleType & PerfSys.SAMPLE_TID) != 0 ? 8 : 0);
        return bytesAt(off + at);
    }

    private static final long SAMPLE_ID = 64, SAMPLE_STREAM_ID = 512, SAMPLE_IDENTIFIER = 65536;

    /** The 8 bytes at data offset {@code at}: the record may wrap the end of the data area, they too. */
    private long bytesAt(long at) {
        long t = 0;
        for (int i = 7; i >= 0; i--) t = t << 8 | Byte.toUnsignedLong(data.get(ValueLayout.JAVA_BYTE, (at + i) & mask));
        return t;
    }

    /** Hands the pending record to {@code h} and moves past it. */
    void next(long sampleType, int nregs, Sample s, RecordHandler h) {
        long off = tail & mask;
        int size = Short.toUnsignedInt(data.get(JAVA_SHORT, off + 6));
        if (size < 8) { // never: a corrupt ring; stop rather than loop
            tail = head;
            return;
        }
        MemorySegment rec;
        long base;
        if (off + size <= data.byteSize()) {
            rec = data;
            base = off;
        } else {
            long first = data.byteSize() - off;
            MemorySegment.copy(data, off, scratch, 0, first);
            MemorySegment.copy(data, 0, scratch, first, size - first);
            rec = scratch;
            base = 0;
        }
        tail += size;
        record(rec, base, size, sampleType, nregs, s, h);
    }

    /** Ends the drain: the kernel may reuse what was read (tail published with release). */
    void end() {
        LONG_VH.setRelease(map, TAIL, tail);
    }

    /** %02x without a Formatter (every mmap record of every process names its device so). */
    static String hex2(int v) {
        String h = Integer.toHexString(v);
        return h.length() < 2 ? "0" + h : h;
    }

    /**
     * One record to its handler. The sample's path is a method of its own without loops (its
     * loops are small methods too): it is compiled once, where the one method with every case
     * and loop was compiled three times over (two on-stack replacements, 85 KB of code each,
     * 0.24 s of the C1 thread in a profile's first seconds: -XX:+LogCompilation).
     */
    private void record(MemorySegment r, long p, int size, long sampleType, int nregs, Sample s, RecordHandler h) {
        int type = r.get(JAVA_INT, p);
        int misc = Short.toUnsignedInt(r.get(JAVA_SHORT, p + 4));
        if (type == PerfSys.RECORD_SAMPLE) {
            sample(r, p, size, misc, sampleType, nregs, s, h);
        } else {
            other(type, misc, r, p, size, h);
        }
    }

    private void sample(MemorySegment r, long p, int size, int misc, long sampleType, int nregs, Sample s, RecordHandler h) {
        long q = p + 8;
        s.cpu = cpu;
        s.user = (misc & 7) == 2;
        s.kernelDepth = 0;
        s.userDepth = 0;
        s.userRegsCount = 0;
        s.userStackSize = 0;
        s.raw = MemorySegment.NULL;
        s.time = 0;
        if ((sampleType & PerfSys.SAMPLE_IP) != 0) { s.ip = r.get(JAVA_LONG, q); q += 8; }
        if ((sampleType & PerfSys.SAMPLE_TID) != 0) {
            s.pid = r.get(JAVA_INT, q);
            s.tid = r.get(JAVA_INT, q + 4);
            q += 8;
        }
        if ((sampleType & PerfSys.SAMPLE_TIME) != 0) { s.time = r.get(JAVA_LONG, q); q += 8; }
        if ((sampleType & PerfSys.SAMPLE_CPU) != 0) { s.cpu = r.get(JAVA_INT, q); q += 8; }
        if ((sampleType & PerfSys.SAMPLE_PERIOD) != 0) q += 8;
        if ((sampleType & PerfSys.SAMPLE_CALLCHAIN) != 0) q = callchain(r, q, s);
        if ((sampleType & PerfSys.SAMPLE_RAW) != 0) {
            int len = r.get(JAVA_INT, q);
            s.raw = r.asSlice(q + 4, len);
            q += 4 + len;
            q = (q + 7) & ~7L; // raw data is padded to 8 bytes with its size word
        }
        if ((sampleType & PerfSys.SAMPLE_REGS_USER) != 0) {
            long abi = r.get(JAVA_LONG, q);
            q += 8;
            if (abi != 0) {
                int n = Math.min(s.userRegs.length, nregs);
                MemorySegment.copy(r, JAVA_LONG, q, s.userRegs, 0, n);
                s.userRegsCount = n;
                q += 8L * nregs;
            }
        }
        if ((sampleType & PerfSys.SAMPLE_STACK_USER) != 0) {
            // u64 size; char data[size]; u64 dyn_size (the bytes the kernel could copy)
            long sz = r.get(JAVA_LONG, q);
            q += 8;
            if (sz > 0 && sz < 65536 && q + sz + 8 <= p + size) {
                long dyn = r.get(JAVA_LONG, q + sz);
                s.userStack = r; // read in place (Sample.userStack)
                s.userStackOffset = q;
                s.userStackSize = (int) Math.max(0, Math.min(dyn, sz));
                q += sz + 8;
            }
        }
        h.sample(s);
    }

    /** The call chain at {@code q} (u64 nr, then nr pcs and PERF_CONTEXT_* markers) into the sample's kernel and user chains; the offset past it. */
    private static long callchain(MemorySegment r, long q, Sample s) {
        long nr = r.get(JAVA_LONG, q);
        q += 8;
        boolean inUser = false;
        for (long i = 0; i < nr; i++, q += 8) {
            long pc = r.get(JAVA_LONG, q);
            if (Long.compareUnsigned(pc, CONTEXT_MAX) >= 0) {
                if (pc == CONTEXT_USER) inUser = true;
                else if (pc == CONTEXT_KERNEL) inUser = false;
                continue;
            }
            if (inUser) {
                if (s.userDepth < s.userChain.length) s.userChain[s.userDepth++] = pc;
            } else if (s.kernelDepth < s.kernelChain.length) {
                s.kernelChain[s.kernelDepth++] = pc;
            }
        }
        return q;
    }

    /** Every record but a sample: comm, mmap2, fork and exit (the side-band's), lost. */
    private void other(int type, int misc, MemorySegment r, long p, int size, RecordHandler h) {
        long q = p + 8;
        switch (type) {
            case PerfSys.RECORD_COMM -> {
                int pid = r.get(JAVA_INT, q), tid = r.get(JAVA_INT, q + 4);
                int len = 0;
                while (len < 16 && q + 8 + len < p + size && r.get(ValueLayout.JAVA_BYTE, q + 8 + len) != 0) len++;
                byte[] b = new byte[len];
                MemorySegment.copy(r, ValueLayout.JAVA_BYTE, q + 8, b, 0, len);
                h.comm(pid, tid, new String(b, StandardCharsets.UTF_8));
                // sample_id_all's trailer ends with the time (Sideband's events ask for TID and TIME)
                if ((misc & PerfSys.MISC_COMM_EXEC) != 0 && h instanceof Sideband sb) sb.exec(pid, r.get(JAVA_LONG, p + size - 8));
            }
            case PerfSys.RECORD_MMAP2 -> {
                if (!(h instanceof Sideband sb)) break;
                // pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags, filename
                int pid = r.get(JAVA_INT, q);
                long addr = r.get(JAVA_LONG, q + 8), len = r.get(JAVA_LONG, q + 16), pgoff = r.get(JAVA_LONG, q + 24);
                int maj = r.get(JAVA_INT, q + 32), min = r.get(JAVA_INT, q + 36);
                long ino = r.get(JAVA_LONG, q + 40);
                long name = q + 64, end = p + size - 16;
                int n = 0;
                while (name + n < end && r.get(ValueLayout.JAVA_BYTE, name + n) != 0) n++;
                byte[] b = new byte[n];
                MemorySegment.copy(r, ValueLayout.JAVA_BYTE, name, b, 0, n);
                sb.mmap(pid, addr, len, pgoff, hex2(maj) + ":" + hex2(min), ino,
                        new String(b, StandardCharsets.UTF_8), r.get(JAVA_LONG, p + size - 8));
            }
            case PerfSys.RECORD_FORK, PerfSys.RECORD_EXIT -> {
                if (!(h instanceof Sideband sb)) break;
                // pid, ppid, tid, ptid, time
                int pid = r.get(JAVA_INT, q), ppid = r.get(JAVA_INT, q + 4), tid = r.get(JAVA_INT, q + 8);
                long time = r.get(JAVA_LONG, q + 16);
                if (type == PerfSys.RECORD_FORK) {
                    if (pid != ppid) sb.fork(pid, ppid, time);
                } else if (pid == tid) {
                    sb.exit(pid, time);
                }
            }
            case PerfSys.RECORD_LOST -> {
                long count = r.get(JAVA_LONG, q + 8);
                lost += count;
                h.lost(cpu, count);
            }
            default -> { }
        }
    }
}
