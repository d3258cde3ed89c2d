package org.jdtrace.perf;

import java.util.Map;

/**
 * A kernel tracepoint as tracefs describes it ({@code events/<category>/<name>/{id,format}}): its
 * perf event id and each field of its raw record, by name, as {offset, size, signed ? 1 : 0}, and
 * each field's C type as the format declares it ({@code const char *}, {@code __data_loc char[]}).
 */
public record KernelTracepoint(String category, String name, int id, Map<String, int[]> fields, Map<String, String> types) {

    public KernelTracepoint {
        fields = Map.copyOf(fields);
        types = Map.copyOf(types);
    }

    /** The field's byte offset in the raw record; a PerfException when the kernel's has none. */
    public int offset(String field) {
        int[] f = fields.get(field);
        if (f == null) throw new PerfException("tracepoint " + category + ":" + name + " has no field " + field, 0);
        return f[0];
    }
}
