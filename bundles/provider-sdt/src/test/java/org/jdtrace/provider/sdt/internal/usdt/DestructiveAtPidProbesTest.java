package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * stop() at a pid probe with -w, on a platform whose pid probes are kernel uprobes by default:
 * -w puts the process on the ptrace path, so the process is stopped at the probe (inc's first
 * call), as DTrace users expect. (On uprobes the clause runs milliseconds after the hit:
 * ft_count 1000 would long have exited.)
 */
class DestructiveAtPidProbesTest {

    private Platform platform;

    @AfterEach
    void tearDown() {
        if (platform != null) platform.close();
    }

    /** ft_count's first call of inc, inc(3); tick-2s ends the run (the process never does: stopped). */
    private static final String SCRIPT = "pid$target:a.out:inc:entry /arg0 == 3/ { stop(); printf(\"stopped %d\\n\", pid); }"
            + " tick-2s { exit(0); }";

    @Test
    void withWStopStopsTheProcessAtTheProbe() throws Exception {
        platform = new Platform(true);
        platform.fw.addProvider(new org.jdtrace.core.providers.profile.ProfileProvider()); // tick-2s
        Platform.Run r = platform.run("-w", "-q", "-n", SCRIPT, "-c", Platform.bin("ft_count") + " 1000");
        long pid = awaitStopped(r);
        // ft_count 1000 runs for microseconds: still there, stopped (t: dtrace's ptrace holds
        // it, as the ptrace path keeps a process it stopped), it was stopped at the hit
        String state = state(pid);
        assertTrue(state.equals("t") || state.equals("T"), "stopped at the probe, not " + state + ": " + r);
        assertTrue(Files.readString(Path.of("/proc/" + pid + "/syscall")).startsWith("-1 "), "stopped in user mode, not in a system call");
        assertEquals(0, r.await(), r.toString());
    }

    /** The pid the clause printed, once its process is stopped (t or T). */
    private static long awaitStopped(Platform.Run r) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("stopped ([0-9]+)\n").matcher(r.out());
            if (m.find()) {
                long pid = Long.parseLong(m.group(1));
                for (int i = 0; i < 500 && !state(pid).equalsIgnoreCase("t"); i++) Thread.sleep(2);
                return pid;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the clause never fired: " + r);
    }

    /** The process's state letter, "gone" once it is reaped. */
    private static String state(long pid) throws Exception {
        Path p = Path.of("/proc/" + pid + "/stat");
        if (!Files.exists(p)) return "gone";
        String stat = Files.readString(p);
        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    }
}
