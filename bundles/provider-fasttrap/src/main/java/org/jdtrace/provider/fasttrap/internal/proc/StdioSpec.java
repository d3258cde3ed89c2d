package org.jdtrace.provider.fasttrap.internal.proc;

import java.nio.file.Path;

/**
 * The standard streams of a created process: each of stdin, stdout, stderr either inherited
 * from this JVM or a pipe to it; stdout may instead go to a file.
 */
public record StdioSpec(boolean pipeIn, boolean pipeOut, boolean pipeErr, Path outFile) {

    public static final StdioSpec INHERIT = new StdioSpec(false, false, false, null);

    public static StdioSpec outTo(Path file) {
        return new StdioSpec(false, false, false, file);
    }
}
