/*
 * A small but real D half for the framework's tests: a DSession whose "language" is one
 * statement per line, `descriptions => action[; action...]`, with the actions
 *
 *   count        counts the firing (per epid and in total)
 *   print TEXT   records the line TEXT (printed at the next drain)
 *   probe        records "ID PROVIDER:MODULE:FUNCTION:NAME" of the firing probe
 *   args         records "args a1 a2 a3 a4 a5" (arg1..arg5, what ERROR carries)
 *   cpu          records "cpu N"
 *   exit N       asks the run to end with status N
 *   fault        throws DFault(BADADDR, 0x10) at action #1, DIF offset 8
 *   faultx       throws FaultException(DIVZERO) (no position)
 *   bug          throws IllegalStateException (a consumer failure)
 *
 * Records go to a queue at firing time and are printed at drain() / end(), as a real principal
 * buffer would be; faults are kept for assertions.
 */
package org.jdtrace.core.testsession;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.engine.DFault;
import org.jdtrace.engine.DProgram;
import org.jdtrace.engine.DSession;
import org.jdtrace.engine.EcbBody;
import org.jdtrace.engine.Statement;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.spi.ProbeDescription;

public final class LineSession implements DSession {

    public record Fault(int epid, Probe probe, DFault fault) {}

    private final Map<String, String> options = new ConcurrentHashMap<>();
    private final Queue<String> records = new ConcurrentLinkedQueue<>();
    private final List<String> printed = new CopyOnWriteArrayList<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final Map<Integer, Probe> epids = new ConcurrentHashMap<>();
    /** The source line of each compiled statement: this session's clause numbers (ERROR's arg2). */
    private final Map<Statement, Integer> lines = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());
    private final Map<Integer, Integer> epidLines = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> perEpid = new ConcurrentHashMap<>();
    private final LongAdder count = new LongAdder();
    private volatile boolean exit;
    private volatile int exitStatus;
    private final AtomicLong drains = new AtomicLong();
    private PrintStream out;

    @Override
    public void setOption(String name, String value) throws DTraceException {
        if (name.equals("bogus")) {
            throw new DTraceException("failed to set option -x bogus: Invalid option name");
        }
        options.put(name, value == null ? "" : value);
    }

    @Override
    public String getOption(String name) {
        return options.get(name);
    }

    @Override
    public Long providerOption(String name) {
        return null;
    }

    @Override
    public DProgram compile(String source, String sourceName, List<String> macroArgs) throws DTraceException {
        List<Statement> statements = new ArrayList<>();
        int lineNo = 0;
        for (String line : source.split("\n")) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            int arrow = line.indexOf("=>");
            String descs = (arrow < 0 ? line : line.substring(0, arrow)).trim();
            String actions = arrow < 0 ? "" : line.substring(arrow + 2).trim();
            List<ProbeDescription> list = new ArrayList<>();
            for (String d : descs.split(",")) {
                list.add(ProbeDescription.parse(d.trim()));
            }
            Statement st = new Statement(List.copyOf(list), descs, body(actions, lineNo));
            lines.put(st, lineNo);
            statements.add(st);
        }
        return program(statements);
    }

    @Override
    public DProgram compileDescriptions(List<String> descriptions, List<String> macroArgs) throws DTraceException {
        List<Statement> statements = new ArrayList<>();
        for (String d : descriptions) {
            statements.add(new Statement(List.of(ProbeDescription.parse(d)), d, body("probe", 1)));
        }
        return program(statements);
    }

    private static DProgram program(List<Statement> statements) {
        return new DProgram() {
            @Override
            public List<Statement> statements() {
                return statements;
            }

            @Override
            public Map<String, String> pragmas() {
                return Map.of();
            }

            @Override
            public List<String> descriptions() {
                return statements.stream().map(Statement::source).toList();
            }
        };
    }

    private EcbBody body(String actions, int line) throws DTraceException {
        List<EcbBody> parts = new ArrayList<>();
        for (String a : actions.split(";")) {
            String act = a.trim();
            if (act.isEmpty()) {
                continue;
            }
            String word = act.split(" ", 2)[0];
            String rest = act.length() > word.length() ? act.substring(word.length() + 1) : "";
            parts.add(switch (word) {
                case "count" -> (ctx, p, epid) -> {
                    count.increment();
                    perEpid.computeIfAbsent(epid, k -> new LongAdder()).increment();
                };
                case "print" -> (ctx, p, epid) -> records.add(rest);
                case "probe" -> (ctx, p, epid) -> records.add(p.id() + " " + p.description());
                case "args" -> (ctx, p, epid) -> records.add("args " + ctx.arg(1) + " " + ctx.arg(2) + " "
                        + ctx.arg(3) + " " + ctx.arg(4) + " " + ctx.arg(5));
                case "cpu" -> (ctx, p, epid) -> records.add("cpu " + ctx.cpu());
                case "exit" -> (ctx, p, epid) -> {
                    exitStatus = Integer.parseInt(rest.trim());
                    exit = true;
                };
                case "fault" -> (ctx, p, epid) -> {
                    throw new DFault(FaultException.Kind.BADADDR, 0x10, 1, 8);
                };
                case "faultx" -> (ctx, p, epid) -> {
                    throw new FaultException(FaultException.Kind.DIVZERO, 0);
                };
                case "bug" -> (ctx, p, epid) -> {
                    throw new IllegalStateException("bug in generated code");
                };
                default -> throw new DTraceException("failed to compile script: line " + line
                        + ": unknown action " + word, "D_SYNTAX", line);
            });
        }
        EcbBody[] all = parts.toArray(EcbBody[]::new);
        return (ProbeContext ctx, Probe probe, int epid) -> {
            for (EcbBody b : all) {
                b.fire(ctx, probe, epid);
            }
        };
    }

    @Override
    public void begin(PrintStream out, PrintStream err) {
        this.out = out;
    }

    @Override
    public void drain() {
        drains.incrementAndGet();
        String r;
        while ((r = records.poll()) != null) {
            printed.add(r);
            if (out != null) {
                out.println(r);
            }
        }
    }

    @Override
    public void fault(int epid, Probe probe, DFault fault) {
        faults.add(new Fault(epid, probe, fault));
    }

    @Override
    public void end() {
        drain();
        printed.add("<end>");
    }

    @Override
    public boolean exitRequested() {
        return exit;
    }

    @Override
    public int exitStatus() {
        return exitStatus;
    }

    @Override
    public void ecbCreated(int epid, Probe probe, Statement statement) {
        epids.put(epid, probe);
        Integer line = statement == null ? null : lines.get(statement);
        if (line != null) epidLines.put(epid, line);
    }

    /** A statement's clause number is its source line. */
    @Override
    public int clauseOf(int epid) {
        return epidLines.getOrDefault(epid, 0);
    }

    // ---- for assertions ----

    public long count() {
        return count.sum();
    }

    public long count(int epid) {
        LongAdder a = perEpid.get(epid);
        return a == null ? 0 : a.sum();
    }

    /** Records not yet drained plus printed ones, in order. */
    public List<String> printed() {
        return List.copyOf(printed);
    }

    public List<String> pending() {
        return List.copyOf(records);
    }

    public List<Fault> faults() {
        return List.copyOf(faults);
    }

    public Map<Integer, Probe> epids() {
        return new HashMap<>(epids);
    }

    public long drains() {
        return drains.get();
    }
}
