/*
 * The records that tell a process's life and its executable mappings as they happen (perf's
 * side-band: PERF_RECORD_FORK, EXEC as a COMM record with PERF_RECORD_MISC_COMM_EXEC,
 * PERF_RECORD_MMAP2 of each executable mapping, EXIT), for a RecordHandler whose events ask for
 * them (UserSymbols' dummy event on every CPU). Ring calls these on the drain thread, for a
 * handler that implements this, among the set's other records; the times are the records' own
 * (sample_id_all with PERF_SAMPLE_TIME, on CLOCK_MONOTONIC as every sample of this bundle).
 * Internal: the exported RecordHandler stays as it is.
 */
package org.jdtrace.perf.internal;

import org.jdtrace.perf.RecordHandler;

interface Sideband extends RecordHandler {

    /** Process {@code pid} forked from {@code ppid} (a new process, not a thread). */
    void fork(int pid, int ppid, long time);

    /** Process {@code pid} exec'd: its old image is gone, its new mappings follow. */
    void exec(int pid, long time);

    /** An executable mapping of {@code pid}: {@code file} as the kernel names it ({@code //anon}, {@code [vdso]}...). */
    void mmap(int pid, long start, long len, long pgoff, String dev, long inode, String file, long time);

    /** Process {@code pid} exited (its main thread's exit record). */
    void exit(int pid, long time);
}
