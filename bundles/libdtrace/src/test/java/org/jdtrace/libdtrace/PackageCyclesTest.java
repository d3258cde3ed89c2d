package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * No package cycles inside libdtrace: the JDK's jdeps (run in-process) lists the package
 * dependencies of the compiled classes, and no package may reach itself through others. The
 * layers this leaves: ast, lex <- parse <- sema <- lower -> codegen -> rt <- print, with cmd
 * beside them and the root package (the session, the compiler's driver) on top.
 */
class PackageCyclesTest {

    private static final String ROOT = "org.jdtrace.libdtrace";

    /** package -> packages of libdtrace it uses, from jdeps -verbose:package. */
    static Map<String, Set<String>> dependencies() throws Exception {
        Path classes = Path.of(DCompiler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "-verbose:package",
                "-filter:none", classes.toString());
        assertEquals(0, rc, out.toString());
        Map<String, Set<String>> deps = new TreeMap<>();
        for (String line : out.toString().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[1].equals("->") && f[0].startsWith(ROOT) && f[2].startsWith(ROOT)) {
                deps.computeIfAbsent(f[0], k -> new TreeSet<>()).add(f[2]);
            }
        }
        return deps;
    }

    @Test
    void noPackageReachesItself() throws Exception {
        Map<String, Set<String>> deps = dependencies();
        assertTrue(deps.containsKey(ROOT + ".sema") && deps.get(ROOT + ".sema").contains(ROOT + ".ast"),
                "jdeps saw no dependencies: " + deps);
        List<String> cycles = new ArrayList<>();
        for (String p : deps.keySet()) {
            List<String> path = cycle(deps, p, p, new ArrayList<>(List.of(p)), new TreeSet<>());
            if (path != null) cycles.add(String.join(" -> ", path));
        }
        assertEquals(List.of(), cycles);
    }

    /** A path from {@code at} back to {@code start}, or null. */
    private static List<String> cycle(Map<String, Set<String>> deps, String start, String at, List<String> path,
            Set<String> seen) {
        for (String next : deps.getOrDefault(at, Set.of())) {
            if (next.equals(at)) continue;
            if (next.equals(start)) {
                List<String> p = new ArrayList<>(path);
                p.add(next);
                return p;
            }
            if (seen.add(next)) {
                path.add(next);
                List<String> found = cycle(deps, start, next, path, seen);
                if (found != null) return found;
                path.remove(path.size() - 1);
            }
        }
        return null;
    }

    @Test
    void theCycleFinderFindsACycle() {
        Map<String, Set<String>> deps = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"));
        assertEquals(List.of("a", "b", "c", "a"), cycle(deps, "a", "a", new ArrayList<>(List.of("a")), new TreeSet<>()));
    }
}
