package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * USDT in real programs of this machine, against an outside reference: Debian's python3.11
 * (provider python, semaphores) against bpftrace's usdt: probes on the same script; the JVM's
 * hotspot provider (libjvm.so, dlopen()ed by the java launcher, so -Z) against -Xlog.
 */
class RealProgramsTest {

    private static final String PYTHON = "/usr/bin/python3.11";
    private final Platform platform = new Platform();

    @AfterEach
    void tearDown() {
        platform.close();
    }

    private static Path script() throws Exception {
        Path py = Files.createTempFile("usdt", ".py");
        Files.writeString(py, """
                import json
                def f(n):
                    return n + 1
                def g(n):
                    return sum(f(i) for i in range(n))
                for i in range(300):
                    g(7)
                    json.dumps({"a": [i, str(i)]})
                print("done")
                """);
        return py;
    }

    @Test
    void pythonFunctionEntryAndReturnCountsEqualBpftraces() throws Exception {
        Path py = script();
        try {
            // bpftrace: the reference
            Process b = new ProcessBuilder("bpftrace", "-e",
                    "usdt:" + PYTHON + ":python:function__entry, usdt:" + PYTHON + ":python:function__return"
                            + " { @[probe, str(arg1)] = count(); }",
                    "-c", PYTHON + " " + py).redirectErrorStream(true).start();
            b.getOutputStream().close();
            String bout = new String(b.getInputStream().readAllBytes());
            assertTrue(b.waitFor(120, TimeUnit.SECONDS));
            Map<String, Long> expected = new TreeMap<>();
            Matcher m = Pattern.compile("@\\[usdt:[^:]+:python:(function__\\w+), (.*)\\]: (\\d+)").matcher(bout);
            while (m.find()) expected.put(m.group(1).replace("__", "-") + " " + m.group(2), Long.parseLong(m.group(3)));
            assertTrue(expected.size() > 20, "bpftrace counted: " + bout);

            Platform.Run r = platform.run("-q", "-n",
                    "python$target:::function-entry, python$target:::function-return { @[probename, copyinstr(arg1)] = count(); }"
                            + " END { printa(\"%s %s %@d\\n\", @); }",
                    "-c", PYTHON + " " + py);
            assertEquals(0, r.await(), r.toString());
            Map<String, Long> got = new TreeMap<>();
            for (String l : r.out().lines().toList()) {
                String[] f = l.split(" ");
                if (f.length == 3 && f[0].startsWith("function-")) got.put(f[0] + " " + f[1], Long.parseLong(f[2]));
            }
            assertEquals(expected, got);
            assertTrue(got.get("function-return f") >= 2100, got.toString());
        } finally {
            Files.deleteIfExists(py);
        }
    }

    @Test
    void pythonProbesAreListedWithTheirArguments() throws Exception {
        Platform.Run r = platform.run("-lv", "-n", "python$target:::function-entry", "-c", PYTHON + " -c pass");
        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("python3.11"), r.toString());
        assertTrue(r.out().contains("args[0]: uint64_t") && r.out().contains("args[2]: int32_t"), r.toString());
    }

    private static final Path JAVA = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

    /**
     * hotspot$target in a real JVM (libjvm.so comes by dlopen: -Z): every class-loaded firing
     * names (copyinstr(arg0, arg1)) the classes -Xlog:class+load lists, thread-start fires for
     * the program's own thread, gc-begin/gc-end pair up with -Xlog:gc's pauses.
     */
    @Test
    void hotspotClassLoadedThreadStartAndGcAgreeWithXlog() throws Exception {
        Path dir = Files.createTempDirectory("usdt-java");
        try {
            Path src = dir.resolve("Hello.java");
            Files.writeString(src, """
                    public class Hello {
                        public static void main(String[] a) throws Exception {
                            Thread t = new Thread(() -> {}, "usdt-test-thread");
                            t.start();
                            t.join();
                            System.gc();
                            System.out.println("hello");
                        }
                    }
                    """);
            Process c = new ProcessBuilder(JAVA.resolveSibling("javac").toString(), "-d", dir.toString(), src.toString())
                    .inheritIO().start();
            assertEquals(0, c.waitFor());
            Path cl = dir.resolve("cl.log"), gc = dir.resolve("gc.log");
            Platform.Run r = platform.run("-Z", "-q", "-n",
                    "hotspot$target:::class-loaded { printf(\"class %s\\n\", copyinstr(arg0, arg1)); }"
                            + " hotspot$target:::thread-start { printf(\"thread %s\\n\", copyinstr(arg0, arg1)); }"
                            + " hotspot$target:::gc-begin { printf(\"gc-begin\\n\"); }"
                            + " hotspot$target:::gc-end { printf(\"gc-end\\n\"); }",
                    "-c", JAVA + " -Xlog:class+load:file=" + cl + " -Xlog:gc:file=" + gc + " -cp " + dir + " Hello");
            assertEquals(0, r.await(), r.toString());
            List<String> lines = r.out().lines().toList();
            List<String> traced = lines.stream().filter(l -> l.startsWith("class ")).map(l -> l.substring(6).replace('/', '.')).toList();
            List<String> logged = new ArrayList<>();
            Matcher m = Pattern.compile("\\[class,load\\s*\\] (\\S+) source").matcher(Files.readString(cl));
            while (m.find()) logged.add(m.group(1));
            assertTrue(logged.size() > 300, "classes logged: " + logged.size());
            assertEquals(logged.size(), traced.size(), "one class-loaded firing per class loaded");
            assertEquals(logged.stream().filter(n -> !n.contains("0x")).sorted().toList(),
                    traced.stream().filter(n -> !n.contains("0x")).sorted().toList());
            assertTrue(lines.contains("thread usdt-test-thread"), r.toString());
            long pauses = Files.readAllLines(gc).stream().filter(l -> l.contains(" Pause ")).count();
            assertTrue(pauses >= 1, "System.gc() pauses");
            assertEquals(pauses, lines.stream().filter(l -> l.equals("gc-begin")).count());
            assertEquals(pauses, lines.stream().filter(l -> l.equals("gc-end")).count());
            assertTrue(lines.contains("hello"));
        } finally {
            try (var w = Files.walk(dir)) {
                w.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
