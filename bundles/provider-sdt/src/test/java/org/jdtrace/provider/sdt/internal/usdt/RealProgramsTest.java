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
}
