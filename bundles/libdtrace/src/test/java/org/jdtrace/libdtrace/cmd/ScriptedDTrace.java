package org.jdtrace.libdtrace.cmd;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTrace;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.consumer.ProbeInfo;
import org.jdtrace.consumer.Program;

/**
 * A small consumer for dtrace(1M)'s own tests: a fixed probe table, descriptions matched by
 * exact fields (empty matches all), and a run that prints "fired" for each enabled probe at go()
 * and ends after {@code workRounds} rounds or at stop(). It records what dtrace(1M) asked of it.
 */
final class ScriptedDTrace implements DTrace {

    /** What the real dtrace provider declares. */
    static final org.jdtrace.spi.ProviderAttributes DTRACE =
            new org.jdtrace.core.providers.dtrace.DTraceProvider().attributes();

    final List<ProbeInfo> probes = new ArrayList<>(List.of(
            new ProbeInfo(1, "dtrace", "", "", "BEGIN", List.of(), DTRACE),
            new ProbeInfo(2, "dtrace", "", "", "END", List.of(), DTRACE),
            new ProbeInfo(3, "dtrace", "", "", "ERROR", List.of("uint64_t", "int"), DTRACE)));
    final Map<String, String> options = new HashMap<>();
    final List<String> sources = new ArrayList<>();
    final List<List<String>> macroArgs = new ArrayList<>();
    DTraceException compileError;
    int workRounds = Integer.MAX_VALUE;
    int exitStatus;
    boolean stopped;
    boolean closed;

    @Override
    public Consumer open() {
        return new ScriptedConsumer();
    }

    @Override
    public String version() {
        return "Sun D 1.6.4";
    }

    record Prog(List<String> descriptions) implements Program {}

    static boolean matches(String desc, ProbeInfo p) {
        String[] f = desc.split(":", -1);
        String[] want = new String[4];
        for (int i = 0; i < 4; i++) {
            int j = f.length - 4 + i;
            want[i] = j >= 0 ? f[j].strip() : "";
        }
        Predicate<String[]> ok = w -> (w[0].isEmpty() || w[0].equals(p.provider()))
                && (w[1].isEmpty() || w[1].equals(p.module()))
                && (w[2].isEmpty() || w[2].equals(p.function()))
                && (w[3].isEmpty() || w[3].equals(p.name()));
        return ok.test(want);
    }

    final class ScriptedConsumer implements Consumer {
        private PrintStream out;
        private int rounds;
        private final List<ProbeInfo> enabled = new ArrayList<>();

        @Override
        public void setOption(String name, String value) throws DTraceException {
            if (name.equals("bogus")) {
                throw new DTraceException("Invalid option name");
            }
            if (name.equals("bufsize") && value != null && value.startsWith("-")) {
                throw new DTraceException("Invalid value for specified option");
            }
            options.put(name, value == null ? "" : value);
        }

        @Override
        public String getOption(String name) {
            return options.get(name);
        }

        @Override
        public Program compile(String source, String sourceName, List<String> args) throws DTraceException {
            sources.add(source);
            macroArgs.add(args);
            if (compileError != null) {
                throw compileError;
            }
            if (source.contains("#pragma D option quiet")) {
                options.put("quiet", "");
            }
            String head = source.replaceAll("(?m)^#pragma.*$", "").strip();
            int cut = Invocation.clauseStart(head);
            return new Prog(List.of((cut < 0 ? head : head.substring(0, cut)).strip().split("\\s*,\\s*")));
        }

        @Override
        public Program compileDescription(DescriptionKind kind, String description, List<String> macroArgs) {
            sources.add(kind + " " + description);
            if (kind == DescriptionKind.ID) {
                int id = Integer.parseInt(description);
                return new Prog(probes.stream().filter(p -> p.id() == id)
                        .map(p -> p.provider() + ":" + p.module() + ":" + p.function() + ":" + p.name()).toList());
            }
            return new Prog(List.of(ProbeSpecs.complete(description, kind)));
        }

        @Override
        public int exec(Program program) throws DTraceException {
            int n = 0;
            for (String d : program.descriptions()) {
                List<ProbeInfo> m = probes.stream().filter(p -> matches(d, p)).toList();
                if (m.isEmpty() && !options.containsKey("zdefs")) {
                    throw new DTraceException("probe description " + d + " does not match any probes", null, 1);
                }
                enabled.addAll(m);
                n += m.size();
            }
            return n;
        }

        @Override
        public List<ProbeInfo> list(Program program) {
            List<ProbeInfo> r = new ArrayList<>();
            for (String d : program.descriptions()) {
                probes.stream().filter(p -> matches(d, p)).forEach(r::add);
            }
            return r;
        }

        @Override
        public void go(PrintStream out, PrintStream err) throws DTraceException {
            if (options.containsKey("fail-go")) {
                throw new DTraceException("Destructive actions not allowed");
            }
            this.out = out;
            for (ProbeInfo p : enabled) {
                if (p.name().equals("BEGIN")) {
                    out.println("fired " + p.name());
                }
            }
        }

        @Override
        public Status work() {
            if (stopped || ++rounds >= workRounds) {
                for (ProbeInfo p : enabled) {
                    if (p.name().equals("END")) {
                        out.println("fired " + p.name());
                    }
                }
                return Status.DONE;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Status.OK;
        }

        @Override
        public void stop() {
            stopped = true;
        }

        @Override
        public int exitStatus() {
            return exitStatus;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
