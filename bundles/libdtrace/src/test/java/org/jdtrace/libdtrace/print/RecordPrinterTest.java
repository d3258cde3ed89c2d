package org.jdtrace.libdtrace.print;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.AggregateTable;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.DThread;
import org.jdtrace.libdtrace.rt.StackFrames;
import org.jdtrace.libdtrace.rt.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The aggregations dtrace prints at exit (RecordPrinter.printEnd): written out in pieces and as
 * bytes of the stream's charset, they are the bytes PrintStream.print writes of the whole text.
 */
class RecordPrinterTest {

    /** printEnd's bytes on a stream of {@code cs}, and the bytes print() writes of the default format's text. */
    private static void printsAsPrintStreamDoes(DState state, Charset cs) {
        AggregateTable table = new AggregateTable(state);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(got, false, cs);
        new RecordPrinter(state, table, epid -> null, out, System.err).printEnd();

        StringBuilder text = new StringBuilder("\n");
        for (Aggregation a : state.aggregations()) AggregationPrinter.printAll(text, a, table.sorted(a), 14);
        ByteArrayOutputStream want = new ByteArrayOutputStream();
        PrintStream ref = new PrintStream(want, false, cs);
        ref.print(text);
        ref.flush();
        assertArrayEquals(want.toByteArray(), got.toByteArray(), cs.name());
    }

    @Test
    void keysBeyondAsciiAreTheBytesPrintWritesInEveryCharset() {
        DState state = new DState();
        Aggregation a = state.aggregation("s", AggKind.COUNT, new int[] {0}, 0, 0, 0);
        DThread t = state.thread();
        // Latin-1, CJK, a surrogate pair and a lone surrogate (which an encoder replaces)
        for (String k : List.of("plain", "caf\u00e9", "\u6f22\u5b57", "smile \ud83d\ude00", "lone \ud800 x")) {
            t.aggregate(a, Tuple.of(k), 0, 1);
        }
        for (Charset cs : List.of(StandardCharsets.UTF_8, StandardCharsets.US_ASCII, StandardCharsets.ISO_8859_1)) {
            printsAsPrintStreamDoes(state, cs);
        }
    }

    @Test
    void aProfileOfThousandsOfStacksIsWrittenInPiecesWithTheSameBytes() {
        DState state = new DState();
        Aggregation a = state.aggregation("p", AggKind.COUNT, new int[] {8}, 0, 0, 0);
        Aggregation b = state.aggregation("q", AggKind.SUM, new int[] {8}, 0, 0, 0);
        DThread t = state.thread();
        java.util.Random r = new java.util.Random(21);
        for (int i = 0; i < 4000; i++) {
            List<String> frames = new ArrayList<>();
            for (int f = 0, n = 1 + r.nextInt(15); f < n; f++) frames.add("lib" + r.nextInt(5) + ".so`fn" + r.nextInt(300) + "+0x" + Integer.toHexString(r.nextInt(4096)));
            StackFrames k = new StackFrames(frames);
            for (int c = r.nextInt(3); c >= 0; c--) t.aggregate(a, Tuple.of(k), 0, 1);
            t.aggregate(b, Tuple.of(k), r.nextInt(1000) - 500, 1);
        }
        AggregateTable table = new AggregateTable(state);
        StringBuilder text = new StringBuilder();
        AggregationPrinter.printAll(text, a, table.sorted(a), 14);
        assertTrue(text.length() > 4 * 64 * 1024, "several pieces: " + text.length());
        for (Charset cs : List.of(StandardCharsets.UTF_8, StandardCharsets.US_ASCII)) printsAsPrintStreamDoes(state, cs);
    }

    @Test
    void entriesSortByValueThenKeyOrKeyThenValueAndReversed() throws Exception {
        // the order dt_aggregate_valcmp/keycmp give, spelled as a comparator chain over the same entries
        for (String opts : List.of("", "aggsortkey", "aggsortrev", "aggsortkey,aggsortrev")) {
            DState state = new DState();
            for (String o : opts.split(",")) if (!o.isEmpty()) state.options.set(o, null);
            Aggregation a = state.aggregation("c", AggKind.COUNT, new int[] {0, 4}, 0, 0, 0);
            DThread t = state.thread();
            java.util.Random r = new java.util.Random(7);
            for (int i = 0; i < 500; i++) {
                Tuple k = Tuple.of("k" + r.nextInt(40), (long) r.nextInt(9) - 4);
                for (int c = r.nextInt(4); c >= 0; c--) t.aggregate(a, k, 0, 1);
            }
            List<AggregateTable.Entry> got = new AggregateTable(state).sorted(a);
            Comparator<AggregateTable.Entry> byValue = Comparator.comparingLong(e -> e.data()[0]);
            Comparator<AggregateTable.Entry> byKey = Comparator.<AggregateTable.Entry, String>comparing(e -> (String) e.key().get(0))
                    .thenComparing(e -> (long) e.key().get(1) & 0xffffffffL, Long::compareUnsigned);
            Comparator<AggregateTable.Entry> order = opts.startsWith("aggsortkey") ? byKey.thenComparing(byValue)
                    : byValue.thenComparing(byKey);
            if (opts.contains("aggsortrev")) order = order.reversed();
            List<AggregateTable.Entry> want = new ArrayList<>(got);
            want.sort(order);
            assertEquals(want, got, opts);
            assertEquals(got.size(), got.stream().map(AggregateTable.Entry::key).distinct().count());
        }
    }
}
