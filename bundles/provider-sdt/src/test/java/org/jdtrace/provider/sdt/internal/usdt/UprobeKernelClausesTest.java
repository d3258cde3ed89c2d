package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Clauses run in the kernel at uprobe-based pid and USDT probes (issue 23 at uprobes): each D
 * program traces the same deterministic fixture twice, once with {@code -x kernelclauses=off}
 * (every hit's record judged in the JVM) and once with {@code -x kernelclauses=force} (a clause the
 * kernel cannot take fails the run); the outputs must be the same bytes, and the records the
 * uprobe ring delivered to the JVM tell that the kernel did the work: none on the second run.
 */
class UprobeKernelClausesTest {

    private final Platform platform = new Platform(true);

    @AfterEach
    void tearDown() {
        platform.close();
    }

    /** Records the uprobe capture delivered to the JVM so far (the pid provider's UprobeSites). */
    private long delivered() throws Exception {
        java.lang.reflect.Field f = platform.pid.getClass().getDeclaredField("kernelSites");
        f.setAccessible(true);
        Object sites = f.get(platform.pid);
        if (sites == null) return 0;
        java.lang.reflect.Field d = sites.getClass().getDeclaredField("delivered");
        d.setAccessible(true);
        return (Long) d.get(sites);
    }

    /** {output, records delivered} of one run of {@code script} on {@code command}. */
    private Object[] run(String mode, String script, String command) throws Exception {
        long before = delivered();
        List<String> argv = new ArrayList<>(List.of("-q", "-x", "kernelclauses=" + mode, "-n", script, "-c", command));
        Platform.Run r = platform.run(argv.toArray(String[]::new));
        assertEquals(0, r.await(), r.toString());
        assertEquals("", r.err().replaceAll("(?m)^dtrace: pid \\d+ has exited\n", ""), r.toString());
        return new Object[] {r.out(), delivered() - before};
    }

    /** The same bytes both ways; the JVM path got records, the kernel path none. */
    private String same(String script, String command) throws Exception {
        Object[] off = run("off", script, command);
        Object[] on = run("force", script, command);
        assertEquals(off[0], on[0], "the same output in the JVM and in the kernel");
        assertTrue((Long) off[1] > 0, "records sent on the JVM path: " + off[1]);
        assertEquals(0L, on[1], "records sent on the kernel path");
        return (String) off[0];
    }

    private static String ftCount(int n) {
        return Platform.bin("ft_count") + " " + n;
    }

    @Test
    void countsKeyedByWhatTheKernelKnowsNeverLeaveTheKernel() throws Exception {
        String out = same("pid$target:a.out:sq:entry,pid$target:a.out:inc:entry { @[probefunc] = count(); }"
                + " pid$target:a.out:fib:entry /arg0 > 5/ { @big = count(); }"
                + " pid$target:a.out:fib:entry { @who[pid == $target, tid - pid, execname] = count(); }"
                + " pid$target:a.out:sq:entry /probefunc == \"sq\" && (arg0 & 1) == 0/ { @even = count(); }"
                + " END { printa(\"%s %@d\\n\", @); printa(\"big %@d\\n\", @big); printa(\"%d %d %s %@d\\n\", @who);"
                + " printa(\"even %@d\\n\", @even); }", ftCount(2000));
        // compute(2000): i % 9 == 3 calls sq (even i) or inc (odd i), 111 and 111 times
        assertTrue(out.contains("sq 111\n") && out.contains("inc 111\n") && out.contains("even 111\n"), out);
        assertTrue(out.contains("1 0 ft_count "), out);
    }

    @Test
    void sumMinMaxAvgQuantizeAndLquantizeGiveTheJvmsBytes() throws Exception {
        // one aggregation a clause: a clause of several actions has no kernel form
        String out = same("pid$target:a.out:sq:return { @s = sum(arg1); } pid$target:a.out:sq:return { @mn = min(arg1); }"
                + " pid$target:a.out:sq:return { @mx = max(arg1); } pid$target:a.out:sq:return { @av = avg(arg1); }"
                + " pid$target:a.out:fib:entry { @q = quantize(arg0); } pid$target:a.out:fib:entry { @l = lquantize(arg0, 0, 10, 2); }"
                + " pid$target:a.out:inc:entry { @k[arg0 & 3] = quantize(arg0 - 1000); }", ftCount(2000));
        long sum = 0;
        for (long i = 0; i < 2000; i++) if (i % 9 == 3 && (i & 1) == 0) sum += i * i;
        assertTrue(out.startsWith("\n" + String.format("%17d", sum)) || out.contains(" " + sum + "\n"), out);
    }

    /**
     * copyinstr(argN) at a uprobe hit reads the string at the hit, in the kernel (issue 20 item 2):
     * ft_mix calls upper_rev("the quick brown fox", buf) and exits at once, long before the drain
     * thread hands the record to the clause, when the process's memory can no longer be read; the
     * strings are those the ptrace path reads with the thread stopped at the hit. The first call
     * is left out: the literal's page is first touched by that call, and the kernel cannot fault a
     * page in at a uprobe (the clause then reads the live memory, as before).
     */
    @Test
    void copyinstrOfAnArgumentIsReadAtTheHitInTheKernel() throws Exception {
        String script = "pid$target:a.out:upper_rev:entry /n++ > 0/ { printf(\"[%s]\\n\", copyinstr(arg0)); }";
        Platform.Run r = platform.run("-q", "-n", script, "-c", Platform.bin("ft_mix") + " 4");
        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("[the quick brown fox]\n[the quick brown fox]\n[the quick brown fox]\n"), r.toString());
        assertTrue(!r.err().contains("error"), r.toString());
        try (Platform ptrace = new Platform(false)) {
            Platform.Run p = ptrace.run("-q", "-n", script, "-c", Platform.bin("ft_mix") + " 4");
            assertEquals(0, p.await(), p.toString());
            assertEquals(p.out().lines().filter(l -> l.startsWith("[")).toList(),
                    r.out().lines().filter(l -> l.startsWith("[")).toList());
        }
    }

    /**
     * USDT probes: arguments in registers, narrowed as their notes say (tick's arg0 is
     * {@code -4@%ecx}, -i sign-extended from 32 bits), the semaphore-guarded probe included.
     */
    @Test
    void usdtProbesRunTheirClausesInTheKernelWithTheNotesArgumentWidths() throws Exception {
        String out = same("jdt$target:::tick { @q = quantize(arg0); }"
                + " jdt$target:::tick /arg0 < -100/ { @c[arg1 & 7] = count(); }"
                + " jdt$target:::tick { @w[probefunc, execname] = count(); }"
                + " jdt$target:::expensive-sum { @s = sum(arg0); }"
                + " jdt$target:::expensive-sum /arg0 > 1000/ { @m = max(arg0); }", Platform.bin("ft_usdt") + " 300");
        assertTrue(out.contains("work  ft_usdt  300\n") || out.matches("(?s).*work\s+ft_usdt\s+300\n.*"), out);
        assertTrue(out.contains("-256 |"), "negative arguments sign-extended: " + out);
    }
}
