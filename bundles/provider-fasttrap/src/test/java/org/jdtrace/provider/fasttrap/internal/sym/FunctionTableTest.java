package org.jdtrace.provider.fasttrap.internal.sym;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** libc's function table as this JVM's own libc resolves it (the same file a target maps). */
class FunctionTableTest {

    private static Map<String, Function> libc() throws Exception {
        List<MappedObject> mine = ProcessModules.read((int) ProcessHandle.current().pid());
        MappedObject libc = mine.stream().filter(m -> m.module().startsWith("libc.so")).findFirst().orElseThrow();
        return FunctionTable.of(libc).stream()
                .collect(Collectors.toMap(Function::name, f -> f, (a, b) -> a));
    }

    @Test
    void ifuncsResolveToTheImplementationThisCpuUses() throws Exception {
        var strlen = libc().get("strlen");
        assertTrue(strlen.ifunc() && strlen.size() > 0, "strlen " + strlen);
        assertNull(FunctionTable.unresolved(strlen));
    }

    @Test
    void anIfuncResolvedIntoTheVdsoIsSkippedWithItsReason() throws Exception {
        var gettimeofday = libc().get("gettimeofday");
        assertTrue(gettimeofday.ifunc(), "gettimeofday is an IFUNC in this libc");
        assertEquals(0, gettimeofday.size());
        assertEquals("IFUNC libc.so.6`gettimeofday resolves to the vDSO's implementation, which the pid provider"
                + " does not instrument: skipped", FunctionTable.unresolved(gettimeofday));
    }
}
