package org.jdtrace.libdtrace.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.DFunction;
import org.jdtrace.libdtrace.ast.DType;
import org.junit.jupiter.api.Test;

/**
 * The built-ins table against the runtime: every subroutine row's entry is a method of Subr for
 * every arity the row allows, taking each argument in the kind the row declares and returning
 * the kind of its result type; every variable read through an entry has one; kernel-only rows
 * have none.
 */
class SubrEntryTest {

    @Test
    void everySubroutineResolvesForEveryArity() {
        int checked = 0;
        for (DFunction f : DFunction.values()) {
            if (f.kind != DFunction.Kind.SUBROUTINE || f.entry == null) continue;
            for (int n = f.minArgs; n <= f.maxArgs; n++) {
                List<Ir.VKind> args = new ArrayList<>();
                for (int i = 0; i < n; i++) args.add(f.param(i) == 's' ? Ir.VKind.STRING : Ir.VKind.LONG);
                SubrEntry e = SubrEntry.find(f.entry, args);
                assertNotNull(e, f.dname + " with " + args + " has no runtime entry Subr." + f.entry);
                assertEquals(f.result.isString() ? Ir.VKind.STRING : Ir.VKind.LONG, e.result(), f.dname);
                checked++;
            }
        }
        assertTrue(checked > 35, "subroutine arities checked: " + checked);
    }

    @Test
    void symbolActionsResolveToAStringOfAnAddress() {
        for (DFunction f : DFunction.values()) {
            if (!f.isSymbol()) continue;
            SubrEntry e = SubrEntry.find(f.entry, List.of(Ir.VKind.LONG));
            assertNotNull(e, f.dname);
            assertTrue(e.context(), f.dname + " reads the firing's symbols");
            assertEquals(Ir.VKind.STRING, e.result());
        }
    }

    @Test
    void variablesReadThroughAnEntryResolve() {
        for (BuiltinVariable b : BuiltinVariable.values()) {
            if (b.access != BuiltinVariable.Access.SUBR || b.entry == null) continue;
            List<Ir.VKind> args = b.isArray() ? List.of(Ir.VKind.LONG) : List.of();
            SubrEntry e = SubrEntry.find(b.entry, args);
            assertNotNull(e, b.dname() + " has no runtime entry Subr." + b.entry);
            assertEquals(b.type() instanceof DType.Str ? Ir.VKind.STRING : Ir.VKind.LONG, e.result(), b.dname());
        }
    }

    @Test
    void kernelRowsHaveNoEntryAndSayWhatTheyNeed() {
        for (DFunction f : DFunction.values()) {
            if (f.kind != DFunction.Kind.KERNEL) continue;
            assertNull(f.entry, f.dname);
            assertNotNull(f.kernelObject, f.dname);
        }
    }

    @Test
    void hiddenParametersAreRecognised() {
        SubrEntry strlen = SubrEntry.find("strlen", List.of(Ir.VKind.STRING));
        assertTrue(strlen.state() && !strlen.context());
        SubrEntry ntoa = SubrEntry.find("inet_ntoa", List.of(Ir.VKind.LONG));
        assertTrue(ntoa.state() && ntoa.context());
        assertTrue(!SubrEntry.find("getmajor", List.of(Ir.VKind.LONG)).context());
        assertNull(SubrEntry.find("strlen", List.of(Ir.VKind.LONG)));
        assertNull(SubrEntry.find("no_such_subroutine", List.of()));
    }
}
