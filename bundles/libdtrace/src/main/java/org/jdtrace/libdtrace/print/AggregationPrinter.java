/*
 * AggregationPrinter: aggregations as dtrace(1M) prints them (dt_consume.c dt_print_aggs,
 * dt_print_datum, dt_print_quantize, dt_print_lquantize): each key, then the value, then a
 * newline. Keys print at their width (" %16lld", " %8d", " %5d", " %3d"; strings "  %-50s";
 * stacks as their frames on lines of their own, see StackPrinter),
 * scalar values as " %16lld", histograms as the 40-column '@' bar chart with one zero row
 * before the first and after the last non-zero bucket. A normalized aggregation (normalize())
 * prints each value, and each bucket's count, divided by its normalization factor, as
 * dt_print_datum does; bars and sorting stay those of the data. The display options (Style):
 * -x aggzoom scales the bars so the largest bucket is 95% of the width (dt_quantize_total's
 * DTRACE_AGGZOOM_MAX) instead of each bucket's share of the total; -x encoding=utf8 draws a
 * positive histogram's bars in Unicode block elements, full blocks and one eighth-step partial
 * block (dt_print_quantline_utf8).
 */
package org.jdtrace.libdtrace.print;

import java.util.List;
import java.util.function.IntFunction;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.AggregateTable;
import org.jdtrace.libdtrace.rt.AggregateTable.Entry;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.StackFrames;
import org.jdtrace.libdtrace.rt.Tuple;

public final class AggregationPrinter {

    private static final String HEADER = String.format("\n%16s %41s %-9s\n", "value",
            "------------- Distribution -------------", "count");
    private static final int BAR = 40;

    private AggregationPrinter() {}

    /**
     * How histograms are drawn: zoomed (-x aggzoom), in UTF-8 blocks (-x encoding=utf8); packed
     * one key a line (-x aggpack, PackedHistogram), in UTF-8 blocks or ASCII letters; counts and
     * sums as one histogram, a bar a key (-x agghist).
     */
    public record Style(boolean zoom, boolean utf8, boolean pack, boolean packUtf8, boolean hist) {
        public static final Style PLAIN = new Style(false, false);

        public Style(boolean zoom, boolean utf8) {
            this(zoom, utf8, false, false, false);
        }

        public Style(boolean zoom, boolean utf8, boolean pack, boolean packUtf8) {
            this(zoom, utf8, pack, packUtf8, false);
        }
    }

    /**
     * The default format of every entry (printa(@a) and the print at exit); stack keys print
     * their frames after {@code stackIndent} spaces, the value then following the last frame's line.
     */
    public static void printAll(StringBuilder out, Aggregation a, List<Entry> entries, int stackIndent) {
        printAll(out, a, entries, stackIndent, 1);
    }

    /** {@link #printAll(StringBuilder, Aggregation, List, int)} of an aggregation normalized by {@code normal}. */
    public static void printAll(StringBuilder out, Aggregation a, List<Entry> entries, int stackIndent, long normal) {
        printAll(out, a, entries, stackIndent, normal, Style.PLAIN);
    }

    /** {@link #printAll(StringBuilder, Aggregation, List, int, long)} with histograms drawn in {@code style}. */
    public static void printAll(StringBuilder out, Aggregation a, List<Entry> entries, int stackIndent, long normal,
                                Style style) {
        printAll(out, a, entries, stackIndent, normal, style, null);
    }

    /**
     * {@link #printAll(StringBuilder, Aggregation, List, int, long, Style)}, handing {@code out} to
     * {@code spill} after each entry of the default format (not null), which may write it out
     * and empty it: a profile's megabytes of stacks need not be held in one buffer.
     */
    public static void printAll(StringBuilder out, Aggregation a, List<Entry> entries, int stackIndent, long normal,
                                Style style, java.util.function.Consumer<StringBuilder> spill) {
        if (style.hist() && (a.kind == AggKind.COUNT || a.kind == AggKind.SUM)) {
            PackedHistogram.hist(out, a, entries, stackIndent, normal, style);
            return;
        }
        if (style.pack() && PackedHistogram.packs(a)) {
            PackedHistogram.print(out, a, entries, stackIndent, style.zoom(), style.packUtf8());
            return;
        }
        for (Entry e : entries) {
            printKeys(out, a, e.key(), stackIndent);
            printValue(out, a, e.data(), normal, style);
            out.append('\n');
            if (spill != null) spill.accept(out);
        }
    }

    /** printa("format", @a): keys then value feed the format; %@ conversions take the value. */
    public static void printFormatted(StringBuilder out, PrintfFormat fmt, Aggregation a, List<Entry> entries) {
        printFormatted(out, fmt, a, entries, 1);
    }

    /** printa("format", @a) of an aggregation normalized by {@code normal}. */
    public static void printFormatted(StringBuilder out, PrintfFormat fmt, Aggregation a, List<Entry> entries,
                                      long normal) {
        printFormatted(out, fmt, a, entries, normal, Style.PLAIN);
    }

    /** printa("format", @a) normalized by {@code normal}, histograms drawn in {@code style}. */
    public static void printFormatted(StringBuilder out, PrintfFormat fmt, Aggregation a, List<Entry> entries,
                                      long normal, Style style) {
        for (Entry e : entries) {
            Tuple k = e.key();
            Object[] args = new Object[k.size() + 1];
            int[] sizes = new int[k.size() + 1];
            for (int i = 0; i < k.size(); i++) {
                args[i] = k.get(i);
                sizes[i] = i < a.keySizes.length ? a.keySizes[i] : 8;
            }
            args[k.size()] = a.scalar(e.data(), normal);
            sizes[k.size()] = 8;
            fmt.format(out, args, sizes, (o, idx, c, width, precision, minus) -> {
                if (a.kind.histogram()) {
                    printValue(o, a, e.data(), normal, style);
                } else {
                    PrintfFormat.formatOne(o, c, width, precision, minus, a.scalar(e.data(), normal), 8);
                }
            });
        }
    }

    /**
     * printa with several aggregations: the keys (formatted by the first aggregation's key
     * widths), then the value of each aggregation; a format's n-th %@ conversion takes the n-th
     * aggregation (the last one for any beyond).
     */
    public static void printJoined(StringBuilder out, PrintfFormat fmt, Aggregation[] aggs,
                                   List<AggregateTable.JoinedEntry> entries, int stackIndent) {
        long[] ones = new long[aggs.length];
        java.util.Arrays.fill(ones, 1);
        printJoined(out, fmt, aggs, entries, stackIndent, ones);
    }

    /** printa with several aggregations, each normalized by its {@code normals[i]}. */
    public static void printJoined(StringBuilder out, PrintfFormat fmt, Aggregation[] aggs,
                                   List<AggregateTable.JoinedEntry> entries, int stackIndent, long[] normals) {
        printJoined(out, fmt, aggs, entries, stackIndent, normals, Style.PLAIN);
    }

    /** printa with several aggregations, each normalized by its {@code normals[i]}, histograms in {@code style}. */
    public static void printJoined(StringBuilder out, PrintfFormat fmt, Aggregation[] aggs,
                                   List<AggregateTable.JoinedEntry> entries, int stackIndent, long[] normals,
                                   Style style) {
        Aggregation first = aggs[0];
        for (AggregateTable.JoinedEntry e : entries) {
            Tuple k = e.key();
            if (fmt == null) {
                printKeys(out, first, k, stackIndent);
                for (int i = 0; i < aggs.length; i++) printValue(out, aggs[i], e.data()[i], normals[i], style);
                out.append('\n');
                continue;
            }
            Object[] args = new Object[k.size()];
            int[] sizes = new int[k.size()];
            for (int i = 0; i < k.size(); i++) {
                args[i] = k.get(i);
                sizes[i] = i < first.keySizes.length ? first.keySizes[i] : 8;
            }
            fmt.format(out, args, sizes, (o, idx, c, width, precision, minus) -> {
                int i = Math.min(idx, aggs.length - 1);
                Aggregation a = aggs[i];
                if (a.kind.histogram()) {
                    printValue(o, a, e.data()[i], normals[i], style);
                } else {
                    PrintfFormat.formatOne(o, c, width, precision, minus, a.scalar(e.data()[i], normals[i]), 8);
                }
            });
        }
    }

    static void printKeys(StringBuilder out, Aggregation a, Tuple key, int stackIndent) {
        for (int i = 0; i < key.size(); i++) printKey(out, a, key.get(i), i, stackIndent);
    }

    /** Key {@code i} of an entry, {@code k}, in the default format. */
    static void printKey(StringBuilder out, Aggregation a, Object k, int i, int stackIndent) {
        if (k instanceof StackFrames st) {
            StackPrinter.print(out, st.frames(), stackIndent);
        } else if (k instanceof String s) {
            out.append("  ");
            PrintfFormat.pad(out, s, 50, true, false);
        } else {
            int w = i < a.keySizes.length && a.keySizes[i] > 0 ? a.keySizes[i] : 8;
            intAtWidth(out.append(' '), k instanceof Long l ? l : 0, w, widthOf(w));
        }
    }

    static int widthOf(int bytes) {
        return switch (bytes) {
            case 1 -> 3;
            case 2 -> 5;
            case 4 -> 8;
            default -> 16;
        };
    }

    /** How dtrace prints an integer of a given byte width: 1 and 2 unsigned, 4 and 8 signed, right-aligned. */
    static void intAtWidth(StringBuilder out, long v, int bytes, int width) {
        long x = switch (bytes) {
            case 1 -> v & 0xff;
            case 2 -> v & 0xffff;
            case 4 -> (int) v;
            default -> v;
        };
        PrintfFormat.pad(out, Long.toString(x), width, false, false);
    }

    /** The value part of the default format. */
    public static void printValue(StringBuilder out, Aggregation a, long[] d) {
        printValue(out, a, d, 1);
    }

    /** The value part of the default format, normalized by {@code normal}. */
    public static void printValue(StringBuilder out, Aggregation a, long[] d, long normal) {
        printValue(out, a, d, normal, Style.PLAIN);
    }

    /** The value part of the default format, normalized by {@code normal}, histograms in {@code style}. */
    public static void printValue(StringBuilder out, Aggregation a, long[] d, long normal, Style style) {
        switch (a.kind) {
            case QUANTIZE -> quantize(out, d, normal, style);
            case LQUANTIZE -> lquantize(out, a, d, normal, style);
            case LLQUANTIZE -> llquantize(out, a, d, normal, style);
            default -> intAtWidth(out.append(' '), a.scalar(d, normal), 8, 16);
        }
    }

    static void quantize(StringBuilder out, long[] d, long normal, Style style) {
        histogram(out, d, AggKind.QUANTIZE_ZEROBUCKET - 1, i -> Long.toString(AggKind.bucketValue(i)), normal, style);
    }

    static void lquantize(StringBuilder out, Aggregation a, long[] d, long normal, Style style) {
        int levels = a.lqLevels;
        histogram(out, d, 0, i -> i == 0 ? "< " + a.lqBase
                : i == levels + 1 ? ">= " + (a.lqBase + levels * a.lqStep)
                : Long.toString(a.lqBase + (i - 1) * a.lqStep), normal, style);
    }

    /** dt_print_llquantize; with no data, the zero bucket and the two after it. */
    static void llquantize(StringBuilder out, Aggregation a, long[] d, long normal, Style style) {
        histogram(out, d, d.length / 2, a.llq::label, normal, style);
    }

    /**
     * dt_print_quantize and friends: the buckets from one before the first non-zero to one after
     * the last (three from {@code emptyFirst} when all are zero), each with its label and bar.
     */
    private static void histogram(StringBuilder out, long[] d, int emptyFirst, IntFunction<String> label, long normal,
                                  Style style) {
        int n = d.length;
        int first = 0, last = n - 1;
        while (first < n && d[first] == 0) first++;
        if (first == n) {
            first = emptyFirst;
            last = emptyFirst + 2;
        } else {
            if (first > 0) first--;
            while (last > 0 && d[last] == 0) last--;
            if (last < n - 1) last++;
        }
        Totals t = totals(d, first, last, style.zoom());
        out.append(HEADER);
        for (int i = first; i <= last; i++) {
            out.append(String.format("%16s ", label.apply(i)));
            quantline(out, d[i], t, normal, style.utf8());
        }
    }

    record Totals(double total, boolean positives, boolean negatives) {}

    /** The largest bucket's share of a zoomed bar (DTRACE_AGGZOOM_MAX). */
    private static final double ZOOM_MAX = 0.95;

    /**
     * dt_quantize_total over the buckets shown: the sum of their magnitudes, or zoomed, the
     * largest magnitude over ZOOM_MAX.
     */
    private static Totals totals(long[] d, int first, int last, boolean zoom) {
        double total = 0;
        boolean pos = false, neg = false;
        for (int i = first; i <= last; i++) {
            pos |= d[i] > 0;
            neg |= d[i] < 0;
            double val = Math.abs((double) d[i]);
            if (zoom) total = Math.max(total, val * (1 / ZOOM_MAX));
            else total += val;
        }
        return new Totals(total, pos, neg);
    }

    /** UTF-8 bars: the full block, and the left seven-eighths block down to the one-eighth one. */
    private static final char FULL_BLOCK = '\u2588', EIGHTHS_BASE = '\u258f';

    /** dt_print_quantline: the bar and the count of one bucket. */
    static void quantline(StringBuilder out, long val, Totals t, long normal, boolean utf8) {
        int len = BAR;
        if (!t.negatives() && t.positives() && utf8) {
            // dt_print_quantline_utf8: whole blocks, then the eighths left over as one partial block
            double f = Math.abs((double) val) * len / t.total();
            int whole = (int) f;
            int partial = (int) ((f - whole) * 8);
            out.append('|').repeat(FULL_BLOCK, whole);
            int used = whole;
            if (partial != 0) {
                out.append((char) (EIGHTHS_BASE - (partial - 1)));
                used++;
            }
            out.repeat(' ', len - used).append(' ').append(String.format("%-9d", val / normal)).append('\n');
            return;
        }
        if (!t.negatives()) {
            int depth = t.positives() ? (int) (Math.abs((double) val) * len / t.total() + 0.5) : 0;
            out.append('|').repeat('@', depth).repeat(' ', len - depth);
            out.append(' ').append(String.format("%-9d", val / normal)).append('\n');
            return;
        }
        if (!t.positives()) {
            int depth = (int) (Math.abs((double) val) * len / t.total() + 0.5);
            out.repeat(' ', len - depth).repeat('@', depth).append("| ");
            out.append(String.format("%-9d", val / normal)).append('\n');
            return;
        }
        len /= 2;
        int depth = (int) (Math.abs((double) val) * len / t.total() + 0.5);
        if (val <= 0) {
            out.repeat(' ', len - depth).repeat('@', depth).append('|').repeat(' ', len);
        } else {
            out.repeat(' ', 20).append('|').repeat('@', depth).repeat(' ', len - depth);
        }
        out.append(' ').append(String.format("%-9d", val / normal)).append('\n');
    }
}
