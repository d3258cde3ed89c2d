/*
 * RecordPrinter: the consumer's output of principal-buffer records, as dtrace(1M)'s chew() and
 * chewrec() over dt_consume_cpu(): without quiet, the first record prints the heading
 * "CPU     ID                    FUNCTION:NAME" and every record a "%3d %6d %32s " probe line,
 * then its data, then a newline; with quiet only the data. trace() of integers prints
 * " %16lld"/" %8d"/" %5d"/" %3d" by width (quiet: "%d"), of strings "  %-33s" (quiet: "%s").
 * clear()/trunc() records act on the aggregate table, exit() records print nothing, fault
 * reports go to stderr as dtrace's default ERROR handler words them. Consumer thread only.
 */
package org.jdtrace.core.d.print;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.jdtrace.core.d.rt.AggregateTable;
import org.jdtrace.core.d.rt.Aggregation;
import org.jdtrace.core.d.rt.DState;
import org.jdtrace.core.d.rt.Datum;
import org.jdtrace.core.d.rt.Record;
import org.jdtrace.spi.Probe;

public final class RecordPrinter {

    private final DState state;
    private final AggregateTable table;
    private final IntFunction<Probe> probes;
    private final PrintStream out;
    private final PrintStream err;
    private boolean heading;

    public RecordPrinter(DState state, AggregateTable table, IntFunction<Probe> probes, PrintStream out,
                         PrintStream err) {
        this.state = state;
        this.table = table;
        this.probes = probes;
        this.out = out;
        this.err = err;
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
                    sb.append(String.format("%3s %6s %32s\n", "CPU", "ID", "FUNCTION:NAME"));
                    heading = true;
                }
                Probe p = probes.apply(r.epid());
                String name = p == null ? ":" : p.function() + ":" + p.name();
                sb.append(String.format("%3d %6d %32s ", r.cpu(), p == null ? 0 : p.id(), name));
            }
            for (Datum d : r.data()) datum(sb, d, quiet);
            if (!quiet) sb.append('\n');
        }
        flush(sb);
    }

    private void flush(StringBuilder sb) {
        if (sb.length() > 0) {
            out.print(sb);
            out.flush();
            sb.setLength(0);
        }
    }

    private void datum(StringBuilder sb, Datum d, boolean quiet) {
        switch (d) {
            case Datum.TraceInt t -> {
                if (quiet) sb.append(AggregationPrinter.intAtWidth(t.value(), t.width(), 0));
                else sb.append(' ').append(AggregationPrinter.intAtWidth(t.value(), t.width(),
                        AggregationPrinter.widthOf(t.width())));
            }
            case Datum.TraceStr s -> {
                if (quiet) sb.append(s.value());
                else {
                    sb.append("  ");
                    PrintfFormat.pad(sb, s.value(), 33, true, false);
                }
            }
            case Datum.Printf p -> p.format().format(sb, p.args(), p.widths());
            case Datum.Printa p -> printa(sb, p);
            case Datum.Clear c -> table.clear(c.agg());
            case Datum.Trunc t -> table.trunc(t.agg(), t.keep(), t.all());
            case Datum.Exit e -> { }
            case Datum.Error e -> { }
        }
    }

    private void printa(StringBuilder sb, Datum.Printa p) {
        for (Aggregation a : p.aggs()) {
            if (p.format() == null) {
                sb.append('\n');
                AggregationPrinter.printAll(sb, a, table.sorted(a));
            } else {
                AggregationPrinter.printFormatted(sb, p.format(), a, table.sorted(a));
            }
            table.markPrinted(a);
        }
    }

    /** "dtrace: 12 drops on CPU 0", one line per CPU, on stderr (dt_handle_cpudrop). */
    public void printDrops(Map<Integer, Long> drops) {
        drops.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            long n = e.getValue();
            err.print("dtrace: " + n + " drop" + (n > 1 ? "s" : "") + " on CPU " + e.getKey() + "\n");
        });
        err.flush();
    }

    /** dtrace(1M)'s exit path: a newline, then every aggregation printa() did not print. */
    public void printEnd() {
        StringBuilder sb = new StringBuilder("\n");
        for (Aggregation a : state.aggregations()) {
            if (table.wasPrinted(a)) continue;
            AggregationPrinter.printAll(sb, a, table.sorted(a));
        }
        flush(sb);
    }
}
