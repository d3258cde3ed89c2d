package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jdtrace.consumer.Consumer;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    @Test
    void clusteredFlagsAndAttachedArguments() throws Exception {
        CommandLine cl = CommandLine.parse(List.of("-qZn", "BEGIN", "-xbufsize=4m", "-b16k"));
        assertEquals(List.of(new CommandLine.Option('q', null), new CommandLine.Option('Z', null),
                new CommandLine.Option('n', "BEGIN"), new CommandLine.Option('x', "bufsize=4m"),
                new CommandLine.Option('b', "16k")), cl.options);
        assertEquals(List.of(new CommandLine.Spec('n', "BEGIN")), cl.specs);
    }

    @Test
    void operandsInterleaveAndDoubleDashTakesTheNextWord() throws Exception {
        CommandLine cl = CommandLine.parse(List.of("a", "-s", "x.d", "b", "--", "-e", "-e"));
        assertEquals(List.of("a", "b", "-e"), cl.operands);
        assertEquals(List.of(new CommandLine.Spec('s', "x.d")), cl.specs);
        assertEquals(true, cl.has('e'), "after the operand, parsing goes on");
    }

    @Test
    void sixtyFourIsAccepted() throws Exception {
        assertEquals(CommandLine.Mode.EXEC, CommandLine.parse(List.of("-64", "-n", "BEGIN")).mode);
        assertThrows(CommandLine.UsageException.class, () -> CommandLine.parse(List.of("-65")));
    }

    @Test
    void probeSpecsAreCompletedByKind() {
        assertEquals("syscall:::", ProbeSpecs.complete("syscall", Consumer.DescriptionKind.PROVIDER));
        assertEquals(":libc::", ProbeSpecs.complete("libc", Consumer.DescriptionKind.MODULE));
        assertEquals("pid1:libc::", ProbeSpecs.complete("pid1:libc", Consumer.DescriptionKind.MODULE));
        assertEquals("::foo:,::bar:", ProbeSpecs.complete("foo, bar", Consumer.DescriptionKind.FUNCTION));
    }

    @Test
    void interpreterLineBlankingKeepsLineNumbers() {
        assertEquals("\nBEGIN\n", Invocation.blankInterpreterLine("#!/usr/sbin/dtrace -s\nBEGIN\n"));
        assertEquals("BEGIN\n", Invocation.blankInterpreterLine("BEGIN\n"));
    }

    /** cpp itself (gcc's, as dtrace runs it): stdc picks the dialect, messages name /dev/stdin. */
    @Test
    void preprocessorDialectAndMessagesAreDtraces() throws Exception {
        CommandLine cl = CommandLine.parse(List.of("-C", "-DVALUE=5", "-n", "BEGIN"));
        String src = "#ifdef __STDC__\nstdc VALUE\n#else\ntraditional VALUE\n#endif\n";
        var err = new java.io.ByteArrayOutputStream();
        var ps = new java.io.PrintStream(err, true);
        assertEquals("\nstdc 5\n", Preprocessor.run(src, null, cl, null, null, L, ps).replaceAll("\n+", "\n"));
        assertEquals("\ntraditional 5\n", Preprocessor.run(src, null, cl, "s", null, L, ps).replaceAll("\n+", "\n"));
        assertEquals("x 7\n", Preprocessor.run("x Y\n", null, cl, null, "-DY=7 -UZ", L, ps).replaceAll("\n+", "\n"));
        assertThrows(Preprocessor.Failure.class, () -> Preprocessor.run("\n#if\n", null, cl, null, null, L, ps));
        // the line and no column, as dtrace's cpp messages are: "/dev/stdin:2: error: ..."
        assertTrue(err.toString().startsWith("/dev/stdin:2: error: "), err.toString());
    }

    private static final int L = org.jdtrace.libdtrace.ast.DVersion.LATEST;

    /** __SUNW_D_VERSION is the D version in force (dt_preproc's -D__SUNW_D_VERSION=0x%08x of dt_vmax). */
    @Test
    void preprocessorDefinesTheVersionInForce() throws Exception {
        CommandLine cl = CommandLine.parse(List.of("-C", "-n", "BEGIN"));
        var ps = new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true);
        assertEquals("0x0100d000\n", Preprocessor.run("__SUNW_D_VERSION\n", null, cl, null, null, L, ps)
                .replaceAll("\n+", "\n").stripLeading());
        int v1 = org.jdtrace.libdtrace.ast.DVersion.parse("1.0");
        assertEquals("0x01000000\n", Preprocessor.run("__SUNW_D_VERSION\n", null, cl, null, null, v1, ps)
                .replaceAll("\n+", "\n").stripLeading());
    }

    @Test
    void lineMarkersAreFolded() {
        String cpp = "# 1 \"/dev/stdin\"\n# 1 \"<built-in>\"\n# 1 \"/dev/stdin\"\n\n\n# 5 \"/dev/stdin\"\nBEGIN\n";
        assertEquals("\n\n\n\nBEGIN\n", Preprocessor.foldLineMarkers(cpp));
    }

    @Test
    void unmatchedDescriptionInAScriptIsACompileError() {
        var e = new org.jdtrace.consumer.DTraceException(
                "invalid probe specifier foo:::bar { }: probe description foo:::bar does not match any probes");
        assertEquals("failed to compile script x.d: probe description foo:::bar does not match any probes",
                Diagnostics.compileFailure(new CommandLine.Spec('s', "x.d"), e, false));
        assertEquals(e.getMessage(), Diagnostics.compileFailure(new CommandLine.Spec('n', "foo:::bar { }"), e, false));
    }
}
