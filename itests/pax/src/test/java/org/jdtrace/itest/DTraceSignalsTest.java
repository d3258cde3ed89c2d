package org.jdtrace.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.junit.After;
import org.junit.Test;

/**
 * dtrace(1M) as users run it (the distribution's launcher in its own JVM, as bin/dtrace runs it)
 * ended by a signal: SIGTERM and SIGINT end a -p trace as Ctrl-C does (END runs, the
 * aggregation is printed, exit status 0) and leave the grabbed process running untraced with
 * its code as the file has it, computing right; with -c, SIGINT kills the command as dtrace
 * does. Every process a test starts is killed in @After if still there.
 */
public class DTraceSignalsTest {

    private final List<Process> started = new ArrayList<>();
    private final List<Path> files = new ArrayList<>();

    private static File root() throws IOException {
        return new File(System.getProperty("jdtrace.dist")).getCanonicalFile().getParentFile().getParentFile().getParentFile();
    }

    private static String bin(String name) throws IOException {
        return new File(root(), "fixtures/target/bin/" + name).getPath();
    }

    @After
    public void cleanUp() throws IOException {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Path f : files) Files.deleteIfExists(f);
    }

    private Path tmp() throws IOException {
        Path f = Files.createTempFile("itest", ".out");
        files.add(f);
        return f;
    }

    private Process start(Path out, String... argv) throws IOException {
        Process p = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(out.toFile()).start();
        started.add(p);
        return p;
    }

    /** bin/dtrace's command line: the launcher jar of the distribution, in a JVM of its own. */
    /**
     * As from an interactive shell: SIGINT and SIGTERM at their default disposition. A JVM that
     * inherits SIGINT ignored (a build started in the background without job control, or under
     * nohup) leaves it ignored, as dtrace(1M) does (it installs its handler only where the
     * disposition is not SIG_IGN), and the SIGINT tests would then test the environment.
     */
    private Process dtrace(Path out, Path err, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=INT,TERM",
                ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-XX:+UseSerialGC",
                "-jar", new File(System.getProperty("jdtrace.dist"), "jdtrace-launcher.jar").getPath()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        started.add(p);
        return p;
    }

    private static void signal(long pid, String sig) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start().waitFor());
    }

    private static void awaitText(Path f, Path err, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(f).contains(text)) {
            assertTrue("waited for \"" + text + "\" in " + Files.readString(f) + Files.readString(err),
                    System.nanoTime() < deadline);
            Thread.sleep(10);
        }
    }

    private void grabbedTargetOutlives(String sig) throws Exception {
        String spin = bin("ft_spin");
        ElfSymbol work;
        byte[] original;
        try (ElfFile elf = ElfFile.open(Path.of(spin))) {
            work = elf.symbol("work").orElseThrow();
            original = elf.bytes(work);
        }
        Path targetOut = tmp(), out = tmp(), err = tmp();
        Process target = start(targetOut, spin);
        long pid = target.pid();
        Process dt = dtrace(out, err, "-q", "-n", "BEGIN { printf(\"tracing\\n\"); } pid" + pid
                + ":a.out:work:entry { @ = count(); } END { printa(\"work %@d\\n\", @); }", "-p", Long.toString(pid));
        awaitText(out, err, "tracing");
        long at = Targets.address(pid, spin, work);
        assertFalse("work() is instrumented", java.util.Arrays.equals(original, Targets.memory(pid, at, original.length)));
        Thread.sleep(300);

        signal(dt.pid(), sig);
        assertTrue("dtrace ends on SIG" + sig, dt.waitFor(60, TimeUnit.SECONDS));
        String o = Files.readString(out), e = Files.readString(err);
        assertEquals("exit status after SIG" + sig + ": " + o + e, 0, dt.exitValue());
        Matcher m = Pattern.compile("work (\\d+)\n").matcher(o);
        assertTrue("END printed the aggregation: " + o + e, m.find() && Long.parseLong(m.group(1)) > 0);

        assertTrue("the grabbed process runs on", target.isAlive());
        assertArrayEquals("work() is the file's code again", original, Targets.memory(pid, at, original.length));
        assertEquals("no tracer", "0", Targets.tracerPid(pid));
        Thread.sleep(100); // it keeps computing, untraced
        signal(pid, "USR1");
        assertTrue(target.waitFor(30, TimeUnit.SECONDS));
        assertEquals(Files.readString(targetOut), 0, target.exitValue());
        assertTrue(Files.readString(targetOut), Files.readString(targetOut).matches("ok \\d+\n"));
    }

    /** Like dtrace(1M): the process is named dtrace, and so is the thread that fires BEGIN and END. */
    @Test
    public void theProcessAndTheThreadOfBeginAreNamedDtrace() throws Exception {
        Path out = tmp(), err = tmp();
        Process dt = dtrace(out, err, "-q", "-n", "BEGIN { printf(\"%s %s %s %d\\n\", execname, curpsinfo->pr_fname,"
                + " curlwpsinfo->pr_name, tid); } tick-1s { exit(0); }");
        awaitText(out, err, "\n");
        String[] f = Files.readString(out).strip().split(" ");
        assertEquals("execname, pr_fname, pr_name at BEGIN: " + Files.readString(out), List.of("dtrace", "dtrace", "dtrace"),
                List.of(f[0], f[1], f[2]));
        // as ps and /proc name them
        assertEquals("dtrace", Files.readString(Path.of("/proc/" + dt.pid() + "/comm")).strip());
        assertEquals("dtrace", Files.readString(Path.of("/proc/" + dt.pid() + "/task/" + f[3] + "/comm")).strip());
        assertTrue(dt.waitFor(60, TimeUnit.SECONDS));
        assertEquals(Files.readString(err), 0, dt.exitValue());
    }

    /**
     * uregs[] at BEGIN are the registers of dtrace's own thread that fires it, as DTrace on Linux
     * gives dtrace's at its BEGIN uprobe: the pc in an executable mapping of the dtrace process,
     * the stack pointer in a writable one (its /proc maps, read while it runs).
     */
    @Test
    public void uregsAtBeginAreTheRegistersOfDtracesOwnThread() throws Exception {
        Path out = tmp(), err = tmp();
        Process dt = dtrace(out, err, "-q", "-n", "BEGIN { printf(\"%x %x %x\\n\", uregs[R_PC], uregs[R_SP], uregs[R_FP]); }"
                + " tick-1s { exit(0); } ERROR { exit(1); }");
        awaitText(out, err, "\n");
        String[] f = Files.readString(out).strip().split(" ");
        long pc = Long.parseUnsignedLong(f[0], 16), sp = Long.parseUnsignedLong(f[1], 16);
        List<String> maps = Files.readAllLines(Path.of("/proc/" + dt.pid() + "/maps"));
        assertTrue("R_PC " + f[0] + " in an executable mapping of dtrace: " + maps, maps.stream().anyMatch(m -> within(m, pc, 'x')));
        assertTrue("R_SP " + f[1] + " in a writable mapping of dtrace", maps.stream().anyMatch(m -> within(m, sp, 'w')));
        assertTrue(dt.waitFor(60, TimeUnit.SECONDS));
        assertEquals(Files.readString(err), 0, dt.exitValue());
    }

    private static boolean within(String mapsLine, long address, char permission) {
        String[] f = mapsLine.split("\\s+");
        String[] range = f[0].split("-");
        long lo = Long.parseUnsignedLong(range[0], 16), hi = Long.parseUnsignedLong(range[1], 16);
        return Long.compareUnsigned(address, lo) >= 0 && Long.compareUnsigned(address, hi) < 0 && f[1].indexOf(permission) >= 0;
    }

    @Test
    public void sigtermEndsAGrabbedTraceAndTheProcessRunsOnUntouched() throws Exception {
        grabbedTargetOutlives("TERM");
    }

    @Test
    public void sigintEndsAGrabbedTraceAndTheProcessRunsOnUntouched() throws Exception {
        grabbedTargetOutlives("INT");
    }

    @Test
    public void sigintKillsTheCommandOfDashC() throws Exception {
        String spin = bin("ft_spin");
        Path out = tmp(), err = tmp();
        Process dt = dtrace(out, err, "-q", "-n", "BEGIN { printf(\"tracing\\n\"); } pid$target:a.out:work:entry { @ = count(); }",
                "-c", spin);
        awaitText(out, err, "tracing");
        Optional<ProcessHandle> target = dt.descendants().filter(h -> h.info().command().map(spin::equals).orElse(false))
                .findFirst();
        assertTrue("the -c command runs", target.isPresent());
        Thread.sleep(300);
        signal(dt.pid(), "INT");
        assertTrue(dt.waitFor(60, TimeUnit.SECONDS));
        assertEquals(Files.readString(out) + Files.readString(err), 0, dt.exitValue());
        assertNotNull(target.get().onExit().get(30, TimeUnit.SECONDS));
        assertFalse("dtrace killed its command", target.get().isAlive());
        assertTrue(Files.readString(out), Files.readString(out).matches("(?s)tracing\n\n\\s+\\d+\n*"));
    }

    /**
     * With no -c/-p process, dtrace's Ctrl-C watcher blocks until the signal instead of polling:
     * its thread (dtrace-interrupt, comm truncated to 15 characters) is not woken while tick-1s
     * fires (a 50 ms poll would be ~40 voluntary context switches in 2 s), and SIGINT still ends
     * the run at once as dtrace: the newline, then END's output, exit status 0.
     */
    @Test
    public void sigintWakesTheBlockedWatcherOfAnIdleTrace() throws Exception {
        Path out = tmp(), err = tmp();
        Process dt = dtrace(out, err, "-q", "-n", "BEGIN { printf(\"tracing\\n\"); } tick-1s { n++; }"
                + " END { printf(\"end\\n\"); }");
        awaitText(out, err, "tracing");
        Path watcher = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (watcher == null) {
            try (var tasks = Files.list(Path.of("/proc/" + dt.pid() + "/task"))) {
                watcher = tasks.filter(t -> comm(t).equals("dtrace-interrup")).findFirst().orElse(null);
            }
            assertTrue("a dtrace-interrupt thread in " + dt.pid(), watcher != null || System.nanoTime() < deadline);
            Thread.sleep(10);
        }
        long before = voluntarySwitches(watcher);
        Thread.sleep(2000);
        long woken = voluntarySwitches(watcher) - before;
        assertTrue("the watcher was woken " + woken + " times in 2 s", woken <= 2);

        signal(dt.pid(), "INT");
        assertTrue("dtrace ends on SIGINT", dt.waitFor(60, TimeUnit.SECONDS));
        assertEquals(Files.readString(out) + Files.readString(err), 0, dt.exitValue());
        assertEquals("tracing\n\nend\n", Files.readString(out).replaceAll("\n+$", "\n"));
    }

    private static String comm(Path task) {
        try {
            return Files.readString(task.resolve("comm")).strip();
        } catch (IOException e) {
            return ""; // the thread has ended
        }
    }

    private static long voluntarySwitches(Path task) throws IOException {
        return Files.readAllLines(task.resolve("status")).stream().filter(l -> l.startsWith("voluntary_ctxt_switches:"))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).strip())).findFirst().orElseThrow();
    }
}
