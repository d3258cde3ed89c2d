/*
 * One consumer (dtrace_hdl_t plus its dtrace_state_t): the life cycle of dtrace(1M) over the
 * framework (probes, ECBs) and a DSession (the D half: compiling, buffers, printing).
 *
 *   exec    every statement's descriptions are provided and matched; one that matches nothing
 *           fails as dtrace does, unless zdefs is set; then each statement becomes a retained
 *           enabling, its ECBs created but not yet installed on their probes.
 *   go      the session begins; every ECB is installed (providers enabled) but not live, as
 *           in dtrace_state_go's WARMUP; BEGIN fires for this consumer only, on the calling
 *           thread, before anything else runs; then, unless exit() ran in BEGIN, the ECBs go
 *           live: tracing runs from BEGIN on, not from the end of a long enabling.
 *   work    waits until exit() ran, stop() was asked, a failure happened, or one switchrate
 *           period passed, polling every 5 ms so that `BEGIN { exit(0); }` ends at once; then
 *           drains; at the end it uninstalls every ECB, fires END (nothing else fires after
 *           it), lets the session print the rest (DSession.end) and returns DONE.
 *   close   releases every enabling and ECB, however the run ended (idempotent).
 *
 * Threads: one thread drives the consumer; stop() may come from any thread (Ctrl-C).
 */
package org.jdtrace.core.consumer;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.consumer.ProbeInfo;
import org.jdtrace.consumer.Program;
import org.jdtrace.core.context.JvmProbeContext;
import org.jdtrace.engine.DProgram;
import org.jdtrace.engine.DSession;
import org.jdtrace.engine.Statement;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.core.providers.dtrace.DTraceProvider;
import org.jdtrace.time.Rates;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProviderException;

final class ConsumerImpl implements Consumer {

    /**
     * The longest a waiting work() sleeps between checks. exit(), stop() and a failure wake it at
     * once (DSession.onExit, stop, ConsumerState's wake), so this only bounds the wait should a
     * wake-up be missed; a short period here costs an idle dtrace CPU (it was 5 ms: 200 wake-ups
     * a second, then 100 ms: 10 interpreted turns of this loop a second, a wake-up each): the
     * default switchrate's second, one wait per work().
     */
    static final long POLL_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long DEFAULT_SWITCHRATE_NANOS = Rates.NANOS_PER_SEC;
    /** statusrate's default: with it, exit() is seen at once (see exitSeenAt). */
    static final long DEFAULT_STATUSRATE_NANOS = Rates.NANOS_PER_SEC;

    private final DTraceFramework framework;
    private final DSession session;
    private final ConsumerState state;
    private final Runnable onClose;
    private volatile boolean stopRequested;
    private volatile Thread waiter;
    private boolean started;
    private boolean finished;
    private boolean closed;
    private Probe endProbe;
    /** When go() started tracing: the status checks of a statusrate count from it. */
    private long goNanos;
    /** When the exit() now pending is seen (END runs then); 0 until work() sees one. */
    private long exitSeenAt;

    ConsumerImpl(DTraceFramework framework, DSession session, Runnable onClose) {
        this.framework = framework;
        this.session = session;
        this.onClose = onClose;
        this.state = new ConsumerState(framework, session, this::wake);
        session.onExit(this::wake);
        session.probeArgs(new org.jdtrace.engine.ProbeArgs() {
            @Override
            public List<List<ArgDesc>> argDescs(ProbeDescription d) {
                return ConsumerImpl.this.argDescs(d);
            }

            @Override
            public org.jdtrace.spi.ProviderAttributes attributes(ProbeDescription d) {
                return ConsumerImpl.this.attributes(d);
            }

            @Override
            public java.util.Map<String, java.util.Set<Integer>> capturedStrings(ProbeDescription d) {
                return ConsumerImpl.this.capturedStrings(d);
            }

            @Override
            public boolean kernelThreadLocals(ProbeDescription d, org.jdtrace.spi.KernelClause clause) {
                try {
                    List<Probe> ps = framework.match(d);
                    return !ps.isEmpty() && ps.stream().allMatch(p -> framework.kernelThreadLocals(p, clause));
                } catch (RuntimeException e) {
                    return false;
                }
            }

            @Override
            public boolean matches(ProbeDescription d) {
                try {
                    return !framework.match(d, state.consumerOptions()).isEmpty();
                } catch (RuntimeException e) {
                    return true; // exec() reports what a provider could not do
                }
            }
        });
    }

    /** For the compiler: the probes {@code d} matches now that fire after the event (see ProbeArgs). */
    private java.util.Map<String, java.util.Set<Integer>> capturedStrings(ProbeDescription d) {
        java.util.Map<String, java.util.Set<Integer>> out = new java.util.LinkedHashMap<>();
        try {
            for (Probe p : framework.match(d, state.consumerOptions())) {
                java.util.Set<Integer> c = framework.capturedStrings(p);
                if (c != null) out.put(p.description().toString(), c);
            }
        } catch (RuntimeException e) {
            return java.util.Map.of();
        }
        return out;
    }

    /** dtrace_probe_info for the compiler: the argument types of each probe {@code d} matches now. */
    private List<List<ArgDesc>> argDescs(ProbeDescription d) {
        List<List<ArgDesc>> out = new ArrayList<>();
        try {
            for (Probe p : framework.match(d, state.consumerOptions())) {
                out.add(framework.argDescs(p));
            }
        } catch (RuntimeException e) {
            return List.of(); // exec() reports what a provider could not do
        }
        return out;
    }

    /** dtrace_probe_info's pattr for the compiler: that of the first probe {@code d} matches now, or null. */
    private org.jdtrace.spi.ProviderAttributes attributes(ProbeDescription d) {
        try {
            for (Probe p : framework.match(d, state.consumerOptions())) {
                return framework.attributes(p);
            }
        } catch (RuntimeException e) {
            // exec() reports what a provider could not do
        }
        return null;
    }

    @Override
    public void setOption(String name, String value) throws DTraceException {
        session.setOption(name, value);
        Long forProviders = session.providerOption(name);
        if (forProviders != null) {
            framework.providerOption(name, forProviders);
        }
        Long mine = session.consumerOption(name);
        if (mine != null) {
            state.consumerOption(name, mine);
        }
    }

    @Override
    public java.util.Map<String, Long> consumerOptions() {
        return state.consumerOptions();
    }

    @Override
    public String getOption(String name) {
        return session.getOption(name);
    }

    @Override
    public Program compile(String source, String sourceName, List<String> macroArgs) throws DTraceException {
        return session.compile(source, sourceName, macroArgs);
    }

    @Override
    public Program compileDescription(DescriptionKind kind, String description, List<String> macroArgs)
            throws DTraceException {
        return session.compileDescriptions(fullDescriptions(kind, description), macroArgs);
    }

    /**
     * -P/-m/-f/-n/-i text as p:m:f:n descriptions: a comma-separated list is completed element
     * by element, each naming fields up to its kind's field counted from the right (-m libc is
     * :libc::, -f a:b is :a:b:); -i takes probe IDs.
     */
    List<String> fullDescriptions(DescriptionKind kind, String text) throws DTraceException {
        List<String> out = new ArrayList<>();
        for (String one : splitList(text)) {
            out.add(fullDescription(kind, one.strip()));
        }
        return out;
    }

    private String fullDescription(DescriptionKind kind, String d) throws DTraceException {
        if (kind == DescriptionKind.ID) {
            Probe p;
            try {
                p = framework.byId(Integer.parseInt(d));
            } catch (NumberFormatException e) {
                p = null;
            }
            if (p == null) {
                throw new DTraceException("invalid probe specifier " + d + ": probe description " + d
                        + " does not match any probes");
            }
            return p.description().toString();
        }
        String pad = switch (kind) {
            case PROVIDER -> ":::";
            case MODULE -> "::";
            case FUNCTION -> ":";
            default -> "";
        };
        try {
            return ProbeDescription.parse(d + pad).toString();
        } catch (IllegalArgumentException e) {
            throw new DTraceException("invalid probe specifier " + d + ": too many :'s");
        }
    }

    /** Splits a description list at commas outside [..] sets and not escaped. */
    private static List<String> splitList(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '[') {
                depth++;
            } else if (c == ']' && depth > 0) {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(text.substring(from, i));
                from = i + 1;
            }
        }
        parts.add(text.substring(from));
        return parts;
    }

    private static DProgram dprogram(Program program) throws DTraceException {
        if (program instanceof DProgram dp) {
            return dp;
        }
        throw new DTraceException("program was not compiled by this consumer");
    }

    /** -Z: a boolean option is set when it has a value that is not one of the words for "off". */
    private boolean zdefs() {
        String v = session.getOption("zdefs");
        if (v == null) {
            return false;
        }
        return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "0", "no", "off", "false", "unset", "disable", "disabled" -> false;
            default -> true;
        };
    }

    @Override
    public int exec(Program program) throws DTraceException {
        checkOpen();
        DProgram dp = dprogram(program);
        boolean zdefs = zdefs();
        for (Statement st : dp.statements()) {
            for (ProbeDescription d : st.descriptions()) {
                if (match(d).isEmpty() && !zdefs) {
                    throw new DTraceException("invalid probe specifier " + st.source()
                            + ": probe description " + d + " does not match any probes", "D_PDESC_ZERO", 0);
                }
            }
        }
        int n = 0;
        for (Statement st : dp.statements()) {
            n += framework.enable(state, st, false);
        }
        return n;
    }

    /**
     * The probes {@code d} matches, after the providers made theirs; a provider that cannot
     * (no such process, no such function) fails the compilation with its message and D_* tag,
     * which dtrace(1M) prints as "invalid probe specifier ..." or "failed to compile script ...".
     */
    private List<Probe> match(ProbeDescription d) throws DTraceException {
        try {
            return framework.match(d, state.consumerOptions());
        } catch (ProviderException e) {
            throw new DTraceException(e.getMessage(), e.tag(), 0);
        }
    }

    @Override
    public List<ProbeInfo> list(Program program) throws DTraceException {
        checkOpen();
        TreeMap<Integer, Probe> found = new TreeMap<>();
        for (Statement st : dprogram(program).statements()) {
            for (ProbeDescription d : st.descriptions()) {
                for (Probe p : match(d)) {
                    found.put(p.id(), p);
                }
            }
        }
        List<ProbeInfo> out = new ArrayList<>();
        for (Probe p : found.values()) {
            List<String> args = new ArrayList<>();
            for (ArgDesc a : framework.argDescs(p)) {
                args.add(a.translatedType() != null ? a.translatedType() : a.nativeType()); // -lv shows args[] as D types them (dt_probe_info)
            }
            out.add(new ProbeInfo(p.id(), p.provider(), p.module(), p.function(), p.name(), List.copyOf(args),
                    framework.attributes(p)));
        }
        return out;
    }

    @Override
    public void go(PrintStream out, PrintStream err) throws DTraceException {
        checkOpen();
        if (started) {
            throw new DTraceException("tracing is already started");
        }
        started = true;
        session.begin(out, err);
        state.setErrorProbe(dtraceProbe(DTraceProvider.ERROR));
        endProbe = dtraceProbe(DTraceProvider.END);
        framework.warmUp(state);
        if (state.failure() instanceof ProviderException e) {
            // a provider could not enable a probe: no tracing at all, BEGIN included (dtrace_go fails)
            finished = true;
            framework.deactivate(state);
            throw new DTraceException(e.getMessage(), e.tag(), 0);
        }
        Probe begin = dtraceProbe(DTraceProvider.BEGIN);
        if (begin != null) {
            state.fireOwn(begin, JvmProbeContext.current().clear());
        }
        if (!ending() && state.failure() == null) {
            framework.goLive(state);
        }
        // dtrace(1M)'s first dtrace_status() comes after dtrace_go() returned, the probes enabled:
        // the statusrate checks count from there, not from before an enabling that may take long
        goNanos = System.nanoTime();
    }

    private Probe dtraceProbe(String name) {
        return framework.lookup(DTraceProvider.NAME, "", "", name);
    }

    private boolean ending() {
        return stopRequested || session.exitRequested();
    }

    @Override
    public Status work() throws DTraceException {
        checkOpen();
        if (!started) {
            throw new DTraceException("tracing is not started");
        }
        if (finished) {
            return Status.DONE;
        }
        try {
            if (!ending()) {
                waitForEvent(switchrateNanos());
            }
            Throwable failure = state.failure();
            if (failure != null) {
                finished = true;
                framework.deactivate(state);
                if (failure instanceof ProviderException e) {
                    // a probe made while tracing could not be enabled
                    throw new DTraceException(e.getMessage(), e.tag(), 0);
                }
                throw new DTraceException("internal error in probe context: " + failure);
            }
            if (ending() && !stopRequested && waitForStatus()) {
                session.drain();
                return Status.OK;
            }
            if (ending()) {
                framework.deactivate(state);
                if (endProbe != null) {
                    state.fireOwn(endProbe, JvmProbeContext.current().clear());
                }
                finished = true;
                session.end();
                return Status.DONE;
            }
            session.drain();
            return Status.OK;
        } catch (RuntimeException e) {
            finished = true;
            framework.deactivate(state);
            throw new DTraceException("internal error: " + e);
        }
    }

    /**
     * True while an exit() waits for the consumer's next status check. dtrace(1M) learns of exit()
     * from dtrace_status(), which asks the kernel once every statusrate from the start of
     * tracing, so END runs at the first check after the exit(): up to a statusrate later. With
     * statusrate at its default jdtrace's consumer, woken by the exit() itself, sees it at once;
     * set to another rate, the checks come at that rate, as dtrace's do. No probe but END and
     * ERROR fires meanwhile (Rt.skip: DTrace's draining); the buffers drain at switchrate.
     */
    private boolean waitForStatus() {
        long rate = rateNanos("statusrate", DEFAULT_STATUSRATE_NANOS);
        if (rate == DEFAULT_STATUSRATE_NANOS) return false;
        long now = System.nanoTime();
        if (exitSeenAt == 0) exitSeenAt = goNanos + ((now - goNanos) / rate + 1) * rate;
        if (now >= exitSeenAt) return false;
        waiter = Thread.currentThread(); // stop() (Ctrl-C) ends the wait at once
        try {
            if (!stopRequested) LockSupport.parkNanos(this, Math.min(exitSeenAt - now, switchrateNanos()));
        } finally {
            waiter = null;
        }
        return !stopRequested && System.nanoTime() < exitSeenAt;
    }

    private long rateNanos(String option, long dflt) {
        String v = session.getOption(option);
        if (v == null || v.isEmpty()) return dflt;
        long n = Rates.intervalNanos(v.trim(), Rates.Bare.NANOSECONDS);
        return n > 0 ? n : dflt;
    }

    private long switchrateNanos() {
        return rateNanos("switchrate", DEFAULT_SWITCHRATE_NANOS);
    }

    private void waitForEvent(long periodNanos) {
        waiter = Thread.currentThread();
        try {
            long deadline = System.nanoTime() + periodNanos;
            while (!ending() && state.failure() == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, Math.min(left, POLL_NANOS));
            }
        } finally {
            waiter = null;
        }
    }

    private void wake() {
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void stop() {
        stopRequested = true;
        wake();
    }

    @Override
    public int exitStatus() {
        return session.exitStatus();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            framework.release(state);
        } finally {
            onClose.run();
        }
    }

    private void checkOpen() throws DTraceException {
        if (closed) {
            throw new DTraceException("consumer is closed");
        }
    }

    ConsumerState state() {
        return state;
    }
}
