package org.jdtrace.libdtrace.cmd;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import org.jdtrace.consumer.DTrace;
import org.jdtrace.consumer.DTraceCommand;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.jdtrace.proc.ProcessControl;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * dtrace(1M) as a DS service: bin/dtrace (the launcher) and the Gogo shell's dtrace command both
 * run it. Each run is an independent {@link Invocation} with its own consumer.
 */
@Component(service = DTraceCommand.class)
public final class DTraceCommandImpl implements DTraceCommand {

    private final DTrace dtrace;

    /** The pid provider's process control, when its bundle is installed (-c/-p under ptrace). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile ProcessControl processControl;

    @Activate
    public DTraceCommandImpl(@Reference DTrace dtrace) {
        this.dtrace = dtrace;
    }

    @Override
    public int run(List<String> argv, InputStream in, PrintStream out, PrintStream err, Interrupt interrupt) {
        return new Invocation(dtrace, List.copyOf(argv), in, out, err, interrupt, processControl).run();
    }
}
