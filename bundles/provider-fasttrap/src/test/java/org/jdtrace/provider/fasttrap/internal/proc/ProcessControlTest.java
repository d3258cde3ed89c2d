package org.jdtrace.provider.fasttrap.internal.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jdtrace.provider.fasttrap.internal.sys.Sys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Process control on real processes, no tracepoints. */
class ProcessControlTest {

    private final List<TracedProcess> traced = new ArrayList<>();
    private final List<Integer> orphans = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (TracedProcess p : traced) p.close();
        for (int pid : orphans) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private TracedProcess create(String... argv) {
        TracedProcess p = TracedProcess.create(List.of(argv), Fixtures.ISA, 1000);
        traced.add(p);
        return p;
    }

    @Test
    void createdProcessStopsBeforeMainWithLibrariesMapped() throws Exception {
        Path out = Files.createTempFile("pc", ".txt");
        TracedProcess p = create("/bin/sh", "-c", "echo hello > " + out);
        assertEquals(TracedProcess.State.STOPPED, p.state());
        String maps = Files.readString(Path.of("/proc/" + p.pid() + "/maps"));
        assertTrue(maps.contains("libc.so.6"), maps);
        assertEquals("", Files.readString(out));
        p.go();
        int st = p.awaitExit(10, TimeUnit.SECONDS);
        assertTrue(Sys.exited(st), "status " + st);
        assertEquals(0, Sys.exitStatus(st));
        assertEquals("hello\n", Files.readString(out));
        Files.delete(out);
    }

    @Test
    void aCreatedProcessInheritsNoDescriptorOfTheJvm() throws Exception {
        Path out = Files.createTempFile("pc", ".txt");
        try {
            // ls lists its own open descriptors: the three standard ones and its directory's
            TracedProcess p = create("/bin/sh", "-c", "exec /bin/ls /proc/self/fd > " + out);
            p.go();
            assertEquals(0, Sys.exitStatus(p.awaitExit(10, TimeUnit.SECONDS)));
            assertEquals("0\n1\n2\n3\n", Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    @Test
    void exitStatusAndSignalsPassThrough() throws Exception {
        TracedProcess p = create("/bin/sh", "-c", "trap 'exit 7' USR1; kill -USR1 $$; sleep 5; exit 1");
        p.go();
        int st = p.awaitExit(10, TimeUnit.SECONDS);
        assertEquals(7, Sys.exitStatus(st), "status " + st);
    }

    @Test
    void commandNotFoundIsAnError() {
        try {
            create("/nonexistent/cmd");
            throw new AssertionError("no error");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains("failed to execute"), e.getMessage());
        }
    }

    /**
     * Starts {@code script} as an orphan (not a child of this JVM: the JVM's process reaper
     * waits for its own children by pid, and a tracer thread's stops would be reported to it).
     */
    private int orphan(String script) throws Exception {
        Process p = new ProcessBuilder("/bin/sh", "-c", "(" + script + ") >/dev/null 2>&1 </dev/null & echo $!").start();
        String pid = new String(p.getInputStream().readAllBytes()).trim();
        p.waitFor();
        orphans.add(Integer.parseInt(pid));
        return Integer.parseInt(pid);
    }

    @Test
    void grabAndReleaseLeavesProcessRunning() throws Exception {
        int pid = orphan("while :; do sleep 0.05; done");
        Thread.sleep(200);
        TracedProcess p = TracedProcess.grab(pid, Fixtures.ISA, 1000);
        traced.add(p);
        assertEquals(TracedProcess.State.STOPPED, p.state());
        assertTrue(!Files.readString(Path.of("/proc/" + pid + "/status")).contains("TracerPid:\t0\n"));
        p.go();
        Thread.sleep(300); // forks children (sleep) while traced
        p.release();
        assertEquals(TracedProcess.State.RELEASED, p.state());
        String status = Files.readString(Path.of("/proc/" + pid + "/status"));
        assertTrue(status.contains("TracerPid:\t0"), status);
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }
}
