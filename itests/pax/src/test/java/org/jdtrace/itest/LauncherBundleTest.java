package org.jdtrace.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.After;
import org.junit.Test;

/**
 * bin/dtrace --bundle: the distribution's launcher in a JVM of its own (as bin/dtrace runs it, no
 * agent flag) installs and starts an application bundle before the D program runs; fbt traces it
 * with the launcher agent's Instrumentation (no self-attach: the JDK's dynamic-agent warning is
 * absent); SIGTERM ends the trace as Ctrl-C does; a missing jar is one line and exit status 1.
 */
public class LauncherBundleTest {

    static final String APP = "org.jdtrace.itest.app";

    private final List<Process> started = new ArrayList<>();
    private final List<Path> files = new ArrayList<>();

    @After
    public void cleanUp() throws IOException {
        for (Process p : started) {
            p.destroyForcibly();
        }
        for (Path f : files) Files.deleteIfExists(f);
    }

    private Path tmp() throws IOException {
        Path f = Files.createTempFile("itest", ".out");
        files.add(f);
        return f;
    }

    private Process dtrace(Path out, Path err, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-XX:+UseSerialGC",
                "-jar", new File(System.getProperty("jdtrace.dist"), "jdtrace-launcher.jar").getPath()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        started.add(p);
        return p;
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    @Test
    public void bundleIsInstalledAndTracedWithTheLauncherAgent() throws Exception {
        Path out = tmp();
        Path err = tmp();
        Process p = dtrace(out, err, "--bundle", Platform.TEST_APP, "-q", "-n",
                "fbt:" + APP + ":*Calc.add:entry { n++; } "
                        + "fbt:" + APP + ":*Calc.add:entry /n == 20/ { printf(\"%d calls\\n\", n); exit(0); }");
        assertTrue("dtrace ends", p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(read(err), 0, p.exitValue());
        assertEquals("20 calls", read(out).strip());
        assertFalse(read(err), read(err).contains("loaded dynamically"));
    }

    @Test
    public void sigtermEndsAnFbtTraceAsCtrlCDoes() throws Exception {
        Path out = tmp();
        Path err = tmp();
        Process p = dtrace(out, err, "--bundle", Platform.TEST_APP, "-q", "-n",
                "fbt:" + APP + ":*Greeter.greet:return { n++; } "
                        + "fbt:" + APP + ":*Greeter.greet:return /n == 1/ { printf(\"traced\\n\"); } "
                        + "END { printf(\"end %d\\n\", n > 0); }");
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!read(out).contains("traced")) {
            assertTrue("the trace starts: " + read(err), System.nanoTime() < deadline && p.isAlive());
            Thread.sleep(50);
        }
        assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).inheritIO().start().waitFor());
        assertTrue("dtrace ends", p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(read(err), 0, p.exitValue());
        // dtrace's blank line after an interrupted run, as DTraceSignalsTest sees it
        assertEquals("traced\n\nend 1", read(out).strip());
    }

    @Test
    public void listsEveryMethodOfTheBundleAndNoneOfTheFiringPath() throws Exception {
        Path out = tmp();
        Path err = tmp();
        Process p = dtrace(out, err, "--bundle", Platform.TEST_APP, "-l", "-m", APP);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(read(err), 0, p.exitValue());
        List<String> lines = read(out).lines().skip(1).toList();
        // Activator, Calc, Greeter, Worker: 11 functions with their constructors, two probes each
        assertEquals(read(out), 22, lines.size());
        assertTrue(read(out), lines.stream().allMatch(l -> l.matches(" *\\d+ +fbt +" + APP.replace(".", "\\.") + " +\\S+ (entry|return)")));
        assertTrue(read(out), lines.stream().anyMatch(l -> l.endsWith(" " + APP + ".Calc.add entry")));

        for (String firingPath : List.of("org.jdtrace.core", "org.jdtrace.libdtrace")) {
            Path out2 = tmp();
            Process core = dtrace(out2, err, "-l", "-m", "fbt:" + firingPath);
            assertTrue(core.waitFor(120, TimeUnit.SECONDS));
            assertEquals("the framework and D runtime are never traced: " + read(out2), 1, core.exitValue());
        }
    }

    @Test
    public void aMissingBundleIsOneLineAndStatusOne() throws Exception {
        Path out = tmp();
        Path err = tmp();
        Process p = dtrace(out, err, "--bundle", "/nonexistent/app.jar", "-n", "BEGIN { exit(0); }");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue());
        assertEquals("dtrace: cannot install bundle /nonexistent/app.jar: No such file\n", read(err));
    }

    /**
     * A copy of the distribution, run with its own AOT cache, reads its own directory: a class
     * from the cache keeps the training run's code source, which named the original before.
     * The copy has no bundles/, so the original's would have made this run succeed.
     */
    @Test
    public void aCopyOfTheDistributionRunsFromItsOwnDirectoryWithTheAotCache() throws Exception {
        Path dist = Path.of(System.getProperty("jdtrace.dist"));
        assertTrue("the build leaves an AOT cache", Files.isRegularFile(dist.resolve("dtrace.aot")));
        Path copy = Files.createTempDirectory("jdtrace-dist-copy");
        try {
            for (String f : List.of("jdtrace-launcher.jar", "jvm.options", "dtrace.aot")) {
                Files.copy(dist.resolve(f), copy.resolve(f));
            }
            Path out = tmp();
            Path err = tmp();
            Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                    "@" + copy.resolve("jvm.options"), "-XX:AOTCache=" + copy.resolve("dtrace.aot"),
                    "-Xlog:aot=off,cds=off", "-jar", copy.resolve("jdtrace-launcher.jar").toString(),
                    "-n", "BEGIN { exit(0); }")
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            started.add(p);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(read(err), 1, p.exitValue());
            assertTrue(read(err), read(err).contains("cannot read " + copy.resolve("bundles")));
        } finally {
            try (var files = Files.walk(copy)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
            }
        }
    }
}
