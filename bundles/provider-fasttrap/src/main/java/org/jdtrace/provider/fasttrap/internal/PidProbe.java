package org.jdtrace.provider.fasttrap.internal;

import java.util.List;

import org.jdtrace.isa.Instruction;

/**
 * A pid probe's provider argument (fasttrap_probe_t): which process, which kind, the function's
 * start, and the instructions whose tracepoints fire it (one for entry and offsets, every
 * return site for return).
 */
record PidProbe(int pid, Kind kind, long functionStart, List<Instruction> sites) {

    enum Kind { ENTRY, RETURN, OFFSET }
}
