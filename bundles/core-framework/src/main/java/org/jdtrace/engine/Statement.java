package org.jdtrace.engine;

import java.util.List;
import org.jdtrace.spi.KernelClause;
import org.jdtrace.spi.ProbeDescription;

/**
 * One compiled statement (dtrace_stmtdesc_t): the probe descriptions it enables and its body.
 * {@code source} is the description list as written, for messages. {@code pidFilter} is the one
 * process (pid) outside which the statement's predicate can never hold, or -1 when it can hold in
 * any: the compiler derives it when the predicate is {@code pid == N} with a constant N or a
 * conjunction ({@code &&}) with such a term, {@code $target} included. The framework passes it to
 * providers as {@link org.jdtrace.spi.Probe#pidFilter()}, so that kernel providers drop other
 * processes' events before they reach the JVM; the body still runs the whole predicate, so the
 * filter is only an optimisation and never changes what the statement records.
 *
 * {@code kernel} is the statement's clause in the form a provider may run in the kernel
 * ({@link KernelClause}, since 1.4), null when it has none; ECBs of the statement hand it to
 * their probes' providers as {@link org.jdtrace.spi.Probe#kernelClauses()}.
 *
 * {@code userStrings} (since 1.5) are the arguments N whose user string the clause reads with
 * {@code copyinstr(argN)} (or args[N], under casts), as the compiler sees them; the framework
 * hands their union to the probe's provider as {@link org.jdtrace.spi.Probe#userStrings()}, so
 * that a provider that fires after the event can read them at the event.
 *
 * {@code userStack} (since 1.5) is true when the body or predicate walks the firing thread's user
 * stack (ustack(), jstack(), ucaller, ustackdepth): a provider that captures at the event what a
 * firing reads later copies a larger top of the stack for its probes then
 * ({@link org.jdtrace.spi.Probe#userStack()}).
 *
 * {@code kernelStack} (since 1.6) is true when the body or predicate reads the kernel stack
 * (stack(), stackdepth, caller): a provider that fires after the event takes that stack at the
 * event ({@link org.jdtrace.spi.Probe#kernelStack()}).
 *
 * {@code procDestructive} (since 1.6) is true when the body acts on the firing process: stop(),
 * raise(), copyout() or copyoutstr() (illumos' DTRACEACT_PROC_DESTRUCTIVE actions and the copyout
 * subroutines; system() acts in the consumer and is not one). A provider that fires after the
 * event holds the process at the event for such a probe, so that the action takes effect there
 * ({@link org.jdtrace.spi.Probe#procDestructive()}).
 *
 * @since 1.1
 */
public record Statement(List<ProbeDescription> descriptions, String source, EcbBody body, long pidFilter,
        KernelClause kernel, java.util.Set<Integer> userStrings, boolean userStack, boolean kernelStack,
        boolean procDestructive) {

    public Statement(List<ProbeDescription> descriptions, String source, EcbBody body, long pidFilter,
            KernelClause kernel, java.util.Set<Integer> userStrings, boolean userStack) {
        this(descriptions, source, body, pidFilter, kernel, userStrings, userStack, false, false);
    }

    public Statement(List<ProbeDescription> descriptions, String source, EcbBody body, long pidFilter,
            KernelClause kernel, java.util.Set<Integer> userStrings) {
        this(descriptions, source, body, pidFilter, kernel, userStrings, false);
    }

    public Statement(List<ProbeDescription> descriptions, String source, EcbBody body, long pidFilter,
            KernelClause kernel, boolean userStack) {
        this(descriptions, source, body, pidFilter, kernel, java.util.Set.of(), userStack);
    }

    public Statement(List<ProbeDescription> descriptions, String source, EcbBody body, long pidFilter,
            KernelClause kernel) {
        this(descriptions, source, body, pidFilter, kernel, java.util.Set.of(), false);
    }

    public Statement(List<ProbeDescription> descriptions, String source, EcbBody body, long pidFilter) {
        this(descriptions, source, body, pidFilter, null);
    }

    /** A statement whose predicate may hold in any process. */
    public Statement(List<ProbeDescription> descriptions, String source, EcbBody body) {
        this(descriptions, source, body, -1);
    }
}
