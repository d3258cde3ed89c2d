/*
 * execname for kernel events: each thread's comm as the kernel last reported it (PERF_RECORD_COMM
 * at exec and prctl, a BPF record's comm field), else read from /proc/PID/task/TID/comm on the
 * first miss. Bounded: cleared when it grows past MAX entries. Concurrent; probe context reads
 * it without a lock (a miss allocates).
 */
package org.jdtrace.perf.internal;

import org.jdtrace.proc.Procfs;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

final class Comms {

    private static final int MAX = 1 << 16;
    private final Map<Integer, String> byTid = new ConcurrentHashMap<>();

    private final Map<Integer, Integer> tgids = new ConcurrentHashMap<>();

    /** The process of thread {@code tid} (Tgid in /proc/TID/status, cached), or tid itself when gone. */
    int tgid(int tid) {
        if (tid == 0) return 0;
        Integer g = tgids.get(tid);
        if (g != null) return g;
        int t = tid;
        try {
            long group = Procfs.status(tid).tgid();
            if (group > 0) t = (int) group;
        } catch (Exception e) {
            // gone: a thread's own id is its best guess
        }
        if (tgids.size() > MAX) tgids.clear();
        tgids.put(tid, t);
        return t;
    }

    void put(int tid, String comm) {
        if (byTid.size() > MAX) byTid.clear();
        byTid.put(tid, comm);
    }

    /** Thread {@code tid}'s comm if cached or still in /proc, else {@code dflt}. */
    String known(int tid, String dflt) {
        String c = byTid.get(tid);
        if (c != null) return c;
        try {
            c = Procfs.comm(tid);
        } catch (Exception e) {
            return dflt;
        }
        put(tid, c);
        return c;
    }

    String get(int pid, int tid) {
        String c = byTid.get(tid);
        if (c != null) return c;
        try {
            c = Procfs.comm(pid, tid);
        } catch (Exception e) {
            c = pid == 0 ? "sched" : "<unknown>";
        }
        put(tid, c);
        return c;
    }
}
