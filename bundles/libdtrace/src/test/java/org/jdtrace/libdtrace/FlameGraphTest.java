package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.jdtrace.libdtrace.print.FlameGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * -x folded and -x flamegraph=FILE on a real session: stacks of fixed user contexts folded root
 * first by function, and the SVG parsed back (javax.xml) frame by frame: each frame's width is
 * its share of the total, each child lies within its parent, one level up.
 */
class FlameGraphTest {

    private static final Map<Long, String> SYMBOLS = Map.of(0x401000L, "hello`work", 0x402000L, "hello`main",
            0x403000L, "hello`other");

    private static UserContext stack(long... pcs) {
        return new UserContext(new long[0], pcs, SYMBOLS, 0x100, 0, new byte[0]);
    }

    @Test
    void foldedLinesAreRootFirstByFunctionWithTheKeyPrefix(@TempDir Path tmp) throws Exception {
        Path svg = tmp.resolve("fg.svg");
        DRun r = DRun.script("#pragma D option quiet\n#pragma D option folded\n#pragma D option flamegraph=" + svg
                + "\ntest:::entry { @[probefunc, ustack()] = count(); }").go();
        // work+0x10 and work+0x20 under main fold into one line: 3; other under main: 1
        r.fire(DRun.ENTRY, stack(0x401010, 0x40202a)).fire(DRun.ENTRY, stack(0x401020, 0x40202a))
                .fire(DRun.ENTRY, stack(0x401010, 0x402030)).fire(DRun.ENTRY, stack(0x403004, 0x40202a));
        String out = r.end();
        assertTrue(out.contains("work;hello`main;hello`work 3\n"), out);
        assertTrue(out.contains("work;hello`main;hello`other 1\n"), out);

        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        NodeList gs = doc.getElementsByTagName("g");
        Map<String, double[]> frames = new HashMap<>(); // name -> samples, x, y, width
        Pattern title = Pattern.compile("(.*) \\((\\d+) samples, ([0-9.]+)%\\)");
        for (int i = 0; i < gs.getLength(); i++) {
            Element g = (Element) gs.item(i);
            Matcher m = title.matcher(g.getElementsByTagName("title").item(0).getTextContent());
            assertTrue(m.matches());
            Element rect = (Element) g.getElementsByTagName("rect").item(0);
            frames.put(m.group(1), new double[] {Long.parseLong(m.group(2)), Double.parseDouble(rect.getAttribute("x")),
                    Double.parseDouble(rect.getAttribute("y")), Double.parseDouble(rect.getAttribute("width"))});
        }
        assertEquals(5, frames.size(), frames.keySet().toString()); // all, work (the key), main, work, other
        double[] all = frames.get("all"), key = frames.get("work"), main = frames.get("hello`main"),
                work = frames.get("hello`work"), other = frames.get("hello`other");
        assertEquals(4, all[0]);
        assertEquals(4, main[0]);
        assertEquals(3, work[0]);
        assertEquals(1, other[0]);
        for (double[] f : new double[][] {key, main, work, other}) {
            assertEquals(f[0] / all[0] * all[3], f[3], 0.01, "width is the share");
        }
        assertEquals(FlameGraph.FRAME_HEIGHT, all[2] - key[2], 0.01, "one level up");
        assertEquals(FlameGraph.FRAME_HEIGHT, main[2] - work[2], 0.01);
        assertEquals(work[2], other[2], 0.01, "siblings on one level");
        assertTrue(work[1] >= main[1] && work[1] + work[3] <= main[1] + main[3] + 0.01, "work within main");
        assertTrue(other[1] + other[3] <= work[1] + 0.01 || other[1] >= work[1] + work[3] - 0.01, "siblings do not overlap");
        assertTrue(Files.readString(svg).startsWith("<?xml"));
    }

    @Test
    void aGraphAloneHoldsTheStacksPrintaPrintedAndFoldedAloneFoldsThePrintedOnes(@TempDir Path tmp) throws Exception {
        Path svg = tmp.resolve("fg.svg");
        DRun r = DRun.script("#pragma D option quiet\n#pragma D option flamegraph=" + svg
                + "\ntest:::entry { @[ustack()] = count(); } END { printa(@); }").go();
        r.fire(DRun.ENTRY, stack(0x401010, 0x40202a)).fire(DRun.ENTRY, stack(0x403004, 0x40202a));
        String out = r.end();
        assertTrue(out.contains("hello`work+0x10") && !out.contains("hello`main;"), out); // printa's stacks, no folded lines
        String graph = Files.readString(svg);
        assertTrue(graph.contains("<title>hello`work (1 samples") && graph.contains("<title>hello`main (2 samples"), graph);

        DRun f = DRun.script("#pragma D option quiet\n#pragma D option folded\ntest:::entry { @[ustack()] = count(); }").go();
        f.fire(DRun.ENTRY, stack(0x401010, 0x40202a)).fire(DRun.ENTRY, stack(0x401020, 0x40202a));
        assertTrue(f.end().contains("\nhello`main;hello`work 2\n"));
    }
}
