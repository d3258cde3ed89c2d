package org.jdtrace.fasttrap;

import java.util.Collection;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The processes fasttrap follows (fasttrap_proc_t's table) and their events, for providers of
 * per-process probes other than pid (USDT). One ptrace attachment per process, whoever asked.
 */
@ProviderType
public interface Fasttrap {

    /** The processes followed now (-c, -p, and those grabbed for probes). */
    Collection<? extends TracedTarget> targets();

    /**
     * {@code l} is told of every event from now on: {@link TargetListener#followed} for each
     * process followed later, before it runs. Processes already followed are in
     * {@link #targets()}.
     */
    void addTargetListener(TargetListener l);

    void removeTargetListener(TargetListener l);

    /**
     * Follows process {@code pid} for probes a description names ({@code myapp1234:::}), as the
     * pid provider grabs pid1234: the one already followed, else grabbed and let run. Every
     * grab is paired with an {@link #unfollow}.
     *
     * @throws TracepointRefused (its message one line for the user) when it cannot be grabbed
     */
    TracedTarget follow(int pid) throws TracepointRefused;

    /**
     * As {@link #follow(int)} for a consumer with {@code consumerOptions} (Provider.provide's):
     * a process grabbed now is traced as they say (uprobes 0: ptrace).
     *
     * @since 1.3
     */
    default TracedTarget follow(int pid, java.util.Map<String, Long> consumerOptions) throws TracepointRefused {
        return follow(pid);
    }

    /**
     * The caller's probes of {@code t} are gone: a process grabbed only for probes is let go
     * (untouched, running on) once no probe of any provider needs it.
     */
    void unfollow(TracedTarget t);
}
