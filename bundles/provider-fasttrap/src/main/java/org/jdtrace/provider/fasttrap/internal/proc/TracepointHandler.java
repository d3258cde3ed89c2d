package org.jdtrace.provider.fasttrap.internal.proc;

/** What runs when a tracepoint is hit, on the control thread, with the thread stopped. */
@FunctionalInterface
public interface TracepointHandler {

    void hit(HitContext ctx);
}
