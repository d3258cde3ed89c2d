package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.BiFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Thread-locals that live in the kernel (KernelClause.whole, ClauseProgram's thread-locals map):
 * the same D programs on the same real workload as KernelClausesTest (two ft_sys processes making
 * N getppid calls each), run with {@code -x kernelclauses=off} (every clause and thread-local in
 * the JVM) and on the default path, where the thread-locals live in a BPF map; the outputs must be
 * the same bytes, and the records the syscall rings delivered tell where the work was done.
 */
class KernelThreadLocalsTest {

    final KernelProvidersTest h = new KernelProvidersTest();
    static final int N = 3000;
    static final List<String> OFF = List.of("-x", "kernelclauses=off"), ON = List.of();

    @AfterEach
    void tearDown() {
        h.tearDown();
    }

    /** The program's two runs: {output off, output on, delivered off, delivered on}. */
    Object[] bothWays(BiFunction<Long, Long, String> program) throws Exception {
        return h.bothWays(N, OFF, ON, program);
    }

    @Test
    void entryToReturnLatencyRunsWhollyInTheKernel() throws Exception {
        // the clause that zeroes self->ts comes last; a thread-local never set reads 0 (write:entry)
        Object[] r = bothWays((a, b) -> "syscall::getppid:entry /pid == " + a + "/ { self->ts = timestamp; } "
                + "syscall::getppid:return /self->ts/ { @n = count(); } "
                + "syscall::getppid:return /self->ts/ { @ = quantize(timestamp - self->ts > 0 ? 1 : 0); self->ts = 0; } "
                + "syscall::getppid:return /pid == " + a + " && self->ts/ { @left = count(); } "
                + "syscall::write:entry /pid == " + a + " && self->ts == 0/ { @w = count(); } "
                + "END { printa(\"%@d\\n\", @n); printa(@); printa(\"left %@d\\n\", @left); printa(\"w %@d\\n\", @w); }");
        assertEquals(r[0], r[1], "the same output with thread-locals in the JVM and in the kernel");
        String out = (String) r[0];
        assertTrue(out.startsWith(N + "\n") && out.contains(" 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ " + N + " ")
                && !out.contains("left") && out.contains("w 2\n"), out);
        assertTrue((Long) r[3] <= 3, "records sent with the thread-locals in the kernel: " + r[3] + " (JVM path " + r[2] + ")");
        assertTrue((Long) r[2] >= N, "the JVM path judged every call: " + r[2]);
    }

    @Test
    void aThreadLocalAClauseInTheJvmReadsStaysInTheJvm() throws Exception {
        // k++ (a global) keeps the second clause in the JVM, and with it every clause that uses self->n
        Object[] r = bothWays((a, b) -> "syscall::getppid:entry /pid == " + a + "/ { self->n = arg0 + 1; } "
                + "syscall::getppid:return /self->n/ { self->n = 0; k++; } "
                + "END { printf(\"%d\\n\", k); }");
        assertEquals(r[0], r[1]);
        assertEquals(N + "\n\n", r[0]);
        assertTrue((Long) r[3] >= N, "the returns reached the JVM: " + r[3]);
    }

    @Test
    void wholeClausesWhoseProgramIsRefusedRunInTheJvmWithOneLineEach() throws Exception {
        // getppid's value bit by bit (KernelClausesTest's verifier refusal) in a whole clause: the
        // program is refused, both clauses of self->ts go to the JVM with their variable, each
        // told in one dtrace: line, and print what kernelclauses=off prints
        StringBuilder sum = new StringBuilder("0");
        for (int i = 0; i < 22; i++) sum.append(" + (arg0 & ").append(1 << i).append(" ? ").append(1 << i).append(" : 0)");
        BiFunction<Long, Long, String> p = (a, b) -> "syscall::getppid:entry /pid == " + a + "/ { self->ts = timestamp; } "
                + "syscall::getppid:return /self->ts/ { @ = lquantize(" + sum + " > 0 ? 1 : 0, 0, 100, 1); self->ts = 0; } "
                + "syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        List<String> lines = sameBytesInTheJvm(p, " " + N + " ");
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("dtrace: clause syscall::getppid:entry runs in the JVM: the kernel refused its program: ")
                && lines.get(1).startsWith("dtrace: clause syscall::getppid:return runs in the JVM: the kernel refused its program: "),
                lines.toString());
        h.providers().forEach(h.fw::addProvider);
        String[] r = h.run("-q", "-x", "kernelclauses=force", "-n", p.apply(1L, 2L));
        assertEquals("1", r[0], r[2]);
        assertTrue(r[2].startsWith("dtrace: could not enable tracing: clause syscall::getppid:") && r[2].endsWith(" (kernelclauses=force)\n"),
                r[2]);
    }

    @Test
    void wholeClausesTheKernelCannotRunStayInTheJvmTogether() throws Exception {
        // seventeen thread-locals: the programs keep sixteen (ClauseProgram.MAX_TLS), so the
        // clause that stores the seventeenth cannot run in the kernel: the compiler asks the
        // provider (Provider.kernelThreadLocals) and keeps it and every clause sharing its
        // variables in the JVM, silently, as any clause the kernel cannot run: the bytes of
        // kernelclauses=off and no line
        StringBuilder set = new StringBuilder(), clear = new StringBuilder();
        for (int i = 0; i <= ClauseProgram.MAX_TLS; i++) {
            set.append(" self->v").append(i).append(" = arg0 + ").append(i + 1).append(";");
            clear.append(" self->v").append(i).append(" = 0;");
        }
        BiFunction<Long, Long, String> p = (a, b) -> "syscall::getppid:entry /pid == " + a + "/ {" + set + " } "
                + "syscall::getppid:return /self->v" + ClauseProgram.MAX_TLS + "/ { @ = count();" + clear + " } "
                + "syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        assertEquals(List.of(), sameBytesInTheJvm(p, " " + N + "\n"));
    }

    @Test
    void eachConsumerHasItsOwnThreadLocals() throws Exception {
        // two consumers on one framework run the classic idiom at once: each one's self->ts is
        // its own (each dtrace_state_t has its own dynamic variables), so neither's return
        // clause zeroes the other's; on a shared variable one of them would count fewer than N
        BiFunction<Long, Long, String> classic = (a, b) -> "syscall::getppid:entry /pid == " + a + "/ { self->ts = timestamp; } "
                + "syscall::getppid:return /self->ts/ { @ = count(); self->ts = 0; } "
                + "syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        List<String> off = twoConsumers(OFF, classic, classic), on = twoConsumers(ON, classic, classic);
        assertEquals(off, on);
        assertEquals(List.of(Integer.toString(N), Integer.toString(N)), on.stream().map(String::strip).toList(), on.toString());
    }

    @Test
    void aVariableOneConsumerSetsIsNeverSeenByAnother() throws Exception {
        // the first consumer sets self->ts (and leaves it set); the second only tests its own
        // self->ts, whose one store never runs: it must always read 0
        BiFunction<Long, Long, String> sets = (a, b) -> "syscall::getppid:entry /pid == " + a + "/ { self->ts = timestamp; } "
                + "syscall::getppid:return /self->ts/ { @ = count(); } "
                + "syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        BiFunction<Long, Long, String> tests = (a, b) -> "syscall::getppid:entry /pid == -1/ { self->ts = timestamp; } "
                + "syscall::getppid:return /pid == " + a + " && self->ts/ { @seen = count(); } "
                + "syscall::getppid:return /pid == " + a + " && self->ts == 0/ { @unset = count(); } "
                + "syscall::exit_group:entry /pid == " + a + "/ { exit(0); } "
                + "END { printa(\"seen %@d\\n\", @seen); printa(\"unset %@d\\n\", @unset); }";
        List<String> off = twoConsumers(OFF, sets, tests), on = twoConsumers(ON, sets, tests);
        assertEquals(off, on);
        assertEquals("unset " + N + "\n\n", on.get(1), on.toString());
    }

    /**
     * Two consumers on one framework, {@code first} and {@code second} (after {@code options}),
     * tracing at once while two processes make N getppid calls each: their outputs.
     */
    private List<String> twoConsumers(List<String> options, BiFunction<Long, Long, String> first,
            BiFunction<Long, Long, String> second) throws Exception {
        List<org.jdtrace.spi.Provider> ps = h.providers();
        ps.forEach(h.fw::addProvider);
        try {
            Process a = h.waitingSys(N), b = h.waitingSys(N);
            List<java.io.ByteArrayOutputStream> outs = List.of(new java.io.ByteArrayOutputStream(), new java.io.ByteArrayOutputStream());
            List<java.util.concurrent.CompletableFuture<String[]>> runs = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                List<String> argv = new java.util.ArrayList<>(options);
                argv.addAll(List.of("-q", "-n", "BEGIN { printf(\"ready\\n\"); } tick-60s { exit(3); } "
                        + (i == 0 ? first : second).apply(a.pid(), b.pid())));
                java.io.ByteArrayOutputStream out = outs.get(i);
                // a thread each: the common pool may have one worker (two cores), which would run them in turn
                var f = new java.util.concurrent.CompletableFuture<String[]>();
                Thread.ofPlatform().daemon().start(() -> f.complete(h.run(out, argv.toArray(String[]::new))));
                runs.add(f);
            }
            for (int k = 0; k < 2; k++) {
                java.io.ByteArrayOutputStream out = outs.get(k);
                var run = runs.get(k);
                for (int i = 0; i < 600 && !run.isDone() && !out.toString(java.nio.charset.StandardCharsets.UTF_8).contains("ready"); i++) {
                    Thread.sleep(50);
                }
                assertTrue(out.toString(java.nio.charset.StandardCharsets.UTF_8).contains("ready"),
                        () -> "tracing started" + (run.isDone() ? java.util.Arrays.toString(run.join()) : ""));
            }
            for (Process p : List.of(a, b)) {
                p.getOutputStream().write('\n');
                p.getOutputStream().flush();
            }
            assertEquals(0, a.waitFor());
            assertEquals(0, b.waitFor());
            List<String> r = new java.util.ArrayList<>();
            for (var f : runs) {
                String[] x = f.get();
                assertEquals("0", x[0], x[2]);
                assertEquals("", x[2]);
                r.add(x[1].replace("ready\n", ""));
            }
            return r;
        } finally {
            ps.forEach(h.fw::removeProvider);
        }
    }

    /**
     * {@code program} run both ways prints the same bytes, which contain {@code counted}; the
     * default path's warning lines, sorted (kernelclauses=off has none).
     */
    private List<String> sameBytesInTheJvm(BiFunction<Long, Long, String> program, String counted) throws Exception {
        Object[] off = h.countWhileTwoRun(N, OFF, program);
        Object[] on = h.countWhileTwoRun(N, ON, program);
        assertEquals(off[0], on[0]);
        assertTrue(((String) on[0]).contains(counted), (String) on[0]);
        assertEquals("", off[2]);
        return ((String) on[2]).lines().sorted().toList();
    }
}
