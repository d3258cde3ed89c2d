package org.jdtrace.libdtrace.print;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.AggregateTable;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.DThread;
import org.jdtrace.libdtrace.rt.Tuple;
import org.junit.jupiter.api.Test;

/** Expected texts follow dt_consume.c's formats; the histograms are those of dtrace-utils' aggs/tst.multiaggs3.r. */
class AggregationPrinterTest {

    private final DState state = new DState();
    private final AggregateTable table = new AggregateTable(state);

    private static String row(String label, int at, long count) {
        return String.format("%16s |%s%s %-9d\n", label, "@".repeat(at), " ".repeat(40 - at), count);
    }

    private static final String HDR = "\n           value  ------------- Distribution ------------- count    \n";

    @Test
    void quantizeAsDtrace() {
        Aggregation a = state.aggregation("f", AggKind.QUANTIZE, new int[0], 0, 0, 0);
        DThread t = state.thread();
        for (long i = 0; i < 1000; i += 100) t.aggregate(a, i, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, a, table.sorted(a), 14);
        String expected = HDR + row("-1", 0, 0) + row("0", 4, 1) + row("1", 0, 0) + row("2", 0, 0) + row("4", 0, 0)
                + row("8", 0, 0) + row("16", 0, 0) + row("32", 0, 0) + row("64", 4, 1) + row("128", 4, 1)
                + row("256", 12, 3) + row("512", 16, 4) + row("1024", 0, 0) + "\n";
        assertEquals(expected, sb.toString());
    }

    @Test
    void zoomedBarsMakeTheLargestBucketNinetyFivePercentOfTheWidth() {
        // dt_quantize_total with aggzoom: total = largest / 0.95, so 3 of (3 / 0.95) is 38
        // columns and 1 is 13 (12.67 rounded), where unzoomed they are 30 and 10 of 40
        Aggregation a = quantized("z", 1, 3, 4, 1);
        assertEquals(HDR + row("0", 0, 0) + row("1", 38, 3) + row("2", 0, 0) + row("4", 13, 1) + row("8", 0, 0) + "\n",
                printed(a, new AggregationPrinter.Style(true, false)));
        assertEquals(HDR + row("0", 0, 0) + row("1", 30, 3) + row("2", 0, 0) + row("4", 10, 1) + row("8", 0, 0) + "\n",
                printed(a, AggregationPrinter.Style.PLAIN));
    }

    /** A quantize() aggregation given (value, increment) pairs. */
    private Aggregation quantized(String name, long... valueIncrement) {
        Aggregation a = state.aggregation(name, AggKind.QUANTIZE, new int[0], 0, 0, 0);
        DThread t = state.thread();
        for (int i = 0; i < valueIncrement.length; i += 2) t.aggregate(a, valueIncrement[i], valueIncrement[i + 1]);
        return a;
    }

    private String printed(Aggregation a, AggregationPrinter.Style style) {
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, a, table.sorted(a), 14, 1, style);
        return sb.toString();
    }

    @Test
    void utf8BarsAreWholeBlocksAndOneEighthsBlock() {
        // dt_print_quantline_utf8: 40 * 2 / 3 = 26.67 columns is 26 full blocks and 5/8 (U+258B);
        // 40 / 3 = 13.33 is 13 and 2/8 (U+258E)
        Aggregation a = quantized("u", 1, 2, 2, 1);
        String full = "\u2588";
        assertEquals(HDR
                + String.format("%16s |%s %-9d\n", "0", " ".repeat(40), 0)
                + String.format("%16s |%s%s%s %-9d\n", "1", full.repeat(26), "\u258b", " ".repeat(13), 2)
                + String.format("%16s |%s%s%s %-9d\n", "2", full.repeat(13), "\u258e", " ".repeat(26), 1)
                + String.format("%16s |%s %-9d\n", "4", " ".repeat(40), 0) + "\n", printed(a, new AggregationPrinter.Style(false, true)));
    }

    @Test
    void aNormalizedStddevIsTheStddevOfTheValuesDividedByTheFactor() {
        // 10, 20, 60: sqrt(4100 / 3 - 30^2) = 21; normalized by 2 (illumos' dt_stddev: the sum
        // of squares by 2 twice): sqrt(4100 / 2 / 2 / 3 - (90 / 2 / 3)^2) = sqrt(341 - 225) = 10
        Aggregation a = state.aggregation("s", AggKind.STDDEV, new int[0], 0, 0, 0);
        DThread t = state.thread();
        for (long v : new long[] {10, 20, 60}) t.aggregate(a, v, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, a, table.sorted(a), 14, 1);
        AggregationPrinter.printAll(sb, a, table.sorted(a), 14, 2);
        assertEquals(String.format(" %16d\n %16d\n", 21, 10), sb.toString());
    }

    @Test
    void packedHistogramsAreOneLineAKeyUnderOneHeader() {
        // -x aggpack (dt_print_quantize_packed): the buckets of every key from the zero bucket
        // (no bucket below it) to one above 16..31; a bucket's letter is its share of the key's
        // total in "__xxxxXX" (2 of 3: 2 * 7 / 3 + 0.5 = 5, 'x'; 1 of 1: 'X'); an int key is 8
        // columns and one more under "key"; "min" and "max" are at least 4 columns (dt_ndigits)
        Aggregation a = state.aggregation("p", AggKind.QUANTIZE, new int[] {4}, 0, 0, 0);
        DThread t = state.thread();
        t.aggregate(a, Tuple.of(1L), 3, 2);
        t.aggregate(a, Tuple.of(1L), 20, 1);
        t.aggregate(a, Tuple.of(22L), 0, 1);
        assertEquals("\n      key  min .-------. max  | count\n"
                + "       22    0 :X      : 32   | 1\n"
                + "        1    0 :  x  x : 32   | 3\n", printed(a, new AggregationPrinter.Style(false, false, true, false)));
        // in UTF-8 the eighths blocks from U+2581: 2 of 3 is U+2586, 1 of 3 U+2583
        assertEquals("        1    0 :  \u2586  \u2583 : 32   | 3\n",
                printed(a, new AggregationPrinter.Style(false, false, true, true)).lines().skip(3).findFirst().orElseThrow()
                        + "\n");
        // lquantize(): its whole range, "< base" to ">= limit" (1 of 2: 1 * 7 / 2 + 0.5 = 4, 'x');
        // a string key is 16 columns
        Aggregation l = state.aggregation("l", AggKind.LQUANTIZE, new int[] {0}, 0, 10, 2);
        t.aggregate(l, Tuple.of("abc"), 3, 1);
        t.aggregate(l, Tuple.of("abc"), -1, 1);
        assertEquals("\n              key     min .-------. max      | count\n"
                + "              abc     < 0 :x x    : >= 10    | 2\n",
                printed(l, new AggregationPrinter.Style(false, false, true, false)));
        assertEquals(4, PackedHistogram.digits(10));
        assertEquals(5, PackedHistogram.digits(-1024));
        assertEquals(6, PackedHistogram.digits(123456));
    }

    @Test
    void agghistDrawsACountAsOneHistogramWhoseBucketsAreItsKeys() {
        // dt_print_quanthdr with "key" over 17 columns (a string key: 16 and one), then each key
        // (right-aligned in 16) and its bar: 1 of 3 is 13 columns (13.8), 2 of 3 is 27 (27.2)
        Aggregation c = state.aggregation("h", AggKind.COUNT, new int[] {0}, 0, 0, 0);
        DThread t = state.thread();
        t.aggregate(c, Tuple.of("a"), 0, 1);
        t.aggregate(c, Tuple.of("b"), 0, 1);
        t.aggregate(c, Tuple.of("b"), 0, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, c, table.sorted(c), 14, 1, new AggregationPrinter.Style(false, false, false, false, true));
        assertEquals(String.format("\n%17s %41s %-9s\n", "key", "------------- Distribution -------------", "count")
                + " " + row("a", 13, 1) + " " + row("b", 27, 2), sb.toString());
    }

    @Test
    void lquantizeAsDtrace() {
        Aggregation a = state.aggregation("g", AggKind.LQUANTIZE, new int[0], 0, 1000, 100);
        DThread t = state.thread();
        for (long i = 0; i < 1000; i += 100) t.aggregate(a, i, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, a, table.sorted(a), 14);
        StringBuilder exp = new StringBuilder(HDR).append(row("< 0", 0, 0));
        for (int v = 0; v < 1000; v += 100) exp.append(row(String.valueOf(v), 4, 1));
        exp.append(row(">= 1000", 0, 0)).append("\n");
        assertEquals(exp.toString(), sb.toString());
    }

    @Test
    void negativeValuesAndNegativeCounts() {
        Aggregation a = state.aggregation("q", AggKind.QUANTIZE, new int[0], 0, 0, 0);
        DThread t = state.thread();
        t.aggregate(a, -3, 1);
        t.aggregate(a, -3, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, a, table.sorted(a), 14);
        assertEquals(HDR + row("-4", 0, 0) + row("-2", 40, 2) + row("-1", 0, 0) + "\n", sb.toString());
        // a negative increment gives a negative count: bars grow to the left of the axis
        Aggregation n = state.aggregation("n", AggKind.QUANTIZE, new int[0], 0, 0, 0);
        t.aggregate(n, 1, -2);
        sb.setLength(0);
        AggregationPrinter.printAll(sb, n, table.sorted(n), 14);
        String neg = "%16s %s%s| %-9d\n";
        assertEquals(HDR + String.format(neg, "0", " ".repeat(40), "", 0)
                + String.format(neg, "1", "", "@".repeat(40), -2) + String.format(neg, "2", " ".repeat(40), "", 0)
                + "\n", sb.toString());
    }

    @Test
    void scalarsWithKeysSortedByValueThenKey() {
        Aggregation a = state.aggregation("c", AggKind.COUNT, new int[] {0}, 0, 0, 0);
        DThread t = state.thread();
        for (int i = 0; i < 10; i++) t.aggregate(a, Tuple.of("tick-count"), 0, 1);
        t.aggregate(a, Tuple.of("b"), 0, 1);
        t.aggregate(a, Tuple.of("a"), 0, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, a, table.sorted(a), 14);
        String expected = "  a" + " ".repeat(49) + "                1\n"
                + "  b" + " ".repeat(49) + "                1\n"
                + "  tick-count" + " ".repeat(40) + "               10\n";
        assertEquals(expected, sb.toString());
        assertEquals(69, sb.toString().split("\n")[2].length());
    }

    @Test
    void keylessIntKeysAvgAndClearTrunc() {
        Aggregation cnt = state.aggregation("a", AggKind.COUNT, new int[0], 0, 0, 0);
        Aggregation avg = state.aggregation("v", AggKind.AVG, new int[] {4}, 0, 0, 0);
        DThread t = state.thread();
        t.count(cnt);
        t.count(cnt);
        t.aggregate(avg, Tuple.of(-1L), 10, 1);
        t.aggregate(avg, Tuple.of(-1L), 21, 1);
        t.aggregate(avg, Tuple.of(7L), 3, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printAll(sb, cnt, table.sorted(cnt), 14);
        AggregationPrinter.printAll(sb, avg, table.sorted(avg), 14);
        assertEquals("                2\n        7                3\n       -1               15\n", sb.toString());

        table.clear(cnt);
        t.count(cnt);
        assertEquals(1, table.sorted(cnt).get(0).data()[0]);
        table.trunc(avg, 1, false);
        List<AggregateTable.Entry> left = table.sorted(avg);
        assertEquals(1, left.size());
        assertEquals(-1L, left.get(0).key().get(0));
    }

    @Test
    void printaFormatTakesKeysThenValue() {
        Aggregation a = state.aggregation("s", AggKind.SUM, new int[] {0, 8}, 0, 0, 0);
        state.thread().aggregate(a, Tuple.of("x", 3L), 40, 1);
        state.thread().aggregate(a, Tuple.of("x", 3L), 2, 1);
        StringBuilder sb = new StringBuilder();
        AggregationPrinter.printFormatted(sb, PrintfFormat.parse("%s/%d = %@5d\n"), a, table.sorted(a));
        assertEquals("x/3 =    42\n", sb.toString());
    }
}
