package org.jdtrace.libdtrace.parse;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.lex.Macros;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs the parser over the .d files of DTrace's own test suite (../shared/conformance relative to
 * the repository root, or /work/shared/conformance) and reports how many parse. Skipped when the
 * suite is absent. tst.* files should parse; err.D_SYNTAX.* files must fail with D_SYNTAX.
 */
class ConformanceParseTest {

    static Path suite() {
        for (Path p : List.of(Path.of("../../../shared/conformance/dtrace-utils/begin-end"),
                Path.of("/work/shared/conformance/dtrace-utils/begin-end"))) {
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }

    /** Positional macro arguments the suite's tests are run with: a few of each kind. */
    static Macros macrosFor(Path f) {
        return new Macros(List.of(f.toString(), "1", "2", "3", "4", "5", "6", "7", "8", "9"),
                java.util.Map.of("target", "1234", "pid", "4321", "ppid", "1", "uid", "0", "gid", "0",
                        "sid", "1", "pgid", "1", "euid", "0", "egid", "0"), false);
    }

    @Test
    void parsesTheSuite() throws IOException {
        Path root = suite();
        Assumptions.assumeTrue(root != null, "conformance suite not present");
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".d")).sorted().toList();
        }
        int tst = 0, tstOk = 0, syn = 0, synOk = 0, checkedOk = 0, errTotal = 0, errTagOk = 0;
        List<String> semaFailures = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<String> synMisses = new ArrayList<>();
        for (Path f : files) {
            String name = f.getFileName().toString();
            String src = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            DTraceException err = null;
            try {
                Parser.parse(src, f.toString(), macrosFor(f), true);
            } catch (DTraceException e) {
                err = e;
            } catch (RuntimeException e) {
                failures.add(root.relativize(f) + ": CRASH " + e);
                continue;
            }
            if (err == null) {
                try {
                    org.jdtrace.libdtrace.sema.DFrontEnd.check(src, f.toString(), macrosFor(f), true);
                    if (name.startsWith("tst.")) {
                        checkedOk++;
                    }
                } catch (DTraceException e) {
                    if (name.startsWith("err.D_SYNTAX")) {
                        err = e;
                    }
                    if (name.startsWith("err.D_")) {
                        String want = name.substring(4, name.indexOf('.', 4));
                        errTotal++;
                        if (want.equals(e.tag())) {
                            errTagOk++;
                        }
                    } else if (name.startsWith("tst.")) {
                        semaFailures.add(root.relativize(f) + ": [" + e.tag() + "] line " + e.line() + ": " + e.getMessage());
                    }
                } catch (RuntimeException e) {
                    failures.add(root.relativize(f) + ": CRASH in sema " + e);
                    e.printStackTrace();
                    continue;
                }
            } else if (name.startsWith("err.D_")) {
                errTotal++;
                if (name.startsWith("err." + err.tag() + ".")) {
                    errTagOk++;
                }
            }
            if (name.startsWith("tst.")) {
                tst++;
                if (err == null) {
                    tstOk++;
                } else {
                    failures.add(root.relativize(f) + ": line " + err.line() + ": " + err.getMessage());
                }
            } else if (name.startsWith("err.D_SYNTAX")) {
                syn++;
                if (err != null && "D_SYNTAX".equals(err.tag())) {
                    synOk++;
                } else {
                    synMisses.add(root.relativize(f) + ": " + (err == null ? "parsed" : err.tag() + " " + err.getMessage()));
                }
            }
        }
        System.out.println("[conformance] tst.*.d parsed: " + tstOk + "/" + tst
                + "; tst.*.d passing the type checker: " + checkedOk + "/" + tst
                + "; err.D_SYNTAX.*.d rejected with D_SYNTAX: " + synOk + "/" + syn
                + "; err.D_*.d rejected with their own tag: " + errTagOk + "/" + errTotal);
        if (Boolean.getBoolean("conformance.verbose")) {
            failures.forEach(x -> System.out.println("[conformance] FAIL " + x));
            synMisses.forEach(x -> System.out.println("[conformance] SYNTAX-MISS " + x));
            semaFailures.forEach(x -> System.out.println("[conformance] SEMA " + x));
        }
        assertTrue(failures.stream().noneMatch(x -> x.contains("CRASH")), () -> String.join("\n", failures));
    }
}
