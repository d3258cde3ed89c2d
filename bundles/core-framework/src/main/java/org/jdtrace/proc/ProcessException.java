package org.jdtrace.proc;

/** A process could not be created or grabbed; the message is dtrace's ("failed to grab pid 1: ..."). */
public class ProcessException extends Exception {

    public ProcessException(String message) {
        super(message);
    }
}
