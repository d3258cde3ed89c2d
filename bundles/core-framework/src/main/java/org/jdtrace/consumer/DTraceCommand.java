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
     * {@code interrupt} is awaited by the run's watcher thread (with no time limit when there is
     * no -c/-p process to watch, else in short slices between looks at the processes); once it
     * says true the run ends as on SIGINT.
     */
    int run(List<String> argv, InputStream in, PrintStream out, PrintStream err, Interrupt interrupt);

    /**
     * The caller's Ctrl-C: a flag that, once raised, stays raised. A caller that is told of its
     * signal (the launcher's SIGINT/SIGTERM handlers) implements {@link #await} by blocking, so
     * that an idle run costs no CPU; a caller that only has the flag (the shell's) keeps the
     * default, which polls it.
     */
    @FunctionalInterface
    interface Interrupt {

        /** True once the interrupt has been raised. */
        boolean requested();

        /**
         * Waits until the interrupt is raised or {@code millis} milliseconds have passed
         * ({@code 0}: no time limit, as Object.wait(0)), and returns {@link #requested()}. Returns
         * at once when it is already raised. The default polls requested() every 50 ms.
         *
         * @throws InterruptedException when the waiting thread is interrupted
         */
        default boolean await(long millis) throws InterruptedException {
            if (millis < 0) {
                throw new IllegalArgumentException("negative wait: " + millis);
            }
            for (long waited = 0; !requested(); ) {
                if (millis != 0 && waited >= millis) {
                    return false;
                }
                long slice = millis == 0 ? 50 : Math.min(50, millis - waited);
                Thread.sleep(slice);
                waited += slice;
            }
            return true;
        }
    }
}
