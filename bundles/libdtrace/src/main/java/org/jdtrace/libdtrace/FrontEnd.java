package org.jdtrace.libdtrace;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.engine.Statement;
import org.jdtrace.libdtrace.rt.DState;

/**
 * The D compiler as a session sees it: source text in, compiled statements out, against the
 * session's state (its options, variable slots and aggregations). The compiler never calls the
 * session back; the session builds its program from the {@link Compilation}.
 */
public interface FrontEnd {

    /**
     * What one compile produced: a statement per probe description of each clause (in source
     * order), the program's pragmas (already applied to the state's options), whether it uses
     * destructive actions (tracing then needs -w), and its stability attributes (dtrace -v).
     */
    record Compilation(List<Statement> statements, java.util.Map<String, String> pragmas, boolean destructive,
            org.jdtrace.libdtrace.sema.ClauseAttributes.Report attributes, List<Integer> lines) {

        /** A compilation whose stability attributes were not computed. */
        public Compilation(List<Statement> statements, java.util.Map<String, String> pragmas, boolean destructive) {
            this(statements, pragmas, destructive, null, List.of());
        }

        /** The line of each statement's probe description (D_PDESC_ZERO reports it), or none. */
        public Compilation {
            lines = List.copyOf(lines);
        }
    }

    /** {@code probeArgs}: types args[] from the matched probes' argument descriptions (null: int64_t). */
    Compilation compile(DState state, org.jdtrace.engine.ProbeArgs probeArgs, String source, String sourceName,
            List<String> macroArgs) throws DTraceException;
}
