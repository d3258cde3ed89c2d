package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.proc.TargetProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two consumers' holds on one process (ProcessControlImpl's Hold, dt_proc's reference count), on
 * a real ft_spin, read from /proc: a -c command held at its start runs only once each holder has
 * said go or let go; a -p holder's end leaves the process followed, the first's end releases it
 * (running, untraced); a -c holder's end kills its command for both.
 */
class ConsumerHoldsTest {

    private final ProcessControlImpl control = new ProcessControlImpl(new Amd64Isa(), 1000, null);
    private final List<Long> pids = new ArrayList<>();

    @AfterEach
    void tearDown() {
        control.deactivate();
        for (long pid : pids) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    private static String bin(String name) {
        Path p = Path.of("../../fixtures/target/bin", name).toAbsolutePath().normalize();
        if (!Files.isExecutable(p)) throw new IllegalStateException("fixture not built: " + p);
        return p.toString();
    }

    /** The state letter of /proc/PID/status, and its TracerPid. */
    private static String[] status(long pid) throws Exception {
        String state = null, tracer = null;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("State:")) state = line.substring(6).strip().substring(0, 1);
            if (line.startsWith("TracerPid:")) tracer = line.substring(10).strip();
        }
        return new String[] {state, tracer};
    }

    /** Whether the process runs (not in a stop) within a second. */
    private static boolean runs(long pid) throws Exception {
        for (int i = 0; i < 100; i++) {
            String s = status(pid)[0];
            if (s.equals("R") || s.equals("S")) return true;
            Thread.sleep(10);
        }
        return false;
    }

    private TargetProcess created() throws Exception {
        TargetProcess a = control.create(List.of(bin("ft_spin")), (Path) null);
        pids.add((long) a.pid());
        return a;
    }

    @Test
    void theProcessRunsOnceEveryHolderSaidGoOrLetGo() throws Exception {
        TargetProcess a = created();
        TargetProcess b = control.grab(a.pid());
        assertTrue(a.created());
        assertFalse(b.created(), "the second consumer grabbed it");
        assertNull(b.stdout(), "the creator's pipes are not the grabber's");
        b.go();
        Thread.sleep(200);
        assertFalse(runs(a.pid()), "held while the creator has not said go: " + status(a.pid())[0]);
        a.go();
        assertTrue(runs(a.pid()), "runs once both said go");
        // the other order: the second holder lets go without a go, after the first said go
        TargetProcess c = created();
        TargetProcess d = control.grab(c.pid());
        c.go();
        Thread.sleep(200);
        assertFalse(runs(c.pid()), "held while the grabber has not said go");
        d.release();
        assertTrue(runs(c.pid()), "runs once the grabber let go");
        assertNotNull(control.process(c.pid()), "still followed for the creator");
    }

    @Test
    void theLastHoldersEndReleasesAndACreatorsEndKills() throws Exception {
        TargetProcess a = created();
        TargetProcess b = control.grab(a.pid());
        a.go();
        b.go();
        b.close(); // a grabber's end: released for nobody else
        assertNotNull(control.process(a.pid()), "followed while the creator holds it");
        assertTrue(runs(a.pid()) && !status(a.pid())[1].equals("0"), "running, traced for the creator");
        a.release(); // the last holder: released
        assertNull(control.process(a.pid()), "forgotten once the last holder let go");
        assertTrue(runs(a.pid()), "runs on");
        assertEquals("0", status(a.pid())[1], "untraced");
        // a creator's end kills its command, another consumer's hold or not
        TargetProcess c = created();
        TargetProcess d = control.grab(c.pid());
        c.go();
        d.go();
        c.close();
        assertTrue(d.exited(), "killed at the creator's end");
        assertNull(control.process(c.pid()));
        d.close(); // nothing left to do
        assertTrue(c.awaitExit(1, TimeUnit.SECONDS) != -1);
    }
}
