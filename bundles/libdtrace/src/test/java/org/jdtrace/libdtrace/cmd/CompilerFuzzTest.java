package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.core.providers.profile.ProfileProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compiler that no input can break: DTrace's own test programs (../shared/conformance), mutated
 * at random (bytes cut, repeated, swapped, punctuation and non-UTF-8 bytes inserted), go through
 * the whole dtrace(1M) command with the real compiler and framework ({@code dtrace -e -s}: compile
 * and match, trace nothing). Every answer must be dtrace's: exit 0, 1 or 2, and nothing on stderr
 * but "dtrace: " lines, never an internal error or a Java exception. The seed is fixed, so a
 * failure repeats; it is printed with the mutant that failed (another seed: -Dfuzz.seed=N in
 * jdtrace.jvm.flags; 20,000 mutants of seed 7 passed too).
 */
class CompilerFuzzTest {

    static final int MUTANTS = 2_000;
    static final String[] INSERTS = {"{", "}", "(", ")", "[", "]", "/", "*", "\"", "'", "@", "->", ",", ";",
        "$1", "$$1", "0x", "\\", "?", ":", "#", "`", "self->", "this->", "*(int *)", "stringof(", "\u00ff",
        "\n", "/*", "*/", "99999999999999999999999", "-", "++", "sizeof(", "xlate <", "struct ", "inline "};

    private DTraceFramework fw;
    private DTraceService dtrace;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        fw = new DTraceFramework();
        fw.addProvider(new DTraceProvider());
        fw.addProvider(new ProfileProvider());
        dtrace = new DTraceService(fw, new DSessionFactoryImpl());
    }

    @AfterEach
    void tearDown() {
        dtrace.deactivate();
        fw.deactivate();
    }

    static Path suite() {
        for (Path p : List.of(Path.of("../../../shared/conformance/dtrace-utils"),
                Path.of("/work/shared/conformance/dtrace-utils"))) {
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }

    static byte[] mutate(byte[] src, Random rnd) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int n = src.length;
        int a = n == 0 ? 0 : rnd.nextInt(n);
        int len = n == 0 ? 0 : 1 + rnd.nextInt(Math.min(16, n - a));
        switch (rnd.nextInt(5)) {
            case 0 -> { // cut
                b.write(src, 0, a);
                b.write(src, a + len, n - a - len);
            }
            case 1 -> { // repeat a piece
                b.write(src, 0, a + len);
                b.write(src, a, len);
                b.write(src, a + len, n - a - len);
            }
            case 2 -> { // insert a token
                b.write(src, 0, a);
                b.writeBytes(INSERTS[rnd.nextInt(INSERTS.length)].getBytes(StandardCharsets.ISO_8859_1));
                b.write(src, a, n - a);
            }
            case 3 -> { // a random byte, often not UTF-8
                b.write(src, 0, a);
                b.write(rnd.nextInt(256));
                b.write(src, a, n - a);
            }
            default -> { // move a piece elsewhere
                byte[] piece = java.util.Arrays.copyOfRange(src, a, a + len);
                ByteArrayOutputStream rest = new ByteArrayOutputStream();
                rest.write(src, 0, a);
                rest.write(src, a + len, n - a - len);
                byte[] r = rest.toByteArray();
                int at = r.length == 0 ? 0 : rnd.nextInt(r.length);
                b.write(r, 0, at);
                b.writeBytes(piece);
                b.write(r, at, r.length - at);
            }
        }
        return b.toByteArray();
    }

    @Test
    void everyAnswerIsDtraces() throws IOException {
        Path root = suite();
        Assumptions.assumeTrue(root != null, "conformance suite not present");
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".d")).sorted().toList();
        }
        long seed = Long.getLong("fuzz.seed", 20261123L);
        Random rnd = new Random(seed);
        List<String> failures = new ArrayList<>();
        int[] byStatus = new int[3];
        for (int i = 0; i < MUTANTS && failures.size() < 5; i++) {
            Path f = files.get(rnd.nextInt(files.size()));
            byte[] m = Files.readAllBytes(f);
            for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
                m = mutate(m, rnd);
            }
            Path script = dir.resolve("m" + i + ".d");
            Files.write(script, m);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = new DTraceCommandImpl(dtrace).run(List.of("-e", "-s", script.toString(), "1", "2", "3"),
                    new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), () -> false);
            String e = err.toString(StandardCharsets.UTF_8);
            // a message's continuation lines start with a tab, or are right-aligned ("%9s key #1: int")
            boolean linesOk = java.util.Arrays.stream(e.split("\n")).allMatch(l -> l.startsWith("dtrace: ") || l.startsWith("\t")
                    || l.startsWith("Usage: ") || l.isBlank() || l.matches(" +\\S+ key #\\d+: .*"));
            if (status < 0 || status > 2 || !linesOk || e.contains("internal error") || e.contains("Exception")) {
                failures.add("mutant " + i + " of " + f.getFileName() + " (seed " + seed + "), exit " + status
                        + (linesOk ? "" : ", a line not dtrace's") + ":\n"
                        + new String(m, StandardCharsets.ISO_8859_1) + "\n--- stderr:\n" + e);
            } else {
                byStatus[status]++;
            }
            Files.delete(script);
        }
        System.out.printf("compiler fuzz: %d mutants: %d exit 0, %d exit 1, %d exit 2%n", MUTANTS, byStatus[0],
                byStatus[1], byStatus[2]);
        assertTrue(failures.isEmpty(), String.join("\n=====\n", failures));
    }
}
