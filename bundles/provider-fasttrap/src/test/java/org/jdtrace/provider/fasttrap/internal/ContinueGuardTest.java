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
 * unregistered stays stopped, and the guard is in a session of its own, which a terminal's Ctrl-C
 * and hangup for dtrace's session do not reach.
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
        // Ctrl-C and hangup reach dtrace's foreground group and session: the guard must outlive them
        long session = Procfs.stat(ProcessHandle.current().pid()).field(6);
        long guardSession = 0;
        for (int i = 0; i < 500 && (guardSession == 0 || guardSession == session); i++) {
            guardSession = Procfs.stat(g.process().pid()).field(6);
            if (guardSession == session) Thread.sleep(10); // setsid has not run yet
        }
        assertTrue(guardSession != session && guardSession == g.process().pid(), "the guard leads a session of its own");
        assertTrue(g.process().isAlive());
        g.close();
        assertTrue(g.process().waitFor(10, TimeUnit.SECONDS), "the guard exits at the end of its input");
        assertTrue(awaitState(held.pid(), 'S'), "the registered process runs (sleeps) again");
        assertEquals('T', Procfs.stat(released.pid()).state(), "an unregistered one is left as it was");
    }
}
