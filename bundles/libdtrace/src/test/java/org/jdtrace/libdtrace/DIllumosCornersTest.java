package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Corners of D as illumos' libdtrace defines them (issue 24): dt_cg's D_CG_DYN,
 * dt_node_is_argcompat for inlines and translator members, dt_printf's signedness of %d and %i,
 * the histograms of negative values, of the zero bucket and of cleared aggregations
 * (dt_print_quantize, dt_print_lquantize, dt_print_llquantize), clear() then denormalize(), and
 * which tag each of illumos' llquantize() checks carries here.
 */
class DIllumosCornersTest {

    private static final String XLATOR = "struct foo { int a; }; struct bar { int b; };\n"
            + "translator struct foo < int x > { a = x * 2; };\n";

    private static DTraceException refused(String source) {
        return assertThrows(DTraceException.class, () -> DRun.script(source));
    }

    private static String run(String source) throws DTraceException {
        return DRun.script("#pragma D option quiet\n" + source).go().end();
    }

    /** dt_cg: a translated pointer is no value of its own: as a statement, an action's argument, a predicate. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "BEGIN { xlate <struct foo *> (1); }",
        "BEGIN { trace(xlate <struct foo *> (1)); }",
        "BEGIN { printf(\"%p\", xlate <struct foo *> (1)); }",
        "BEGIN { @ = sum(xlate <struct foo *> (1)); }",
        "BEGIN /xlate <struct foo *> (1)/ { }",
    })
    void aTranslatedPointerIsNoResult(String clause) {
        DTraceException e = refused(XLATOR + clause);
        assertEquals("D_CG_DYN", e.tag(), e.getMessage());
        assertEquals("expression cannot evaluate to result of a translated pointer", e.getMessage());
        assertEquals(3, e.line());
    }

    @Test
    void aTranslatedPointersMembersAreValues() throws Exception {
        assertEquals("6 6", run(XLATOR + "BEGIN { printf(\"%d %d\", xlate <struct foo *> (3)->a, xlate <struct foo> (3).a); }")
                .strip());
    }

    /** dt_node_is_argcompat: pointers to the same type (void * to any), an integer only as the constant 0. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "inline int *p = 3;                                   | int * | int",
        "inline struct bar *p = xlate <struct foo *> (1);     | struct bar * | struct foo *",
        "char c[4]; inline int *p = &c[1];                    | int * | char *",
        "inline int i = xlate <struct foo *> (1);             | int | struct foo *",
    })
    void anInlineOfAnotherPointerTypeIsIncompatible(String decl, String declared, String given) {
        DTraceException e = refused(XLATOR + decl + "\nBEGIN { }");
        assertEquals("D_OP_INCOMPAT", e.tag(), e.getMessage());
        assertEquals("inline p definition uses incompatible types: \"" + declared + "\" = \"" + given + "\"",
                e.getMessage().replace("inline i ", "inline p "));
    }

    /**
     * A typedef of a pointer to a function names a pointer type (kept as void *: D calls nothing
     * through it), and a string is no value of it (the suite's baddef1 with the kernel's
     * cyc_func_t, here a type of the program's own; the message names the resolved type).
     */
    @Test
    void anInlineOfAFunctionPointerTypeTakesNoString() throws Exception {
        DTraceException e = refused("typedef void (*cyc_func_t)(void *);\ninline cyc_func_t i = \"i am a cyclic function\";\nBEGIN { }");
        assertEquals("D_OP_INCOMPAT", e.tag(), e.getMessage());
        assertEquals("inline i definition uses incompatible types: \"void *\" = \"string\"", e.getMessage());
        assertEquals("8 1", run("typedef int (*fn_t)(int);\ninline fn_t f = 0;\n"
                + "BEGIN { printf(\"%d %d\", sizeof (fn_t), f == 0); }").strip());
    }

    @Test
    void compatibleInlinesCompile() throws Exception {
        assertEquals("1 1 abc 2", run(XLATOR + "int x[2]; inline int *p = 0; inline void *v = &x[0]; inline char *s = \"abc\";\n"
                + "inline int *q = &x[1]; BEGIN { x[1] = 1; printf(\"%d %d %s %d\", p == 0, *q, s, v != 0 ? 2 : 0); }").strip());
    }

    @Test
    void aTranslatorMemberOfAnotherPointerTypeIsIncompatible() {
        DTraceException e = refused("struct bar { int b; }; struct foo { int *ip; struct bar *bp; };\n"
                + "translator struct foo < int x > { ip = 3; bp = 0; };\nBEGIN { }");
        assertEquals("D_XLATE_INCOMPAT", e.tag(), e.getMessage());
        assertEquals("translator member ip definition uses incompatible types: \"int *\" = \"int\"", e.getMessage());
        e = refused("struct bar { int b; }; struct foo { int *ip; struct bar *bp; }; char c;\n"
                + "translator struct foo < int x > { ip = 0; bp = (struct foo *)0; };\nBEGIN { }");
        assertEquals("translator member bp definition uses incompatible types: \"struct bar *\" = \"struct foo *\"",
                e.getMessage());
    }

    /**
     * dt_printf: %d prints a value of unsigned type as %u (pfcheck_dint turns the conversion into
     * 'u', where '+' and ' ' print nothing), %i always signed (pfprint_sint), both at the value's size.
     */
    @Test
    void percentDFollowsTheTypePercentIIsSigned() throws Exception {
        assertEquals("[4294967295][-1][18446744073709551615][-1][5][+5][ 5][-1][255][-1]", run(
                "BEGIN { printf(\"[%d][%i][%d][%i][%+d][%+i][% i][%d][%u][%i]\", (unsigned)-1, (unsigned)-1,"
                + " (uint64_t)-1, (uint64_t)-1, (unsigned)5, (unsigned)5, (unsigned)5, (char)-1,"
                + " (unsigned char)-1, (unsigned char)-1); }").strip());
        // a negative '*' width left-justifies; '*' precision pads with zeros
        assertEquals("[7    ][00042][   -3]", run("BEGIN { printf(\"[%*d][%.*d][%*i]\", -5, 7, 5, 42, 5, -3); }").strip());
    }

    private static final String HEADER = "\n           value  ------------- Distribution ------------- count    \n";

    private static String row(String value, int bar, long count) {
        return String.format("%16s |%-40s %-9d%n", value, "@".repeat(bar), count).replace("%n", "\n");
    }

    /** dt_print_quantize/lquantize: negative values in their own power-of-two buckets, the zero bucket, one empty row around. */
    @Test
    void quantizeOfNegativeValuesAndZero() throws Exception {
        String out = run("BEGIN { @q = quantize(-5); @q = quantize(0); @q = quantize(0); @q = quantize(3);"
                + " @l = lquantize(-3, 0, 10, 2); @l = lquantize(0, 0, 10, 2); @l = lquantize(1, 0, 10, 2);"
                + " @l = lquantize(10, 0, 10, 2); printa(@q); printa(@l); }");
        assertEquals("\n" + HEADER + row("-8", 0, 0) + row("-4", 10, 1) + row("-2", 0, 0) + row("-1", 0, 0)
                + row("0", 20, 2) + row("1", 0, 0) + row("2", 10, 1) + row("4", 0, 0) + "\n"
                + "\n" + HEADER + row("< 0", 10, 1) + row("0", 20, 2) + row("2", 0, 0) + row("4", 0, 0) + row("6", 0, 0)
                + row("8", 0, 0) + row(">= 10", 10, 1) + "\n\n", out);
    }

    /** An aggregation cleared has no data: illumos prints the rows around zero (the first three of lquantize and llquantize). */
    @Test
    void clearedHistogramsShowTheRowsAroundZero() throws Exception {
        String out = run("BEGIN { @q = quantize(5); @l = lquantize(5, 0, 10, 2); @ll = llquantize(50, 10, 0, 3, 10); }"
                + " BEGIN { clear(@q); clear(@l); clear(@ll); printa(@q); printa(@l); printa(@ll); }");
        assertEquals("\n" + HEADER + row("-1", 0, 0) + row("0", 0, 0) + row("1", 0, 0) + "\n"
                + "\n" + HEADER + row("< 0", 0, 0) + row("0", 0, 0) + row("2", 0, 0) + "\n"
                + "\n" + HEADER + row("0", 0, 0) + row("1", 0, 0) + row("2", 0, 0) + "\n\n", out);
    }

    /**
     * llquantize() as DTrace on Linux has it (its suite's llquantize_basic): negative values mirror
     * the positive buckets, each order of magnitude cut in steps; factor 2, and a low magnitude
     * above 0 whose values below it share one bucket.
     */
    @Test
    void llquantizeOfNegativeValuesAndOtherFactors() throws Exception {
        String out = run("BEGIN { @ = llquantize(-1, 2, 0, 2, 2); @ = llquantize(3, 2, 0, 2, 2); @ = llquantize(2, 2, 0, 2, 2);"
                + " @ = llquantize(100, 2, 0, 2, 2); printa(@); }");
        assertEquals("\n" + HEADER + row("-2", 0, 0) + row("-1", 10, 1) + row("0", 0, 0) + row("1", 0, 0)
                + row("2", 20, 2) + row("4", 0, 0) + row(">= 8", 10, 1) + "\n\n", out);
        out = run("BEGIN { @ = llquantize(250, 10, 1, 2, 5); @ = llquantize(-7, 10, 1, 2, 5); printa(@); }");
        assertEquals("\n" + HEADER + row("-10", 0, 0) + row("abs() < 10", 20, 1) + row("10", 0, 0) + row("20", 0, 0)
                + row("40", 0, 0) + row("60", 0, 0) + row("80", 0, 0) + row("100", 0, 0) + row("200", 20, 1)
                + row("400", 0, 0) + "\n\n", out);
    }

    /** printa() with a count() and an llquantize() of the same keys: %@d takes each aggregation in turn. */
    @Test
    void llquantizeBesideAnotherAggregationInOnePrinta() throws Exception {
        String out = run("BEGIN { @a[\"k\"] = llquantize(15, 10, 1, 2, 10); @b[\"k\"] = count(); @b[\"k\"] = count();"
                + " printa(\"%s %@d\\n%@d\\n\", @b, @a); }");
        assertEquals("k 2\n" + HEADER + row("abs() < 10", 0, 0) + row("10", 40, 1) + row("20", 0, 0) + "\n\n", out);
    }

    /**
     * clear() zeroes what the consumer holds and denormalize() undoes normalize(): what is added
     * after the clear shows whole (dt_aggregate's consumer-side clear and normal).
     */
    @Test
    void clearThenDenormalize() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { @a[\"x\"] = sum(100); normalize(@a, 10); printa(\"%s %@d\\n\", @a);"
                + " clear(@a); denormalize(@a); printa(\"%s %@d\\n\", @a); }\n"
                + "test:::entry { @a[\"x\"] = sum(7); printa(\"%s %@d\\n\", @a); }").go();
        r.session.drain();
        r.fire(DRun.ENTRY);
        assertEquals("x 10\nx 0\nx 7", r.end().strip());
    }

    /**
     * dtrace_speculation_commit: a speculation one CPU wrote is free again at its commit; one that
     * several CPUs wrote stays busy until the consumer's clean, and speculation() meanwhile fails
     * as "busy" (DTRACEDROP_SPECBUSY), then succeeds.
     */
    @Test
    void aSpeculationSeveralCpusWroteIsBusyUntilTheNextClean() throws Exception {
        String script = "#pragma D option quiet\n#pragma D option nspec=1\n#pragma D option droptags\n"
                + "BEGIN { s = speculation(); }\n"
                + "test:::entry { speculate(s); printf(\"spec %d\\n\", arg0); }\n"
                + "test:::return { commit(s); }\n"
                + "test:::return { t = speculation(); printf(\"t=%d\\n\", t); }\n";
        DRun one = DRun.script(script).go();
        one.fire(DRun.ENTRY, 1).fire(DRun.ENTRY, 2).fire(DRun.RETURN);
        assertEquals("spec 1\nspec 2\nt=1", one.end().strip());
        assertEquals("", one.err());

        DRun many = DRun.script(script).go();
        many.fire(DRun.ENTRY, 1);
        many.fire(DRun.ENTRY, org.jdtrace.core.context.JvmProbeContext.current().clear().pinCpu(1).arg(0, 2));
        many.fire(DRun.RETURN);
        many.session.drain();
        assertEquals("dtrace: [DTRACEDROP_SPECBUSY] 1 failed speculation (available buffer(s) still busy)\n",
                many.err());
        many.fire(DRun.RETURN); // cleaned: free again
        assertEquals("spec 1\nspec 2\nt=0\nt=1", many.end().strip());
    }

    /**
     * dtrace_speculation_commit and _discard on a CPU other than the one that wrote the
     * speculation (ACTIVEONE with an empty buffer there) leave it busy (COMMITTINGMANY,
     * DISCARDING) until the consumer's clean; one nothing was written to (ACTIVE) is free at once
     * whichever CPU commits or discards it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"commit", "discard"})
    void aSpeculationCommittedOrDiscardedOnAnotherCpuIsBusyUntilTheNextClean(String op) throws Exception {
        String script = "#pragma D option quiet\n#pragma D option nspec=1\n#pragma D option droptags\n"
                + "BEGIN { s = speculation(); }\n"
                + "test:::entry { speculate(s); printf(\"spec %d\\n\", arg0); }\n"
                + "test:::return { " + op + "(s); }\n"
                + "test:::return { t = speculation(); printf(\"t=%d\\n\", t); }\n";
        DRun other = DRun.script(script).go();
        other.fire(DRun.ENTRY, 1); // on CPU 0
        other.fire(DRun.RETURN, org.jdtrace.core.context.JvmProbeContext.current().clear().pinCpu(1));
        other.session.drain();
        assertEquals("dtrace: [DTRACEDROP_SPECBUSY] 1 failed speculation (available buffer(s) still busy)\n",
                other.err());
        other.fire(DRun.RETURN); // cleaned: free again
        assertEquals((op.equals("commit") ? "spec 1\n" : "") + "t=0\nt=1", other.end().strip());

        DRun empty = DRun.script(script).go();
        empty.fire(DRun.RETURN, org.jdtrace.core.context.JvmProbeContext.current().clear().pinCpu(1));
        assertEquals("t=1", empty.end().strip());
        assertEquals("", empty.err());
    }

    /**
     * A speculative record that does not fit specsize is a speculative drop (DTRACEDROP_SPEC),
     * not a success: the records before it are committed, it is not.
     */
    @Test
    void aSpeculationLargerThanItsBufferDrops() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\n#pragma D option specsize=64\n#pragma D option droptags\n"
                + "BEGIN { s = speculation(); }\n"
                + "BEGIN { speculate(s); printf(\"%d\\n\", 1); }\n"
                + "BEGIN { speculate(s); printf(\"%s\\n\", \"a string of far more than sixty-four bytes, which no speculation here holds\"); }\n"
                + "BEGIN { commit(s); }").go();
        r.session.drain();
        assertEquals("dtrace: [DTRACEDROP_SPEC] 1 speculative drop\n", r.err());
        assertEquals("1", r.end().strip());
    }

    /**
     * dt_stmt_append: assignments and destructive actions record no data, so they may precede
     * speculate() and commit() and follow commit(); a speculation that records nothing (a
     * zero-sized speculation) is no error; exit() may not follow speculate() (D_EXIT_SPEC).
     */
    @Test
    void speculateAndCommitOrderAsIllumosChecksIt() throws Exception {
        String out = DRun.script("#pragma D option quiet\n#pragma D option destructive\n"
                + "BEGIN { self->spec = speculation(); speculate(self->spec); }\n"
                + "BEGIN { this->one = 1; chill(1); speculate(self->spec); }\n"
                + "BEGIN { speculate(self->spec); printf(\"kept\\n\"); }\n"
                + "BEGIN { x = 1; commit(self->spec); chill(1); y = 2; }\n"
                + "BEGIN { printf(\"%d %d\\n\", x, y); }").go().end();
        assertEquals("kept\n1 2", out.strip());
        DTraceException e = refused("BEGIN { s = speculation(); speculate(s); exit(0); }");
        assertEquals("D_EXIT_SPEC", e.tag());
        assertEquals("exit( ) may not follow speculate( )", e.getMessage());
        e = refused("BEGIN { s = speculation(); commit(s); trace(1); }");
        assertEquals("D_DREC_COMM", e.tag());
    }

    /**
     * The prototype checks of the aggregation and stack actions: illumos' own tag where DTrace on
     * Linux has the same, D_PROTO_LEN/D_PROTO_ARG where its suite checks those instead
     * (aggs/err.D_PROTO_*, stack/err.D_PROTO_*, printf/err.D_PROTO_ARG).
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "D_TRUNC_PROTO      | @a = count(); trunc(@a, 1, 2)   | D_PROTO_LEN",
        "D_TRUNC_SCALAR     | @a = count(); trunc(@a, \"x\")  | D_PROTO_ARG",
        "D_NORMALIZE_PROTO  | @a = count(); normalize(@a)     | D_PROTO_LEN",
        "D_NORMALIZE_SCALAR | @a = count(); normalize(@a, \"x\") | D_PROTO_ARG",
        "D_CLEAR_PROTO      | @a = count(); clear(@a, 1)      | D_PROTO_LEN",
        "D_STACK_PROTO      | stack(1, 2)                     | D_PROTO_LEN",
        "D_STACK_SIZE       | stack(-1)                       | D_STACK_SIZE",
        "D_STACK_SIZE       | stack(0)                        | D_STACK_SIZE",
        "D_USTACK_PROTO     | ustack(1, 2, 3)                 | D_PROTO_LEN",
        "D_USTACK_STRSIZE   | ustack(1, -1)                   | D_USTACK_STRSIZE",
        "D_PRINTF_ARG_FMT   | x = \"%d\"; printf(x, 1)        | D_PRINTF_ARG_FMT",
        "D_PRINTF_ARG_FMT   | printf(1)                       | D_PROTO_ARG",
    })
    void prototypeChecksAndTheirTagsHere(String illumos, String statements, String tag) {
        DTraceException e = refused("BEGIN { " + statements + "; }");
        assertEquals(tag, e.tag(), "illumos' " + illumos + ": " + e.getMessage());
    }

    /**
     * illumos' llquantize() checks and the tag each has here: DTrace on Linux's where its suite
     * checks that case (aggs/err.D_LLQUANT_*), illumos' own where only illumos refuses.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "FACTORTYPE   | f = 2; @ = llquantize(1, f, 0, 6, 20)         | D_LLQUANT_FACTORTYPE",
        "FACTORVAL    | @ = llquantize(1, 65536, 0, 6, 20)            | D_LLQUANT_FACTORVAL",
        "FACTORSMALL  | @ = llquantize(1, 1, 0, 6, 20)                | D_LLQUANT_FACTORVAL",
        "LOWTYPE      | l = 0; @ = llquantize(1, 10, l, 6, 20)        | D_LLQUANT_LMAGTYPE",
        "LOWVAL       | @ = llquantize(1, 10, 65536, 65537, 20)       | D_LLQUANT_LMAGVAL",
        "HIGHTYPE     | h = 6; @ = llquantize(1, 10, 0, h, 20)        | D_LLQUANT_HMAGTYPE",
        "HIGHVAL      | @ = llquantize(1, 10, 0, 65536, 20)           | D_LLQUANT_HMAGVAL",
        "NSTEPTYPE    | s = 20; @ = llquantize(1, 10, 0, 6, s)        | D_LLQUANT_STEPTYPE",
        "NSTEPVAL     | @ = llquantize(1, 10, 0, 6, 65536)            | D_LLQUANT_STEPVAL",
        "MAGRANGE     | @ = llquantize(1, 10, 4, 3, 20)               | D_LLQUANT_HMAGVAL",
        "FACTORNSTEPS | @ = llquantize(1, 10, 0, 6, 3)                | D_LLQUANT_STEPVAL",
        "FACTOREVEN   | @ = llquantize(1, 6, 2, 4, 24)                | D_LLQUANT_FACTOREVEN",
        "MAGTOOBIG    | @ = llquantize(1, 10, 0, 30, 20)              | D_LLQUANT_HMAGVAL",
        "FACTORMATCH  | @ = llquantize(1, 10, 0, 6, 20); @ = llquantize(1, 20, 0, 6, 20) | D_LLQUANT_MATCHFACTOR",
        "LOWMATCH     | @ = llquantize(1, 10, 0, 6, 20); @ = llquantize(1, 10, 1, 6, 20) | D_LLQUANT_MATCHLMAG",
        "HIGHMATCH    | @ = llquantize(1, 10, 0, 6, 20); @ = llquantize(1, 10, 0, 5, 20) | D_LLQUANT_MATCHHMAG",
        "NSTEPMATCH   | @ = llquantize(1, 10, 0, 6, 20); @ = llquantize(1, 10, 0, 6, 10) | D_LLQUANT_MATCHSTEPS",
    })
    void illumosLlquantizeChecksAndTheirTagsHere(String illumos, String statements, String tag) {
        DTraceException e = refused("BEGIN { " + statements + "; }");
        assertEquals(tag, e.tag(), "illumos' D_LLQUANT_" + illumos + ": " + e.getMessage());
    }
}
