package org.jdtrace.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Procfs on real processes, checked against what the JDK and the files themselves say: a command
 * name holding blanks and parentheses (stat's fields counted from the last ')'), status values,
 * maps against the JVM's own libraries, a process gone; UntracedProcesses holds a -c command
 * stopped until go() and reports its wait status.
 */
class ProcfsTest {

    @TempDir
    Path dir;

    @Test
    void readsThisJvmsStatStatusCommAndMaps() throws Exception {
        long self = Procfs.self();
        Procfs.Stat stat = Procfs.stat(self);
        assertEquals(self, stat.field(1));
        assertEquals(ProcessHandle.current().parent().orElseThrow().pid(), stat.ppid());
        Procfs.Status status = Procfs.status(self);
        assertTrue("RSDTtZXIP".indexOf(stat.state()) >= 0 && "RSDTtZXIP".indexOf(status.state()) >= 0);
        assertEquals(self, status.tgid());
        assertEquals(stat.ppid(), status.ppid());
        assertEquals(0, status.tracerPid());
        assertEquals(Long.parseLong(status.get("Threads")), stat.field(20));
        assertEquals(stat.comm(), Procfs.comm(self));
        assertEquals(Procfs.comm(self), Procfs.read(Path.of("/proc/self/comm")).strip());
        List<Procfs.Mapping> maps = Procfs.maps(self);
        assertTrue(maps.stream().anyMatch(m -> m.path().endsWith("/libjvm.so") && m.executable() && m.isPrivate()), "libjvm mapped");
        assertTrue(maps.stream().anyMatch(m -> m.path().equals("[vdso]")), "vdso mapped");
        // the lines of one path, as maps() reads them
        for (String suffix : List.of("/libjvm.so", "[vdso]", "/libc.so.6", "/no-such-library.so")) {
            List<Procfs.Mapping> some = Procfs.maps(self, suffix);
            assertEquals(maps.stream().filter(m -> m.path().endsWith(suffix)).toList(), some, suffix);
            assertEquals(suffix.startsWith("/no-"), some.isEmpty(), suffix);
        }
        for (int i = 1; i < maps.size(); i++) {
            assertTrue(Long.compareUnsigned(maps.get(i - 1).end(), maps.get(i).start()) <= 0, "address order");
        }
        assertTrue(maps.stream().anyMatch(m -> m.path().equals("[vsyscall]") && m.start() == 0xffffffffff600000L)
                || maps.stream().noneMatch(m -> m.path().equals("[vsyscall]")), "unsigned addresses");
    }

    @Test
    void countsStatFieldsFromTheLastParenthesis() throws Exception {
        Path odd = dir.resolve("a) b (c");
        Files.copy(Path.of("/bin/sleep"), odd, StandardCopyOption.COPY_ATTRIBUTES);
        Process p = new ProcessBuilder(odd.toString(), "30").start();
        try {
            Procfs.Stat stat = Procfs.stat(p.pid());
            assertEquals("a) b (c", stat.comm());
            assertEquals(Procfs.self(), stat.ppid());
            assertEquals(Procfs.self(), Procfs.ppid(p.pid()));
            assertEquals("a) b (c", Procfs.comm(p.pid()));
            assertEquals("a) b (c", Procfs.comm(p.pid(), p.pid()));
            assertEquals(p.pid(), Procfs.stat(p.pid(), p.pid()).field(1));
            String cmd = new String(Procfs.cmdline(p.pid()));
            assertEquals(odd + "\0" + "30\0", cmd);
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
        assertThrows(IOException.class, () -> Procfs.stat(p.pid()));
        assertEquals(0, Procfs.ppid(p.pid()));
    }

    @Test
    void parsesWhatAKernelMayLeaveOut() {
        assertEquals(0, Procfs.Stat.parse("").field(4));
        assertNull(Procfs.Status.parse("Name:\tx\n").get("Uid"));
        assertEquals(0, Procfs.Status.parse("Name:\tx\n").uid(1));
        assertEquals(1000, Procfs.Status.parse("Uid:\t0\t1000\t0\t0\n").uid(1));
        assertNull(Procfs.Mapping.parse("not a mapping"));
        Procfs.Mapping anon = Procfs.Mapping.parse("7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ");
        assertEquals("", anon.path());
        assertEquals(0x1000, anon.end() - anon.start());
        assertNull(Procfs.Mapping.parse("7f0000000000-7f0000001000 rw-p 00000000 00:00"));
        assertNull(Procfs.Mapping.parse("7f0000000000 rw-p 00000000 00:00 0"));
        Procfs.Mapping spaced = Procfs.Mapping.parse("  55d0c0a00000-55d0c0a21000 r-xp 00002000 fe:01 1234567    /tmp/a b  (deleted)  ");
        assertEquals(new Procfs.Mapping(0x55d0c0a00000L, 0x55d0c0a21000L, "r-xp", 0x2000, "fe:01", 1234567, "/tmp/a b  (deleted)"),
                spaced);
    }

    @Test
    void everyLineOfThisJvmsMapsParsesAsItsFieldsSplitAtWhitespace() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/maps"));
        assertTrue(lines.size() > 100, lines.size() + " lines");
        for (String line : lines) {
            String[] f = line.trim().split("\\s+", 6);
            Procfs.Mapping m = Procfs.Mapping.parse(line);
            String[] range = f[0].split("-");
            assertEquals(Long.parseUnsignedLong(range[0], 16), m.start(), line);
            assertEquals(Long.parseUnsignedLong(range[1], 16), m.end(), line);
            assertEquals(f[1], m.perms(), line);
            assertEquals(Long.parseUnsignedLong(f[2], 16), m.offset(), line);
            assertEquals(f[3], m.dev(), line);
            assertEquals(Long.parseLong(f[4]), m.inode(), line);
            assertEquals(f.length > 5 ? f[5] : "", m.path(), line);
        }
    }

    @Test
    void untracedCreateHoldsTheCommandUntilGo() throws Exception {
        Path mark = dir.resolve("ran");
        TargetProcess t = new UntracedProcesses().create(List.of("/bin/sh", "-c", "touch " + mark + "; exit 3"),
                ProcessControl.Stdio.INHERIT);
        try {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (Procfs.stat(t.pid()).state() != 'T' && System.nanoTime() < deadline) Thread.sleep(5);
            assertEquals('T', Procfs.stat(t.pid()).state());
            assertTrue(!Files.exists(mark) && !t.exited());
            t.go();
            int status = t.awaitExit(10, TimeUnit.SECONDS);
            assertEquals(3, status >> 8 & 0xff);
            assertEquals(0, status & 0x7f);
            assertTrue(Files.exists(mark) && t.exited());
        } finally {
            t.close();
        }
    }

    @Test
    void untracedCloseKillsACreatedProcessAndReportsTheSignal() throws Exception {
        TargetProcess t = new UntracedProcesses().create(List.of("/bin/sleep", "30"), ProcessControl.Stdio.INHERIT);
        t.go();
        t.close();
        assertTrue(t.exited());
        assertEquals(9, t.exitStatus() & 0x7f);
        assertThrows(ProcessException.class, () -> new UntracedProcesses().grab(t.pid()));
    }
}
