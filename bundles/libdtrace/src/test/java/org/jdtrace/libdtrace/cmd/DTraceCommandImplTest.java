package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jdtrace.consumer.DTraceCommand;
import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DTraceCommandImplTest {

    final ScriptedDTrace dtrace = new ScriptedDTrace();
    final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    DTraceCommand.Interrupt interrupt = () -> false;

    @TempDir
    Path dir;

    int run(String... argv) {
        PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        return new DTraceCommandImpl(dtrace).run(List.of(argv), new ByteArrayInputStream(new byte[0]),
                out, err, interrupt);
    }

    String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void noArgumentsPrintsUsageAndExits2() {
        assertEquals(2, run());
        assertTrue(err().startsWith("Usage: dtrace [-32|-64] [-aACeFGhHlqSvVwZ]"), err());
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertEquals(2, run("-k", "-n", "BEGIN"));
        assertTrue(err().startsWith("dtrace: illegal option -- k\nUsage: dtrace "), err());
        assertTrue(dtrace.sources.isEmpty(), "nothing compiled on a usage error");
    }

    @Test
    void missingOptionArgumentIsAUsageError() {
        assertEquals(2, run("-n"));
        assertTrue(err().startsWith("dtrace: option requires an argument -- n\n"), err());
    }

    @Test
    void descriptionWithClauseMatchesAndRuns() {
        dtrace.exitStatus = 3;
        dtrace.workRounds = 2;
        assertEquals(3, run("-n", "BEGIN { exit(3); }"));
        assertEquals("dtrace: description 'BEGIN ' matched 1 probe\n", err());
        assertEquals("BEGIN { exit(3); }", dtrace.sources.get(0));
        assertEquals("fired BEGIN\n", out());
        assertTrue(dtrace.stopped == false && dtrace.closed);
    }

    @Test
    void pluralAndQuiet() {
        dtrace.workRounds = 1;
        assertEquals(0, run("-n", "dtrace:::", "-q"));
        assertEquals("", err());
        assertEquals(0, new DTraceCommandImpl(new ScriptedDTrace()).run(List.of("-n", "dtrace:::"),
                System.in, new PrintStream(outBytes), new PrintStream(errBytes, true), () -> true));
        assertEquals("dtrace: description 'dtrace:::' matched 3 probes\n", err());
    }

    @Test
    void scriptCompileErrorIsWordedAsDtrace(@TempDir Path d) throws IOException {
        Path x = Files.writeString(d.resolve("x.d"), "BEGIN\n{\n}}\n");
        dtrace.compileError = new DTraceException("syntax error near \"}\"", "D_SYNTAX", 3);
        assertEquals(1, run("-s", x.toString()));
        assertEquals("dtrace: failed to compile script " + x + ": line 3: syntax error near \"}\"\n", err());
    }

    @Test
    void errtagsAddsTheTag(@TempDir Path d) throws IOException {
        Path x = Files.writeString(d.resolve("x.d"), "BEGIN\n{\n}}\n");
        dtrace.compileError = new DTraceException("syntax error near \"}\"", "D_SYNTAX", 3);
        assertEquals(1, run("-xerrtags", "-s", x.toString()));
        assertEquals("dtrace: failed to compile script " + x + ": [D_SYNTAX] line 3: syntax error near \"}\"\n",
                err());
    }

    @Test
    void probeSpecifierErrorHasNoLine() {
        dtrace.compileError = new DTraceException("syntax error near \"}\"", "D_SYNTAX", 1);
        assertEquals(1, run("-n", "BEGIN { x }"));
        assertEquals("dtrace: invalid probe specifier BEGIN { x }: syntax error near \"}\"\n", err());
    }

    @Test
    void unmatchedDescriptionFails() {
        assertEquals(1, run("-n", "nosuch:::"));
        assertEquals("dtrace: invalid probe specifier nosuch:::: probe description nosuch::: "
                + "does not match any probes\n", err());
    }

    @Test
    void zdefsAllowsZeroMatchesAndRuns() {
        dtrace.workRounds = 1;
        assertEquals(0, run("-Z", "-n", "nosuch:::"));
        assertEquals("dtrace: description 'nosuch:::' matched 0 probes\n", err());
    }

    @Test
    void scriptMatchedNoticeNamesTheScript(@TempDir Path d) throws IOException {
        Path x = Files.writeString(d.resolve("x.d"), "BEGIN,END\n{\n}\n");
        dtrace.workRounds = 1;
        assertEquals(0, run("-s", x.toString()));
        assertEquals("dtrace: script '" + x + "' matched 2 probes\n", err());
        assertEquals(List.of(x.toString()), dtrace.macroArgs.get(0));
    }

    @Test
    void interpreterLineIsSplitAndBlankedAndOperandsAreMacroArguments(@TempDir Path d) throws IOException {
        Path x = Files.writeString(d.resolve("x.d"), "#!/usr/sbin/dtrace -q -s\nBEGIN { trace($1); }\n");
        dtrace.workRounds = 1;
        assertEquals(0, run("-q -s", x.toString(), "hello", "42"));
        assertEquals("", err(), "-q from the #! line silences the notice");
        assertEquals("\nBEGIN { trace($1); }\n", dtrace.sources.get(0));
        assertEquals(List.of(x.toString(), "hello", "42"), dtrace.macroArgs.get(0));
    }

    @Test
    void pragmaQuietSilencesTheNotice(@TempDir Path d) throws IOException {
        Path x = Files.writeString(d.resolve("x.d"), "#pragma D option quiet\nBEGIN { }\n");
        dtrace.workRounds = 1;
        assertEquals(0, run("-s", x.toString()));
        assertEquals("", err());
    }

    @Test
    void missingScript() {
        assertEquals(1, run("-s", dir.resolve("nope.d").toString()));
        assertEquals("dtrace: failed to open " + dir.resolve("nope.d") + ": No such file or directory\n", err());
    }

    @Test
    void listPrintsDtraceColumns() {
        assertEquals(0, run("-l", "-n", "BEGIN"));
        assertEquals("   ID   PROVIDER            MODULE                          FUNCTION NAME\n"
                + "    1     dtrace                                                     BEGIN\n", out());
        assertEquals("NAME BEGIN", dtrace.sources.get(0));
    }

    @Test
    void listEverythingAndVerboseArgumentTypes() {
        assertEquals(0, run("-lv"));
        String stable = "\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n";
        String attributes = "\n\tProbe Description Attributes\n" + stable + "\n\tArgument Attributes\n" + stable;
        assertTrue(out().contains("    3     dtrace                                                     ERROR\n"
                + attributes + "\n\tArgument Types\n\t\targs[0]: uint64_t\n\t\targs[1]: int\n\n"), out());
        assertTrue(out().contains("BEGIN\n" + attributes + "\n\tArgument Types\n\t\tNone\n\n"), out());
    }

    @Test
    void listUnmatchedFails() {
        assertEquals(1, run("-l", "-P", "nosuch"));
        assertEquals("dtrace: failed to match nosuch:::: No probe matches description\n", err());
    }

    @Test
    void providerSpecifierWithClauseIsCompleted() {
        dtrace.workRounds = 1;
        assertEquals(0, run("-P", "dtrace { }"));
        assertEquals("dtrace::: { }", dtrace.sources.get(0));
        assertEquals("dtrace: description 'dtrace ' matched 3 probes\n", err());
    }

    @Test
    void probeIdWithClause() {
        dtrace.workRounds = 1;
        assertEquals(0, run("-i", "2 { }"));
        assertEquals("dtrace:::END { }", dtrace.sources.get(1));
    }

    @Test
    void version() {
        assertEquals(0, run("-V"));
        assertEquals("dtrace: Sun D 1.6.4\n", out());
    }

    @Test
    void onlyOneMode() {
        assertEquals(2, run("-l", "-V"));
        assertEquals("dtrace: only one of the [-AGhlV] options can be specified at a time\n", err());
    }

    @Test
    void headerGenerationFromAMissingScript() {
        assertEquals(1, run("-h", "-s", "x.d"));
        assertEquals("dtrace: failed to open x.d: No such file or directory\n", err());
        errBytes.reset();
        assertEquals(2, run("-G", "-n", "BEGIN"));
        assertTrue(err().startsWith("dtrace: -G requires one or more scripts (-s)\n"), err());
    }

    @Test
    void badOptionValue() {
        assertEquals(1, run("-xbufsize=-1", "-n", "BEGIN"));
        assertEquals("dtrace: failed to set -x bufsize: Invalid value for specified option\n", err());
    }

    @Test
    void goFailure() {
        dtrace.options.put("fail-go", "");
        assertEquals(1, run("-n", "BEGIN"));
        assertTrue(err().endsWith("dtrace: could not enable tracing: Destructive actions not allowed\n"), err());
    }

    @Test
    void compileOnly() {
        assertEquals(0, run("-e", "-n", "BEGIN { }"));
        assertEquals("", err());
        assertEquals("", out());
    }

    @Test
    void interruptStopsPrintsNewlineAndEndRuns() {
        AtomicBoolean intr = new AtomicBoolean();
        interrupt = () -> intr.get();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException ignored) {
                return;
            }
            intr.set(true);
        });
        assertEquals(0, run("-q", "-n", "BEGIN,END { }"));
        assertTrue(dtrace.stopped);
        assertEquals("fired BEGIN\n\nfired END\n", out());
        assertTrue(t.isAlive() || true);
    }

    @Test
    void commandTargetIsTracedUntilItExits() {
        assertEquals(0, run("-c", "/bin/sh -c exit\\ 0", "-n", "BEGIN"));
        String pid = dtrace.options.get("target");
        assertTrue(pid != null && Long.parseLong(pid) > 0, "target " + pid);
        assertTrue(err().endsWith("dtrace: pid " + pid + " has exited\n"), err());
        assertTrue(dtrace.stopped);
    }

    @Test
    void commandTargetIsKilledWhenTracingEndsFirst() {
        dtrace.workRounds = 2;
        assertEquals(0, run("-c", "sleep 60", "-n", "BEGIN"));
        long pid = Long.parseLong(dtrace.options.get("target"));
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void grabMissingPid() {
        assertEquals(1, run("-p", "999999999", "-n", "BEGIN"));
        assertEquals("dtrace: failed to grab pid 999999999: No such process\n", err());
    }

    @Test
    void aPidIsReadAsStrtolReadsIt() throws IOException {
        // "-p $pid" passed as one word: strtol skips the leading blanks; nothing may follow the digits
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            dtrace.workRounds = 1;
            assertEquals(0, run("-p", " \t" + sleeper.pid(), "-n", "BEGIN"), err());
            assertEquals(Long.toString(sleeper.pid()), dtrace.options.get("target"));
            assertTrue(sleeper.isAlive(), "a grabbed process is left running");
            outBytes.reset();
            errBytes.reset();
            assertEquals(1, run("-p", sleeper.pid() + "x", "-n", "BEGIN"));
            assertEquals("dtrace: invalid pid: " + sleeper.pid() + "x\n", err());
        } finally {
            sleeper.destroyForcibly();
        }
    }

    @Test
    void outputFileIsAppendedTo(@TempDir Path d) throws IOException {
        Path o = Files.writeString(d.resolve("o.txt"), "before\n");
        dtrace.workRounds = 1;
        assertEquals(0, run("-o", o.toString(), "-n", "BEGIN"));
        assertEquals("before\nfired BEGIN\n", Files.readString(o));
        assertEquals("", out());
    }

    @Test
    void cppRunsWithDefinesAndKeepsLineNumbers(@TempDir Path d) throws IOException {
        Path x = Files.writeString(d.resolve("x.d"), "#define V 40404\n\nBEGIN\n{\n\ttrace(V);\n}\n");
        dtrace.workRounds = 1;
        assertEquals(0, run("-C", "-D", "EXTRA=1", "-s", x.toString()));
        String src = dtrace.sources.get(0);
        assertEquals("trace(40404);", src.split("\n")[4].strip(), src);
    }

    @Test
    void cppFailure(@TempDir Path d) throws IOException {
        Path x = Files.writeString(d.resolve("x.d"), "#include \"nonexistent.h\"\nBEGIN { }\n");
        assertEquals(1, run("-C", "-s", x.toString()));
        assertTrue(err().endsWith("dtrace: failed to compile script " + x
                + ": Preprocessor failed to process input program\n"), err());
    }

    @Test
    void aScriptThatIsNotUtf8IsReadAsBytes() throws IOException {
        Path x = dir.resolve("latin1.d");
        Files.write(x, new byte[] {'B', 'E', 'G', 'I', 'N', ' ', '{', ' ', 't', 'r', 'a', 'c', 'e', '(', '"',
            (byte) 0xff, (byte) 0xe9, '"', ')', ';', ' ', '}'});
        dtrace.workRounds = 1;
        assertEquals(0, run("-q", "-s", x.toString()));
        assertEquals("BEGIN { trace(\"\u00ff\u00e9\"); }", dtrace.sources.get(0));
        assertEquals("h\u00e9", Invocation.scriptText("h\u00e9".getBytes(StandardCharsets.UTF_8)), "UTF-8 stays UTF-8");
    }
}
