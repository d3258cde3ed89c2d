/*
 * PackedHistogram: -x aggpack, a quantize() or lquantize() aggregation printed one key a line,
 * as illumos' dt_print_aggs prints it with DTRACE_A_MINMAXBIN (dt_print_quanthdr_packed,
 * dt_print_quantize_packed, dt_print_lquantize_packed, dt_print_packed). One header for the
 * aggregation: "key" over the keys (each key 3, 5, 8 or 16 columns by its size, 16 for a string
 * or stack, plus one), "min", a dash per bucket shown, "max" and "count". Then each key's line:
 * its keys, the lowest bucket's value, one character per bucket (a space for none, the height of
 * its share of the total otherwise: UTF-8 lower blocks U+2581..U+2588, or "__xxxxXX" in ASCII;
 * "vvvvVV" for negative counts), the highest bucket's value, "|" and the sum of the counts.
 * quantize() shows the buckets from one below the lowest non-zero bucket of any key to one above
 * the highest (the zero bucket alone when there is no data); lquantize() always its whole range.
 * Counts are not normalized, as in illumos.
 *
 * -x agghist (hist): a count() or sum() aggregation as one histogram whose buckets are its keys
 * (dt_aggregate_total, dt_print_quanthdr, dt_print_quantline): the usual header with "key" over
 * the keys (packed widths as above), then each key and its value's bar, the share of the total
 * of the values' magnitudes (zoomed: of the largest over 0.95). illumos asserts that only count()
 * and sum() reach it; avg() and stddev() print as usual here.
 *
 * Consumer thread only; stateless.
 */
package org.jdtrace.libdtrace.print;

import java.util.List;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.AggregateTable.Entry;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.Tuple;

final class PackedHistogram {

    private static final String ASCII = "__xxxxXX", NEGATIVE = "vvvvVV";
    /** The first of the eight lower blocks (DTRACE_AGGPACK_BASE), one eighth high to full. */
    private static final char LOWER_BLOCKS = '\u2581';

    private PackedHistogram() {}

    static boolean packs(Aggregation a) {
        return a.kind == AggKind.QUANTIZE || a.kind == AggKind.LQUANTIZE;
    }

    /** The header, then each entry's line; {@code utf8}: blocks rather than ASCII letters. */
    static void print(StringBuilder out, Aggregation a, List<Entry> entries, int stackIndent, boolean zoom,
            boolean utf8) {
        if (entries.isEmpty()) return;
        int min, max, minWidth, maxWidth;
        if (a.kind == AggKind.QUANTIZE) {
            // dt_aggregate_minmaxbin over every key, then one bucket more on each side
            min = -1;
            max = -1;
            for (Entry e : entries) {
                long[] d = e.data();
                for (int i = 0; i < d.length; i++) {
                    if (d[i] == 0) continue;
                    if (min == -1 || i < min) min = i;
                    max = Math.max(max, i);
                }
            }
            if (min == -1) min = max = AggKind.QUANTIZE_ZEROBUCKET;
            if (min != 0 && min != AggKind.QUANTIZE_ZEROBUCKET) min--;
            if (max < AggKind.QUANTIZE_NBUCKETS - 1) max++;
            minWidth = digits(AggKind.bucketValue(min));
            maxWidth = digits(AggKind.bucketValue(max));
        } else {
            min = 0;
            max = a.lqLevels + 1;
            minWidth = 7;
            maxWidth = 8;
        }
        int keyWidth = 0;
        for (int i = 0; i < entries.get(0).key().size(); i++) keyWidth += width(a, entries.get(0).key(), i) + 1;
        out.append('\n').append(pad(keyWidth > 0 ? "key" : "", keyWidth)).append(' ').append(pad("min", minWidth))
                .append(" .").repeat('-', max - min + 1).append(". ").append(padRight("max", maxWidth)).append(" | count\n");
        for (Entry e : entries) {
            keys(out, a, e.key(), stackIndent);
            long[] d = e.data();
            double total = 0;
            long count = 0;
            for (int i = min; i <= max; i++) {
                double v = Math.abs((double) d[i]);
                total = zoom ? Math.max(total, v / 0.95) : total + v;
                count += d[i];
            }
            if (a.kind == AggKind.QUANTIZE) {
                long minValue = AggKind.bucketValue(min), maxValue = AggKind.bucketValue(max);
                out.append(' ').append(pad(Long.toString(minValue), digits(minValue))).append(" :");
                for (int i = min; i <= max; i++) bar(out, d[i], total, utf8);
                out.append(": ").append(padRight(Long.toString(maxValue), digits(maxValue)));
            } else {
                out.append(pad("< " + a.lqBase, 8)).append(" :");
                for (int i = min; i <= max; i++) bar(out, d[i], total, utf8);
                out.append(": ").append(padRight(">= " + (a.lqBase + a.lqLevels * a.lqStep), 8));
            }
            out.append(" | ").append(count).append('\n');
        }
    }

    /** -x agghist: the header, then each key and the bar of its value. */
    static void hist(StringBuilder out, Aggregation a, List<Entry> entries, int stackIndent, long normal,
            AggregationPrinter.Style style) {
        if (entries.isEmpty()) return;
        double total = 0;
        boolean pos = false, neg = false;
        for (Entry e : entries) {
            long v = e.data()[0];
            pos |= v > 0;
            neg |= v < 0;
            long m = Math.abs(v);
            if (style.zoom()) total = Math.max(total, (long) (m * (1 / 0.95)));
            else total += m;
        }
        int keyWidth = 0;
        for (int i = 0; i < entries.get(0).key().size(); i++) keyWidth += width(a, entries.get(0).key(), i) + 1;
        out.append('\n').append(pad(keyWidth > 0 ? "key" : "value", keyWidth > 0 ? keyWidth : 16)).append(' ')
                .append(pad("------------- Distribution -------------", 41)).append(' ').append(padRight("count", 9))
                .append('\n');
        AggregationPrinter.Totals t = new AggregationPrinter.Totals(total, pos, neg);
        for (Entry e : entries) {
            keys(out, a, e.key(), stackIndent);
            out.append(' ');
            AggregationPrinter.quantline(out, e.data()[0], t, normal, style.utf8());
        }
    }

    /** A key in its packed width: integers as in the default format, strings right-aligned in 16. */
    private static void keys(StringBuilder out, Aggregation a, Tuple key, int stackIndent) {
        for (int i = 0; i < key.size(); i++) {
            Object k = key.get(i);
            if (k instanceof String s) out.append(' ').append(pad(s, 16));
            else AggregationPrinter.printKey(out, a, k, i, stackIndent);
        }
    }

    /** The packed width of key {@code i} (dt_print_datum's fmttab): 3, 5, 8 or 16 by size, else 16. */
    private static int width(Aggregation a, Tuple key, int i) {
        if (!(key.get(i) instanceof Long)) return 16;
        int bytes = i < a.keySizes.length && a.keySizes[i] > 0 ? a.keySizes[i] : 8;
        return AggregationPrinter.widthOf(bytes);
    }

    /** dt_print_packed: one bucket's character. */
    private static void bar(StringBuilder out, long datum, double total, boolean utf8) {
        if (datum == 0) {
            out.append(' ');
        } else if (datum < 0) {
            out.append(NEGATIVE.charAt((int) (Math.abs(datum * (NEGATIVE.length() - 1.0)) / total + 0.5)));
        } else if (utf8) {
            out.append((char) (LOWER_BLOCKS + (int) (datum * 7.0 / total + 0.5)));
        } else {
            out.append(ASCII.charAt((int) (datum * (ASCII.length() - 1.0) / total + 0.5)));
        }
    }

    /** dt_ndigits: the columns of a value, at least 4 (its comparison is '>', so 10 counts as one digit). */
    static int digits(long val) {
        int n = 1;
        long cmp = 10;
        if (val < 0) {
            val = val == Long.MIN_VALUE ? Long.MAX_VALUE : -val;
            n++;
        }
        while (val > cmp && cmp > 0) {
            n++;
            cmp *= 10;
        }
        return Math.max(n, 4);
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }

    private static String padRight(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
