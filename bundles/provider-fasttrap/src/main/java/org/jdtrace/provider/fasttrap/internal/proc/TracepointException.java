package org.jdtrace.provider.fasttrap.internal.proc;

/** A tracepoint could not be enabled (limit reached, instruction refused, memory unwritable). */
public final class TracepointException extends Exception {

    public TracepointException(String message) {
        super(message);
    }
}
