/*
 * The kernel stacks a provider's BPF programs take at their events: one BPF_MAP_TYPE_STACK_TRACE
 * map, filled by bpf_get_stackid (the kernel's own unwinder, ORC or frame pointers as the kernel
 * was built, so exact), which gives each distinct stack an id. A program puts the id in a record
 * (stack() in the JVM, SyscallContext) or in an aggregation's key (a stack() key kept in the
 * kernel, ClauseProgram), and this reads the frames back by id, innermost first.
 *
 * Invariants: programs call bpf_get_stackid without BPF_F_REUSE_STACKID, so an id, once given,
 * names the same stack for the map's life (the kernel never replaces a bucket then): frames are
 * cached by id. A stack whose bucket another stack holds, or that finds the map full, gets no id
 * (-EEXIST, -ENOMEM): the programs count it as an aggregation drop (kernel keys) or send -1
 * (stack() in the JVM is then empty). DEPTH is the kernel's limit (perf_event_max_stack's
 * default); a clause's shorter stack(n) takes the first n frames of the stored one.
 *
 * Frames are named as libdtrace's stack() names the pcs ProbeContext.stack gives: kallsyms'
 * module`function+0xoff through PerfEvents.ksym, else the address in hex.
 *
 * Locking: read from the drain thread (records) and the consumer's thread (folds): the cache is a
 * concurrent map; close() once, by the provider, after its programs are gone.
 */
package org.jdtrace.perf.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.perf.BpfObject;
import org.jdtrace.perf.PerfEvents;

final class KernelStacks implements AutoCloseable {

    /** Frames a stored stack holds (the kernel's default perf_event_max_stack). */
    static final int DEPTH = 127;
    /** Distinct stacks the map holds (a few per call site; collisions beyond are drops). */
    static final int ENTRIES = 4096;
    /** bpf_get_stackid's helper id (enum bpf_func_id). */
    static final int GET_STACKID = 27;

    final BpfObject map;
    private final PerfEvents perf;
    private final Map<Integer, long[]> pcs = new ConcurrentHashMap<>();

    KernelStacks(PerfEvents perf) {
        this.perf = perf;
        this.map = perf.map(PerfSys.MAP_STACK_TRACE, 4, 8 * DEPTH, ENTRIES, "jdtrace_kstacks");
    }

    /** The pcs of stack {@code id}, innermost first, at most {@code max}; empty for no id (negative). */
    long[] pcs(long id, int max) {
        if (id < 0 || id >= Integer.MAX_VALUE) return new long[0];
        long[] all = pcs.computeIfAbsent((int) id, this::read);
        return all.length <= max ? all : Arrays.copyOf(all, Math.max(0, max));
    }

    /** Stack {@code id}'s frames, at most {@code max}, as stack() names them. */
    String[] frames(long id, int max) {
        long[] p = pcs(id, max);
        String[] out = new String[p.length];
        for (int i = 0; i < p.length; i++) {
            String s = perf.ksym(p[i]);
            out[i] = s == null ? "0x" + Long.toHexString(p[i]) : s;
        }
        return out;
    }

    private long[] read(int id) {
        byte[] v = new byte[8 * DEPTH];
        if (!map.lookup(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(id).array(), v)) return new long[0];
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        int n = 0;
        while (n < DEPTH && b.getLong(8 * n) != 0) n++;
        long[] out = new long[n];
        for (int i = 0; i < n; i++) out[i] = b.getLong(8 * i);
        return out;
    }

    @Override
    public void close() {
        map.close();
    }
}
