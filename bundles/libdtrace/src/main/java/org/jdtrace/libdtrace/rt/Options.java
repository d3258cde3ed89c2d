/*
 * Options: the consumer options dtrace(1M) knows (-x name=value, #pragma D option, setopt()),
 * parsed as libdtrace's dt_options.c parses them: sizes take k/m/g/t suffixes (bufsize=4m),
 * rates and times take ns/us/ms/s/m/h/d or hz (switchrate=10hz, aggrate=1ms; a bare number is
 * nanoseconds), boolean options take nothing or yes/no, on/off, true/false, set/unset,
 * enable(d)/disable(d), or a number. Unknown names and bad values are rejected with libdtrace's
 * words ("Invalid option name", "Invalid value for specified option").
 *
 * jdtrace's own: folded (print stack-keyed aggregations at exit as folded stacks) and
 * flamegraph=FILE (write them as an SVG flame graph), see print.FlameGraph; kernelclauses=off|on|force
 * (whether clauses are offered to providers to run in the kernel, lower.KernelForm: on by default;
 * force makes a kernel program a provider cannot load an error instead of a fallback);
 * uprobes=on|off (pid and USDT probes of the processes this consumer follows on the kernel's
 * uprobes, the default, or on ptrace: a consumer option, CONSUMER_OPTIONS).
 *
 * Values are kept as longs (UNSET = Long.MIN_VALUE, like DTRACEOPT_UNSET); reads of the options
 * used on the firing path (quiet, strsize, bufsize, dynvarsize) go through volatile fields.
 */
package org.jdtrace.libdtrace.rt;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.DVersion;
import org.jdtrace.time.Rates;

public final class Options {

    public static final long UNSET = Long.MIN_VALUE;

    enum Kind { BOOL, SIZE, RATE, NUMBER, STRING }

    private static final Map<String, Kind> KNOWN = new HashMap<>();

    static {
        for (String b : new String[] {"quiet", "destructive", "flowindent", "aggsortkey", "aggsortrev",
                "aggpercpu", "rawbytes", "temporal", "zdefs", "verbose", "errtags", "droptags", "argref",
                "cpp", "ctypes", "dtypes", "knodefs", "kdefs", "udefs", "unodefs", "nolibs", "lazyload",
                "grabanon", "agghist", "aggpack", "aggzoom", "bufresize_manual", "evaltime_unused",
                "linkmode_unused", "nspec_unused", "defaultargs", "late", "undef", "define", "incdir",
                "pgmax_unused", "strip", "encoding_unused", "noresolve", "folded", "empty", "pspec"}) {
            KNOWN.put(b, Kind.BOOL);
        }
        for (String s : new String[] {"bufsize", "aggsize", "dynvarsize", "specsize", "strsize",
                "jstackstrsize", "scratchsize", "printsize"}) {
            KNOWN.put(s, Kind.SIZE);
        }
        for (String r : new String[] {"switchrate", "aggrate", "cleanrate", "statusrate"}) {
            KNOWN.put(r, Kind.RATE);
        }
        for (String n : new String[] {"nspec", "stackframes", "ustackframes", "jstackframes",
                "maxframes", "stackindent", "aggsortpos", "aggsortkeypos", "cpu", "pgmax", "iregs", "target",
                "fasttrap-max", "fbt-max", "ustackbytes"}) {
            KNOWN.put(n, Kind.NUMBER);
        }
        for (String s : new String[] {"bufpolicy", "bufresize", "evaltime", "linkmode", "linktype",
                "encoding", "version", "libdir", "syslibdir", "ldpath", "modpath", "cpppath",
                "cpphdrs", "cppargs", "amin", "stdc", "flamegraph", "kernelclauses", "uprobes"}) {
            KNOWN.put(s, Kind.STRING);
        }
    }

    private final Map<String, Long> values = new ConcurrentHashMap<>();
    private final Map<String, String> raw = new ConcurrentHashMap<>();
    private volatile boolean quiet;
    private volatile int strsize = 256;
    private volatile long bufsize = 4L << 20;
    private volatile long dynvarsize = 1L << 20;
    private volatile boolean fill;

    public Options() {
        values.put("bufsize", 4L << 20);
        values.put("aggsize", 4L << 20);
        values.put("dynvarsize", 1L << 20);
        values.put("specsize", 32L << 10);
        values.put("strsize", 256L);
        values.put("scratchsize", 256L); // DTrace on Linux's default (_dtrace_scratchsize)
        values.put("printsize", PRINTSIZE_DEFAULT);
        values.put("switchrate", 1_000_000_000L);
        values.put("aggrate", 1_000_000_000L);
        values.put("cleanrate", 101_000_000L);
        values.put("statusrate", 1_000_000_000L);
        values.put("nspec", 1L);
        values.put("stackframes", 20L);
        values.put("ustackframes", 100L);
        values.put("jstackframes", 50L);
        values.put("stackindent", 14L);
    }

    /** Options the framework hands to every provider once set (Provider.option); numbers. */
    public static final java.util.Set<String> PROVIDER_OPTIONS = java.util.Set.of("fbt-max", "ustackbytes");

    /**
     * Options that travel with the consumer's descriptions and processes (Consumer.consumerOptions,
     * Provider.provide(desc, consumerOptions)) instead of being told to every provider: uprobes.
     */
    public static final java.util.Set<String> CONSUMER_OPTIONS = java.util.Set.of("uprobes");

    /** A consumer option's value as the providers take it (uprobes: 1 on, 0 off), or null. */
    public Long consumerOption(String name) {
        if (!CONSUMER_OPTIONS.contains(name)) return null;
        String v = getString(name);
        return v == null ? null : v.equals("off") ? 0L : 1L;
    }

    public static boolean isKnown(String name) {
        return KNOWN.containsKey(name);
    }

    /** Sets an option; the exception's message is libdtrace's reason text. */
    public void set(String name, String value) throws DTraceException {
        Kind kind = KNOWN.get(name);
        if (kind == null) throw new DTraceException("Invalid option name", "D_PRAGMA_OPTSET", -1);
        long v = switch (kind) {
            case BOOL -> parseBool(value);
            case SIZE -> parseSize(value);
            case RATE -> parseRate(value);
            case NUMBER -> name.equals("cpu") ? parseNumber(value) : nonNegative(parseNumber(value));
            case STRING -> value == null ? UNSET : 0;
        };
        if (v == BAD || (name.equals("strsize") && v < 2) || !validValue(name, value, v)) {
            throw new DTraceException("Invalid value for specified option", "D_PRAGMA_OPTSET", -1);
        }
        if (name.equals("iregs") && v < DIF_REGISTERS) {
            throw new DTraceException("Insufficient registers to generate code", "D_PRAGMA_OPTSET", -1);
        }
        if (name.equals("version")) {
            // dt_opt_version: EDT_VERSINVAL, EDT_VERSUNDEF, and dt_reduce's EDT_VERSREDUCED (a
            // version can only be lowered: the identifiers it removed are gone)
            int n = DVersion.parse(value);
            if (n < 0) throw new DTraceException("Version is not properly formatted or is too large", "D_PRAGMA_OPTSET", -1);
            if (!DVersion.DEFINED.contains(n)) throw new DTraceException("Requested version is not supported by compiler", "D_PRAGMA_OPTSET", -1);
            if (n > version) throw new DTraceException("Requested version conflicts with earlier setting", "D_PRAGMA_OPTSET", -1);
            version = n;
        }
        // print()'s limit: 1 to 64 KiB rounded up to 8, the default for any other (dt_opt_printsize)
        if (name.equals("printsize")) v = v <= 0 || v > 65536 ? PRINTSIZE_DEFAULT : (v + 7) & ~7L;
        values.put(name, v);
        if (value != null) raw.put(name, value);
        else raw.remove(name);
        if (name.equals("quiet")) quiet = v != UNSET;
        if (name.equals("strsize")) strsize = (int) Math.max(1, Math.min(v, 1 << 20));
        if (name.equals("bufsize")) bufsize = v;
        if (name.equals("dynvarsize")) dynvarsize = v;
        if (name.equals("bufpolicy")) fill = "fill".equals(value);
    }

    /**
     * Options that set up the compiler itself (its paths and type sources): -x only, never
     * {@code #pragma D option} (their setters' EDT_BADOPTCTX while a program is being compiled).
     */
    private static final java.util.Set<String> COMMAND_LINE_ONLY = java.util.Set.of("ldpath", "modpath", "libdir",
            "syslibdir", "cpppath", "ctypes", "dtypes");

    /** {@code #pragma D option name[=value]}, which a program's compilation sets as it meets it. */
    public void setFromProgram(String name, String value) throws DTraceException {
        if (COMMAND_LINE_ONLY.contains(name)) {
            throw new DTraceException("Option cannot be used from within a D program");
        }
        set(name, value);
    }

    /** setopt() and -x while tracing: the buffer sizes and counts are fixed by then. */
    public void setWhileTracing(String name, String value) throws DTraceException {
        if (name.equals("bufsize") || name.equals("aggsize") || name.equals("nspec") || name.equals("specsize")
                || name.equals("dynvarsize")) {
            throw new DTraceException("Operation illegal when tracing is active");
        }
        set(name, value);
    }

    private static final long BAD = Long.MIN_VALUE + 1;

    /** The bytes print() shows by default. */
    static final long PRINTSIZE_DEFAULT = 8192;

    /** DIF's integer registers (DIF_DIR_NREGS): iregs may not promise more. */
    private static final int DIF_REGISTERS = 8;

    /** The D version in force (option version; ast.DVersion): the latest until a program asks for less. */
    public int version() {
        return version;
    }

    private int version = DVersion.LATEST;

    /** Values with a fixed vocabulary (dt_opt_stdc, dt_opt_evaltime; iregs at least 1; amin as dtrace_str2attr reads it). */
    private static boolean validValue(String name, String value, long v) {
        return switch (name) {
            case "stdc" -> value != null && (value.equals("a") || value.equals("c") || value.equals("s") || value.equals("t"));
            // dt_opt_evaltime's words: where a -c process is held (ProcessControl.Evaltime)
            case "evaltime" -> value != null && java.util.Set.of("exec", "preinit", "postinit", "main").contains(value);
            case "iregs" -> v > 0 && v <= DIF_REGISTERS;
            case "kernelclauses" -> value != null && (value.equals("off") || value.equals("on") || value.equals("force"));
            case "uprobes" -> value != null && (value.equals("off") || value.equals("on"));
            case "amin" -> value != null && org.jdtrace.spi.Attributes.parse(value) != null;
            case "encoding" -> value != null && (value.equals("ascii") || value.equals("utf8")); // dt_opt_encoding
            case "bufresize" -> value != null && (value.equals("auto") || value.equals("manual")); // dt_opt_bufresize
            default -> true;
        };
    }

    static long parseBool(String value) {
        if (value == null) return 0;
        if (value.isEmpty()) return UNSET;
        String[][] couples = {{"yes", "no"}, {"enable", "disable"}, {"enabled", "disabled"},
                {"true", "false"}, {"on", "off"}, {"set", "unset"}};
        for (String[] c : couples) {
            if (c[0].equalsIgnoreCase(value)) return 1;
            if (c[1].equalsIgnoreCase(value)) return UNSET;
        }
        long v = parseNumber(value);
        return v < 0 && v != BAD ? BAD : v;
    }

    private static long nonNegative(long v) {
        return v < 0 ? BAD : v;
    }

    static long parseNumber(String value) {
        if (value == null) return BAD;
        try {
            String s = value.trim();
            if (s.startsWith("0x") || s.startsWith("0X")) return Long.parseUnsignedLong(s.substring(2), 16);
            if (s.length() > 1 && s.startsWith("0")) return Long.parseLong(s.substring(1), 8);
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return BAD;
        }
    }

    /** Length of the leading decimal digits of a value (0 for null or none). */
    private static int digits(String value) {
        int end = 0;
        while (value != null && end < value.length() && Character.isDigit(value.charAt(end))) end++;
        return end;
    }

    /** 4m, 512k, 1g, 65536: bytes. */
    public static long parseSize(String value) {
        int end = digits(value);
        if (end == 0) return BAD;
        long n;
        try {
            n = Long.parseLong(value.substring(0, end));
        } catch (NumberFormatException e) {
            return BAD;
        }
        String suffix = value.substring(end).toLowerCase(Locale.ROOT);
        int shift = switch (suffix) {
            case "" -> 0;
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> -1;
        };
        if (shift < 0) return BAD;
        return n << shift;
    }

    /**
     * 10hz, 1ms, 2s, 500us, 100 (ns): a period in nanoseconds, read as the profile provider reads
     * its rates (Rates), with a bare number meaning nanoseconds as in libdtrace's dt_opt_rate. A
     * zero (0, 0hz, 0ms) is the value 0.
     */
    public static long parseRate(String value) {
        int end = digits(value);
        if (end == 0) return BAD;
        String spec = value.toLowerCase(Locale.ROOT);
        if (spec.substring(0, end).chars().allMatch(c -> c == '0')) {
            return Rates.intervalNanos("1" + spec.substring(end), Rates.Bare.NANOSECONDS) < 0 ? BAD : 0;
        }
        long n = Rates.intervalNanos(spec, Rates.Bare.NANOSECONDS);
        return n < 0 ? BAD : n;
    }

    public long get(String name) {
        Long v = values.get(name);
        return v == null ? UNSET : v;
    }

    public boolean isSet(String name) {
        return get(name) != UNSET;
    }

    /** The value as dtrace -x would show it: the text given, or the number. */
    public String getString(String name) {
        if (!KNOWN.containsKey(name)) return null;
        String r = raw.get(name);
        if (r != null) return r;
        long v = get(name);
        if (v == UNSET) return null;
        return KNOWN.get(name) == Kind.BOOL ? "" : Long.toString(v);
    }

    public boolean quiet() {
        return quiet;
    }

    public int strsize() {
        return strsize;
    }

    /** bufpolicy=fill, read at every commit. */
    public boolean fill() {
        return fill;
    }

    /** The dynamic variables' space, read when a dynamic variable is made. */
    public long dynvarsize() {
        return dynvarsize;
    }

    /** The principal buffer's size, read at every commit. */
    public long bufsize() {
        return bufsize;
    }
}
