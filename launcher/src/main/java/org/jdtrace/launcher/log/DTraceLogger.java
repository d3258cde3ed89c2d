package org.jdtrace.launcher.log;

import java.io.PrintStream;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * What bundles log, as dtrace(1M) prints its own diagnostics on stderr: a warning is
 * {@code dtrace: warning: <message>}, an error {@code dtrace: <message>}; below WARN nothing is
 * printed unless JDTRACE_DEBUG is set (then {@code dtrace: debug: <logger>: <message>} and stack
 * traces). One logger per name; thread-safe (one println per event).
 */
final class DTraceLogger extends LegacyAbstractLogger {

    private static final long serialVersionUID = 1L;

    private final boolean debug;

    DTraceLogger(String name, boolean debug) {
        this.name = name;
        this.debug = debug;
    }

    @Override public boolean isTraceEnabled() { return debug; }
    @Override public boolean isDebugEnabled() { return debug; }
    @Override public boolean isInfoEnabled() { return debug; }
    @Override public boolean isWarnEnabled() { return true; }
    @Override public boolean isErrorEnabled() { return true; }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args,
            Throwable t) {
        String message = MessageFormatter.basicArrayFormat(pattern, args);
        String line = switch (level) {
            case ERROR -> "dtrace: " + message;
            case WARN -> "dtrace: warning: " + message;
            default -> "dtrace: " + level.name().toLowerCase() + ": " + name + ": " + message;
        };
        if (t != null && !debug) line += ": " + (t.getMessage() != null ? t.getMessage() : t.toString());
        PrintStream err = System.err;
        err.println(line);
        if (t != null && debug) t.printStackTrace(err);
    }
}
