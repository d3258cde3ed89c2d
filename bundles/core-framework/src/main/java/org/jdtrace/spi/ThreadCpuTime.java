/*
 * A thread's time on CPU as the kernel accounts it (the task's se.sum_exec_runtime, in ns): D's
 * vtimestamp, for the providers' ProbeContext.vtimestamp. The calling Java thread's is
 * ThreadMXBean's getCurrentThreadCpuTime, clock_gettime(CLOCK_THREAD_CPUTIME_ID) on Linux, which
 * includes the slice it is running, allocation-free (the bean is the JVM's one, looked up once).
 * Another process's thread's is the first field of /proc/PID/task/TID/schedstat (the one reader
 * of that file): exact for a thread that is not running (a stopped or sleeping one: the kernel
 * accounted it when it left the CPU), else as of the scheduler's last accounting; it allocates.
 *
 * @since 1.9
 */
package org.jdtrace.spi;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public final class ThreadCpuTime {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpuTime() {}

    /** The calling Java thread's time on CPU. */
    public static long callingThread() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** Thread {@code tid} of process {@code pid}'s time on CPU, 0 when it is gone (or not ours to read). */
    public static long of(long pid, long tid) {
        if (pid <= 0 || tid <= 0) return 0;
        try {
            String s = org.jdtrace.proc.Procfs.read(org.jdtrace.proc.Procfs.taskFile(pid, tid, "schedstat"));
            int sp = s.indexOf(' ');
            return Long.parseLong(sp < 0 ? s.strip() : s.substring(0, sp));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
