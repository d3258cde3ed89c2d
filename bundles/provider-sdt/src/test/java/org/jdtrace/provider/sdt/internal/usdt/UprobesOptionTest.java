package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * -x uprobes=off is one consumer's choice, not the JVM's: two dtrace runs on one platform (as in
 * the gogo shell), one with the option, each put their -c process on their own path, and a run
 * after the ptrace one is on uprobes again. The path is read from outside, the kernel's
 * TracerPid of the running target: a thread of this JVM (the ptrace control thread) on the
 * ptrace path, 0 on uprobes (every thread is detached once the probes are in).
 */
class UprobesOptionTest {

    private final Platform platform = new Platform(true);
    private final List<Long> targets = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (long pid : targets) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        platform.close();
    }

    /** A dtrace -c ft_spin run counting work() calls; returns it once its target runs, the target's pid noted. */
    private Platform.Run start(String... options) throws Exception {
        List<String> argv = new ArrayList<>(List.of(options));
        argv.addAll(List.of("-q", "-c", Platform.bin("ft_spin"), "-n",
                "BEGIN { printf(\"target %d\\n\", $target); } pid$target:a.out:work:entry { @ = count(); } "
                        + "END { printa(\"calls %@d\\n\", @); }"));
        Platform.Run run = platform.run(argv.toArray(String[]::new));
        targets.add(run.target());
        // the work() probe fires once the target runs: its probes are in, a uprobe target detached
        Thread.sleep(500);
        return run;
    }

    private static long tracerPid(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("TracerPid:")) return Long.parseLong(line.substring(10).strip());
        }
        throw new AssertionError("no TracerPid for " + pid);
    }

    /** SIGUSR1 ends ft_spin, which ends its dtrace run: its status and what it printed. */
    private static String finish(Platform.Run run, long pid) throws Exception {
        new ProcessBuilder("kill", "-USR1", Long.toString(pid)).start().waitFor();
        assertEquals(0, run.await(), run.toString());
        return run.out();
    }

    @Test
    void eachConsumerGetsItsOwnPathAndNoneCarriesOver() throws Exception {
        long me = ProcessHandle.current().pid();
        Platform.Run ptrace = start("-x", "uprobes=off");
        Platform.Run uprobes = start();
        long a = ptrace.target(), b = uprobes.target();
        long tracer = tracerPid(a);
        assertTrue(tracer != 0 && Files.isDirectory(Path.of("/proc/" + me + "/task/" + tracer)),
                "the uprobes=off consumer's target is traced by ptrace from this JVM: TracerPid " + tracer);
        assertEquals(0, tracerPid(b), "the other consumer's target is on uprobes, untraced");
        assertTrue(finish(ptrace, a).matches("(?s)target \\d+\n.*calls [1-9]\\d*\n.*"), ptrace.toString());
        // a consumer after the uprobes=off one: the option did not stay behind
        Platform.Run after = start();
        long c = after.target();
        assertEquals(0, tracerPid(c), "a later consumer without the option is on uprobes");
        assertTrue(finish(uprobes, b).matches("(?s)target \\d+\n.*calls [1-9]\\d*\n.*"), uprobes.toString());
        assertTrue(finish(after, c).matches("(?s)target \\d+\n.*calls [1-9]\\d*\n.*"), after.toString());
    }
}
