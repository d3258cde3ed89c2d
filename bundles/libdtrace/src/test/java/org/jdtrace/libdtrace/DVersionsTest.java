package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * D's versioned identifier sets (illumos dt_open.c's DT_VERS_* column, dt_reduce): a program that
 * asks for an older D version does not see the built-ins introduced after it; they are unknown
 * names, free for the program's own use. The version can only be lowered.
 */
class DVersionsTest {

    private static DTraceException refused(String source) {
        return assertThrows(DTraceException.class, () -> DRun.script(source));
    }

    /** Each built-in is unknown just below the version that introduced it, and known from it on. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1.0   | 1.1  | trace(substr(\"abc\", 1))",
        "1.1   | 1.2  | trace(ucaller)",
        "1.2.2 | 1.3  | trace(htonl(1))",
        "1.4.1 | 1.5  | trace(inet_ntop(2, alloca(4)))",
        "1.8.1 | 1.9  | print(probename)",
        "1.10  | 1.11 | trace(strtoll(\"12\"))",
        "1.10  | 1.11 | trace(json(\"{}\", \"a\"))",
    })
    void aBuiltInIsUnknownBeforeItsVersion(String before, String since, String use) throws Exception {
        DTraceException e = refused("#pragma D option version=" + before + "\nBEGIN { " + use + "; }");
        String name = use.substring(use.indexOf('(') + 1).replaceAll("[(),].*", "");
        if (use.startsWith("trace(") && !use.contains(name + "(")) {
            // a variable: an undefined name read
            assertEquals("D_IDENT_UNDEF", e.tag(), e.getMessage());
        } else {
            String fn = use.startsWith("print(") ? "print" : name;
            assertEquals("D_FUNC_UNDEF", e.tag(), e.getMessage());
            assertEquals("undefined function name: " + fn, e.getMessage());
        }
        DRun.script("#pragma D option version=" + since + "\nBEGIN { " + use + "; }"); // compiles
    }

    @Test
    void aggregatingFunctionsHaveVersionsToo() throws Exception {
        DTraceException e = refused("#pragma D option version=1.5\nBEGIN { @ = stddev(1); }");
        assertEquals("D_FUNC_UNDEF", e.tag());
        assertEquals("undefined function name: stddev", e.getMessage());
        e = refused("#pragma D option version=1.6.3\nBEGIN { @ = llquantize(1, 10, 0, 6, 20); }");
        assertEquals("undefined function name: llquantize", e.getMessage());
        DRun.script("#pragma D option version=1.6\nBEGIN { @ = stddev(1); }");
        DRun.script("#pragma D option version=1.7\nBEGIN { @ = llquantize(1, 10, 0, 6, 20); }");
    }

    /** A name an older version lacks is the program's to use: ustackdepth (1.2) as a variable of 1.1. */
    @Test
    void aNameTheVersionLacksIsFreeForTheProgram() throws Exception {
        String out = DRun.script("""
                #pragma D option quiet
                #pragma D option version=1.1
                BEGIN { ustackdepth = 41; ustackdepth++; printf("%d\\n", ustackdepth); }
                """).go().end();
        assertEquals("42", out.strip());
        DTraceException e = refused("BEGIN { ustackdepth = 41; }");
        assertEquals("D_OP_WRITE", e.tag(), e.getMessage()); // ustackdepth is dtrace's from 1.2 on
    }

    /** dt_reduce: EDT_VERSREDUCED once lowered; EDT_VERSUNDEF for a version D never had. */
    @Test
    void theVersionOnlyGoesDown() {
        DTraceException e = refused("#pragma D option version=1.0\n#pragma D option version=1.2\nBEGIN { }");
        assertEquals("D_PRAGMA_OPTSET", e.tag());
        assertEquals("failed to set option 'version' to '1.2': Requested version conflicts with earlier setting",
                e.getMessage());
        e = refused("#pragma D option version=1.6.4\nBEGIN { }");
        assertEquals("failed to set option 'version' to '1.6.4': Requested version is not supported by compiler",
                e.getMessage());
    }
}
