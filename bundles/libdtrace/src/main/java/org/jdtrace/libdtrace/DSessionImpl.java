/*
 * DSessionImpl: the D half of one consumer (DSession). It owns the DState (options, variables,
 * aggregations, per-thread buffers), compiles clauses to EcbBody classes, and at drain time
 * gathers every thread's principal buffer and prints the records.
 *
 * Record order: dtrace prints each CPU's buffer in turn; jdtrace has one buffer per firing
 * thread, and one drain prints all records taken from all threads sorted by their timestamp
 * (then per-thread sequence), so output is in firing order across threads. Drops are reported
 * per CPU as the firing context reported it ("dtrace: 3 drops on CPU 1").
 *
 * Threading: compile/setOption/begin/drain/end/fault are called by the consumer thread; fault()
 * may also come from a firing thread, so fault reports go through the firing thread's buffer
 * like any record. EcbBody instances run on any thread.
 */
package org.jdtrace.libdtrace;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.codegen.ClauseCompiler;
import org.jdtrace.libdtrace.codegen.Ir;
import org.jdtrace.libdtrace.lex.Lexer;
import org.jdtrace.libdtrace.lex.Macros;
import org.jdtrace.libdtrace.print.RecordPrinter;
import org.jdtrace.libdtrace.rt.AggregateTable;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.Datum;
import org.jdtrace.libdtrace.rt.Record;
import org.jdtrace.engine.DFault;
import org.jdtrace.engine.DProgram;
import org.jdtrace.engine.DSession;
import org.jdtrace.engine.EcbBody;
import org.jdtrace.engine.Statement;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;

public final class DSessionImpl implements DSession {

    /** dtrace-utils' test mode: probe lines without the CPU and ID columns. */
    private static final boolean TESTING = System.getenv("_DTRACE_TESTING") != null;

    private final DState state = new DState();
    private final AggregateTable table = new AggregateTable(state);
    private final Map<Integer, Probe> probes = new ConcurrentHashMap<>();
    /** The first statement id of each compiled statement (one id per probe description, in program order). */
    private final Map<Statement, Integer> statementIds = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());
    /** Each compiled statement's probe-description line (see {@link #line}). */
    private final Map<Statement, Integer> statementLines = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());
    /** The statement id of each ECB: the N of the dt_clause_N a fault report names. */
    private final Map<Integer, Integer> epidStatements = new ConcurrentHashMap<>();
    /** The clause body of each ECB: what it needs of the buffers (begin's checks). */
    private final Map<Integer, EcbBody> epidBodies = new ConcurrentHashMap<>();
    /** Faults in ERROR enablings since the last drain (DTRACEDROP_DBLERROR). */
    private final java.util.concurrent.atomic.AtomicLong doubleErrors = new java.util.concurrent.atomic.AtomicLong();
    private int nextStatementId;
    private final FrontEnd frontEnd;
    private RecordPrinter printer;
    private boolean active;
    private boolean destructive;
    private volatile org.jdtrace.engine.ProbeArgs probeArgs;

    public DSessionImpl(FrontEnd frontEnd) {
        this(frontEnd, null);
    }

    /** {@code abi}: the ISA's, for uregs[] of probes that fire in the calling thread (null: none). */
    public DSessionImpl(FrontEnd frontEnd, org.jdtrace.isa.Abi abi) {
        this.frontEnd = frontEnd;
        state.abi = abi;
    }

    /** The state generated clauses run against (lowering needs its slots and aggregations). */
    public DState state() {
        return state;
    }

    @Override
    public void setOption(String name, String value) throws DTraceException {
        if (active) {
            state.options.setWhileTracing(name, value);
        } else {
            state.options.set(name, value);
        }
    }

    @Override
    public Long providerOption(String name) {
        return org.jdtrace.libdtrace.rt.Options.PROVIDER_OPTIONS.contains(name) ? state.options.get(name) : null;
    }

    @Override
    public Long consumerOption(String name) {
        return state.options.consumerOption(name);
    }

    @Override
    public String getOption(String name) {
        return state.options.getString(name);
    }

    @Override
    public void probeArgs(org.jdtrace.engine.ProbeArgs lookup) {
        probeArgs = lookup;
    }

    /** What the compiler types args[] from (null: nothing, args[] is int64_t). */
    org.jdtrace.engine.ProbeArgs probeArgs() {
        return probeArgs;
    }

    @Override
    public DProgram compile(String source, String sourceName, List<String> macroArgs) throws DTraceException {
        if (frontEnd == null) {
            throw new DTraceException("failed to compile script " + sourceName + ": D front end not available");
        }
        FrontEnd.Compilation c = frontEnd.compile(state, probeArgs, source, sourceName, macroArgs);
        if (c.destructive()) {
            usesDestructiveActions();
        }
        DProgram p = program(c.statements(), c.pragmas(), c.attributes());
        for (int i = 0; i < c.lines().size(); i++) {
            statementLines.putIfAbsent(c.statements().get(i), c.lines().get(i));
        }
        return p;
    }

    /**
     * The source line of a compiled statement's probe description, 0 when unknown: where
     * dt_setcontext reports a description that matches no probe (D_PDESC_ZERO), which this
     * consumer finds only when the program is enabled.
     */
    private int line(Statement st) {
        return statementLines.getOrDefault(st, 0);
    }

    @Override
    public DProgram compileDescriptions(List<String> descriptions, List<String> macroArgs) throws DTraceException {
        List<ProbeDescription> descs = new ArrayList<>();
        Macros macros = DCompiler.macros(state.options, "dtrace", macroArgs);
        for (String d : descriptions) {
            ProbeDescription pd;
            try {
                pd = ProbeDescription.parse(Lexer.expandProbeDescription(d, macros, 1));
            } catch (IllegalArgumentException e) {
                throw new DTraceException(e.getMessage());
            }
            // dt_setcontext, as for a clause with a body (sema.ArgTypes.checkMatches)
            if (probeArgs != null && !state.options.isSet("zdefs") && !probeArgs.matches(pd)) {
                throw new DTraceException("probe description " + pd + " does not match any probes", "D_PDESC_ZERO", 0);
            }
            descs.add(pd);
        }
        EcbBody body = compileClause(new Ir.Clause(null, List.of(), true));
        String source = String.join(",", descs.stream().map(ProbeDescription::toString).toList());
        return program(List.of(new Statement(descs, source, body)), Map.of());
    }

    /** Compiles one lowered clause into its EcbBody. */
    public EcbBody compileClause(Ir.Clause clause) {
        return ClauseCompiler.compile(state, clause);
    }

    /**
     * A program compiled from D source: its statements, and the stability attributes dtrace -v
     * reports (the minimum over its clauses; sema.ClauseAttributes).
     */
    public interface AttributedProgram extends DProgram {
        org.jdtrace.libdtrace.sema.ClauseAttributes.Report attributes();

        /** The source line of the first statement whose probe description reads {@code description}, or 0. */
        int line(String description);
    }

    /** A program from compiled statements; pragmas are applied as options now. */
    public DProgram program(List<Statement> statements, Map<String, String> pragmas) throws DTraceException {
        return program(statements, pragmas, null);
    }

    /** As above, with the program's stability attributes (null: not computed, e.g. -n descriptions without a body). */
    public DProgram program(List<Statement> statements, Map<String, String> pragmas,
            org.jdtrace.libdtrace.sema.ClauseAttributes.Report attributes) throws DTraceException {
        for (var e : pragmas.entrySet()) {
            try {
                state.options.set(e.getKey(), e.getValue());
            } catch (DTraceException x) {
                throw new DTraceException("failed to set option '" + e.getKey() + "'"
                        + (e.getValue() == null ? "" : " to '" + e.getValue() + "'") + ": " + x.getMessage(),
                        "D_PRAGMA_OPTSET", x.line());
            }
        }
        List<Statement> stmts = List.copyOf(statements);
        for (Statement st : stmts) {
            statementIds.put(st, nextStatementId);
            nextStatementId += Math.max(1, st.descriptions().size());
        }
        Map<String, String> prag = new LinkedHashMap<>(pragmas);
        return new AttributedProgram() {
            @Override
            public org.jdtrace.libdtrace.sema.ClauseAttributes.Report attributes() {
                return attributes;
            }

            @Override
            public List<Statement> statements() {
                return stmts;
            }

            @Override
            public int line(String description) {
                for (Statement st : stmts) {
                    for (ProbeDescription d : st.descriptions()) {
                        if (d.toString().equals(description)) {
                            return DSessionImpl.this.line(st);
                        }
                    }
                }
                return 0;
            }

            @Override
            public Map<String, String> pragmas() {
                return prag;
            }

            @Override
            public List<String> descriptions() {
                return stmts.stream().map(Statement::source).toList();
            }
        };
    }

    /** A compiled program has destructive actions: begin() then needs option destructive (-w). */
    public void usesDestructiveActions() {
        destructive = true;
    }

    @Override
    public void begin(PrintStream out, PrintStream err) throws DTraceException {
        if (destructive && !state.options.isSet("destructive")) {
            throw new DTraceException("Destructive actions not allowed");
        }
        checkBufferSizes();
        printer = new RecordPrinter(state, table, probes::get, out, err, TESTING);
        printer.clauseNames(this::clauseName);
        active = true;
    }

    /**
     * dtrace_go's buffer checks, made before anything fires. The principal buffer must hold one
     * record of the enabling's largest clause as DTrace on Linux sizes it (dt_work.c: bufsize at
     * least a perf record's 8-byte header plus dt_maxreclen, else EDT_BUFTOOSMALL, "Enabling
     * exceeds size of buffer"); dtrace(1M)'s own ERROR clause, which traces arg1 to arg5 to
     * report a fault, is always among the clauses, so no bufsize below 8 + that record runs
     * (-b59 is refused, -b64 runs). So is an aggregation buffer that cannot hold one entry of the
     * enabling's largest aggregation, and a dynamic variable space that cannot hold its largest
     * dynamic variable (DTrace on Linux sizes those two as tables of aggsize / (largest key +
     * largest value) and dynvarsize / (largest tuple + largest value) elements, and refuses a
     * table of none). Under the fill policy the END enablings' records are reserved in the
     * principal buffer (dts_reserve): a buffer smaller than that is E2BIG, "END enablings exceed
     * size of principal buffer", checked before the rest. Records are sized by jdtrace's own accounting (RecordSize), as
     * the buffers bound them at run time; a buffer that holds the largest record but not all
     * of one switch interval's drops the rest.
     */
    private void checkBufferSizes() throws DTraceException {
        if (epidBodies.isEmpty()) return;
        var o = state.options;
        allocateBuffers(Runtime.getRuntime().maxMemory());
        long aggsize = o.get("aggsize") & ~7L;
        long endReserve = 0;
        long aggEntry = 0;
        long largest = DEFAULT_ERROR_RECORD;
        for (var e : epidBodies.entrySet()) {
            DState.BufferNeeds n = state.needs(e.getValue());
            if (n == null) continue;
            aggEntry = Math.max(aggEntry, n.aggregationEntry().applyAsLong(o));
            long record = n.record().applyAsLong(o);
            largest = Math.max(largest, record);
            Probe p = probes.get(e.getKey());
            if (p != null && p.provider().equals("dtrace") && p.name().equals("END")) endReserve += record;
        }
        state.endReserve = endReserve;
        if (o.fill() && endReserve > (o.get("bufsize") & ~7L)) {
            // first, as dtrace_state_go reserves END's records before it sizes the buffers
            throw new DTraceException("END enablings exceed size of principal buffer");
        }
        if (o.get("bufsize") < PERF_RECORD_HEADER + largest || aggsize < aggEntry
                || o.get("dynvarsize") < state.largestDynamicVariable()) {
            throw new DTraceException("Enabling exceeds size of buffer");
        }
    }

    /** The buffer options dtrace_state_buffers allocates, in its order. */
    static final List<String> BUFFERS = List.of("bufsize", "aggsize", "specsize", "dynvarsize");

    /**
     * dtrace_state_buffers: each buffer is allocated before tracing starts, and one the system
     * cannot give is ENOMEM; with bufresize=auto (the default) its size is halved until it can be
     * had (dtrace(1M) then reports "buffer size lowered to ..."), with bufresize=manual the
     * enabling fails. Here the buffers' records live on the JVM's heap: a buffer (the
     * speculations' nspec of them together) larger than the heap's limit, {@code heap}, could
     * never be filled and cannot be had. The message is ENOMEM's strerror on Linux.
     */
    void allocateBuffers(long heap) throws DTraceException {
        var o = state.options;
        boolean manual = "manual".equals(o.getString("bufresize"));
        for (String name : BUFFERS) {
            long size = o.get(name);
            long count = name.equals("specsize") ? Math.max(1, o.get("nspec")) : 1;
            if (size == org.jdtrace.libdtrace.rt.Options.UNSET || size <= heap / count) continue;
            if (manual) throw new DTraceException("Cannot allocate memory");
            while (size > heap / count) size /= 2;
            o.set(name, Long.toString(size));
        }
    }

    /** The header of the perf record each principal-buffer record travels in on DTrace on Linux. */
    private static final long PERF_RECORD_HEADER = 8;
    /** dtrace(1M)'s default ERROR clause's record: trace(arg1) ... trace(arg5) (dt_handle.c). */
    private static final long DEFAULT_ERROR_RECORD = Record.HEADER + 5 * 8;

    @Override
    public void drain() {
        if (printer == null) return;
        Map<Integer, Long> drops = new HashMap<>();
        List<Record> all = new ArrayList<>();
        state.drainBuffers(all, drops);
        synchronized (refusedClauses) {
            refusals.forEach(printer::printWarning);
            refusals.clear();
        }
        synchronized (lost) {
            lost.forEach((cpu, n) -> drops.merge(cpu, n, Long::sum));
            lost.clear();
        }
        long dbl = doubleErrors.getAndSet(0);
        if (dbl > 0) printer.printDoubleErrors(dbl); // dtrace_work: the status before the buffers
        long dyn = state.takeDynvarDrops();
        if (dyn > 0) printer.printDynamicDrops(dyn);
        state.takeAggregationDrops().forEach(printer::printAggregationDrops);
        state.aggEpoch++; // the consumer has the aggregations: each thread's buffer is empty again
        all.sort(Comparator.comparingLong(Record::timestamp).thenComparingLong(Record::seq));
        printer.print(all);
        if (!drops.isEmpty()) printer.printDrops(drops);
        printer.printSpeculationDrops(state.speculations.takeFailed(), state.speculations.takeFailedBusy(),
                state.speculations.takeDrops());
        state.speculations.clean(); // speculations committed from several CPUs are free again
    }

    /** Clauses whose kernel program was refused, each warned of once; the warnings not printed yet. */
    private final java.util.Set<String> refusedClauses = new java.util.HashSet<>();
    private final List<String> refusals = new ArrayList<>();

    /** One warning line per clause, printed with the next drain, before its records. */
    @Override
    public void kernelRefused(String clause, String reason) {
        synchronized (refusedClauses) {
            if (refusedClauses.add(clause)) refusals.add("clause " + clause + " runs in the JVM: " + reason);
        }
    }

    /** Drops a provider reported (kernel ring losses), by CPU, until the next drain prints them. */
    private final Map<Integer, Long> lost = new HashMap<>();

    @Override
    public void lost(int cpu, long count) {
        synchronized (lost) {
            lost.merge(cpu, count, Long::sum);
        }
    }

    @Override
    public void fault(int epid, Probe probe, DFault fault) {
        if (probe.provider().equals("dtrace") && probe.name().equals("ERROR")) {
            // a fault in an ERROR enabling fires no ERROR and reports no error: it is counted
            // (dtrace_probe_error's dts_dblerrors), and reported with the next drain
            doubleErrors.incrementAndGet();
            return;
        }
        String what = fault.kind.text;
        if (fault.kind == FaultException.Kind.BADADDR || fault.kind == FaultException.Kind.BADALIGN
                || fault.kind == FaultException.Kind.BADSTACK || fault.kind == FaultException.Kind.BADSIZE) {
            what += " (0x" + Long.toHexString(fault.address) + ")";
        } else if (fault.kind == FaultException.Kind.BADINDEX) {
            what += " (" + fault.address + ")";
        }
        // DTrace on Linux's wording; jdtrace runs no BPF: the "pc" is the bytecode offset of the
        // faulting call in the clause's generated fire() method (codegen.ClauseCompiler), left
        // out, as DTrace leaves it out, where the fault has no location
        String msg = clauseName(epid) + " for probe ID " + probe.id() + " (" + probe.provider() + ":"
                + probe.module() + ":" + probe.function() + ":" + probe.name() + "): " + what
                + (fault.offset > 0 ? " at BPF pc " + fault.offset : "");
        var t = state.thread();
        t.begin();
        t.add(new Datum.Error(epid, String.valueOf(probe.id()), msg));
        t.commit(epid, 0);
    }

    /**
     * "error in dt_clause_N", as DTrace on Linux names the code that faulted: N is the statement
     * id, one per probe description of each clause, counted in program order over the session.
     */
    String clauseName(int epid) {
        return "error in dt_clause_" + clauseOf(epid);
    }

    /** The N of dt_clause_N: dtrace:::ERROR's arg2. */
    @Override
    public int clauseOf(int epid) {
        Integer id = epidStatements.get(epid);
        return id == null ? 0 : id;
    }

    @Override
    public void end() {
        drain();
        if (printer != null) {
            printer.printEnd();
            // what the aggregations printed at the end could not hold (a full kernel map, rt.KernelCells)
            state.takeAggregationDrops().forEach(printer::printAggregationDrops);
        }
        active = false;
    }

    @Override
    public void onExit(Runnable wake) {
        state.onExit = wake;
    }

    @Override
    public boolean exitRequested() {
        return state.exitRequested();
    }

    @Override
    public int exitStatus() {
        return state.exitStatus();
    }

    @Override
    public void ecbCreated(int epid, Probe probe, Statement statement) {
        probes.put(epid, probe);
        if (statement != null) epidBodies.put(epid, statement.body());
        Integer base = statement == null ? null : statementIds.get(statement);
        if (base != null) {
            int i = 0;
            List<ProbeDescription> descs = statement.descriptions();
            for (int k = 0; k < descs.size(); k++) {
                ProbeDescription d = descs.get(k);
                if (org.jdtrace.spi.Glob.matchesPart(d.provider(), probe.provider())
                        && org.jdtrace.spi.Glob.matchesPart(d.module(), probe.module())
                        && org.jdtrace.spi.Glob.matchesPart(d.function(), probe.function())
                        && org.jdtrace.spi.Glob.matchesPart(d.name(), probe.name())) {
                    i = k;
                    break;
                }
            }
            epidStatements.put(epid, base + i);
        }
    }
}
