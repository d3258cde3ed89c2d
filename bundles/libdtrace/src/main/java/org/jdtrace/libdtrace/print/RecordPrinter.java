/*
 * RecordPrinter: the consumer's output of principal-buffer records, as dtrace(1M)'s chew() and
 * chewrec() over dt_consume_cpu(): without quiet, the first record prints the heading
 * "CPU     ID                    FUNCTION:NAME" and every record a "%3d %6d %32s " probe line,
 * then its data, then a newline; with quiet only the data. With {@code testing} (dtrace-utils'
 * _DTRACE_TESTING, for reproducible output) the CPU and ID columns are left out. trace() of
 * integers prints them as their type reads (signed or not) in " %19d"/" %10d"/" %5d"/" %3d" by
 * width (quiet: "%d"), of strings "  %-33s" (quiet: "%s").
 * clear()/trunc() records act on the aggregate table, exit() records print nothing, fault
 * reports go to stderr as dtrace's default ERROR handler words them. Consumer thread only.
 */
package org.jdtrace.libdtrace.print;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.rt.AggregateTable;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.Datum;
import org.jdtrace.libdtrace.rt.Record;
import org.jdtrace.spi.Probe;

public final class RecordPrinter {

    private final DState state;
    private final AggregateTable table;
    private final IntFunction<Probe> probes;
    /** Where records print: the consumer's output, or the file of the last freopen(). */
    private PrintStream out;
    private final PrintStream stdout;
    private final PrintStream err;
    private final boolean testing;
    private boolean heading;
    /** "error in dt_clause_N" of an epid, as fault reports name the code (set by the session). */
    private IntFunction<String> clauseNames = epid -> "error in dt_clause_0";

    public RecordPrinter(DState state, AggregateTable table, IntFunction<Probe> probes, PrintStream out,
                         PrintStream err) {
        this(state, table, probes, out, err, false);
    }

    public RecordPrinter(DState state, AggregateTable table, IntFunction<Probe> probes, PrintStream out,
                         PrintStream err, boolean testing) {
        this.testing = testing;
        this.state = state;
        this.table = table;
        this.probes = probes;
        this.out = out;
        this.stdout = out;
        this.err = err;
    }

    /** How a report names the clause of an epid ("error in dt_clause_N"). */
    public void clauseNames(IntFunction<String> names) {
        this.clauseNames = names;
    }

    public void print(List<Record> records) {
        StringBuilder sb = new StringBuilder();
        for (Record r : records) {
            if (r.data().length == 1 && r.data()[0] instanceof Datum.Error e) {
                flush(sb);
                err.print("dtrace: " + e.message() + "\n");
                err.flush();
                continue;
            }
            boolean quiet = state.options.quiet();
            if (!quiet) {
                if (!heading) {
                    sb.append(testing ? String.format("%32s\n", "FUNCTION:NAME")
                            : String.format("%3s %6s %32s\n", "CPU", "ID", "FUNCTION:NAME"));
                    heading = true;
                }
                Probe p = probes.apply(r.epid());
                String name = p == null ? ":" : p.function() + ":" + p.name();
                sb.append(testing ? String.format("%32s ", name)
                        : String.format("%3d %6d %32s ", r.cpu(), p == null ? 0 : p.id(), name));
            }
            for (Datum d : r.data()) {
                if (d instanceof Datum.Setopt so) setopt(sb, r, so);
                else datum(sb, d, quiet);
            }
            if (!quiet) sb.append('\n');
        }
        flush(sb);
    }

    /** Output held before the default format of an aggregation writes it out ({@link #spill}). */
    private static final int SPILL_CHARS = 64 * 1024;

    /**
     * Writes {@code sb} out once it holds SPILL_CHARS: a profile's thousands of stacks go out in
     * pieces, not as one buffer of megabytes grown by copying, copied into a String and encoded
     * whole (allocation enough to bring on a young collection at exit, which copies the
     * aggregation's live data).
     */
    private void spill(StringBuilder sb) {
        if (sb.length() >= SPILL_CHARS) flush(sb);
    }

    /**
     * Writes {@code sb} out and empties it. Encoded here, in the stream's own charset, and written
     * as bytes: the same bytes print(String) writes, without its 8K-char passes through a
     * BufferedWriter and a CharsetEncoder, which at exit run interpreted over the megabytes of a
     * profile's stacks.
     */
    private void flush(StringBuilder sb) {
        if (sb.length() > 0) {
            byte[] bytes = sb.toString().getBytes(out.charset());
            out.write(bytes, 0, bytes.length);
            out.flush();
            sb.setLength(0);
        }
    }

    private void datum(StringBuilder sb, Datum d, boolean quiet) {
        switch (d) {
            case Datum.TraceInt t -> {
                String v = traced(t);
                if (quiet) sb.append(v);
                else PrintfFormat.pad(sb.append(' '), v, traceWidth(t.width()), false, false);
            }
            case Datum.TraceStr s -> {
                if (state.options.isSet("rawbytes") || !printable(s.value())) {
                    rawBytes(sb, s);
                } else if (quiet) {
                    sb.append(s.value());
                } else {
                    sb.append("  ");
                    PrintfFormat.pad(sb, s.value(), 33, true, false);
                }
            }
            case Datum.Printf p -> p.format().format(sb, p.args(), p.widths());
            case Datum.System s -> system(sb, s);
            case Datum.Freopen f -> freopen(sb, f);
            case Datum.Printa p -> printa(sb, p);
            case Datum.Clear c -> table.clear(c.agg());
            case Datum.Trunc t -> table.trunc(t.agg(), t.keep(), t.all());
            case Datum.Normalize n -> table.normalize(n.agg(), n.normal());
            case Datum.Stack st -> stack(sb, st.frames());
            case Datum.TraceMem m -> {
                if (m.bytes().length > 0) hexDump(sb, m.bytes());
            }
            case Datum.Print p when p.object() -> ObjectPrint.print(sb, p.bytes(), state.printLayout(p.layout()));
            case Datum.Print p -> TypeDump.dump(sb, p.addr(), p.bytes(), state.printLayout(p.layout()),
                    state.options.get("printsize"));
            case Datum.Exit e -> { }
            case Datum.Setopt s -> { }
            case Datum.Error e -> { }
        }
    }

    /**
     * system(): output so far is flushed, then the command runs under /bin/sh with its output
     * copied to ours, and the consumer waits for it (dtrace's system() in dt_consume).
     */
    private void system(StringBuilder sb, Datum.System s) {
        StringBuilder cmd = new StringBuilder();
        s.format().format(cmd, s.args(), s.widths());
        flush(sb);
        try {
            Process p = new ProcessBuilder("/bin/sh", "-c", cmd.toString())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            Thread errCopy = Thread.ofVirtual().start(() -> copy(p.getErrorStream(), err));
            copy(p.getInputStream(), out);
            p.waitFor();
            errCopy.join();
        } catch (java.io.IOException e) {
            err.print("dtrace: failed to execute \"" + cmd + "\": " + e.getMessage() + "\n");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        out.flush();
        err.flush();
    }

    /** freopen(path): later output goes to the file (appended); freopen("") returns to stdout. */
    private void freopen(StringBuilder sb, Datum.Freopen f) {
        StringBuilder path = new StringBuilder();
        f.format().format(path, f.args(), f.widths());
        flush(sb);
        if (out != stdout) out.close();
        out = stdout;
        if (path.isEmpty()) return;
        try {
            out = new PrintStream(new java.io.FileOutputStream(path.toString(), true), false,
                    java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            err.print("dtrace: couldn't freopen() \"" + path + "\": " + e.getMessage() + "\n");
            err.flush();
        }
    }

    private static void copy(java.io.InputStream in, PrintStream to) {
        try (in) {
            in.transferTo(to);
        } catch (java.io.IOException ignored) {
            // the command's output ended
        }
    }

    /** setopt(): the option changes from this record on; a refusal is reported as dtrace does. */
    private void setopt(StringBuilder sb, Record r, Datum.Setopt so) {
        try {
            state.options.setWhileTracing(so.name(), so.value());
        } catch (DTraceException e) {
            flush(sb);
            Probe p = probes.apply(r.epid());
            String probe = p == null ? "?" : p.id() + " (" + p.provider() + ":" + p.module() + ":" + p.function()
                    + ":" + p.name() + ")";
            // dt_setopt's message ends in a newline and dt_handle_liberr adds its own: a blank line follows
            err.print("dtrace: " + clauseNames.apply(r.epid()) + " for probe ID " + probe + ": couldn't set option \""
                    + so.name() + "\" to \"" + (so.value() == null ? "1" : so.value()) + "\": " + e.getMessage() + "\n\n");
            err.flush();
        }
    }

    /**
     * dt_print_bytes: a traced string prints as text when it is printable characters followed by
     * its NUL; one with other bytes, or any with option rawbytes, as a dump.
     */
    private static boolean printable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 0x20 && c < 0x7f) && !Character.isWhitespace(c) && c != '\b' && c != 0x07) return false;
        }
        return true;
    }

    /** The hex and character dump of a string's strsize + 1 buffer bytes (dt_print_rawbytes). */
    private static void rawBytes(StringBuilder sb, Datum.TraceStr s) {
        byte[] text = s.value().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] b = new byte[s.strsize() + 1];
        System.arraycopy(text, 0, b, 0, Math.min(text.length, s.strsize()));
        hexDump(sb, b);
    }

    /** dt_print_rawbytes: a newline, the column heading, then 16 bytes a line in hex and as text. */
    private static void hexDump(StringBuilder sb, byte[] b) {
        sb.append('\n').repeat(' ', 11);
        for (int i = 0; i < 16; i++) sb.append("  ").append("0123456789abcdef".charAt(i));
        sb.append("  0123456789abcdef\n");
        for (int i = 0; i < b.length; i += 16) {
            sb.append(String.format("%10x:", i));
            int j;
            for (j = i; j < i + 16 && j < b.length; j++) sb.append(String.format(" %02x", b[j] & 0xff));
            for (; j < i + 16; j++) sb.append("   ");
            sb.append("  ");
            for (j = i; j < i + 16 && j < b.length; j++) {
                int c = b[j] & 0xff;
                sb.append(c >= 0x20 && c < 0x7f ? (char) c : '.');
            }
            sb.append('\n');
        }
    }

    /** dt_print_stack/dt_print_ustack: a newline, then each frame on its own line after stackindent spaces. */
    private void stack(StringBuilder sb, String[] frames) {
        StackPrinter.print(sb, List.of(frames), stackIndent());
    }

    private int stackIndent() {
        return (int) state.options.get("stackindent");
    }

    /** A traced integer as its type reads: narrowed to its width, signed or unsigned. */
    static String traced(Datum.TraceInt t) {
        long v = t.value();
        int bits = 8 * Math.min(Math.max(t.width(), 1), 8);
        if (bits < 64) {
            v = t.signed() ? (v << (64 - bits)) >> (64 - bits) : v & ((1L << bits) - 1);
        }
        return t.signed() ? Long.toString(v) : Long.toUnsignedString(v);
    }

    /** dtrace's field widths for trace() of 1, 2, 4 and 8 byte integers. */
    static int traceWidth(int bytes) {
        return switch (bytes) {
            case 1 -> 3;
            case 2 -> 5;
            case 4 -> 10;
            default -> 19;
        };
    }

    /**
     * The histogram display options as set now: -x aggzoom, -x encoding=utf8, -x aggpack (whose
     * characters are UTF-8 unless encoding is ascii, or unset on a terminal that cannot show them:
     * TERM sun, sun-color or dumb, as dt_print_packed decides).
     */
    private AggregationPrinter.Style histogramStyle() {
        String encoding = state.options.getString("encoding");
        String term = System.getenv("TERM");
        boolean packUtf8 = encoding != null && encoding.equals("utf8") || encoding == null
                && !(term != null && (term.equals("sun") || term.equals("sun-color") || term.equals("dumb")));
        return new AggregationPrinter.Style(state.options.isSet("aggzoom"), "utf8".equals(encoding),
                state.options.isSet("aggpack"), packUtf8, state.options.isSet("agghist"));
    }

    private void printa(StringBuilder sb, Datum.Printa p) {
        if (p.aggs().length > 1) {
            // printa(@a, @b, ...): one row per key, each aggregation's value in turn
            if (p.format() == null) sb.append('\n');
            long[] normals = java.util.Arrays.stream(p.aggs()).mapToLong(table::normal).toArray();
            AggregationPrinter.printJoined(sb, (PrintfFormat) p.format(), p.aggs(), table.joined(p.aggs()), stackIndent(),
                    normals, histogramStyle());
            for (Aggregation a : p.aggs()) table.markPrinted(a);
            return;
        }
        for (Aggregation a : p.aggs()) {
            if (p.format() == null) {
                sb.append('\n');
                AggregationPrinter.printAll(sb, a, table.sorted(a), stackIndent(), table.normal(a), histogramStyle(),
                        this::spill);
            } else {
                AggregationPrinter.printFormatted(sb, (PrintfFormat) p.format(), a, table.sorted(a), table.normal(a),
                        histogramStyle());
            }
            table.markPrinted(a);
        }
    }

    /** "dtrace: 12 drops on CPU 0", one line per CPU, on stderr (dt_handle_cpudrop). */
    public void printDrops(Map<Integer, Long> drops) {
        drops.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            long n = e.getValue();
            err.print("dtrace: " + dropTag("DTRACEDROP_PRINCIPAL") + n + " drop" + (n > 1 ? "s" : "") + " on CPU "
                    + e.getKey() + "\n");
        });
        err.flush();
    }

    /** With option droptags, a drop report names its kind: "[DTRACEDROP_SPEC] ". */
    private String dropTag(String tag) {
        return state.options.isSet("droptags") ? "[" + tag + "] " : "";
    }

    /** dt_handle_status's report of faults in ERROR enablings, on stderr. */
    public void printDoubleErrors(long n) {
        err.print("dtrace: " + dropTag("DTRACEDROP_DBLERROR") + n + " error" + (n > 1 ? "s" : "") + " in ERROR probe enabling\n");
        err.flush();
    }

    /** dt_handle_status's report of dynamic variables that could not be made, on stderr. */
    public void printDynamicDrops(long n) {
        err.print("dtrace: " + dropTag("DTRACEDROP_DYNAMIC") + n + " dynamic variable drop" + (n > 1 ? "s" : "") + "\n");
        err.flush();
    }

    /** A warning of the consumer's own: {@code dtrace: line}. */
    public void printWarning(String line) {
        err.print("dtrace: " + line + "\n");
        err.flush();
    }

    /** Aggregation drops on one CPU: an aggregation buffer (aggsize) too small for a new key. */
    public void printAggregationDrops(int cpu, long n) {
        err.print("dtrace: " + dropTag("DTRACEDROP_AGGREGATION") + n + " aggregation drop" + (n > 1 ? "s" : "")
                + " on CPU " + cpu + "\n");
        err.flush();
    }

    /** dt_handle_status's speculation reports, on stderr, in its table's order: drops, busy, unavailable. */
    public void printSpeculationDrops(long failed, long busy, long drops) {
        if (drops > 0) {
            err.print("dtrace: " + dropTag("DTRACEDROP_SPEC") + drops + " speculative drop" + (drops > 1 ? "s" : "") + "\n");
        }
        if (busy > 0) {
            err.print("dtrace: " + dropTag("DTRACEDROP_SPECBUSY") + busy + " failed speculation" + (busy > 1 ? "s" : "")
                    + " (available buffer(s) still busy)\n");
        }
        if (failed > 0) {
            err.print("dtrace: " + dropTag("DTRACEDROP_SPECUNAVAIL") + failed + " failed speculation" + (failed > 1 ? "s" : "")
                    + " (no speculative buffer available)\n");
        }
        err.flush();
    }

    /** -x flamegraph=FILE: the stack-keyed aggregations' SVG; a file that cannot be written is one error line. */
    private void writeFlameGraph(String file, List<String> folded) {
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of(file), FlameGraph.svg(folded, "jdtrace flame graph"));
        } catch (java.io.IOException | RuntimeException e) {
            err.print("dtrace: failed to write flame graph " + file + ": " + e.getMessage() + "\n");
            err.flush();
        }
    }

    /** dtrace(1M)'s exit path: a newline, then every aggregation printa() did not print. */
    public void printEnd() {
        StringBuilder sb = new StringBuilder("\n");
        List<Aggregation> aggs = new java.util.ArrayList<>(state.aggregations());
        if (state.options.isSet("aggsortrev")) java.util.Collections.reverse(aggs); // dtrace sorts them too
        boolean folded = state.options.isSet("folded");
        String svg = state.options.getString("flamegraph");
        boolean drawn = svg != null && !svg.isEmpty();
        List<String> flame = new java.util.ArrayList<>();
        for (Aggregation a : aggs) {
            boolean printed = table.wasPrinted(a);
            if (printed && !drawn) continue;
            List<org.jdtrace.libdtrace.rt.AggregateTable.Entry> entries = table.sorted(a);
            // folded only where they are used (a profile's thousand stacks took 20 ms to fold)
            List<String> lines = (drawn || folded) && FlameGraph.foldable(a, entries) ? FlameGraph.fold(a, entries) : null;
            if (drawn && lines != null) flame.addAll(lines);
            if (printed) continue;
            if (folded && lines != null) {
                for (String line : lines) sb.append(line).append('\n');
            } else {
                AggregationPrinter.printAll(sb, a, entries, stackIndent(), table.normal(a), histogramStyle(),
                        this::spill);
            }
        }
        flush(sb);
        if (drawn) writeFlameGraph(svg, flame);
        if (out != stdout) {
            out.close();
            out = stdout;
        }
    }
}
