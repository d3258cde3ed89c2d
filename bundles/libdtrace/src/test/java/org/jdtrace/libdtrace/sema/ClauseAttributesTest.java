package org.jdtrace.libdtrace.sema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.engine.ProbeArgs;
import org.jdtrace.libdtrace.lex.Macros;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Attributes;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProviderAttributes;
import org.junit.jupiter.api.Test;

/**
 * Stability attributes as the Dynamic Tracing Guide's "Stability" chapter computes them: a
 * description's from its provider's table and the parts it names, a statement's from the
 * identifiers it uses, -x amin's refusals worded as its "Stability Enforcement" example.
 */
class ClauseAttributesTest {

    /** The syscall provider's table in the guide's syscall chapter. */
    static final ProviderAttributes SYSCALL = ProviderAttributes.parse("Evolving/Evolving/Common",
            "Private/Private/Unknown", "Unstable/Unstable/ISA", "Evolving/Evolving/Common", "Unstable/Unstable/ISA");

    /** The framework's answer: the real dtrace provider's attributes, the guide's syscall table for syscall. */
    static final ProbeArgs PROBES = new ProbeArgs() {
        @Override
        public List<List<ArgDesc>> argDescs(ProbeDescription d) {
            return List.of();
        }

        @Override
        public ProviderAttributes attributes(ProbeDescription d) {
            if (d.provider().equals("syscall")) return SYSCALL;
            if (d.provider().isEmpty() || d.provider().equals("dtrace")) return new DTraceProvider().attributes();
            return null;
        }
    };

    static ClauseAttributes.Report report(String source, String amin) throws DTraceException {
        CheckedProgram p = DFrontEnd.check(source, "t.d", Macros.of("t.d", List.of()), false, Map.of(), PROBES);
        return ClauseAttributes.of(p, PROBES, amin == null ? null : Attributes.parse(amin));
    }

    @Test
    void theSpisSyscallTableIsTheGuides() {
        assertEquals(SYSCALL, ProviderAttributes.SYSCALL);
    }

    @Test
    void theGuidesDtraceProviderTableGivesAFullDescriptionItsAttributes() throws DTraceException {
        ClauseAttributes.Report r = report("dtrace:::BEGIN { printf(\"%d\", 2); exit(0); }", null);
        assertEquals("Stable/Stable/Common", r.description().toString());
        assertEquals("Stable/Stable/Common", r.statement().toString());
    }

    @Test
    void anEmptyOrGlobProviderPartIsUnstable() throws DTraceException {
        assertEquals("Unstable/Unstable/Common", report("BEGIN { exit(0); }", null).description().toString());
        assertEquals("Unstable/Unstable/Common", report("dt*:::BEGIN { exit(0); }", null).description().toString());
    }

    @Test
    void eachNamedPartLowersTheDescription() throws DTraceException {
        // Evolving provider and name, Unstable/ISA function: the minimum of the three
        assertEquals("Unstable/Unstable/ISA", report("syscall::read:entry { }", null).description().toString());
        // a glob function part leaves the function's attributes out
        assertEquals("Evolving/Evolving/Common", report("syscall::re*:entry { }", null).description().toString());
    }

    @Test
    void statementsTakeTheirIdentifiersAttributes() throws DTraceException {
        assertEquals("Evolving/Evolving/Common",
                report("dtrace:::BEGIN { trace(htons(1)); }", null).statement().toString());
        // args[] is bounded by the provider's argument attributes
        assertEquals("Unstable/Unstable/ISA", report("syscall::read:entry { trace(args[0]); }", null)
                .statement().toString());
        assertEquals("Stable/Stable/Common", report("syscall::read:entry { trace(arg0); }", null)
                .statement().toString());
    }

    @Test
    void pragmaAttributesSetAnIdentifiersAttributes() throws DTraceException {
        assertEquals("Evolving/Unstable/Common", report("#pragma D attributes Evolving/Unstable/Common x\n"
                + "int x;\ndtrace:::BEGIN { x = 1; }", null).statement().toString());
    }

    @Test
    void aminRefusesTheClauseOrTheIdentifierBelowIt() {
        DTraceException e = assertThrows(DTraceException.class,
                () -> report("BEGIN { exit(0); }", "Evolving/Evolving/Common"));
        assertEquals("D_ATTR_MIN", e.tag());
        assertEquals("attributes for clause (Unstable/Unstable/Common) are less than predefined minimum",
                e.getMessage());
        e = assertThrows(DTraceException.class,
                () -> report("dtrace:::BEGIN {\n trace(htons(1));\n}", "Stable/Stable/Common"));
        assertEquals("in action list: attributes for function htons (Evolving/Evolving/Common) are less than "
                + "predefined minimum", e.getMessage());
        assertEquals(2, e.line());
    }

    @Test
    void attributesAtOrAboveTheMinimumPass() throws DTraceException {
        assertEquals("Evolving/Evolving/Common",
                report("dtrace:::BEGIN { trace(htons(1)); }", "Evolving/Evolving/Common").statement().toString());
    }

    @Test
    void str2attrLeavesOutPartsAsTheHighest() {
        assertEquals("Stable/Standard/Common", Attributes.parse("stable").toString());
        assertEquals("Evolving/Private/Common", Attributes.parse("Evolving/PRIVATE").toString());
        assertEquals(null, Attributes.parse("Stable/Stable/Common/x"));
        assertEquals(null, Attributes.parse("Stabl"));
    }
}
