package org.jdtrace.fasttrap;

/** A tracepoint that cannot be planted: its message is one line for the user. */
public class TracepointRefused extends Exception {

    private static final long serialVersionUID = 1L;

    public TracepointRefused(String message) {
        super(message);
    }
}
