package org.jdtrace.libdtrace.cmd;

import org.jdtrace.consumer.Consumer;

/**
 * Turns a -P/-m/-f probe specifier into a full provider:module:function:name description, so
 * that a specifier with a clause can be compiled as D source. A specifier names fields up to its
 * kind's field, counted from the right: -m "libc" is ":libc::", -m "pid1:libc" "pid1:libc::",
 * -f "foo" "::foo:", -P "syscall" "syscall:::" (dtrace_xstr2desc with a probespec context).
 * A comma-separated list is completed element by element.
 */
final class ProbeSpecs {

    private ProbeSpecs() {}

    static String complete(String specifier, Consumer.DescriptionKind kind) {
        int field = switch (kind) {
            case PROVIDER -> 0;
            case MODULE -> 1;
            case FUNCTION -> 2;
            default -> 3;
        };
        StringBuilder out = new StringBuilder();
        for (String one : specifier.split(",", -1)) {
            if (!out.isEmpty()) {
                out.append(',');
            }
            String d = one.strip();
            int given = d.split(":", -1).length;
            if (given > field + 1) {
                out.append(d); // more fields than the kind allows: let the compiler say what is wrong
                continue;
            }
            out.append(":".repeat(field + 1 - given)).append(d).append(":".repeat(3 - field));
        }
        return out.toString();
    }
}
