package org.jdtrace.proc;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;

/** A process under control for a consumer's -c or -p. */
public interface TargetProcess extends AutoCloseable {

    int pid();

    /** True for -c (created), false for -p (grabbed). */
    boolean created();

    /** Lets the held process run. */
    void go();

    /** Waits for the process to exit: its wait status, or -1 on timeout. */
    int awaitExit(long timeout, TimeUnit unit) throws InterruptedException;

    /** True once the process is gone. */
    boolean exited();

    /**
     * The wait status once exited ({@code status >> 8 & 0xff} the exit code when
     * {@code (status & 0x7f) == 0}, else {@code status & 0x7f} the signal), else -1.
     */
    int exitStatus();

    /** The write end of the process's stdin pipe, or null when inherited. */
    OutputStream stdin();

    /** The read end of the process's stdout pipe, or null when inherited. */
    InputStream stdout();

    /** The read end of the process's stderr pipe, or null when inherited. */
    InputStream stderr();

    /** Removes every tracepoint and detaches: the process runs on as if never traced. */
    void release();

    /** Kills the process (SIGKILL) and waits for it. */
    void kill();

    /** dtrace's end of run: a created process is killed, a grabbed one released. */
    @Override
    void close();
}
