package org.jdtrace.libdtrace.sema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.lex.Macros;
import org.junit.jupiter.api.Test;

/** uregs[] register names come from the ISA (its regs.d), not from the compiler. */
class RegisterNamesTest {

    private static final String SRC = "BEGIN { trace(uregs[R_RAX]); }";

    @Test
    void theIsasNamesAreConstants() throws DTraceException {
        CheckedProgram p = DFrontEnd.check(SRC, "x.d", Macros.of("x.d", List.of()), true, Map.of("R_RAX", 33));
        assertEquals(1, p.clauses().size());
    }

    @Test
    void withoutAnIsaTheNamesAreUndefined() {
        DTraceException e = assertThrows(DTraceException.class,
                () -> DFrontEnd.check(SRC, "x.d", Macros.of("x.d", List.of()), true, Map.of()));
        assertEquals("D_IDENT_UNDEF", e.tag());
    }
}
