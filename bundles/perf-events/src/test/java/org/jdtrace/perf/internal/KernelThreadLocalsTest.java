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
}
