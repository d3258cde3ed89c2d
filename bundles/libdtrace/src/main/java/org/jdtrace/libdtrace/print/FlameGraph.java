/*
 * Flame graphs of stack-keyed aggregations, written by jdtrace itself:
 *
 *  - folded stacks (-x folded): one line per aggregation entry, "root;...;leaf value", the
 *    format Brendan Gregg's flamegraph.pl, inferno and speedscope read. Frames are functions
 *    (module`function, the +0x offset dropped, as stackcollapse.pl does), so the lines of one
 *    call path merge into one line. A stack key is printed outermost frame first (DTrace stores them innermost first); the key's other parts (execname,
 *    pid...) become frames below the stack, in key order, so @[execname, ustack()] roots each
 *    process's stacks at its name. The value is the aggregation's scalar (count, sum, ...).
 *  - an SVG flame graph (-x flamegraph=FILE.svg) of the same folded stacks: one <rect> per frame
 *    of the merged call tree, width proportional to its samples (children under their parent,
 *    in name order, as flamegraph.pl lays them out), the root at the bottom, each <g> carrying a
 *    <title> "frame (n samples, p%)". Self-contained: no script, no external style.
 *
 * Only entries whose key holds at least one stack are drawn; quantize-style aggregations have no
 * scalar and are skipped. Pure functions of their inputs; the consumer thread calls them at exit.
 */
package org.jdtrace.libdtrace.print;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.AggregateTable;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.StackFrames;
import org.jdtrace.libdtrace.rt.Tuple;

public final class FlameGraph {

    public static final int WIDTH = 1200, FRAME_HEIGHT = 16, PAD_TOP = 40, PAD_BOTTOM = 10, PAD_SIDE = 10;

    private FlameGraph() {}

    /** Whether the aggregation's entries can be folded: a scalar value and a stack in its key. */
    public static boolean foldable(Aggregation a, List<AggregateTable.Entry> entries) {
        if (a.kind == AggKind.QUANTIZE || a.kind == AggKind.LQUANTIZE || a.kind == AggKind.LLQUANTIZE) return false;
        for (AggregateTable.Entry e : entries) {
            for (int i = 0; i < e.key().size(); i++) if (e.key().get(i) instanceof StackFrames) return true;
        }
        return false;
    }

    /** The folded lines ("a;b;c 42") of the entries, in their order. */
    public static List<String> fold(Aggregation a, List<AggregateTable.Entry> entries) {
        Map<String, Long> lines = new java.util.LinkedHashMap<>();
        for (AggregateTable.Entry e : entries) {
            List<String> frames = frames(e.key());
            if (frames.isEmpty()) continue;
            lines.merge(String.join(";", frames), a.scalar(e.data()), Long::sum);
        }
        List<String> out = new ArrayList<>();
        lines.forEach((k, v) -> out.add(k + " " + v));
        return out;
    }

    private static List<String> frames(Tuple key) {
        List<String> prefix = new ArrayList<>(), stack = new ArrayList<>();
        for (int i = 0; i < key.size(); i++) {
            Object k = key.get(i);
            if (k instanceof StackFrames s) {
                List<String> f = new ArrayList<>(s.frames());
                java.util.Collections.reverse(f);
                stack.addAll(f);
            } else {
                prefix.add(String.valueOf(k));
            }
        }
        if (stack.isEmpty()) return List.of();
        prefix.addAll(stack);
        // stackcollapse.pl's way: frames by function (offsets dropped), no ';' inside a frame
        prefix.replaceAll(f -> function(f).replace(';', ':'));
        return prefix;
    }

    /** {@code frame} without a trailing "+0x" and lower-case hex digits (no regular expression: a frame at a time). */
    static String function(String frame) {
        int plus = frame.lastIndexOf("+0x");
        if (plus < 0 || plus + 3 == frame.length()) return frame;
        for (int i = plus + 3; i < frame.length(); i++) {
            char c = frame.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) return frame;
        }
        return frame.substring(0, plus);
    }

    /** One node of the merged call tree. */
    static final class Node {
        final String name;
        long value;
        final Map<String, Node> children = new TreeMap<>();

        Node(String name) {
            this.name = name;
        }
    }

    /** Merges folded lines into a tree under a root named "all". */
    static Node tree(List<String> folded) {
        Node root = new Node("all");
        for (String line : folded) {
            int sp = line.lastIndexOf(' ');
            long v = Long.parseLong(line.substring(sp + 1));
            if (v <= 0) continue;
            root.value += v;
            Node n = root;
            for (String f : line.substring(0, sp).split(";")) {
                n = n.children.computeIfAbsent(f, Node::new);
                n.value += v;
            }
        }
        return root;
    }

    /** The SVG of the folded lines, titled {@code title}. */
    public static String svg(List<String> folded, String title) {
        Node root = tree(folded);
        int depth = depth(root);
        int height = PAD_TOP + depth * FRAME_HEIGHT + PAD_BOTTOM;
        StringBuilder sb = new StringBuilder();
        sb.append("<?xml version=\"1.0\" standalone=\"no\"?>\n");
        sb.append("<svg version=\"1.1\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
                .append("\" xmlns=\"http://www.w3.org/2000/svg\">\n");
        sb.append("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n");
        sb.append("<text x=\"").append(WIDTH / 2).append("\" y=\"24\" text-anchor=\"middle\" font-size=\"17\" font-family=\"Verdana\">")
                .append(escape(title)).append("</text>\n");
        if (root.value > 0) {
            double scale = (WIDTH - 2.0 * PAD_SIDE) / root.value;
            draw(sb, root, PAD_SIDE, 0, scale, root.value, height);
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static int depth(Node n) {
        int d = 0;
        for (Node c : n.children.values()) d = Math.max(d, depth(c));
        return d + 1;
    }

    private static void draw(StringBuilder sb, Node n, double x, int level, double scale, long total, int height) {
        double w = n.value * scale;
        double y = height - PAD_BOTTOM - (level + 1) * FRAME_HEIGHT;
        String pct = String.format(java.util.Locale.ROOT, "%.2f", 100.0 * n.value / total);
        sb.append("<g><title>").append(escape(n.name)).append(" (").append(n.value).append(" samples, ")
                .append(pct).append("%)</title>");
        sb.append(String.format(java.util.Locale.ROOT,
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/>",
                x, y, w, FRAME_HEIGHT - 1, color(n.name)));
        int chars = (int) (w / 7);
        if (chars >= 3) {
            String label = n.name.length() <= chars ? n.name : n.name.substring(0, Math.max(0, chars - 2)) + "..";
            sb.append(String.format(java.util.Locale.ROOT, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"12\" font-family=\"Verdana\">%s</text>",
                    x + 3, y + FRAME_HEIGHT - 4, escape(label)));
        }
        sb.append("</g>\n");
        double cx = x;
        for (Node c : n.children.values()) {
            draw(sb, c, cx, level + 1, scale, total, height);
            cx += c.value * scale;
        }
    }

    /** flamegraph.pl's "hot" palette, chosen from the name so a frame keeps its colour. */
    private static String color(String name) {
        int h = name.hashCode();
        int r = 205 + Math.floorMod(h, 50), g = Math.floorMod(h >> 8, 230), b = Math.floorMod(h >> 16, 55);
        return "rgb(" + r + "," + g + "," + b + ")";
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
