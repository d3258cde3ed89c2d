package org.jdtrace.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    @Test
    void staleStorageOfDeadRunsIsRemovedAndLiveOnesKept(@TempDir Path tmp) throws Exception {
        Path dead = Files.createDirectories(tmp.resolve("jdtrace-felix-999999999-0/bundle1"));
        Path live = Files.createDirectories(tmp.resolve("jdtrace-felix-" + ProcessHandle.current().pid() + "-0"));
        Path other = Files.createDirectories(tmp.resolve("jdtrace-felix-notapid"));
        Main.deleteStale(tmp);
        assertFalse(Files.exists(dead.getParent()), "a dead run's storage is removed");
        assertTrue(Files.exists(live), "a live run's storage is kept");
        assertTrue(Files.exists(other), "only jdtrace-felix-PID-N names are touched");
    }

    @Test
    void storageIsOnTmpfsWhereThereIsOne() throws Exception {
        Path shm = Path.of("/dev/shm");
        Path parent = Main.storageParent();
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            assertEquals(shm, parent);
            assertEquals("tmpfs", Files.getFileStore(parent).type(), "the storage's file system");
        } else {
            assertEquals(Path.of(System.getProperty("java.io.tmpdir")), parent);
        }
    }

    @Test
    void storagePropertyOverridesTheDefault(@TempDir Path tmp) {
        String old = System.getProperty("jdtrace.storage");
        System.setProperty("jdtrace.storage", tmp.toString());
        try {
            assertEquals(tmp, Main.storageParent());
        } finally {
            if (old == null) System.clearProperty("jdtrace.storage");
            else System.setProperty("jdtrace.storage", old);
        }
    }

    @Test
    void selfPidIsThisProcesssPid() {
        assertEquals(ProcessHandle.current().pid(), Main.selfPid());
    }

    /** The SIGINT/SIGTERM flag the launcher's Interrupt proxy answers from. */
    @Test
    void interruptedBlocksUntilRaisedAndThenAnswersAtOnce() throws Exception {
        Main.Interrupted flag = new Main.Interrupted();
        assertFalse(flag.requested());
        assertFalse(flag.await(20), "a timed wait of an unraised flag ends false");
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                assertTrue(flag.await(0));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        // the waiter blocks (no time limit) until the flag is raised
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (waiter.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(Thread.State.WAITING, waiter.getState(), "await(0) waits with no time limit");
        flag.raise();
        waiter.join(30_000);
        assertFalse(waiter.isAlive(), "raise() woke the waiter");
        assertTrue(flag.requested());
        assertTrue(flag.await(0), "raised stays raised");
        flag.raise();
        assertTrue(flag.await(60_000), "a second signal changes nothing");
    }

    @Test
    void interruptedWaitEndsOnAThreadInterrupt() {
        Main.Interrupted flag = new Main.Interrupted();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> flag.await(0));
        assertThrows(IllegalArgumentException.class, () -> flag.await(-1));
    }
}
