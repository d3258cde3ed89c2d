/*
 * ArgTypes: the type of args[i] in a clause, from the probes its descriptions match (DTrace's
 * dt_idcook_args over dtrace_probe_info: the argument's native type string, as the provider's
 * dtps_getargdesc gives it, parsed as a D type).
 *
 * Rule: every probe the clause's descriptions match now is asked (through the framework's
 * ProbeArgs). If they all describe argument i with one type, args[i] has that type. If they
 * describe it with different types, args[] is refused as DTrace refuses it when a description
 * matches probes whose signatures may differ (D_ARGS_MULTI, "args[ ] may not be referenced because
 * probe description ... matches an unstable set of probes"): DTrace decides from the provider's
 * stability attributes, which jdtrace's providers do not declare, so the comparison of the types
 * themselves stands in for them (a probe that describes argument i and one that does not differ
 * too). Where the probes cannot say (no probe matches yet, as with -Z; none describes argument i;
 * a type string D cannot read, such as float), args[i] stays int64_t, the value of argi.
 *
 * Type strings: C types as D spells them ("int", "unsigned long", "char *", "uint8_t", "const
 * char *"), "string" (a Java String: the value is the text itself), and a Java class name
 * ("java.lang.Thread", "int[]"): a reference, typed as a pointer to a named type whose value is
 * an opaque handle that stringof(), copyinstr() and printf's %s turn into the object's text
 * through the probe context (Class@hash; never the program's code).
 *
 * Count: dtrace:::BEGIN and END have no arguments, so args[i] in a clause that matches only them
 * is D_ARGS_IDX ("index 0 is out of range for ... args[ ]"), as dt_idcook_args refuses an index
 * past the probe's argument count. So is an index past every argument the probes of one of the
 * clause's descriptions describe, when each of them describes some (its provider's argument
 * count, as dtrace_probe_info gives DTrace's); a probe that describes none may still have some,
 * and its args[] is typed as above.
 *
 * Matching: a clause whose description matches no probe is refused before the clause is checked
 * (dt_setcontext's D_PDESC_ZERO, "probe description ... does not match any probes"), unless
 * option zdefs; without a framework to ask (no lookup) every description is taken as matching.
 *
 * One instance per compilation, used on the compiler's thread only.
 */
package org.jdtrace.libdtrace.sema;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.engine.ProbeArgs;
import org.jdtrace.libdtrace.ast.BuiltinTypes;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.ProbeSpec;
import org.jdtrace.spi.ArgDesc;

final class ArgTypes {

    private final ProbeArgs lookup;
    private final Map<Clause, List<List<List<ArgDesc>>>> matched = new IdentityHashMap<>();

    ArgTypes(ProbeArgs lookup) {
        this.lookup = lookup;
    }

    /** dt_setcontext: each description of {@code c} must match a probe now, unless {@code zdefs}. */
    void checkMatches(Clause c, boolean zdefs) throws DTraceException {
        if (lookup == null || zdefs) return;
        for (ProbeSpec spec : c.probes()) {
            if (spec.description() != null && !lookup.matches(spec.description())) {
                throw new DTraceException("probe description " + spec.description() + " does not match any probes",
                        "D_PDESC_ZERO", spec.line());
            }
        }
    }

    /** The type of {@code args[index]} in {@code c}, or null when the probes cannot say. */
    DType type(Clause c, int index, int line) throws DTraceException {
        if (c != null && index >= 0 && !c.probes().isEmpty() && c.probes().stream().allMatch(ArgTypes::takesNoArguments)) {
            // dt_idcook_args: an index at or past the probe's argument count (BEGIN and END have none)
            throw new DTraceException("index " + index + " is out of range for " + c.probes().get(0).description()
                    + " args[ ]", "D_ARGS_IDX", line);
        }
        if (lookup == null || c == null || index < 0) return null;
        List<List<List<ArgDesc>>> perSpec = matched.computeIfAbsent(c, this::lookUp);
        for (int s = 0; s < perSpec.size(); s++) {
            if (pastEveryArgument(perSpec.get(s), index)) {
                throw new DTraceException("index " + index + " is out of range for " + c.probes().get(s).description()
                        + " args[ ]", "D_ARGS_IDX", line);
            }
        }
        String type = null;
        boolean any = false;
        for (int s = 0; s < perSpec.size(); s++) {
            for (List<ArgDesc> probe : perSpec.get(s)) {
                String t = nativeType(probe, index);
                if (any && !java.util.Objects.equals(t, type)) {
                    throw new DTraceException("args[ ] may not be referenced because probe description "
                            + c.probes().get(s).description() + " matches an unstable set of probes",
                            "D_ARGS_MULTI", line);
                }
                type = t;
                any = true;
            }
        }
        return type != null ? parse(type) : null;
    }

    /** Whether probes match and each describes its arguments, none as many as {@code index} + 1. */
    private static boolean pastEveryArgument(List<List<ArgDesc>> probes, int index) {
        if (probes.isEmpty()) return false;
        for (List<ArgDesc> probe : probes) {
            if (probe.isEmpty()) return false;
            for (ArgDesc a : probe) {
                if (a.index() >= index) return false;
            }
        }
        return true;
    }

    private List<List<List<ArgDesc>>> lookUp(Clause c) {
        List<List<List<ArgDesc>>> out = new ArrayList<>();
        for (ProbeSpec spec : c.probes()) {
            List<List<ArgDesc>> probes;
            try {
                probes = lookup.argDescs(spec.description());
            } catch (RuntimeException e) {
                probes = List.of();
            }
            out.add(probes == null ? List.of() : probes);
        }
        return out;
    }

    /**
     * dtrace:::BEGIN or dtrace:::END, which the Dynamic Tracing Guide gives no arguments (the
     * description names one of them alone: only the dtrace provider has probes so named).
     */
    private static boolean takesNoArguments(ProbeSpec spec) {
        var d = spec.description();
        return d != null && (d.name().equals("BEGIN") || d.name().equals("END"))
                && (d.provider().isEmpty() || d.provider().equals("dtrace")) && d.module().isEmpty() && d.function().isEmpty();
    }

    private static String nativeType(List<ArgDesc> probe, int index) {
        for (ArgDesc a : probe) {
            if (a.index() == index) {
                String t = a.translatedType() != null ? a.translatedType() : a.nativeType();
                return t == null ? null : t.strip();
            }
        }
        return null;
    }

    /** A native type string as a D type; null if D cannot read it. */
    static DType parse(String text) {
        String t = text.strip();
        if (isJavaClass(t)) {
            return javaObject(t);
        }
        int pointers = 0;
        while (t.endsWith("*")) {
            pointers++;
            t = t.substring(0, t.length() - 1).strip();
        }
        List<String> words = new ArrayList<>();
        for (String w : t.split("\\s+")) {
            if (!w.isEmpty() && !w.equals("const") && !w.equals("volatile") && !w.equals("restrict")) words.add(w);
        }
        DType d = BuiltinTypes.lookup(String.join(" ", words));
        if (d == null) {
            d = BuiltinTypes.lookup(canonical(words));
        }
        if (d == null || ((d instanceof DType.Float || d instanceof DType.Void) && pointers == 0)) {
            return null;
        }
        for (int i = 0; i < pointers; i++) {
            d = new DType.Ptr(d);
        }
        return d;
    }

    /** "int unsigned" and "long int" in C's usual order, as BuiltinTypes spells them. */
    private static String canonical(List<String> words) {
        List<String> sign = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (String w : words) {
            if (w.equals("signed") || w.equals("unsigned")) sign.add(w);
            else rest.add(w);
        }
        sign.addAll(rest);
        return String.join(" ", sign);
    }

    /** A Java class name (a dot, or an array's []), never a C type. */
    static boolean isJavaClass(String t) {
        return !t.contains(" ") && !t.contains("*") && (t.contains(".") || t.endsWith("[]"));
    }

    /** A reference to a Java object: a pointer to the named class. */
    static DType javaObject(String className) {
        return new DType.Ptr(new DType.Tagged(className, 0));
    }
}
