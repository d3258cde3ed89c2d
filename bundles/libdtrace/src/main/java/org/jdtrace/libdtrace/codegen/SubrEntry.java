/*
 * SubrEntry: a runtime entry of the built-ins table (DFunction.entry, or a helper the lowering
 * names in an Ir.Call) resolved to the public static method of Subr that runs it, as
 * dt_cg_subr_call finds a subroutine's code by its DIF_SUBR_* number. A method's leading
 * parameters of type DState and ProbeContext are hidden: the generated code passes the
 * consumer's state and the firing's context there; the others are the call's arguments, long for
 * integers and String for strings, and pick the overload (substr(s, i) or substr(s, i, n)).
 *
 * Immutable: the index of Subr's methods is built once, when this class is initialised, and only
 * read afterwards (any thread). A name or an argument list that no method takes is a compiler
 * bug, reported as IllegalStateException at code generation, and SubrEntryTest checks every
 * row of the table against this index.
 */
package org.jdtrace.libdtrace.codegen;

import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.spi.ProbeContext;

public record SubrEntry(String name, boolean state, boolean context, List<Ir.VKind> params, Ir.VKind result) {

    private static final Map<String, List<SubrEntry>> BY_NAME = index();

    private static Map<String, List<SubrEntry>> index() {
        Map<String, List<SubrEntry>> m = new HashMap<>();
        for (Method method : Subr.class.getDeclaredMethods()) {
            int mod = method.getModifiers();
            if (!Modifier.isPublic(mod) || !Modifier.isStatic(mod)) continue;
            Class<?>[] p = method.getParameterTypes();
            int i = 0;
            boolean state = i < p.length && p[i] == DState.class;
            if (state) i++;
            boolean context = i < p.length && p[i] == ProbeContext.class;
            if (context) i++;
            List<Ir.VKind> params = new ArrayList<>();
            boolean ok = kind(method.getReturnType()) != null;
            for (; i < p.length && ok; i++) {
                Ir.VKind k = kind(p[i]);
                ok = k != null;
                params.add(k);
            }
            if (ok) {
                m.computeIfAbsent(method.getName(), n -> new ArrayList<>())
                        .add(new SubrEntry(method.getName(), state, context, List.copyOf(params), kind(method.getReturnType())));
            }
        }
        m.replaceAll((n, l) -> List.copyOf(l));
        return Map.copyOf(m);
    }

    private static Ir.VKind kind(Class<?> c) {
        return c == long.class ? Ir.VKind.LONG : c == String.class ? Ir.VKind.STRING : null;
    }

    /** The entry {@code name} taking {@code args}, or null when Subr has none. */
    public static SubrEntry find(String name, List<Ir.VKind> args) {
        for (SubrEntry e : BY_NAME.getOrDefault(name, List.of())) {
            if (e.params.equals(args)) return e;
        }
        return null;
    }

    /** As {@link #find}, for the code generator: a missing entry is a compiler bug. */
    static SubrEntry resolve(String name, List<Ir.VKind> args) {
        SubrEntry e = find(name, args);
        if (e == null) throw new IllegalStateException("no runtime entry Subr." + name + args);
        return e;
    }

    /** Every overload of {@code name} (tests). */
    public static List<SubrEntry> overloads(String name) {
        return BY_NAME.getOrDefault(name, List.of());
    }

    MethodTypeDesc descriptor(ClassDesc stateDesc, ClassDesc contextDesc) {
        List<ClassDesc> p = new ArrayList<>();
        if (state) p.add(stateDesc);
        if (context) p.add(contextDesc);
        for (Ir.VKind k : params) p.add(desc(k));
        return MethodTypeDesc.of(desc(result), p.toArray(ClassDesc[]::new));
    }

    private static ClassDesc desc(Ir.VKind k) {
        return k == Ir.VKind.LONG ? java.lang.constant.ConstantDescs.CD_long : java.lang.constant.ConstantDescs.CD_String;
    }
}
