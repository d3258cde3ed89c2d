package org.jdtrace.fasttrap;

import java.io.IOException;
import java.util.List;

import org.jdtrace.isa.Memory;
import org.osgi.annotation.versioning.ProviderType;

/** One process under fasttrap's control, as other providers see it. */
@ProviderType
public interface TracedTarget {

    int pid();

    /**
     * True once the process exec'd or exited, and only then: retiring providers of it (pid,
     * USDT) never makes it defunct (illumos bug 6573659).
     */
    boolean defunct();

    /** The ELF objects mapped now (/proc/PID/maps), the executable included. */
    List<? extends TargetObject> objects() throws IOException;

    /** The name of the function of {@code object} that holds process address {@code pc}, or null. */
    String functionAt(TargetObject object, long pc);

    /** The process's memory (reads and writes through /proc/PID/mem). */
    Memory memory();

    /**
     * Plants (or shares) the int3 at {@code pc}: {@code handler} runs at every hit, on the
     * process's control thread, the hitting thread stopped. One tracepoint per address, shared
     * with pid probes there; removed when its last user closes its {@link Site}.
     *
     * @throws TracepointRefused when the instruction there cannot be instrumented or the process
     *         is gone
     */
    Site trace(long pc, SiteHandler handler) throws TracepointRefused;

    /**
     * As {@link #trace}, with the USDT is-enabled semaphore at process address {@code semaphore}
     * counted by the kernel: up while the site is traced, down when it goes, also when the
     * tracer dies (a uprobe's ref_ctr_offset). Null when this process's sites are not the
     * kernel's or the kernel would not count it: the caller then uses {@link #trace} and counts
     * the semaphore itself.
     *
     * @since 1.1
     */
    default Site traceCounted(long pc, long semaphore, SiteHandler handler) throws TracepointRefused {
        return null;
    }

    /**
     * Whether this process's sites are the kernel's uprobes and their program runs {@code clause}
     * (a whole one: thread-locals in the kernel, Provider.kernelThreadLocals) at a hit whose
     * arguments are at {@code args} (perf's UserProbes.argument encoding, -1: not captured).
     *
     * @since 1.3
     */
    default boolean kernelRuns(org.jdtrace.spi.KernelClause clause, int[] args) {
        return false;
    }

    /**
     * As {@link #trace}, each hit copying {@code stackBytes} of the user stack at the event when
     * the process's sites are the kernel's (see {@link Site#stack}); from the first hit on.
     *
     * @since 1.2
     */
    default Site trace(long pc, SiteHandler handler, int stackBytes) throws TracepointRefused {
        Site s = trace(pc, handler);
        s.stack(stackBytes);
        return s;
    }

    /** As {@link #traceCounted}, with {@code stackBytes} as {@link #trace(long, SiteHandler, int)}'s. @since 1.2 */
    default Site traceCounted(long pc, long semaphore, SiteHandler handler, int stackBytes) throws TracepointRefused {
        Site s = traceCounted(pc, semaphore, handler);
        if (s != null) s.stack(stackBytes);
        return s;
    }
}
