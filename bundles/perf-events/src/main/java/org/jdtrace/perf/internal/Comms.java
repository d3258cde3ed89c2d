/*
 * execname for kernel events: each thread's comm as the kernel last reported it (PERF_RECORD_COMM
 * at exec and prctl, a BPF record's comm field), else read from /proc/PID/task/TID/comm on the
 * first miss. Bounded: cleared when it grows past MAX entries. Concurrent; probe context reads
 * it without a lock (a miss allocates).
 */
package org.jdtrace.perf.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

final class Comms {

    private static final int MAX = 1 << 16;
    private final Map<Integer, String> byTid = new ConcurrentHashMap<>();

    void put(int tid, String comm) {
        if (byTid.size() > MAX) byTid.clear();
        byTid.put(tid, comm);
    }

    String get(int pid, int tid) {
        String c = byTid.get(tid);
        if (c != null) return c;
        try {
            c = Files.readString(Path.of("/proc/" + pid + "/task/" + tid + "/comm")).strip();
        } catch (Exception e) {
            c = pid == 0 ? "sched" : "<unknown>";
        }
        put(tid, c);
        return c;
    }
}
