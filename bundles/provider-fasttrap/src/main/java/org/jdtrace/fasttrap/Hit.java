package org.jdtrace.fasttrap;

import org.jdtrace.isa.Memory;
import org.jdtrace.isa.RegisterFile;
import org.jdtrace.spi.ProbeContext;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A thread stopped at a tracepoint; valid only during {@link SiteHandler#hit} (one instance per
 * process, reused: stops of a process are serialised).
 */
@ProviderType
public interface Hit {

    /** The registers, pc at the tracepoint's address. */
    RegisterFile regs();

    Memory memory();

    /**
     * The probe context of this hit (pid, tid, execname, ustack, copyin...) whose arg(i) is
     * {@code args}' value; the same object for every hit of the process, no allocation.
     */
    ProbeContext context(ArgumentReader args);
}
