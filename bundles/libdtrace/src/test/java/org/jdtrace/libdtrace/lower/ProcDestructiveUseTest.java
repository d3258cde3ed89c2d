package org.jdtrace.libdtrace.lower;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jdtrace.engine.DSession;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.junit.jupiter.api.Test;

/**
 * Statement.procDestructive: a clause that acts on the firing process (stop(), raise(), copyout(),
 * copyoutstr(), anywhere in its body, nested in an if too) says so, each statement of a
 * multi-clause script for itself; other destructive actions (system(), which the consumer runs)
 * and ordinary clauses do not.
 */
class ProcDestructiveUseTest {

    private static List<Boolean> procDestructive(String script) throws Exception {
        DSession s = new DSessionFactoryImpl().create();
        return s.compile(script, "-n", List.of("dtrace")).statements().stream().map(st -> st.procDestructive()).toList();
    }

    @Test
    void stopRaiseCopyoutAndCopyoutstrActOnTheProcess() throws Exception {
        assertTrue(procDestructive("BEGIN { stop(); }").get(0));
        assertTrue(procDestructive("BEGIN { raise(10); }").get(0));
        assertTrue(procDestructive("BEGIN { copyoutstr(\"x\", 8, 2); }").get(0));
        assertTrue(procDestructive("BEGIN { this->b = alloca(8); copyout(this->b, 8, 8); }").get(0));
        assertTrue(procDestructive("BEGIN { if (pid > 1) { raise(10); } }").get(0));
    }

    @Test
    void otherClausesDoNot() throws Exception {
        assertFalse(procDestructive("BEGIN { system(\"true\"); }").get(0));
        assertFalse(procDestructive("BEGIN { @[execname] = count(); }").get(0));
        assertFalse(procDestructive("BEGIN { printf(\"%d\\n\", pid); exit(0); }").get(0));
        assertTrue(List.of(false, true).equals(procDestructive("BEGIN { trace(1); } BEGIN { stop(); }")));
    }
}
