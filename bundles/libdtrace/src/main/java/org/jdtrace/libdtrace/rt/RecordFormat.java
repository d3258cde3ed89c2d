package org.jdtrace.libdtrace.rt;

/**
 * The compiled format string a printf-like record carries (printf, system, freopen, printa),
 * as dtrace_recdesc_t carries its dt_pfargv_t: the runtime only holds it; the consumer's printer
 * (print.PrintfFormat, the one parser and printer of D formats) formats with it. An interface here so that rt,
 * which the printer reads, does not depend on the printer (no package cycle).
 */
public interface RecordFormat {

    /** Appends the record's arguments formatted; {@code sizes} are their byte widths (0: a string). */
    void format(StringBuilder out, Object[] args, int[] sizes);
}
