package org.jdtrace.libdtrace;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.engine.DProgram;

/**
 * Compiles D source for a session: the front end (lexer, parser, sema) checks the program, lowers
 * each clause to Ir and hands it to {@link DSessionImpl#compileClause}, then builds the program
 * with {@link DSessionImpl#program}.
 */
public interface FrontEnd {

    DProgram compile(DSessionImpl session, String source, String sourceName, List<String> macroArgs)
            throws DTraceException;
}
