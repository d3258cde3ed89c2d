package org.jdtrace.provider.fasttrap.internal;

import java.util.Collection;
import java.util.function.Consumer;

import org.jdtrace.spi.ProbeRegistry;

/**
 * The processes under jdtrace's control (fasttrap_proc_t's table), owned by ProcessControlImpl
 * and shared with the providers of this bundle that name or watch them: the pid provider (its
 * probes pid&lt;PID&gt;, the ProbeOwner) and syscall (track listeners). One ptrace attachment per
 * process whoever asked for it. Bundle-private service.
 */
public interface ProcessTable {

    /** The processes followed now (-c, -p and those grabbed for probes). */
    Collection<ProcessState> processes();

    /** {@code l} is told of every process followed from now on, before it runs. */
    void addTrackListener(Consumer<ProcessState> l);

    void removeTrackListener(Consumer<ProcessState> l);

    /** The process {@code pid} followed now, or null. */
    ProcessState process(int pid);

    /**
     * The process a probe description names: the one followed, else grabbed (owned by the table,
     * let go untouched when no probe needs it) and let run. A ProviderException with dtrace's
     * words (D_PROC_GRAB, D_PROC_DYN) when it cannot be. A process grabbed now is traced as the
     * asking consumer's {@code consumerOptions} say (uprobes).
     */
    ProcessState grabForProbes(int pid, java.util.Map<String, Long> consumerOptions);

    /** A process grabbed only for probes, none left ({@link ProcessState#hasProbes()}): released untouched. */
    void letGoIfUnused(ProcessState s);

    /** The most pid tracepoints that may exist at once (fasttrap-max). */
    int fasttrapMax();

    /**
     * The kernel's uprobe sites for probes placed now, or null for the ptrace path (no perf
     * events service, or refused by the kernel: told once in one warning line).
     */
    UprobeSites kernelSites();

    /** The uprobe sites open now, or null (no process went on uprobes yet). */
    UprobeSites openKernelSites();

    /**
     * On the uprobe path, follows the dynamic linker's events of {@code s} from now on (once;
     * RtldEvents.watchOnUprobes): a description names an object that may be mapped later.
     */
    void watchLinker(ProcessState s);

    /** Hits the kernel's uprobes captured and the drain thread has not fired yet fire now. */
    void drainUprobes();

    /** Sets (null: clears) the owner of the probes named after each process. */
    void setProbeOwner(ProbeOwner owner);

    /** The provider whose probes are named after a process (pid&lt;PID&gt;): told of its life. */
    interface ProbeOwner {

        /** Where lost uprobe records are reported (ProbeRegistry.lost), or null. */
        ProbeRegistry registry();

        /**
         * The probes named after {@code s} must go: it exec'd or exited (told on a separate
         * thread, before an exited process is forgotten), or is about to be released or killed.
         */
        void retire(ProcessState s);

        /**
         * The dynamic linker mapped or unmapped objects of {@code s} (ptrace path; a worker
         * thread, the thread in the linker held), after their tracepoints were forgotten.
         */
        void objectsChanged(ProcessState s, ProcessState.ModuleChange change);
    }
}
