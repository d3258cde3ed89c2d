package org.jdtrace.libdtrace.sema;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.Script;
import org.jdtrace.libdtrace.lex.Macros;
import org.jdtrace.libdtrace.parse.Parser;

/**
 * The D front end's one entry point: source text in, a type-checked {@link CheckedProgram} out,
 * or a {@link DTraceException} worded as dtrace words compile errors.
 *
 * <pre>
 * CheckedProgram p = DFrontEnd.check(source, "x.d", List.of("42", "foo"));      // $1=42 $2=foo
 * CheckedProgram q = DFrontEnd.check(source, "x.d", Macros.of("x.d", args).withNamed("target", "1234"), true);
 * </pre>
 * The exception's message is the text after dtrace's location ({@code syntax error near "}"}),
 * {@link DTraceException#tag()} the D_* tag (null for the few errors dtrace prints untagged, like
 * an unterminated comment), {@link DTraceException#line()} the line. The caller composes
 * {@code dtrace: failed to compile script x.d: [TAG] line N: message}.
 *
 * <p>Stages: {@link org.jdtrace.libdtrace.lex.Lexer} (macro expansion happens there) ->
 * {@link Parser} -> {@link Checker} (types, symbols, prototypes, printf formats). What the program
 * means at run time (options' validity, probe matching) is the caller's business.
 */
public final class DFrontEnd {

    private DFrontEnd() {}

    /**
     * Checks a script read from a file: {@code macroArgs} are $1.., {@code $0} is {@code sourceName},
     * {@code $target} is 0.
     */
    public static CheckedProgram check(String source, String sourceName, List<String> macroArgs)
            throws DTraceException {
        return check(source, sourceName, Macros.of(sourceName, macroArgs), true);
    }

    /**
     * @param fromFile true for -s scripts (a clause then needs a predicate or a body), false for
     *        -n/-P programs given as strings
     */
    public static CheckedProgram check(String source, String sourceName, Macros macros, boolean fromFile)
            throws DTraceException {
        return check(source, sourceName, macros, fromFile, java.util.Map.of());
    }

    /**
     * As above, with the ISA's register names ({@code R_RAX}...) and their uregs[] numbers defined
     * as integer constants, as DTrace's per-ISA regs.d library defines them.
     */
    public static CheckedProgram check(String source, String sourceName, Macros macros, boolean fromFile,
            java.util.Map<String, Integer> registers) throws DTraceException {
        return check(source, sourceName, macros, fromFile, registers, null);
    }

    /**
     * As above, with {@code args[]} of each clause typed from the argument descriptions of the
     * probes its descriptions match ({@code probeArgs}; null: int64_t, see ArgTypes).
     */
    public static CheckedProgram check(String source, String sourceName, Macros macros, boolean fromFile,
            java.util.Map<String, Integer> registers, org.jdtrace.engine.ProbeArgs probeArgs) throws DTraceException {
        return analyse(Parser.parse(source, sourceName, macros, fromFile), registers, probeArgs);
    }

    /** The semantic pass alone, over a parsed script (the compiler's driver runs the passes one by one). */
    public static CheckedProgram analyse(Script script, java.util.Map<String, Integer> registers) throws DTraceException {
        return analyse(script, registers, null);
    }

    /** As above, {@code args[]} typed through {@code probeArgs} (null: int64_t). */
    public static CheckedProgram analyse(Script script, java.util.Map<String, Integer> registers,
            org.jdtrace.engine.ProbeArgs probeArgs) throws DTraceException {
        return analyse(script, registers, probeArgs, false);
    }

    /**
     * As above; each clause's descriptions must match a probe {@code probeArgs} knows
     * (D_PDESC_ZERO) unless {@code zdefs} (option zdefs, -Z).
     */
    public static CheckedProgram analyse(Script script, java.util.Map<String, Integer> registers,
            org.jdtrace.engine.ProbeArgs probeArgs, boolean zdefs) throws DTraceException {
        return analyse(script, registers, probeArgs, zdefs, org.jdtrace.libdtrace.ast.DVersion.LATEST);
    }

    /** As above, for the D version {@code version} (option version): later built-ins are unknown names. */
    public static CheckedProgram analyse(Script script, java.util.Map<String, Integer> registers,
            org.jdtrace.engine.ProbeArgs probeArgs, boolean zdefs, int version) throws DTraceException {
        CheckedProgram checked = new Checker(script, registers).probeArgs(probeArgs).zdefs(zdefs).version(version)
                .check();
        CapturedReads.check(script, probeArgs); // reads a kernel-event probe cannot answer
        return checked;
    }
}
