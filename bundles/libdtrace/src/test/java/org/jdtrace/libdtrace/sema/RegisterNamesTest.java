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
    void aConstantIndexPastTheIsasLastRegisterIsRefused() throws DTraceException {
        // DTrace on Linux: "uregs[]: index out of bounds (N)", D_UNKNOWN, at compile time
        DTraceException e = assertThrows(DTraceException.class, () -> DFrontEnd.check("BEGIN\n{\n\ttrace(uregs[34]);\n}",
                "x.d", Macros.of("x.d", List.of()), true, Map.of("R_RAX", 33)));
        assertEquals("D_UNKNOWN", e.tag());
        assertEquals("uregs[]: index out of bounds (34)", e.getMessage());
        assertEquals(3, e.line());
        DFrontEnd.check("BEGIN { trace(uregs[33]); }", "x.d", Macros.of("x.d", List.of()), true, Map.of("R_RAX", 33));
    }

    @Test
    void withoutAnIsaTheNamesAreUndefined() {
        DTraceException e = assertThrows(DTraceException.class,
                () -> DFrontEnd.check(SRC, "x.d", Macros.of("x.d", List.of()), true, Map.of()));
        assertEquals("D_IDENT_UNDEF", e.tag());
    }
}
