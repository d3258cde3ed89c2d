package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.engine.DProgram;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * D source compiled by a real session and fired through the JVM probe context: the printed
 * output is dtrace(1M)'s (the CPU/ID/FUNCTION:NAME heading "%3s %6s %32s", probe lines
 * "%3d %6d %32s ", quiet printf, aggregation tables, the blank line of the exit path).
 */
class DCompilerTest {

    private static final String HEADING = "CPU     ID                    FUNCTION:NAME\n";

    private static String probeLine(int cpu, int id, String fn) {
        return String.format("%3d %6d %32s ", cpu, id, fn);
    }

    @Test
    void helloWithProbeLineAndExit() throws Exception {
        DRun r = DRun.script("BEGIN { printf(\"hello %d\\n\", 42); exit(0); }").go();
        assertTrue(r.session.exitRequested());
        assertEquals(0, r.session.exitStatus());
        assertEquals(HEADING + probeLine(0, 1, ":BEGIN") + "hello 42\n\n\n", r.end());
    }

    @Test
    void signalAndErrnoNamesAreTheSystemLibrarysInlines() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { printf("%d %d %d %d %d\\n", SIGUSR1, SIGKILL, ENOENT, EAGAIN == EWOULDBLOCK, SIGRTMAX); exit(0); }
                """).go();
        assertEquals("10 9 2 1 64\n\n", r.end());
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("int SIGUSR1; BEGIN { exit(0); }"));
        assertEquals("D_DECL_IDRED", e.tag());
    }

    @Test
    void precedenceVariablesIncrementsCastsAndStrings() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN {
                    x = 2 + 3 * 4;
                    y = (2 + 3) * 4;
                    z = 1 << 2 + 1;
                    w = 7 & 3 == 3;
                    self->n = 5; self->n++; ++self->n; self->n -= 2; self->n *= 3;
                    this->s = "abc";
                    a["k", 1] = 10; a["k", 1] += 5; a["j", 2] = 1;
                    c = (char)300;
                    i = (int)0x1ffffffff;
                    printf("%d %d %d %d %d %s %d %d %d %d\\n", x, y, z, w, self->n, this->s,
                        a["k", 1], a["j", 2], c, i);
                    printf("%d %d %d %d\\n", x > y ? 1 : 2, "abc" < "abd", this->s == "abc", a["x", 0]);
                    printf("%d %d %u %d %u\\n", -7 / 2, -7 % 2, (unsigned)-1 / 2, (unsigned char)-1, (unsigned char)-1);
                    printf("%d %d %d\\n", x++ + 1, x, --x);
                    k = (int)100000; k = k * k / k; m = (int)0x7fffffff; m += 1;
                    printf("%d %d %d\\n", k, m, (int)0x7fffffff + 1 > 0);
                    exit(0);
                }
                """).go();
        assertEquals("14 20 8 1 15 abc 15 1 44 -1\n2 1 1 0\n-3 -1 2147483647 255 255\n15 15 14\n100000 -2147483648 0\n\n", r.end());
    }

    @Test
    void predicatesBuiltinsAndThreadLocals() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { n = 0; }
                test:::entry /arg0 > 5 && execname != ""/ { n += arg0; self->t = timestamp; }
                test:::return /self->t/ { printf("%s:%s:%s:%s %d %d %d ", probeprov, probemod, probefunc,
                    probename, id, arg1, cpu); printf("%d %d\\n", timestamp >= self->t, pid > 0); self->t = 0; }
                test:::return /self->t == 0/ { printf("cleared\\n"); }
                END { printf("n=%d\\n", n); }
                """);
        r.go().fire(DRun.ENTRY, 3).fire(DRun.ENTRY, 7, 1).fire(DRun.RETURN, 0, 9).fire(DRun.ENTRY, 10);
        assertEquals("test:libwork.so:work:return 5 9 0 1 1\ncleared\nn=17\n\n", r.end());
    }

    @Test
    void aggregationsWithKeysPrintaClearAndTrunc() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { @c[probefunc] = count(); @s[arg0] = sum(arg1); @mn = min(arg1); @mx = max(arg1);
                               @av = avg(arg1); @t[arg0, "x"] = count(); }
                END { printa("%s %@d\\n", @c); printa("%d:%@d ", @s); printa("min=%@d ", @mn); printa("max=%@d ", @mx);
                      printa("avg=%@d\\n", @av); trunc(@t, 1); printa("%d %s %@d\\n", @t); clear(@c); printa("[%s %@d]\\n", @c); }
                """);
        r.go().fire(DRun.ENTRY, 1, 10).fire(DRun.ENTRY, 2, 20).fire(DRun.ENTRY, 1, 30);
        assertEquals("work 3\n2:20 1:40 min=10 max=30 avg=20\n1 x 2\n[work 0]\n\n", r.end());
    }

    @Test
    void anInlineThatIsNoConstantStandsForItsExpression() throws Exception {
        // the DTrace guide: an inline's name is replaced by its expression wherever it is used
        DRun r = DRun.script("""
                #pragma D option quiet
                inline string name = probename;
                inline int big = arg0 > 5;
                inline int total = 100 + 23;
                struct rec { char c; int i; };
                struct rec r1;
                inline struct rec r2 = r1;
                test:::entry { r1.i = arg0; printf("%s %d %d %d\\n", name, big, total, r2.i); }
                """);
        r.go().fire(DRun.ENTRY, 3).fire(DRun.ENTRY, 7);
        assertEquals("entry 0 123 3\nentry 1 123 7\n\n", r.end());
    }

    @Test
    void normalizeDividesWhatIsPrintedAndDenormalizeUndoesIt() throws Exception {
        // the DTrace guide: normalize(@a, n) divides each value printed by n (histogram counts
        // too, the bars keeping the data's proportions); denormalize(@a) prints the raw data again
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { @s[arg0] = sum(arg1); @a = avg(arg1); @q = quantize(arg1); }
                END { normalize(@s, 10); printa("%d %@d\\n", @s); normalize(@a, 2); printa("avg=%@d\\n", @a);
                      denormalize(@s); printa("%d %@d\\n", @s); normalize(@q, 2); }
                """);
        r.go().fire(DRun.ENTRY, 1, 10).fire(DRun.ENTRY, 2, 20).fire(DRun.ENTRY, 1, 30);
        assertEquals("2 2\n1 4\navg=10\n2 20\n1 40\n\n"
                + "\n           value  ------------- Distribution ------------- count    \n"
                + "               4 |                                         0        \n"
                + "               8 |@@@@@@@@@@@@@                            0        \n"
                + "              16 |@@@@@@@@@@@@@@@@@@@@@@@@@@@              1        \n"
                + "              32 |                                         0        \n\n", r.end());
    }

    @Test
    void quantizeAndLquantizeTablesAtExit() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { @q = quantize(arg0); @l["k"] = lquantize(arg0, 0, 10, 5); }
                """);
        r.go().fire(DRun.ENTRY, 1).fire(DRun.ENTRY, 3).fire(DRun.ENTRY, 3).fire(DRun.ENTRY, 12);
        String hdr = "\n           value  ------------- Distribution ------------- count    \n";
        assertEquals("\n"
                + hdr
                + "               0 |                                         0        \n"
                + "               1 |@@@@@@@@@@                               1        \n"
                + "               2 |@@@@@@@@@@@@@@@@@@@@                     2        \n"
                + "               4 |                                         0        \n"
                + "               8 |@@@@@@@@@@                               1        \n"
                + "              16 |                                         0        \n"
                + "\n  k                                                 "
                + hdr
                + "             < 0 |                                         0        \n"
                + "               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3        \n"
                + "               5 |                                         0        \n"
                + "           >= 10 |@@@@@@@@@@                               1        \n"
                + "\n", r.end());
    }

    @Test
    void macroArgumentsAndTarget() throws Exception {
        DRun r = new DRun();
        r.session.setOption("target", "4242");
        r.enable(r.session.compile("#pragma D option quiet\nBEGIN { printf(\"%d %s %d %s\\n\", $1 + 1, $$2, $target, $$1); }",
                "t.d", List.of("t.d", "41", "foo")));
        r.go();
        assertEquals("42 foo 4242 41\n\n", r.end());
    }

    @Test
    void printfConversionsAndFlags() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { printf("[%5d|%-5d|%05d|%x|%X|%o|%+d|%c|%10s|%-4s|%.2s|%*d|%%]\\n", 42, 42, 42, 255, 255, 8, 7, 65,
                    "right", "l", "abc", 4, 9); }
                """).go();
        assertEquals("[   42|42   |00042|ff|FF|10|+7|A|     right|l   |ab|   9|%]\n\n", r.end());
    }

    @Test
    void traceOfIntegersAndStringsWithProbeLines() throws Exception {
        DRun r = DRun.script("BEGIN { trace(1); trace((char)2); trace(\"s\"); } BEGIN { x = 1; } BEGIN { } test:::entry { @ = count(); }"
                + "BEGIN { trace((int8_t)-1); trace((uint16_t)-1); trace(-1); trace((uint64_t)-1); }").go();
        r.fire(DRun.ENTRY);
        assertEquals(HEADING
                + probeLine(0, 1, ":BEGIN") + "          1   2" + String.format("  %-33s", "s") + "\n"
                + probeLine(0, 1, ":BEGIN") + "\n"
                + probeLine(0, 1, ":BEGIN") + "  -1 65535         -1 18446744073709551615\n"
                + "\n                1\n", r.end());
    }

    @Test
    void pragmaQuietAndBadOption() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { trace(5); }").go();
        assertEquals("5\n", r.end());
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN { }\n#pragma D option nosuchoption\n"));
        assertEquals("D_PRAGMA_OPTSET", e.tag());
        assertEquals(2, e.line());
        assertEquals("failed to set option 'nosuchoption': Invalid option name", e.getMessage());
    }

    @Test
    void aConstantConditionalKeepsOnlyItsLiveBranchSoActionsMayBeBranches() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                inline int OPT = 1;
                BEGIN { OPT ? printf("y\\n") : 1; OPT ? @a[1] = count() : 1; !OPT ? printf("n\\n") : trace(7);
                        $1 ? printf("one\\n") : printf("zero\\n"); 0 ? undefined_anywhere : 1; }
                """, "0").go();
        assertEquals("y\n7zero\n\n        1                1\n", r.end());
        // a condition only known when it runs keeps dt_cook_op3's refusal
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN { timestamp ? printf(\"y\\n\") : 1; }"));
        assertEquals("D_OP_ACT", e.tag());
        assertEquals("action cannot be used in a conditional context", e.getMessage());
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { timestamp ? @a[1] = count() : 1; }"));
        assertEquals("D_AGG_SCALAR", e.tag());
    }

    @Test
    void pragmaOptionsTakeEffectWhereTheyStand() throws Exception {
        // defaultargs: the lexer reads it from the next token on, as dt_pragma_option sets it
        DRun r = DRun.script("#pragma D option quiet\n#pragma D option defaultargs\n"
                + "BEGIN { printf(\"%d [%s]\\n\", $1, $$2); }");
        r.go();
        assertEquals("0 []\n\n", r.end());
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN { trace($1); }\n#pragma D option defaultargs\n"));
        assertEquals("D_MACRO_UNDEF", e.tag());
        // argref: an unreferenced last argument is no error
        DRun.script("#pragma D option argref\nBEGIN { }", "unused");
        // a bad option is refused at its line, before what the program says after it is checked
        e = assertThrows(DTraceException.class, () -> DRun.script("#pragma D option nosuch\nBEGIN { x = y; }"));
        assertEquals("D_PRAGMA_OPTSET", e.tag());
        assertEquals(1, e.line());
        assertEquals("failed to set option 'nosuch': Invalid option name", e.getMessage());
    }

    @Test
    void aVariableNotYetReadTakesTheTypeOfEachValueAssignedToIt() throws Exception {
        // dt_ident_unref: 'x = 0' made x an int, 'x = timestamp' (before any read) a uint64_t
        long big = 1L << 40 | 5;
        DRun r = DRun.script("#pragma D option quiet\n"
                + "BEGIN { self->s = 0; g = 0; this->l = 0; }\n"
                + "BEGIN { self->s = $1; g = $1; this->l = 0; this->l = $1;"
                + "  printf(\"%d %d %d\\n\", self->s, g, this->l); }\n"
                + "BEGIN { r = 0; trace(r); r = $1; printf(\" %d\\n\", r); }\n", Long.toString(big));
        r.go();
        // r was read while an int: it stays one, and keeps the low 32 bits as before
        assertEquals((big + " ").repeat(2) + big + "\n0 5\n\n", r.end());
        // an associative array keeps its first value's type: a pointer after an int is refused
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN { x[1] = 1; x[2] = (char *)0 + 1; }"));
        assertEquals("D_OP_INCOMPAT", e.tag());
        DRun.script("BEGIN { y = 1; y = (char *)0 + 1; }"); // a scalar not yet read takes it
        // a declared variable keeps its type
        r = DRun.script("#pragma D option quiet\nint d;\nBEGIN { d = $1; printf(\"%d\\n\", d); }", Long.toString(big));
        r.go();
        assertEquals("5\n\n", r.end());
    }

    @Test
    void stringofTakesAStringCompatibleArray() throws Exception {
        // dt_cook_op1: a scalar, a pointer or a string-compatible operand (a char array member)
        DRun r = DRun.script("#pragma D option quiet\nstruct s { char name[8]; int n[2]; } v;\n"
                + "BEGIN { v.name[0] = 'o'; v.name[1] = 'k'; printf(\"[%s]\\n\", stringof(v.name)); }");
        r.go();
        assertEquals("[ok]\n\n", r.end());
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("struct s { int n[2]; } v;\nBEGIN { trace(stringof(v.n)); }"));
        assertEquals("D_STRINGOF_TYPE", e.tag());
        assertEquals("cannot apply stringof to a value of type int [2]", e.getMessage());
    }

    @Test
    void argsPastWhatTheProbesDescribeIsDArgsIdx() throws Exception {
        // dt_idcook_args: an index at or past the probe's argument count (what its provider describes)
        DRun r = new DRun();
        r.session.probeArgs(d -> d.provider().equals("test")
                ? List.of(List.of(new org.jdtrace.spi.ArgDesc(0, "int", null), new org.jdtrace.spi.ArgDesc(1, "char *", null)))
                : List.of());
        r.session.compile("test:::entry { trace(args[1]); }", "t.d", List.of("t.d"));
        DTraceException e = assertThrows(DTraceException.class,
                () -> r.session.compile("test:::entry\n{\n\ttrace(args[2]);\n}", "t.d", List.of("t.d")));
        assertEquals("D_ARGS_IDX", e.tag());
        assertEquals(3, e.line());
        assertEquals("index 2 is out of range for test:::entry args[ ]", e.getMessage());
        // a probe that describes nothing may have arguments: args[] is int64_t there
        r.session.compile("other:::x { trace(args[5]); }", "t.d", List.of("t.d"));
    }

    @Test
    void optionPspecReadsAnAmbiguousWordAsAProbeDescription() throws Exception {
        // -x pspec (DTRACE_C_PSPEC): "int*x" is a description without a clause, not a declaration
        DRun r = new DRun();
        r.session.setOption("pspec", null);
        DTraceException e = assertThrows(DTraceException.class, () -> r.session.compile("int*x\n", "t.d", List.of("t.d")));
        assertEquals("expected predicate and/or actions following probe description", e.getMessage());
        DRun plain = new DRun();
        e = assertThrows(DTraceException.class, () -> plain.session.compile("int*x\n", "t.d", List.of("t.d")));
        assertEquals("D_SYNTAX", e.tag());
    }

    @Test
    void compileErrorsCarryTagAndLine() {
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN\n{\n  x = y;\n}"));
        assertEquals("D_IDENT_UNDEF", e.tag());
        assertEquals(3, e.line());
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN\n{\n  breakpoint();\n}"));
        assertEquals(3, e.line());
        assertTrue(e.getMessage().contains("breakpoint( )"), e.getMessage());
    }

    @Test
    void aContextFaultFiresErrorWithTheProbeAndClauseItsReportNames() throws Exception {
        // DTrace on Linux: ERROR's arg1 is the probe ID and arg2 the clause of "dt_clause_N"
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { printf("one\\n"); }
                BEGIN { printf("%s\\n", copyinstr(16)); printf("never\\n"); }
                ERROR { printf("ERROR probe=%d clause=%d kind=%d addr=%d\\n", arg1, arg2, arg4, arg5); }
                """).go();
        String out = r.end();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("dtrace: error in dt_clause_1 for probe ID (\\d+) "
                + "\\(dtrace:::BEGIN\\): invalid address \\(0x10\\) at BPF pc [1-9][0-9]*\n").matcher(r.err());
        assertTrue(m.matches(), r.err());
        assertEquals("one\nERROR probe=" + m.group(1) + " clause=1 kind=1 addr=16\n\n", out);
    }

    @Test
    void aFaultReportNamesItsStatementOnePerProbeDescription() throws Exception {
        // DTrace on Linux numbers statements dt_clause_0... in program order, one per description
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN, END { }
                BEGIN { x = *(int *)0; }
                """).go();
        r.end();
        assertTrue(r.err().matches("dtrace: error in dt_clause_2 for probe ID 1 \\(dtrace:::BEGIN\\): "
                + "invalid address \\(0x0\\) at BPF pc [1-9][0-9]*\n"), r.err());
    }

    @Test
    void clauseLocalsAndStrtokLastForTheClausesOfOneFiring() throws Exception {
        // D: a clause-local variable keeps its value across the clauses of one probe firing, and
        // strtok's position lives as long; the next firing (END) starts afresh
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { this->n = 41; this->s = "x"; t = strtok("a,b", ","); }
                BEGIN /this->n == 41/ { printf("%d %s %s %s\\n", this->n + 1, this->s, t, strtok(NULL, ",")); }
                END { printf("end %d [%s]\\n", this->n, this->s); }
                END { strtok(NULL, ","); }
                """).go();
        assertEquals("42 x a b\nend 0 []\n\n", r.end());
        assertTrue(r.err().startsWith("dtrace: error in dt_clause_3 for probe ID 2 (dtrace:::END): invalid address (0x0)"),
                r.err());
    }

    @Test
    void theLastMacroArgumentMustBeReferencedUnlessArgref() throws Exception {
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { exit(0); }\n", "1234"));
        assertEquals("D_MACRO_UNUSED", e.tag());
        assertEquals("extraneous argument '1234' ($1 is not referenced)", e.getMessage());
        DRun.script("BEGIN { trace($1); exit(0); }", "1234").go().end();
        DRun r = new DRun(); // -x argref: compile flags are read before the program's own pragmas
        r.session.setOption("argref", null);
        r.session.compile("BEGIN { exit(0); }", "t.d", List.of("t.d", "1234"));
    }

    @Test
    void optionEmptyAcceptsAProgramWithNothingInIt() throws Exception {
        assertEquals("D_EMPTY", assertThrows(DTraceException.class, () -> DRun.script("/* nothing */")).tag());
        DRun r = new DRun();
        r.session.setOption("empty", null);
        assertTrue(r.session.compile("/* nothing */\n", "t.d", List.of("t.d")).statements().isEmpty());
    }

    @Test
    void walltimestampAdvancesBetweenReadsAndTimestampDoesNot() throws Exception {
        long before = java.time.Instant.now().toEpochMilli();
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { w1 = walltimestamp; w2 = walltimestamp; w3 = walltimestamp; t1 = timestamp; t2 = timestamp;
                    printf("%d %d %d %d\\n", w1, w2 - w1, w3 - w2, t2 - t1); }
                """).go();
        long after = java.time.Instant.now().toEpochMilli();
        String[] f = r.end().trim().split(" ");
        long w1ms = Long.parseLong(f[0]) / 1_000_000;
        assertTrue(w1ms >= before - 20 && w1ms <= after + 20, w1ms + " not in [" + before + ", " + after + "]");
        assertTrue(Long.parseLong(f[1]) > 0 && Long.parseLong(f[2]) > 0, String.join(" ", f));
        assertEquals("0", f[3]);
    }

    @Test
    void ustackStrsizeMustBeAPositiveIntegerConstant() throws Exception {
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { ustack(1, -1); }"));
        assertEquals("D_USTACK_STRSIZE", e.tag());
        assertEquals("ustack( ) argument #2 must be a positive integer constant", e.getMessage());
        DRun.script("BEGIN { ustack(1, 100); exit(0); }");
    }

    @Test
    void divideByZeroInPredicate() throws Exception {
        DRun r = DRun.script("BEGIN /(1 / (arg0 - arg0)) == 1/ { }").go();
        r.end();
        assertTrue(r.err().matches("dtrace: error in dt_clause_0 for probe ID 1 \\(dtrace:::BEGIN\\): divide-by-zero"
                + " at BPF pc [1-9][0-9]*\n"), r.err());
    }

    @Test
    void exitInEndSetsTheStatus() throws Exception {
        DRun r = DRun.script("BEGIN { exit(0); } END { exit(3); }").go();
        r.end();
        assertEquals(3, r.session.exitStatus());
    }

    @Test
    void exitStopsOtherProbes() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { exit(2); } test:::entry { printf(\"no\"); } END { printf(\"end\"); }");
        r.go().fire(DRun.ENTRY);
        assertEquals("end\n", r.end());
        assertEquals(2, r.session.exitStatus());
    }

    @Test
    void ifElseAndTernaryStrings() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { if (arg0 > 1) { s = "big"; } else { s = "small"; } printf("%s %s\\n", s, arg0 == 2 ? "two" : "other"); }
                """);
        r.go().fire(DRun.ENTRY, 2).fire(DRun.ENTRY, 0);
        assertEquals("big two\nsmall other\n\n", r.end());
    }

    @Test
    void stringSubroutines() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { s = strjoin("foo", "bar"); printf("%s %d %s %d %s %s\\n", s, strlen(s), substr(s, 1, 3), index(s, "b"),
                    toupper(s), basename("/a/b/c")); this->t = s; printf("%c%c %d %d\\n", this->t[0], this->t[5], this->t[6], sizeof ("hi")); }
                """).go();
        assertEquals("foobar 6 oob 3 FOOBAR c\nfr 0 3\n\n", r.end());
    }

    @Test
    void descriptionsWithoutClauseGetTheDefaultAction() throws Exception {
        DRun r = new DRun();
        DProgram p = r.session.compileDescriptions(List.of("dtrace:::BEGIN", "test::work:"));
        r.enable(p);
        r.go().fire(DRun.RETURN);
        assertEquals(HEADING + probeLine(0, 1, ":BEGIN") + "\n" + probeLine(0, 5, "work:return") + "\n\n", r.end());
        assertFalse(r.session.exitRequested());
    }

    @Test
    void descriptionsWithoutClauseExpandMacrosAsClausesDo() throws Exception {
        DRun r = new DRun();
        r.session.setOption("target", "4242");
        String spec = "pid$target:a.out:main:";
        DProgram bare = r.session.compileDescriptions(List.of(spec));
        DProgram clause = r.session.compile(spec + " { }", "dtrace", List.of("dtrace"));
        ProbeDescription expected = new ProbeDescription("pid4242", "a.out", "main", "");
        assertEquals(List.of(expected), bare.statements().get(0).descriptions());
        assertEquals(clause.statements().get(0).descriptions(), bare.statements().get(0).descriptions());
        assertEquals(List.of("pid4242:a.out:main:"), bare.descriptions());

        DProgram positional = r.session.compileDescriptions(List.of("pid$1::malloc:entry"), List.of("dtrace", "1234"));
        assertEquals(List.of("pid1234::malloc:entry"), positional.descriptions());

        DTraceException e = assertThrows(DTraceException.class, () -> r.session.compileDescriptions(List.of("syscall::$9:entry")));
        assertEquals("macro argument $9 is not defined", e.getMessage());
        assertEquals("D_MACRO_UNDEF", e.tag());
    }

    @Test
    void speculationsCommitInOrderAndDiscard() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { s = speculation(); }
                BEGIN { speculate(s); printf("spec1\\n"); }
                test:::entry { speculate(s); printf("spec2 %d\\n", arg0); }
                test:::return /arg0 == 1/ { commit(s); }
                test:::return /arg0 == 0/ { discard(s); }
                END { printf("end %d\\n", speculation()); }
                """);
        r.go().fire(DRun.ENTRY, 7);
        r.session.drain();
        assertEquals("", r.out());
        r.fire(DRun.RETURN, 1).fire(DRun.ENTRY, 8).fire(DRun.RETURN, 0);
        assertEquals("spec1\nspec2 7\nend 1\n\n", r.end());
    }

    @Test
    void failedSpeculationIsReported() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { a = speculation(); b = speculation(); speculate(a); printf("never\\n"); }
                BEGIN { speculate(0); x = 1; }
                END { discard(a); printf("%d %d %d\\n", a, b, x); }
                """).go();
        assertEquals("1 0 0\n\n", r.end());
        assertEquals("dtrace: 1 failed speculation (no speculative buffer available)\n", r.err());
    }

    @Test
    void actionsOutOfOrderAroundSpeculateAndCommit() {
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN\n{\n  printf(\"x\");\n  commit(1);\n}"));
        assertEquals("D_COMM_DREC", e.tag());
        assertEquals(4, e.line());
        assertEquals("commit( ) may not follow data-recording action(s)", e.getMessage());
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { speculate(1); @a = count(); }"));
        assertEquals("D_AGG_SPEC", e.tag());
    }

    @Test
    void setoptAppliesWhenConsumedAndReportsRefusals() throws Exception {
        DRun r = DRun.script("BEGIN { setopt(\"quiet\"); setopt(\"nosuch\"); setopt(\"bufsize\", \"1m\"); } BEGIN { printf(\"x\\n\"); }").go();
        assertEquals(HEADING + probeLine(0, 1, ":BEGIN") + "\nx\n\n", r.end());
        assertEquals("dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option \"nosuch\" to \"1\": "
                + "Invalid option name\n\n"
                + "dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option \"bufsize\" to \"1m\": "
                + "Operation illegal when tracing is active\n\n", r.err());
    }

    @Test
    void stddevIsExactAndQuantizeReachesTheTopBucket() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { @s = stddev(5000000000); @s = stddev(5000000200); @s = stddev(5000000400);
                        @q = quantize(0x4000000000000000); printa("%@d\\n", @s); printa(@q); }
                """).go();
        assertEquals("163\n\n"
                + "\n           value  ------------- Distribution ------------- count    \n"
                + "2305843009213693952 |                                         0        \n"
                + "4611686018427387904 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n"
                + "\n\n", r.end());
    }

    @Test
    void timestampIsFixedForAFiringAndKeysSortFromAggsortkeypos() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                #pragma D option aggsortkeypos=1
                BEGIN { this->t = timestamp; this->v = vtimestamp; x = 1; x = x * 3;
                        printf("%d\\n", timestamp - this->t + vtimestamp - this->v);
                        @[1, 3] = sum(0); @[2, 2] = sum(0); @[3, 1] = sum(0); printa("%d %d\\n", @); }
                """).go();
        assertEquals("0\n3 1\n2 2\n1 3\n\n", r.end());
    }

    @Test
    void systemRunsTheCommandAndNeedsDestructive() throws Exception {
        String script = "#pragma D option quiet\nBEGIN { printf(\"before\\n\"); system(\"echo %s %d\", probename, 1 + 1); printf(\"after\\n\"); }";
        DRun refused = DRun.script(script);
        DTraceException e = assertThrows(DTraceException.class, refused::go);
        assertEquals("Destructive actions not allowed", e.getMessage());
        DRun r = DRun.script("#pragma D option destructive\n" + script).go();
        assertEquals("before\nBEGIN 2\nafter\n\n", r.end());
    }

    @Test
    void printaOfSeveralAggregationsJoinsTheirKeys() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { @foo[1] = sum(10); @bar[2] = sum(20); @foo[3] = sum(3); @bar[3] = sum(30);
                        printa("%d %@d %@d\\n", @foo, @bar); printa(@foo, @bar); }
                """).go();
        assertEquals("2 0 20\n3 3 30\n1 10 0\n\n"
                + String.format(" %8d %16d %16d\n %8d %16d %16d\n %8d %16d %16d\n", 2, 0, 20, 3, 3, 30, 1, 10, 0)
                + "\n", r.end());
    }

    @Test
    void freopenSendsOutputToAFileAndBack(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path f = dir.resolve("out.txt");
        DRun r = DRun.script("#pragma D option quiet\n#pragma D option destructive\n"
                + "BEGIN { printf(\"a\\n\"); freopen(\"%s\", $$1); printf(\"b\\n\"); freopen(\"\"); printf(\"c\\n\"); }",
                f.toString()).go();
        assertEquals("a\nc\n\n", r.end());
        assertEquals("b\n", java.nio.file.Files.readString(f));
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN {\n freopen(\"..\"); }"));
        assertEquals("D_FREOPEN_INVALID", e.tag());
        assertEquals("freopen( ) argument #1 cannot be \"..\"", e.getMessage());
    }

    @Test
    void stringsHoldStrsizeCharactersAndRawbytesDumpsThem() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                #pragma D option strsize=5
                BEGIN { printf("%s %d %s|%s|%s\\n", strjoin("123", "abcdefgh"), strlen("123456789"), substr("abcde", -7, 3),
                        substr("abcde", -2), substr("abcde", 1, -1)); }
                BEGIN { setopt("rawbytes"); trace("dtrace"); }
                """).go();
        assertEquals("123ab 5 a|de|bcd\n"
                + "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n"
                + "         0: 64 74 72 61 63 00                                dtrac.\n"
                + "\n", r.end());
    }

    @Test
    void destructiveActionsRunInProbeContext() throws Exception {
        assertThrows(DTraceException.class, () -> DRun.script("BEGIN { chill(10); }").go());
        DRun r = DRun.script("#pragma D option destructive\nBEGIN { chill(1000); raise(0); }").go();
        r.end();
        // the JVM probe context has no process to signal: raise() faults, the report names it
        assertTrue(r.err().matches("dtrace: error in dt_clause_0 for probe ID 1 \\(dtrace:::BEGIN\\): illegal operation"
                + " at BPF pc [1-9][0-9]*\n"), r.err());
    }

    @Test
    void aggregationAndPragmaMisuseIsACompileError() {
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN\n{\n @ = lquantize(0, 10, 20, 1);\n @ = lquantize(0, 15, 20, 1);\n}"));
        assertEquals("D_LQUANT_MATCHBASE", e.tag());
        assertEquals(4, e.line());
        assertEquals("lquantize( ) base (argument #2) doesn't match previous declaration: expected 10, found 15", e.getMessage());
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { @ = lquantize(1, 2, 3, 4); }"));
        assertEquals("D_LQUANT_STEPLARGE", e.tag());
        e = assertThrows(DTraceException.class, () -> DRun.script("#pragma D option ldpath=/x\nBEGIN { }"));
        assertEquals("failed to set option 'ldpath' to '/x': Option cannot be used from within a D program", e.getMessage());
    }

    @Test
    void llquantizeBucketsByOrderOfMagnitude() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { @ = llquantize(-3, 4, 0, 1, 2); @ = llquantize(3, 4, 0, 1, 2); @ = llquantize(9, 4, 0, 1, 2, 2);
                        @ = llquantize(100, 4, 0, 1, 2); printa(@); }
                """).go();
        String hdr = "\n           value  ------------- Distribution ------------- count    \n";
        assertEquals("\n" + hdr
                + "              -4 |                                         0        \n"
                + "              -2 |@@@@@@@@                                 1        \n"
                + "              -1 |                                         0        \n"
                + "               0 |                                         0        \n"
                + "               1 |                                         0        \n"
                + "               2 |@@@@@@@@                                 1        \n"
                + "               4 |                                         0        \n"
                + "               8 |@@@@@@@@@@@@@@@@                         2        \n"
                + "           >= 16 |@@@@@@@@                                 1        \n"
                + "\n\n", r.end());
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { @ = llquantize(1, 10, 0, 6, 3); }"));
        assertEquals("D_LLQUANT_STEPVAL", e.tag());
    }

    /**
     * llquantize()'s parameters named as illumos' dt_compile_agg names them (factor is argument
     * #1); tags are DTrace on Linux's where its suite checks them, and illumos' where only
     * illumos refuses: steps above the factor that do not divide the first power of the factor
     * reaching them (D_LLQUANT_FACTOREVEN). Equal magnitudes stay Linux's (accepted: its suite's
     * llquantize_basic uses them), not illumos' D_LLQUANT_MAGRANGE.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "llquantize(1, 10, 4, 3, 10) | D_LLQUANT_HMAGVAL | llquantize( ) high magnitude (argument #3) must be greater than low magnitude (argument #2)",
        "llquantize(1, 6, 2, 4, 24) | D_LLQUANT_FACTOREVEN | llquantize( ) factor (argument #1) must evenly divide the number of steps per magnitude (argument #4), and the number of steps per magnitude must evenly divide a power of the factor",
        "llquantize(1, 1, 0, 6, 20) | D_LLQUANT_FACTORVAL | llquantize( ) factor (argument #1) must be two or more",
        "llquantize(1, 65536, 0, 6, 20) | D_LLQUANT_FACTORVAL | llquantize( ) argument #1 (factor) must be an unsigned 16-bit quantity",
        "llquantize(1, 10, 0, 6, 65536) | D_LLQUANT_STEPVAL | llquantize( ) argument #4 (linear steps per magnitude) must be an unsigned 16-bit quantity",
        "llquantize(1, 10, 0, 30, 20) | D_LLQUANT_HMAGVAL | llquantize( ) factor (10) raised to power of high magnitude (30) plus 1 overflows 64-bits",
    })
    void llquantizeParametersAreCheckedAsIllumosNamesThem(String call, String tag, String message) {
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { @ = " + call + "; }"));
        assertEquals(tag, e.tag());
        assertEquals(message, e.getMessage());
    }

    @Test
    void llquantizeMismatchesNameTheParameter() {
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN { @ = llquantize(1, 10, 0, 2, 10); @ = llquantize(1, 10, 0, 3, 10); }"));
        assertEquals("D_LLQUANT_MATCHHMAG", e.tag());
        assertEquals("llquantize( ) high magnitude (argument #3) doesn't match previous declaration: expected 2, found 3",
                e.getMessage());
    }
}
