/*
 * DCompiler: the D compiler of a session (dtrace_program_strcompile and dt_compile), the one
 * driver of its passes. Each runs once, in order, over the whole program, and hands its result
 * to the next; no pass calls back into the driver or the session:
 *   1. lex and parse (parse.Parser pulling tokens from lex.Lexer, which expands macros): Script;
 *      (#pragma D options are set on the state's options where the parser meets them, as
 *      dt_pragma_option sets them: the lexer reads defaultargs and pspec as they stand);
 *   2. semantic analysis (sema.DFrontEnd.analyse: names, types, prototypes): CheckedProgram;
 *      then the program's stability attributes are computed
 *      (sema.ClauseAttributes: dtrace -v's report, -x amin's D_ATTR_MIN);
 *   3. lowering (lower.ClauseLowering, every clause to an Ir.Clause against the state's slots);
 *   4. code generation (codegen.ClauseCompiler, every Ir.Clause to an EcbBody hidden class).
 * The result is a Compilation: one Statement per probe description of each clause, in source
 * order, each with the pid filter hint its clause's predicate gives (lower.PidFilter) and its
 * kernel form (codegen.KernelForm, unless option kernelclauses is off); the session builds its
 * program from it.
 *
 * Macro variables: macroArgs are $0..$n as dtrace(1M) passes them ($0 the script, or "dtrace"
 * for -n/-P programs); $target is the session's "target" option, which dtrace(1M) sets to the
 * pid of the first -c/-p process before it compiles anything (0 without one); option defaultargs
 * makes undefined positional macros empty. A program is a script file (where a clause needs a
 * predicate or actions) when its $0 is its source name, as dtrace(1M)'s -s passes it.
 *
 * Errors are the front end's DTraceException (message, D_* tag, line), which dtrace(1M) words
 * as "failed to compile script x.d: [TAG] line N: ...". Stateless apart from the session.
 *
 * Limits: no input may break the compiler. Every pass is recursive over the tree, so a program
 * runs through the pipeline on a thread of its own with a COMPILER_STACK stack (reserved, not
 * committed: the pages are touched only as deep as the program goes), which carries 10,000
 * levels of nesting and 20,000 terms of one expression. A program deeper than that ends in
 * StackOverflowError, which becomes the D error "program nested too deeply" (D_NESTING); a
 * clause whose code exceeds the JVM's 65,535 bytes of method code gets "clause too large"
 * (D_CLAUSE_SIZE). The caller waits for the thread: compile stays synchronous.
 */
package org.jdtrace.libdtrace;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.Clause;
import org.jdtrace.libdtrace.ast.ProbeSpec;
import org.jdtrace.libdtrace.ast.Script;
import org.jdtrace.libdtrace.codegen.ClauseCompiler;
import org.jdtrace.libdtrace.codegen.Ir;
import org.jdtrace.libdtrace.codegen.KernelForm;
import org.jdtrace.libdtrace.lex.Macros;
import org.jdtrace.libdtrace.lower.ClauseLowering;
import org.jdtrace.libdtrace.lower.PidFilter;
import org.jdtrace.libdtrace.parse.Parser;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.Options;
import org.jdtrace.libdtrace.sema.CheckedProgram;
import org.jdtrace.libdtrace.sema.DFrontEnd;
import org.jdtrace.engine.EcbBody;
import org.jdtrace.engine.Statement;

public final class DCompiler implements FrontEnd {

    private final java.util.Map<String, Integer> registers;

    private final long stackBytes;

    /** A compiler without register names (no ISA bundle): R_* are undefined identifiers. */
    public DCompiler() {
        this(java.util.Map.of());
    }

    /** {@code registers}: the ISA's uregs[] names and numbers (Abi.uregNames()). */
    public DCompiler(java.util.Map<String, Integer> registers) {
        this(registers, COMPILER_STACK);
    }

    /** A compiler whose thread has a {@code stackBytes} stack (tests of the nesting limit). */
    DCompiler(java.util.Map<String, Integer> registers, long stackBytes) {
        this.registers = java.util.Map.copyOf(registers);
        this.stackBytes = stackBytes;
    }

    /** The compiler thread's stack: deep enough for 10,000 levels or 20,000 terms (see above). */
    static final long COMPILER_STACK = 1L << 30;

    @Override
    public Compilation compile(DState state, org.jdtrace.engine.ProbeArgs probeArgs, String source, String sourceName,
            List<String> macroArgs)
            throws DTraceException {
        Object[] result = new Object[1];
        Thread t = new Thread(null, () -> {
            try {
                result[0] = run(state, probeArgs, source, sourceName, macroArgs);
            } catch (DTraceException | RuntimeException e) {
                result[0] = e;
            } catch (StackOverflowError e) {
                result[0] = new DTraceException("program nested too deeply: it exceeds the compiler's "
                        + (stackBytes >> 20) + " MiB stack", "D_NESTING", 0);
            }
        }, "d-compiler", stackBytes);
        t.start();
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return switch (result[0]) {
            case Compilation c -> c;
            case DTraceException e -> throw e;
            case IllegalArgumentException e when String.valueOf(e.getMessage()).startsWith("Code length") ->
                throw new DTraceException("clause too large: its code exceeds the JVM's 65535 bytes of"
                        + " method code (split the clause)", "D_CLAUSE_SIZE", 0);
            case RuntimeException e -> throw e;
            default -> throw new IllegalStateException("compiler thread ended without a result");
        };
    }

    /** The passes, in order, each once (see the file comment). */
    private Compilation run(DState state, org.jdtrace.engine.ProbeArgs probeArgs, String source, String sourceName,
            List<String> macroArgs)
            throws DTraceException {
        Options options = state.options;
        Macros macros = macros(options, sourceName, macroArgs);
        Script script = Parser.parse(source, sourceName, macros, isScript(sourceName, macroArgs), options);
        // dt_compile: the last macro argument must be referenced, unless option argref says not
        int last = macros.positional().size() - 1;
        if (last > 0 && !options.isSet("argref") && !macros.isReferenced(last)) {
            throw new DTraceException("extraneous argument '" + macros.positional().get(last) + "' ($" + last
                    + " is not referenced)", "D_MACRO_UNUSED", (int) source.lines().count());
        }
        CheckedProgram program = DFrontEnd.analyse(script, registers, probeArgs, options.isSet("zdefs"),
                options.version());
        String amin = options.getString("amin");
        org.jdtrace.libdtrace.sema.ClauseAttributes.Report attributes = org.jdtrace.libdtrace.sema.ClauseAttributes.of(
                program, probeArgs, amin == null ? null : org.jdtrace.spi.Attributes.parse(amin));
        ClauseLowering lowering = new ClauseLowering(state);
        lowering.formats(program.formats());
        List<Ir.Clause> lowered = new ArrayList<>();
        for (Clause c : program.clauses()) {
            lowered.add(lowering.lower(c));
        }
        List<Statement> statements = new ArrayList<>();
        List<Integer> lines = new ArrayList<>();
        String kernel = options.getString("kernelclauses");
        java.util.Set<Integer> resident = "off".equals(kernel) ? java.util.Set.of()
                : KernelForm.residentThreadLocals(state, lowered,
                        (i, w) -> kernelOnly(program.clauses().get(i), probeArgs, w));
        for (int i = 0; i < lowered.size(); i++) {
            Clause c = program.clauses().get(i);
            EcbBody body = ClauseCompiler.compile(state, lowered.get(i));
            long pid = PidFilter.of(c.predicate());
            java.util.Set<Integer> strings = org.jdtrace.libdtrace.sema.CapturedReads.strings(c);
            boolean userStack = Ir.walksUserStack(lowered.get(i)), kernelStack = Ir.walksKernelStack(lowered.get(i));
            boolean procDestructive = Ir.actsOnProcess(lowered.get(i));
            // one statement per description, sharing the body (dt_compile_clause's stmt per
            // pdesc): a probe that two descriptions of a clause match gets two ECBs and runs the
            // clause twice, as in DTrace
            for (ProbeSpec spec : c.probes()) {
                org.jdtrace.spi.KernelClause k = "off".equals(kernel) ? null
                        : KernelForm.of(state, lowered.get(i), c.source(), "force".equals(kernel), resident);
                statements.add(new Statement(List.of(spec.description()), c.source(), body, pid, k, strings, userStack,
                        kernelStack, procDestructive));
                lines.add(spec.line());
            }
        }
        return new Compilation(statements, program.options(), lowering.destructive(), attributes, lines);
    }

    /**
     * True when every description of {@code c} matches probes now and each of them runs
     * {@code whole}, the clause's whole form, where it fires (ProbeArgs.kernelThreadLocals: the
     * kernel's syscall probes, pid and USDT probes on uprobes; KernelForm).
     */
    private static boolean kernelOnly(Clause c, org.jdtrace.engine.ProbeArgs probeArgs, org.jdtrace.spi.KernelClause whole) {
        if (probeArgs == null) return false;
        for (ProbeSpec s : c.probes()) {
            try {
                if (!probeArgs.kernelThreadLocals(s.description(), whole)) return false;
            } catch (RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    static boolean isScript(String sourceName, List<String> macroArgs) {
        return macroArgs != null && !macroArgs.isEmpty() && macroArgs.get(0).equals(sourceName);
    }

    static Macros macros(Options options, String sourceName, List<String> macroArgs) {
        List<String> positional = macroArgs == null || macroArgs.isEmpty() ? List.of(sourceName) : macroArgs;
        Macros base = Macros.of(sourceName, List.of());
        String target = options.isSet("target") ? Long.toString(options.get("target")) : "0";
        return new Macros(positional, base.named(), options.isSet("defaultargs")).withNamed("target", target);
    }
}
