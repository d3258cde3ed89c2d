package org.jdtrace.perf;

/**
 * The kernel refused a perf event or BPF request. The message is the call and the kernel's reason
 * in strerror's words ({@code perf_event_open failed: Permission denied}); {@link #errno()} is the
 * errno, or 0 when the refusal is ours (a tracepoint the kernel does not have).
 */
public class PerfException extends RuntimeException {

    private final int errno;

    public PerfException(String message, int errno) {
        super(message, null, false, false);
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }
}
