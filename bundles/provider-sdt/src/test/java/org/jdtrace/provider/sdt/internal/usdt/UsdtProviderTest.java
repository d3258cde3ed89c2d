package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** USDT probes of a C fixture built with <sys/sdt.h>, traced end to end by dtrace -c. */
class UsdtProviderTest {

    private final Platform platform = new Platform();

    @AfterEach
    void tearDown() {
        platform.close();
    }

    @Test
    void listsTheFixturesProbesWithDTraceNames() throws Exception {
        Platform.Run r = platform.run("-l", "-n", "jdt$target:::", "-c", Platform.bin("ft_usdt") + " 1");
        assertEquals(0, r.await(), r.toString());
        List<String> lines = r.out().lines().skip(1).map(String::strip).toList();
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\d+ +jdt\\d+ +ft_usdt +work +tick")), r.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\d+ +jdt\\d+ +ft_usdt +work +expensive-sum")), r.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\d+ +jdt\\d+ +ft_usdt +main +done")), r.toString());
        assertEquals(4, lines.size(), r.toString());
    }

    @Test
    void argumentsArriveWithTheirSizesAndSignedness() throws Exception {
        Platform.Run r = platform.run("-q", "-n",
                "jdt$target:::tick { printf(\"%d %d %s\\n\", (int) arg0, (long) arg1, copyinstr(arg2)); }"
                        + " jdt$target:::konst /arg0 != 42/ { printf(\"bad konst %d\\n\", arg0); }"
                        + " jdt$target:::done { printf(\"done %d\\n\", arg0); }",
                "-c", Platform.bin("ft_usdt") + " 4");
        assertEquals(0, r.await(), r.toString());
        assertEquals(List.of("0 0 alpha", "-1 1 beta", "-2 2 gamma", "-3 3 alpha", "done 4"), probeLines(r), r.toString());
        assertTrue(r.out().contains("sum 12 expensive 0\n"), "untraced is-enabled guard stays off: " + r);
    }

    /** The output lines the probes printed (the -c target's own start with "sum "). */
    static List<String> probeLines(Platform.Run r) {
        return r.out().lines().filter(l -> !l.startsWith("sum ") && !l.isEmpty()).toList();
    }

    /**
     * Enabling jdt:::expensive-sum sets its semaphore: the guarded code runs at every call and
     * the probe fires there; the semaphore reads 0 again (its value from before) once the probe
     * is disabled, checked in the stopped process through /proc/PID/mem.
     */
    @Test
    void isEnabledProbesFireWhileEnabledAndTheSemaphoreIsRestored() throws Exception {
        Platform.Run r = platform.run("-q", "-n", "jdt$target:::expensive-sum { @ = count(); @s = sum(arg0); }"
                + " END { printa(\"fired %@d\\n\", @); printa(\"total %@d\\n\", @s); }",
                "-c", Platform.bin("ft_usdt") + " 200");
        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("expensive 200\n"), r.toString());
        assertTrue(r.out().contains("fired 200\n"), r.toString());
        long total = 0;
        for (long i = 0; i < 200; i++) for (long k = 0; k <= i % 100; k++) total += k * k;
        assertTrue(r.out().contains("total " + total + "\n"), r.toString());
    }

    /** The note's own name (expensive__sum) matches the probe too. */
    @Test
    void theNameAsWrittenInTheNoteMatches() throws Exception {
        Platform.Run r = platform.run("-q", "-n", "jdt$target:::expensive__sum { @ = count(); } END { printa(\"fired %@d\\n\", @); }",
                "-c", Platform.bin("ft_usdt") + " 20");
        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("fired 20\n") && r.out().contains("expensive 20\n"), r.toString());
    }

    /**
     * A description naming a process nobody follows (jdt<PID>:::, as dtrace's tests name $pid)
     * has it grabbed: its probes fire; the process runs on and is let go untouched.
     */
    @Test
    void aDescriptionNamingAProcessGrabsIt() throws Exception {
        // not a child of this JVM: its process reaper would take the ptrace stops (dtrace -p's case)
        Process sh = new ProcessBuilder("sh", "-c", Platform.bin("ft_usdt") + " 1000000 1 >/dev/null 2>&1 & echo $!").start();
        ProcessHandle p = ProcessHandle.of(Long.parseLong(new String(sh.getInputStream().readAllBytes()).strip())).orElseThrow();
        sh.waitFor();
        try {
            Thread.sleep(100);
            Platform.Run r = platform.run("-q", "-n", "jdt" + p.pid() + ":::tick { n++; }"
                    + " jdt" + p.pid() + ":::tick /n == 20/ { printf(\"twenty %d\\n\", pid); exit(0); }");
            assertEquals(0, r.await(), r.toString());
            assertEquals("twenty " + p.pid() + "\n", r.out().strip() + "\n", r.toString());
            platform.close();
            String tracer = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + p.pid() + "/status")).stream()
                    .filter(l -> l.startsWith("TracerPid:")).findFirst().orElseThrow();
            assertEquals("TracerPid:\t0", tracer, "let go");
            assertTrue(p.isAlive(), "runs on");
        } finally {
            p.destroyForcibly();
        }
    }
}
