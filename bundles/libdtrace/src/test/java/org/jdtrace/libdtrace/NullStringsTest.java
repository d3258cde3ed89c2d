package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * NULL strings as DTrace keeps them (illumos dtrace_dif_emulate and dtrace_probe): a variable
 * assigned NULL holds NULL, a thread-local or associative element that does not exist is NULL, a
 * global string never assigned is ""; reading a NULL string's bytes (trace, printf's %s, s[i], a
 * key) is an invalid address (0, or i for s[i]) that raises dtrace:::ERROR; in a comparison NULL
 * equals only NULL and sorts before every string, "" included (DTrace on Linux). Run by a real
 * session, fired on the real JVM context.
 */
class NullStringsTest {

    private static final String ERROR_CLAUSE = "ERROR { printf(\"ERROR kind=%d addr=%d\\n\", arg4, arg5); }\n";

    private static DRun run(String clauses) throws Exception {
        return DRun.script("#pragma D option quiet\n" + clauses + ERROR_CLAUSE).go();
    }

    @Test
    void indexingANullStringFaultsAtTheIndex() throws Exception {
        for (String var : new String[] {"g", "this->l", "self->t", "a[1234]"}) {
            DRun r = run("string g;\nBEGIN { " + var + " = \"ABCDEFG\"; trace(" + var + "[1]); }\n"
                    + "BEGIN { " + var + " = NULL; trace(" + var + "[1]); printf(\"never\\n\"); }\n");
            assertEquals("66ERROR kind=1 addr=1\n\n", r.end(), var);
            assertTrue(r.err().startsWith("dtrace: error in dt_clause_1 for probe ID 1 (dtrace:::BEGIN): invalid address (0x1)"),
                    var + ": " + r.err());
        }
    }

    @Test
    void aDynamicVariableThatDoesNotExistIsNull() throws Exception {
        DRun r = run("self string x;\nstring s[int];\nBEGIN { trace(self->x); }\nBEGIN { trace(s[1]); }\n"
                + "BEGIN { printf(\"%d %d\\n\", self->x == NULL, s[1] == NULL); }\n");
        assertEquals("ERROR kind=1 addr=0\nERROR kind=1 addr=0\n1 1\n\n", r.end());
    }

    @Test
    void aGlobalStringIsEmptyUntilAssignedAndNullAfterNull() throws Exception {
        DRun r = run("string g;\nBEGIN { printf(\"[%s] %d\\n\", g, strlen(g)); g = NULL; }\nBEGIN { printf(\"[%s]\\n\", g); }\n");
        assertEquals("[] 0\nERROR kind=1 addr=0\n\n", r.end());
    }

    @Test
    void anEmptyStringIsAValueNotADeletion() throws Exception {
        // "" is a string: stored, it is read back as "" (only NULL deallocates a dynamic variable)
        DRun r = run("BEGIN { self->e = \"\"; a[1] = \"\"; printf(\"[%s][%s]\\n\", self->e, a[1]); }\n");
        assertEquals("[][]\n\n", r.end());
    }

    @Test
    void aNullResultFaultsWhereItIsRecordedOrUsedAsAKey() throws Exception {
        DRun r = run("BEGIN { trace(strtok(\"abc\", \"def\")); }\nBEGIN { trace(strtok(NULL, \"def\")); }\n"
                + "BEGIN { @[strchr(\"abc\", 'z')] = count(); }\nBEGIN { x[strchr(\"abc\", 'z')] = 1; }\n");
        assertEquals("abcERROR kind=1 addr=0\nERROR kind=1 addr=0\nERROR kind=1 addr=0\n\n", r.end());
    }

    @Test
    void aNullStringEqualsOnlyNullAndSortsBeforeEveryStringTheEmptyOneToo() throws Exception {
        DRun r = run("BEGIN { n = strchr(\"abc\", 'z'); m = strchr(\"x\", 'y'); e = \"\"; s = \"abc\";\n"
                + "printf(\"%d %d %d %d %d %d %d %d %d\\n\", n == NULL, n == m, n == e, n < e, e > n, n <= e, n >= e, n < s, n != s); }\n");
        assertEquals("1 1 0 1 1 1 0 1 1\n\n", r.end());
    }

    /**
     * NULL is libdtrace's hard-wired "inline long NULL = 0": where it is used, the integer
     * constant 0 (4 bytes; printf's %u takes it), a null pointer constant beside a pointer or a
     * string (compared, assigned, the other arm of ?:). A variable first assigned NULL is an int.
     */
    @Test
    void nullIsTheIntegerConstantZeroAndANullPointerConstant() throws Exception {
        DRun r = run("BEGIN { p = (char *) alloca(1); printf(\"%d %u %d %d\\n\", sizeof(NULL), NULL, p == NULL, (p ? p : NULL) == p);\n"
                + " s = \"x\"; s = NULL; printf(\"%d\\n\", s == NULL); q = (int *) NULL; printf(\"%d\\n\", q == 0);\n"
                + " n = NULL; n++; printf(\"%d %d\\n\", n, sizeof(n)); }\n");
        assertEquals("4 0 0 1\n1\n1\n1 4\n\n", r.end(), r.err());
    }
}
