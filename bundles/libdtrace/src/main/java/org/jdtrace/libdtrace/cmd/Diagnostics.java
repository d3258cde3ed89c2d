package org.jdtrace.libdtrace.cmd;

import org.jdtrace.consumer.DTraceException;

/**
 * Words a {@link DTraceException} as dtrace(1M) prints it. The consumer reports the bare message,
 * its D_* tag and its line; dtrace(1M) adds what it knows: which script or probe specifier failed,
 * and the tag when -xerrtags is on:
 * {@code failed to compile script x.d: [D_SYNTAX] line 3: syntax error near "}"} and
 * {@code invalid probe specifier BEGIN { x }: syntax error near "}"} (a -n string has no file, so
 * dtrace gives no line). A message the consumer already worded in full is printed as it is.
 */
final class Diagnostics {

    private Diagnostics() {}

    static String compileFailure(CommandLine.Spec spec, DTraceException e, boolean errtags) {
        String msg = e.getMessage() == null ? "unknown error" : e.getMessage();
        int pd = msg.indexOf(": probe description ");
        if (msg.startsWith("invalid probe specifier ") && pd > 0) {
            if (!spec.isScript()) {
                // the consumer worded it already; -xerrtags puts the tag before the reason
                String tag = errtags && e.tag() != null ? "[" + e.tag() + "] " : "";
                return msg.substring(0, pd + 2) + tag + msg.substring(pd + 2);
            }
            msg = msg.substring(pd + 2); // a script's unmatched description is a compile error
        }
        if (msg.startsWith("failed to compile") || msg.startsWith("invalid probe specifier")
                || msg.startsWith("could not enable tracing") || msg.startsWith("failed to enable")) {
            return msg;
        }
        String tag = errtags && e.tag() != null ? "[" + e.tag() + "] " : "";
        if (spec.isScript()) {
            String line = e.line() > 0 ? "line " + e.line() + ": " : "";
            return "failed to compile script " + spec.arg() + ": " + tag + line + msg;
        }
        return "invalid probe specifier " + spec.arg() + ": " + tag + msg;
    }

    /** {@code -x name=value}: {@code failed to set -x bufsize: Invalid value for specified option}. */
    static String optionFailure(String what, DTraceException e) {
        String msg = e.getMessage() == null ? "unknown error" : e.getMessage();
        if (msg.startsWith("failed to set")) {
            return msg;
        }
        return "failed to set " + what + ": " + msg;
    }

    /** {@code go()} failed: {@code could not enable tracing: Destructive actions not allowed}. */
    static String goFailure(DTraceException e) {
        String msg = e.getMessage() == null ? "unknown error" : e.getMessage();
        if (msg.startsWith("could not enable tracing")) {
            return msg;
        }
        return "could not enable tracing: " + msg;
    }
}
