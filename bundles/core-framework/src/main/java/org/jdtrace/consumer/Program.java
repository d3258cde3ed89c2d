package org.jdtrace.consumer;

import java.util.List;

/** A compiled program (dtrace_prog_t): its statements' probe descriptions and its options. */
public interface Program {

    /** The probe description strings of each statement, in order, as the user wrote them. */
    List<String> descriptions();
}
