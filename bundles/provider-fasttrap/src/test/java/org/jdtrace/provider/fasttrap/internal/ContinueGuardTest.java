package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jdtrace.proc.Procfs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The continue guard on real processes: a stopped process registered with it runs again when the
 * guard's input ends (what the kernel does to the pipe when the JVM dies, and close() does), one
 * unregistered stays stopped, and a SIGINT to the guard (Ctrl-C to dtrace's process group) does
 * not end it before it has done its job.
 */
class ContinueGuardTest {

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        for (Process p : started) p.destroyForcibly();
    }

    private Process stoppedSleep() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        started.add(p);
        signal("STOP", p.pid());
        assertTrue(awaitState(p.pid(), 'T'), "stopped");
        return p;
    }

    private static void signal(String sig, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).start().waitFor());
    }

    private static boolean awaitState(long pid, char want) throws Exception {
        for (int i = 0; i < 500; i++) {
            if (Procfs.stat(pid).state() == want) return true;
            Thread.sleep(10);
        }
        return false;
    }

    @Test
    void aRegisteredProcessRunsAgainWhenTheGuardsInputEnds() throws Exception {
        Process held = stoppedSleep(), released = stoppedSleep();
        ContinueGuard g = new ContinueGuard();
        g.register((int) held.pid());
        g.register((int) released.pid());
        g.unregister((int) released.pid());
        // Ctrl-C reaches the whole foreground group: the guard must outlive it
        signal("INT", g.process().pid());
        Thread.sleep(100);
        assertTrue(g.process().isAlive(), "the guard ignores SIGINT");
        g.close();
        assertTrue(g.process().waitFor(10, TimeUnit.SECONDS), "the guard exits at the end of its input");
        assertTrue(awaitState(held.pid(), 'S'), "the registered process runs (sleeps) again");
        assertEquals('T', Procfs.stat(released.pid()).state(), "an unregistered one is left as it was");
    }
}
