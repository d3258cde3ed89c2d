package org.jdtrace.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
}
