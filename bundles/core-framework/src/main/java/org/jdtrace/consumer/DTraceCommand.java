package org.jdtrace.consumer;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * dtrace(1M) as a service: the launcher's {@code bin/dtrace} and the shell's {@code dtrace}
 * command both run it, so they accept the same options and print the same bytes.
 */
public interface DTraceCommand {

    /**
     * Runs one dtrace(1M) invocation. Returns dtrace's exit status: 0 success, 1 failure, 2 usage.
     * {@code interrupt} is polled; when it says true the run ends as on SIGINT.
     */
    int run(List<String> argv, InputStream in, PrintStream out, PrintStream err, Interrupt interrupt);

    /** The caller's Ctrl-C. */
    @FunctionalInterface
    interface Interrupt {
        boolean requested();
    }
}
