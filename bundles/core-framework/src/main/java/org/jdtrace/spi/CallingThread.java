/*
 * The calling Java thread's time on CPU, for the default ProbeContext.vtimestamp() (a probe that
 * fires in the thread running its clauses). ThreadMXBean's getCurrentThreadCpuTime is
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID) on Linux: the task's sum_exec_runtime including the
 * slice it is running, allocation-free. The bean is the JVM's one, looked up once.
 */
package org.jdtrace.spi;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

final class CallingThread {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private CallingThread() {}

    static long cpuTime() {
        return THREADS.getCurrentThreadCpuTime();
    }
}
