/*
 * The Gogo commands `dtrace` and `probes` (scope dtrace): dtrace(1M) inside the OSGi shell.
 *
 * `dtrace ...` takes exactly bin/dtrace's options: it runs the same DTraceCommand service with the
 * command's own streams (the Gogo process's in/out/err, so pipes and redirections work), and
 * `probes [desc]` is `dtrace -l [-n desc]`.
 *
 * Ctrl-C: gogo.runtime interrupts the thread running the command. A thread interrupt is no good as
 * dtrace's Ctrl-C (it would also break the consumer's own waits and I/O), so the run happens on a
 * worker thread, and the command thread only waits for it: an interrupt of the command thread
 * raises the Interrupt flag, the run then ends as dtrace ends on SIGINT (END fires, aggregations
 * print, every ECB is disabled), and the command returns when the run is over. The shell itself
 * is never stopped. The run's exit status is left in the session variable dtrace.status.
 */
package org.jdtrace.shell;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Process;
import org.jdtrace.consumer.DTraceCommand;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

@Component(service = DTraceShellCommands.class, property = {
    "osgi.command.scope=dtrace",
    "osgi.command.function=dtrace",
    "osgi.command.function=probes"
})
public final class DTraceShellCommands {

    /** The session variable holding the last run's exit status. */
    public static final String STATUS = "dtrace.status";

    private final DTraceCommand command;

    @Activate
    public DTraceShellCommands(@Reference DTraceCommand command) {
        this.command = command;
    }

    @Descriptor("dtrace(1M): trace with D programs (same options as bin/dtrace)")
    public void dtrace(CommandSession session, @Descriptor("dtrace options and arguments") String... args) {
        run(session, List.of(args));
    }

    @Descriptor("list probes, all of them or those matching a probe description")
    public void probes(CommandSession session, @Descriptor("probe description") String... desc) {
        List<String> argv = new ArrayList<>();
        argv.add("-l");
        for (String d : desc) {
            argv.add("-n");
            argv.add(d);
        }
        run(session, argv);
    }

    private void run(CommandSession session, List<String> argv) {
        Process p = Process.Utils.current();
        InputStream in = p != null ? p.in() : session.getKeyboard();
        PrintStream out = p != null ? p.out() : session.getConsole();
        PrintStream err = p != null ? p.err() : session.getConsole();
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicInteger status = new AtomicInteger(1);
        Thread worker = Thread.ofPlatform().name("dtrace-shell-run").start(() ->
                status.set(command.run(argv, in, out, err, interrupted::get)));
        while (true) {
            try {
                worker.join();
                break;
            } catch (InterruptedException e) {
                // Ctrl-C: handled, as dtrace handles SIGINT; the interrupt is consumed here so
                // that the shell goes on normally once the run has ended.
                interrupted.set(true);
            }
        }
        out.flush();
        err.flush();
        session.put(STATUS, status.get());
    }
}
