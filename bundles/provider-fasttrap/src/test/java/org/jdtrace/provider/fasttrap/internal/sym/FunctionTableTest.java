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
    void oneFunctionPerAddressNamedByItsPreferredSymbol() throws Exception {
        Map<String, Function> libc = libc();
        // puts (weak) and _IO_puts (global) are one function, named puts; likewise malloc
        var puts = libc.get("puts");
        assertTrue(puts != null && puts.aliases().contains("_IO_puts"), "puts " + puts);
        assertNull(libc.get("_IO_puts"), "no second function for the alias");
        assertTrue(libc.get("malloc").aliases().contains("__libc_malloc"));
        assertEquals("_IO_puts", puts.as("_IO_puts"::equals).name(), "a description naming the alias");
        assertEquals("puts", puts.as(n -> n.contains("puts")).name(), "a glob names it once, as puts");
        assertNull(puts.as("printf"::equals));
        long addresses = libc.values().stream().filter(f -> f.size() > 0).map(Function::address).distinct().count();
        assertEquals(libc.values().stream().filter(f -> f.size() > 0).count(), addresses);
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
