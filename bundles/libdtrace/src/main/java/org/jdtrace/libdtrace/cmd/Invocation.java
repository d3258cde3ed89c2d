/*
 * One run of dtrace(1M): the passes of dtrace.c's main() over a parsed command line.
 *
 *   1. mode (-l, -V, ...) and usage errors, before any consumer exists (exit 2);
 *   2. options, in order: -b -q -F -w -x -X -Z -L become consumer options;
 *   3. -c creates its command (stopped) and -p grabs its pid: that pid is $target;
 *   4. every -n/-P/-m/-f/-i/-s is compiled, in order (-C runs cpp first);
 *   5. the mode's work: list (-l), compile only (-e), or enable, go, and consume until exit(),
 *      Ctrl-C or the end of every target process.
 *
 * Every message is dtrace's, on stderr, with exit status 1 for a failure and 2 for a usage error;
 * exit(n) in D makes dtrace exit n. The consumer is closed on every way out, which disables every
 * ECB; a command created by -c is killed if it is still running, as libdtrace does.
 *
 * The consumer prints the records, the CPU/ID/FUNCTION:NAME lines and, after END, the final
 * newline and the aggregations (dtrace_work and dtrace's exit path run inside Consumer.work()).
 * dtrace(1M) itself prints the "matched" notices, the -l listing, and the newline that follows
 * a Ctrl-C (even in quiet mode, as dtrace does).
 */
package org.jdtrace.libdtrace.cmd;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTrace;
import org.jdtrace.consumer.DTraceCommand;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.consumer.ProbeInfo;
import org.jdtrace.consumer.Program;

final class Invocation {

    static final int E_SUCCESS = 0;
    static final int E_ERROR = 1;
    static final int E_USAGE = 2;

    /** Ends the run with dtrace's status once the message is printed. */
    private static final class Fatal extends Exception {
        final int status;

        Fatal(int status) {
            super(null, null, false, false);
            this.status = status;
        }
    }

    private record Compiled(CommandLine.Spec spec, Program program) {}

    private final DTrace dtrace;
    private final List<String> argv;
    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    private final DTraceCommand.Interrupt interrupt;

    private CommandLine cl;
    private Consumer consumer;
    private final Targets targets;
    private PrintStream ofp;
    private boolean quiet;

    /** The pid provider's -c/-p service, or null when its bundle is not there. */
    private final org.jdtrace.proc.ProcessControl processControl;

    Invocation(DTrace dtrace, List<String> argv, InputStream in, PrintStream out, PrintStream err,
            DTraceCommand.Interrupt interrupt, org.jdtrace.proc.ProcessControl processControl) {
        this.processControl = processControl;
        this.targets = new Targets(processControl);
        this.dtrace = dtrace;
        this.argv = argv;
        this.in = in;
        this.out = out;
        this.err = err;
        this.interrupt = interrupt;
    }

    int run() {
        try {
            return runOrFail();
        } catch (Fatal f) {
            return f.status;
        } catch (RuntimeException | LinkageError e) {
            // Never a stack trace: say what broke, as dtrace's dfatal() would.
            err.println("dtrace: internal error: " + e);
            return E_ERROR;
        } finally {
            close();
            err.flush();
            out.flush();
        }
    }

    private int runOrFail() throws Fatal {
        if (argv.isEmpty()) {
            Usage.print(err);
            return E_USAGE;
        }
        try {
            cl = CommandLine.parse(argv);
        } catch (CommandLine.UsageException e) {
            err.println("dtrace: " + e.getMessage());
            if (!e.getMessage().startsWith("only one of")) {
                Usage.print(err);
            }
            return E_USAGE;
        }
        switch (cl.mode) {
            case VERSION -> {
                String v = dtrace.version();
                out.println(v.startsWith("dtrace: ") ? v : "dtrace: " + v);
                return E_SUCCESS;
            }
            case HEADER -> {
                return ProviderHeaders.run(cl, false, err);
            }
            case LINK -> {
                return ProviderHeaders.run(cl, true, err);
            }
            case ANON -> fail("-A (anonymous tracing) is not supported");
            default -> { }
        }
        for (char c : new char[] {'a', 'S', 'W', 'B'}) {
            if (cl.has(c)) {
                fail("-" + c + " is not supported");
            }
        }

        consumer = dtrace.open();
        setOptions();
        listImpliesZdefs();
        startTargets();
        List<Compiled> programs = compileAll();
        quiet = consumer.getOption("quiet") != null;

        openOutput();
        if (cl.mode == CommandLine.Mode.LIST) {
            return list(programs);
        }
        return exec(programs);
    }

    // ---- pass 2: options ----

    private void setOptions() throws Fatal {
        // dtrace_setoptenv("DTRACE_OPT_"): DTRACE_OPT_<NAME>=value sets option name before the
        // command line does; a name or value that does not take is passed over, as there
        for (var e : System.getenv().entrySet()) {
            if (!e.getKey().startsWith("DTRACE_OPT_")) continue;
            String name = e.getKey().substring("DTRACE_OPT_".length()).toLowerCase(java.util.Locale.ROOT);
            if (isPreprocessorOption(name)) continue;
            try {
                consumer.setOption(name, e.getValue());
            } catch (DTraceException ignored) {
                // dtrace_setoptenv ignores what dtrace_setopt refuses
            }
        }
        for (CommandLine.Option o : cl.options) {
            switch (o.letter()) {
                case 'b' -> setOption("bufsize", o.arg(), "-b " + o.arg());
                case 'q' -> setOption("quiet", null, "-q");
                case 'F' -> setOption("flowindent", null, "-F");
                case 'w' -> setOption("destructive", null, "-w");
                case 'Z' -> setOption("zdefs", null, "-Z");
                case 'X' -> setOption("stdc", o.arg(), "-X " + o.arg());
                case 'L' -> setOption("libdir", o.arg(), "-L " + o.arg());
                case 'x' -> {
                    String a = o.arg();
                    int eq = a.indexOf('=');
                    String name = eq < 0 ? a : a.substring(0, eq);
                    String value = eq < 0 ? null : a.substring(eq + 1);
                    if (isPreprocessorOption(name)) {
                        continue;
                    }
                    setOption(name, value, "-x " + name);
                }
                default -> { }
            }
        }
    }

    /** -l implies -Z (dtrace.c): a description that matches nothing is listed as such, not refused while compiling. */
    private void listImpliesZdefs() throws Fatal {
        if (cl.mode == CommandLine.Mode.LIST) setOption("zdefs", null, "-l");
    }

    private static boolean isPreprocessorOption(String name) {
        return name.equals("define") || name.equals("undef") || name.equals("incdir");
    }

    private void setOption(String name, String value, String what) throws Fatal {
        try {
            consumer.setOption(name, value);
        } catch (DTraceException e) {
            fail(Diagnostics.optionFailure(what, e));
        }
    }

    // ---- pass 3: -c and -p ----

    private void startTargets() throws Fatal {
        String ftMax = consumer.getOption("fasttrap-max");
        if (ftMax != null && processControl != null) {
            try {
                processControl.setFasttrapMax((int) Math.min(Integer.MAX_VALUE, Long.decode(ftMax.trim())));
            } catch (NumberFormatException e) {
                fail("failed to set -x fasttrap-max: Invalid value for specified option");
            }
        }
        String evaltime = consumer.getOption("evaltime"); // Options admits dtrace's four words only
        org.jdtrace.proc.ProcessControl.Evaltime at = evaltime == null ? org.jdtrace.proc.ProcessControl.Evaltime.POSTINIT
                : org.jdtrace.proc.ProcessControl.Evaltime.valueOf(evaltime.toUpperCase(java.util.Locale.ROOT));
        for (CommandLine.Option o : cl.options) {
            try {
                if (o.letter() == 'c') {
                    targets.create(o.arg(), in, out, err, at, consumer.consumerOptions());
                } else if (o.letter() == 'p') {
                    targets.grab(o.arg(), consumer.consumerOptions());
                } else {
                    continue;
                }
            } catch (IOException e) {
                fail(o.letter() == 'c' ? "failed to execute " + o.arg() + ": " + e.getMessage()
                        : e.getMessage());
            }
        }
        if (!targets.processes().isEmpty()) {
            // $target is the first process's pid, as dtrace's.
            setOption("target", Long.toString(targets.processes().get(0).pid()), "$target");
        }
    }

    // ---- pass 4: compile ----

    private List<Compiled> compileAll() throws Fatal {
        List<Compiled> r = new ArrayList<>();
        for (CommandLine.Spec s : cl.specs) {
            try {
                r.add(new Compiled(s, s.isScript() ? compileScript(s) : compileString(s)));
            } catch (DTraceException e) {
                fail(Diagnostics.compileFailure(s, e, errtags()));
            }
        }
        return r;
    }

    private boolean errtags() {
        return consumer.getOption("errtags") != null;
    }

    private List<String> macroArgs(String arg0) {
        List<String> a = new ArrayList<>();
        a.add(arg0);
        a.addAll(cl.operands);
        return a;
    }

    /**
     * A script's text: UTF-8 when the bytes are UTF-8, else each byte one character (ISO 8859-1),
     * as DTrace's lexer reads bytes: a string of Latin-1 bytes in a script is not an error.
     */
    static String scriptText(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
    }

    private Program compileScript(CommandLine.Spec s) throws DTraceException, Fatal {
        Path path = Path.of(s.arg());
        String source;
        try {
            source = scriptText(Files.readAllBytes(path));
        } catch (IOException e) {
            fail("failed to open " + s.arg() + ": " + strerror(e));
            return null;
        }
        source = blankInterpreterLine(source);
        if (cl.has('C') || consumer.getOption("cpp") != null) {
            try {
                String v = consumer.getOption("version");
                int version = v == null ? org.jdtrace.libdtrace.ast.DVersion.LATEST : org.jdtrace.libdtrace.ast.DVersion.parse(v);
                source = Preprocessor.run(source, path, cl, consumer.getOption("stdc"), consumer.getOption("cppargs"),
                        version, err);
            } catch (Preprocessor.Failure f) {
                fail("failed to compile script " + s.arg() + ": " + f.getMessage());
            }
        }
        return consumer.compile(source, s.arg(), macroArgs(s.arg()));
    }

    /** A #! first line is not D: it becomes an empty line, so line numbers stay the file's. */
    static String blankInterpreterLine(String source) {
        if (!source.startsWith("#!")) {
            return source;
        }
        int nl = source.indexOf('\n');
        return nl < 0 ? "" : source.substring(nl);
    }

    private Program compileString(CommandLine.Spec s) throws DTraceException {
        Consumer.DescriptionKind kind = switch (s.letter()) {
            case 'P' -> Consumer.DescriptionKind.PROVIDER;
            case 'm' -> Consumer.DescriptionKind.MODULE;
            case 'f' -> Consumer.DescriptionKind.FUNCTION;
            case 'i' -> Consumer.DescriptionKind.ID;
            default -> Consumer.DescriptionKind.NAME;
        };
        String arg = s.arg();
        int cut = clauseStart(arg);
        if (cut < 0) {
            return consumer.compileDescription(kind, arg.strip(), macroArgs("dtrace"));
        }
        String descs = arg.substring(0, cut).strip();
        String clause = arg.substring(cut);
        String source = switch (kind) {
            case NAME -> arg;
            case ID -> fullNameOfId(descs) + " " + clause;
            default -> ProbeSpecs.complete(descs, kind) + " " + clause;
        };
        return consumer.compile(source, reportedName(s), macroArgs("dtrace"));
    }

    private String fullNameOfId(String id) throws DTraceException {
        List<ProbeInfo> probes = consumer.list(consumer.compileDescription(Consumer.DescriptionKind.ID, id));
        if (probes.isEmpty()) {
            throw new DTraceException("probe description " + id + " does not match any probes");
        }
        ProbeInfo p = probes.get(0);
        return p.provider() + ":" + p.module() + ":" + p.function() + ":" + p.name();
    }

    static int clauseStart(String arg) {
        for (int i = 0; i < arg.length(); i++) {
            char c = arg.charAt(i);
            if (c == '{' || c == '/') {
                return i;
            }
        }
        return -1;
    }

    /** dtrace crops a probe specifier at its first '{', '/' or ';' for its notices. */
    static String reportedName(CommandLine.Spec s) {
        if (s.isScript()) {
            return s.arg();
        }
        String a = s.arg();
        for (int i = 0; i < a.length(); i++) {
            char c = a.charAt(i);
            if (c == '{' || c == '/' || c == ';') {
                return a.substring(0, i);
            }
        }
        return a;
    }

    // ---- pass 5: -l ----

    private int list(List<Compiled> programs) throws Fatal {
        ofp.printf("%5s %10s %17s %33s %s%n", "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME");
        int status = E_SUCCESS;
        try {
            if (programs.isEmpty()) {
                printProbes(consumer.list(consumer.compileDescription(Consumer.DescriptionKind.NAME, ":::")));
            }
            for (Compiled c : programs) {
                List<ProbeInfo> probes;
                try {
                    probes = consumer.list(c.program());
                } catch (DTraceException e) {
                    // a provider could not make the probes (failed to grab pid ...)
                    fail(Diagnostics.compileFailure(c.spec(), e, errtags()));
                    return E_ERROR;
                }
                if (probes.isEmpty()) {
                    for (String d : c.program().descriptions()) {
                        err.println("dtrace: failed to match " + d + ": No probe matches description");
                    }
                    status = E_ERROR;
                }
                printProbes(probes);
            }
        } catch (DTraceException e) {
            fail(e.getMessage());
        }
        return status;
    }

    private void printProbes(List<ProbeInfo> probes) {
        boolean verbose = cl.has('v');
        for (ProbeInfo p : probes) {
            ofp.printf("%5d %10s %17s %33s %s%n", p.id(), p.provider(), p.module(), p.function(), p.name());
            if (verbose) {
                org.jdtrace.spi.ProviderAttributes pa = p.attributes();
                printAttributes("Probe Description Attributes", org.jdtrace.libdtrace.sema.ClauseAttributes.of(
                        new org.jdtrace.spi.ProbeDescription(p.provider(), p.module(), p.function(), p.name()), pa));
                printAttributes("Argument Attributes", pa.args());
                ofp.print("\n\tArgument Types\n");
                List<String> args = p.args() == null ? List.of() : p.args();
                for (int i = 0; i < args.size(); i++) {
                    ofp.printf("\t\targs[%d]: %s%n", i, args.get(i));
                }
                if (args.isEmpty()) {
                    ofp.print("\t\tNone\n");
                }
                ofp.print("\n");
            }
        }
    }

    /** -v: the program's minimum description and statement attributes, as exec_prog prints them. */
    private void printStability(Compiled c) {
        if (!cl.has('v') || !(c.program() instanceof org.jdtrace.libdtrace.DSessionImpl.AttributedProgram p)
                || p.attributes() == null) {
            return;
        }
        ofp.printf("%nStability attributes for %s %s:%n", c.spec().isScript() ? "script" : "description",
                reportedName(c.spec()));
        printAttributes("Minimum Probe Description Attributes", p.attributes().description());
        printAttributes("Minimum Statement Attributes", p.attributes().statement());
        ofp.print("\n");
    }

    private void printAttributes(String title, org.jdtrace.spi.Attributes a) {
        ofp.printf("%n\t%s%n", title);
        ofp.printf("\t\tIdentifier Names: %s%n", a.name().label());
        ofp.printf("\t\tData Semantics:   %s%n", a.data().label());
        ofp.printf("\t\tDependency Class: %s%n", a.dependency().label());
    }

    // ---- pass 5: enable and consume ----

    /**
     * A script's description that matches no probe (D_PDESC_ZERO, found when the program is
     * enabled) is reported at the description's line, as dt_setcontext reports it while compiling.
     */
    private static DTraceException withDescriptionLine(Compiled c, DTraceException e) {
        String msg = e.getMessage();
        int from = msg == null ? -1 : msg.indexOf(": probe description ");
        int to = from < 0 ? -1 : msg.indexOf(" does not match any probes", from);
        if (!"D_PDESC_ZERO".equals(e.tag()) || e.line() > 0 || to < 0 || !c.spec().isScript()
                || !(c.program() instanceof org.jdtrace.libdtrace.DSessionImpl.AttributedProgram p)) {
            return e;
        }
        int line = p.line(msg.substring(from + ": probe description ".length(), to));
        return line > 0 ? new DTraceException(msg, e.tag(), line) : e;
    }

    private int exec(List<Compiled> programs) throws Fatal {
        if (cl.has('e')) {
            for (Compiled c : programs) {
                printStability(c);
            }
            return E_SUCCESS;
        }
        int total = 0;
        for (Compiled c : programs) {
            int n = 0;
            try {
                n = consumer.exec(c.program());
            } catch (DTraceException e) {
                fail(Diagnostics.compileFailure(c.spec(), withDescriptionLine(c, e), errtags()));
            }
            notice((c.spec().isScript() ? "script" : "description") + " '" + reportedName(c.spec())
                    + "' matched " + n + " probe" + (n == 1 ? "" : "s"));
            printStability(c);
            total += n;
        }
        boolean zdefs = consumer.getOption("zdefs") != null;
        if (total == 0 && !zdefs) {
            fail(programs.isEmpty() ? "no probes specified" : "no probes matched");
        }
        String[] sizes = new String[BUFFER_NAMES.length];
        for (int i = 0; i < sizes.length; i++) sizes[i] = consumer.getOption(BUFFER_OPTIONS[i]);
        try {
            consumer.go(ofp, err);
        } catch (DTraceException e) {
            fail(Diagnostics.goFailure(e));
        }
        for (int i = 0; i < sizes.length; i++) {
            String now = consumer.getOption(BUFFER_OPTIONS[i]);
            if (now != null && !now.equals(sizes[i])) err.println("dtrace: " + BUFFER_NAMES[i] + " lowered to " + scaled(Long.parseLong(now)));
        }
        quiet = consumer.getOption("quiet") != null;
        if (consumer.getOption("destructive") != null) {
            notice("allowing destructive actions");
        }
        targets.goAll();
        consume();
        return consumer.exitStatus();
    }

    /**
     * dtrace's consume loop. Consumer.work() may wait a whole switchrate period, so Ctrl-C and the
     * end of the target processes are watched by a second thread, which prints dtrace's newline
     * for a Ctrl-C and asks the consumer to stop (stop() is thread-safe); the END clause and the
     * aggregations then come out of the next work(). With no -c/-p process the watcher blocks in
     * Interrupt.await until the Ctrl-C (the launcher's signal handler wakes it: no CPU while
     * tracing); with some it looks at them every {@link #TARGET_POLL_MS} ms between waits, as
     * dtrace's "pid N has exited" is that prompt. consume() interrupts the watcher when the run
     * ends, which ends either wait.
     */
    private void consume() throws Fatal {
        Thread watcher = Thread.ofPlatform().daemon().name("dtrace-interrupt").start(this::watch);
        try {
            while (true) {
                Consumer.Status s;
                try {
                    s = consumer.work();
                } catch (DTraceException e) {
                    ofp.flush();
                    fail("processing aborted: " + e.getMessage());
                    return;
                }
                ofp.flush();
                if (s == Consumer.Status.DONE) {
                    return;
                }
            }
        } finally {
            watcher.interrupt();
            try {
                watcher.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** How often the watcher looks at the -c/-p processes for their exit. */
    static final long TARGET_POLL_MS = 50;

    private void watch() {
        List<TargetProcess> live = new ArrayList<>(targets.processes());
        // no process to watch: one wait, with no time limit, for the Ctrl-C
        long slice = live.isEmpty() ? 0 : TARGET_POLL_MS;
        boolean intr = interrupt.requested();
        while (!Thread.currentThread().isInterrupted()) {
            if (intr) {
                ofp.print("\n");
            }
            for (var it = live.iterator(); it.hasNext(); ) {
                TargetProcess t = it.next();
                if (t.exited()) {
                    notice("pid " + t.pid() + " has exited");
                    it.remove();
                }
            }
            if (intr || (!targets.processes().isEmpty() && live.isEmpty())) {
                consumer.stop();
                return;
            }
            try {
                intr = interrupt.await(slice);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    // ---- output and messages ----

    private void openOutput() throws Fatal {
        String file = cl.last('o');
        if (file == null) {
            ofp = out;
            return;
        }
        try {
            ofp = new PrintStream(new FileOutputStream(file, true), false, StandardCharsets.UTF_8);
        } catch (IOException e) {
            fail("failed to open output file '" + file + "': " + strerror(e));
        }
    }

    /** The buffers go() may lower (bufresize=auto), and how dtrace(1M)'s go() names them. */
    private static final String[] BUFFER_OPTIONS = {"bufsize", "aggsize", "specsize", "dynvarsize"};
    private static final String[] BUFFER_NAMES = {"buffer size", "aggregation size", "speculation size",
        "dynamic variable size"};

    /** A size as dtrace(1M) reports a lowered one: 512m when a whole number of its unit, else 1234 bytes. */
    static String scaled(long n) {
        int j = 0, mul = 10;
        for (; (1L << mul) <= n && mul < 63; j++, mul += 10) { }
        return (n & ((1L << (mul - 10)) - 1)) == 0 ? (n >> (mul - 10)) + String.valueOf(" kmgtpe".charAt(j))
                : n + " bytes";
    }

    private void notice(String msg) {
        if (!quiet) {
            err.println("dtrace: " + msg);
        }
    }

    private void fail(String msg) throws Fatal {
        err.println("dtrace: " + msg);
        throw new Fatal(E_ERROR);
    }

    static String strerror(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        String m = e.getMessage();
        if (m != null) {
            int paren = m.lastIndexOf('(');
            if (m.endsWith(")") && paren >= 0) {
                return m.substring(paren + 1, m.length() - 1);
            }
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }

    private void close() {
        if (consumer != null) {
            try {
                consumer.close();
            } catch (RuntimeException e) {
                err.println("dtrace: failed to close the consumer: " + e);
            }
        }
        targets.close();
        if (ofp != null && ofp != out) {
            ofp.close();
        }
    }
}
