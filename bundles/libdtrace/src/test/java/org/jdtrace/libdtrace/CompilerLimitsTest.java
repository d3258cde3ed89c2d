package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;

/**
 * No input breaks the compiler: 10,000 levels of nesting and 20,000 terms of one expression run,
 * a program deeper than the compiler's stack gets D_NESTING, and a clause whose code the JVM
 * cannot hold in one method gets D_CLAUSE_SIZE; never a StackOverflowError or a class-file error.
 */
class CompilerLimitsTest {

    @Test
    void tenThousandLevelsOfParenthesesRun() throws Exception {
        String e = "(".repeat(10_000) + "1" + ")".repeat(10_000);
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { printf(\"%d\\n\", " + e + " + 1); exit(0); }").go();
        assertEquals("2\n\n", r.end());
    }

    @Test
    void twentyThousandTermsOfOneExpressionRun() throws Exception {
        String e = String.join(" + ", java.util.Collections.nCopies(20_000, "1"));
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { printf(\"%d\\n\", " + e + "); exit(0); }").go();
        assertEquals("20000\n\n", r.end());
    }

    @Test
    void tenThousandNestedUnaryOperatorsRun() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { x = 5; printf(\"%d\\n\", " + "-(".repeat(10_000)
                + "x" + ")".repeat(10_000) + "); exit(0); }").go();
        assertEquals("5\n\n", r.end()); // 10,000 negations: an even count
    }

    @Test
    void deeperThanTheStackIsADError() {
        DCompiler small = new DCompiler(Map.of(), 256 << 10);
        DSessionImpl session = new DSessionImpl(small);
        String e = "(".repeat(100_000) + "1" + ")".repeat(100_000);
        DTraceException x = assertThrows(DTraceException.class,
                () -> session.compile("BEGIN { x = " + e + "; }", "t.d", List.of("t.d")));
        assertEquals("D_NESTING", x.tag());
        assertTrue(x.getMessage().startsWith("program nested too deeply"), x.getMessage());
    }

    @Test
    void aClauseTooLargeForOneMethodIsADError() {
        String body = "trace(1);\n".repeat(30_000);
        DTraceException x = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { " + body + " }"));
        assertEquals("D_CLAUSE_SIZE", x.tag());
    }
}
