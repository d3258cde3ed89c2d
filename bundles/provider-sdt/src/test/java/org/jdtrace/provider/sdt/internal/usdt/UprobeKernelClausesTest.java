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

    /** Records the uprobe capture delivered to the JVM so far (the pid provider's process table's UprobeSites). */
    private long delivered() throws Exception {
        java.lang.reflect.Field f = platform.pid.getClass().getDeclaredField("processes");
        f.setAccessible(true);
        Object processes = f.get(platform.pid);
        java.lang.reflect.Method open = processes.getClass().getMethod("openKernelSites");
        open.setAccessible(true);
        Object sites = open.invoke(processes);
        if (sites == null) return 0;
        java.lang.reflect.Field d = sites.getClass().getDeclaredField("delivered");
        d.setAccessible(true);
        return (Long) d.get(sites);
    }

    /** {output, records delivered} of one run of {@code script} on {@code command} ({@code mode} null: the default). */
    private Object[] run(String mode, String script, String command) throws Exception {
        long before = delivered();
        List<String> argv = new ArrayList<>(List.of("-q", "-n", script, "-c", command));
        if (mode != null) argv.addAll(1, List.of("-x", "kernelclauses=" + mode)); // null: the default
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

    /** The non-zero counts of a distribution's lines ("value |@@@ count"), by bucket; lquantize's "< 0"/">= N" left out. */
    private static java.util.Map<Long, Long> buckets(String out) {
        java.util.Map<Long, Long> b = new java.util.TreeMap<>();
        java.util.regex.Pattern line = java.util.regex.Pattern.compile("^\\s*(-?\\d+) \\|[@ ]*(\\d+)\\s*$");
        for (String l : out.lines().toList()) {
            java.util.regex.Matcher m = line.matcher(l);
            if (m.matches() && Long.parseLong(m.group(2)) != 0) b.merge(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long::sum);
        }
        return b;
    }

    /** {@code err} less the "pid N has exited" lines of -c runs. */
    private static String warnings(String err) {
        return err.replaceAll("(?m)^dtrace: pid \\d+ has exited\n", "");
    }

    /**
     * A program the verifier refuses at a pid probe (as KernelClausesTest's at a syscall probe):
     * sq's argument bit by bit, 22 branches whose sides the verifier keeps apart (lquantize
     * compares the sum), 2^22 paths, past its million instructions. The clause runs in the JVM
     * after one warning line naming it, with the bytes of kernelclauses=off, every hit sent to the
     * JVM; under kernelclauses=force the refusal fails the enabling, exit 1.
     */
    @Test
    void aProgramTheVerifierRefusesRunsInTheJvmWithOneWarningAndForceMakesThatAnError() throws Exception {
        String out = refusedRunsInTheJvm("{ @ = lquantize(" + bitByBit() + ", 0, 2000, 250); }");
        assertEquals(111, buckets(out).values().stream().mapToLong(Long::longValue).sum(), out); // sq's calls
    }

    /** The same for a predicate alone (a clause that records): no map taken, the program refused for it. */
    @Test
    void aPredicateTheVerifierRefusesRunsInTheJvmWithOneWarningAndForceMakesThatAnError() throws Exception {
        String out = refusedRunsInTheJvm("/" + bitByBit() + " == 1992/ { printf(\"[%d]\\n\", arg0); }");
        assertEquals(List.of("[1992]"), out.lines().filter(l -> l.startsWith("[")).toList(), out); // i = 12 + 18k: 1992 is the last
    }

    /** sq's arg0 rebuilt from its 22 low bits, one ?: a bit. */
    private static String bitByBit() {
        StringBuilder sum = new StringBuilder("0");
        for (int i = 0; i < 22; i++) sum.append(" + (arg0 & ").append(1 << i).append(" ? ").append(1 << i).append(" : 0)");
        return sum.toString();
    }

    /** The checks above for the clause {@code pid$target:a.out:sq:entry body} on ft_count 2000; its output. */
    private String refusedRunsInTheJvm(String body) throws Exception {
        String clause = "pid$target:a.out:sq:entry";
        String script = clause + " " + body;
        Object[] off = run("off", script, ftCount(2000));
        long before = delivered();
        Platform.Run r = platform.run("-q", "-n", script, "-c", ftCount(2000));
        assertEquals(0, r.await(), r.toString());
        String err = warnings(r.err());
        assertTrue(err.startsWith("dtrace: clause " + clause + " runs in the JVM: the kernel refused its program: "
                + "bpf program jdtrace_uprobe failed: ") && err.lines().count() == 1, r.toString());
        assertEquals(off[0], r.out(), "the bytes of kernelclauses=off");
        assertTrue(delivered() - before >= 111, "every hit judged in the JVM: " + (delivered() - before));

        Platform.Run f = platform.run("-q", "-x", "kernelclauses=force", "-n", script, "-c", ftCount(2000));
        assertEquals(1, f.await(), f.toString());
        String ferr = warnings(f.err());
        assertTrue(ferr.startsWith("dtrace: could not enable tracing: clause " + clause + ": the kernel refused its program: ")
                && ferr.endsWith(" (kernelclauses=force)\n") && ferr.lines().count() == 1, f.toString());
        return (String) off[0];
    }

    /**
     * Thread-locals across clauses at pid probes live in the kernel (ThreadLocalsMap, as at syscall
     * probes): sq's argument saved at entry and checked against its square at return (i of
     * compute's loop is 12 + 18k, k = 0..110: sq(i) == i * i for each, and i & 3 is 0 or 2, 55
     * and 56 times) gives the bytes of kernelclauses=off with no record reaching the JVM; the
     * classic latency program (entry's timestamp, quantize at return) counts sq's 111 calls both
     * ways, none 0 or negative and none of two clocks apart (over 2^40 ns), again with no record
     * sent on the kernel path.
     */
    @Test
    void threadLocalsAcrossPidEntryAndReturnLiveInTheKernel() throws Exception {
        String exact = "pid$target:a.out:sq:entry { self->x = arg0; }"
                + " pid$target:a.out:sq:return /self->x/ { @[arg1 - self->x * self->x, self->x & 3] = count(); self->x = 0; }";
        String out = same(exact, ftCount(2000));
        // after ft_count's own line: {0, i & 3} by count
        assertTrue(out.replaceAll("\\s+", " ").strip().endsWith(" 0 2 55 0 0 56"), out);
        String latency = "pid$target:a.out:sq:entry { self->ts = timestamp; }"
                + " pid$target:a.out:sq:return /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }";
        for (String mode : new String[] {"off", "force"}) {
            Object[] r = run(mode, latency, ftCount(2000));
            java.util.Map<Long, Long> b = buckets((String) r[0]);
            assertEquals(111, b.values().stream().mapToLong(Long::longValue).sum(), mode + ": " + r[0]);
            assertTrue(b.keySet().stream().allMatch(v -> v > 0 && v < 1L << 40), mode + ": " + r[0]);
            if (mode.equals("force")) assertEquals(0L, r[1], "records sent with the thread-locals in the kernel");
        }
        // a return's arg0 (the site's offset) is not in the captured registers: the thread-local
        // and both its clauses stay in the JVM (never an enabling refused), by default as with off
        String offsets = "pid$target:a.out:sq:entry { self->x = arg0; }"
                + " pid$target:a.out:sq:return /self->x/ { @[arg0 > 0, self->x & 3] = count(); self->x = 0; }";
        Object[] off = run("off", offsets, ftCount(2000));
        Object[] on = run(null, offsets, ftCount(2000));
        assertEquals(off[0], on[0], "the same output by default as with kernelclauses=off");
        assertTrue(((String) off[0]).replaceAll("\\s+", " ").strip().endsWith(" 1 2 55 1 0 56"), (String) off[0]);
        assertTrue((Long) on[1] >= 222, "entries and returns judged in the JVM: " + on[1]);
    }

    /**
     * The same at USDT probes, and across a USDT probe and a pid probe of one process (one
     * thread-locals map for every uprobe program): work(i) fires tick(-i, i, name), then
     * expensive-sum(s) (its semaphore set by the enabling) and returns 2 * i.
     */
    @Test
    void threadLocalsAcrossUsdtAndPidProbesLiveInTheKernel() throws Exception {
        String out = same("jdt$target:::tick { self->i = arg1 + 1; }"
                + " jdt$target:::expensive-sum /self->i/ { @s[(self->i - 1) & 1] = sum(arg0 - (self->i - 1)); }"
                + " pid$target:a.out:work:return /self->i/ { @r[arg1 - 2 * (self->i - 1)] = count(); self->i = 0; }"
                + " END { printa(\"s %d %@d\\n\", @s); printa(\"r %d %@d\\n\", @r); }", Platform.bin("ft_usdt") + " 300");
        assertTrue(out.contains("r 0 300\n"), out);
        assertTrue(out.contains("s 0 ") && out.contains("s 1 "), out);
    }

    /**
     * The group-change window of a rebuild (GroupIds): consumer A counts work()'s entries and the
     * hits of an offset inside it in the kernel, and keeps a thread-local across work's entry and
     * return, while the groups of those probes' cookies change under it again and again: a second
     * consumer adds its own clauses to the same probes and goes (a new group for each cookie, then
     * back; every rebuild swaps the program in before the cookies' filters are rewritten), and
     * provider-sdt is stopped and started. A hit in that window runs the old program's clauses on
     * the same maps: every one of the N calls is counted, exactly, at each of the pid probes (with
     * the new program lacking the old groups, about a thousand of the two million were lost).
     */
    @Test
    void everyHitIsCountedWhileTheClauseGroupsChangeAtRebuilds() throws Exception {
        int n = 2_000_000;
        String bin = Platform.bin("ft_usdt");
        long offset;
        try (org.jdtrace.elf.ElfFile elf = org.jdtrace.elf.ElfFile.open(java.nio.file.Path.of(bin))) {
            long work = elf.symbol("work").orElseThrow().value();
            offset = elf.sdtNotes().stream().filter(x -> x.name().equals("tick")).findFirst().orElseThrow().pc() - work;
        }
        String a = "BEGIN { printf(\"pid %d\\n\", $target); }"
                + " pid$target:a.out:work:entry { @e = count(); }"
                + " pid$target:a.out:work:" + Long.toHexString(offset) + " { @o = count(); }"
                + " pid$target:a.out:work:entry { self->w = arg0 + 1; }"
                + " pid$target:a.out:work:return /self->w/ { @r[arg1 - 2 * (self->w - 1)] = count(); self->w = 0; }"
                + " END { printa(\"entry %@d\\n\", @e); printa(\"offset %@d\\n\", @o); printa(\"return %d %@d\\n\", @r); }";
        Platform.Run r = platform.run("-q", "-x", "kernelclauses=force", "-n", a, "-c", bin + " " + n);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!r.out().contains("pid ") && System.nanoTime() < deadline) Thread.sleep(5);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("pid (\\d+)\n").matcher(r.out());
        assertTrue(m.find(), r.toString());
        long target = Long.parseLong(m.group(1));
        int changes = 0;
        long at = 0;
        for (int i = 0; i < 24 && at < n - 400_000 && ProcessHandle.of(target).map(ProcessHandle::isAlive).orElse(false); i++) {
            if (i % 4 == 3) {
                platform.stopUsdt();
                Thread.sleep(20);
                platform.startUsdt();
            } else {
                // B names the process's provider without -p (whose end would let the process go);
                // it ends at the next call whose low 13 bits are set, and says where the process was
                String p = "pid" + target + ":a.out:work:";
                String b = p + "entry" + (i % 2 == 0 ? "," + p + Long.toHexString(offset) : "") + " /arg0 > " + i + "/ { @b = count(); }"
                        + p + "entry /(arg0 & 0x1fff) == 0x1fff/ { printf(\"at %d\\n\", arg0); exit(0); }";
                Platform.Run other = platform.run("-q", "-n", b);
                assertEquals(0, other.await(), other.toString());
                java.util.regex.Matcher w = java.util.regex.Pattern.compile("at (\\d+)\n").matcher(other.out());
                assertTrue(w.find(), other.toString());
                at = Long.parseLong(w.group(1));
            }
            changes++;
        }
        assertEquals(0, r.await(), r.toString());
        assertTrue(changes >= 8, "the groups changed while the process ran: " + changes + " times: " + r);
        assertTrue(r.out().contains("entry " + n + "\n"), "every entry counted: " + r);
        assertTrue(r.out().contains("offset " + n + "\n"), "every offset hit counted: " + r);
        assertTrue(r.out().contains("return 0 " + n + "\n"), "every return saw its entry's thread-local: " + r);
    }

    /**
     * A kernel aggregation at a USDT probe keeps every count across a stop and start of
     * provider-sdt mid-trace: the map that goes is folded in as it closes, and the map made after
     * the restart, while its consumer is live (Probe.live), counts from its making (no go-live
     * baseline, which dropped its counts up to the next sync: here another consumer's end
     * while the process runs). The process is held stopped (SIGSTOP) from before the stop until
     * the new map is in: exactly N counted.
     */
    @Test
    void aKernelAggregationAtAUsdtProbeKeepsEveryCountAcrossAStopAndStartOfTheProvider() throws Exception {
        int n = 1500;
        Platform.Run r = platform.run("-q", "-x", "kernelclauses=force", "-n",
                "BEGIN { printf(\"pid %d\\n\", $target); } jdt$target:::tick { @ = count(); } END { printa(\"ticks %@d\\n\", @); }",
                "-c", Platform.bin("ft_usdt") + " " + n + " 2");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!r.out().contains("pid ") && System.nanoTime() < deadline) Thread.sleep(5);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("pid (\\d+)\n").matcher(r.out());
        assertTrue(m.find(), r.toString());
        long target = Long.parseLong(m.group(1));
        Thread.sleep(300); // some ticks counted by the first map
        signal("STOP", target);
        Platform.Run other;
        try {
            // another consumer's enabling at pid probes of the process commits the pid provider
            // after the stop: the USDT clause's map is folded in and closed. The start's commit
            // makes a new map for it, while its consumer is live; the other consumer's end, 200
            // calls after the process goes on, syncs the providers while the new map counts.
            platform.stopUsdt();
            String p = "pid" + target + ":a.out:work:entry";
            other = platform.run("-q", "-n", "BEGIN { printf(\"live\\n\"); } " + p + " { n++; } " + p + " /n == 200/ { exit(0); }");
            while (!other.out().contains("live") && other.thread.isAlive()) Thread.sleep(5);
            platform.startUsdt();
        } finally {
            signal("CONT", target);
        }
        assertEquals(0, other.await(), other.toString());
        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("ticks " + n + "\n"), "every tick counted, before the stop and after the restart: " + r);
    }

    private static void signal(String name, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start().waitFor());
    }

    /**
     * Stack keys at a pid probe stay in the JVM (the user stack is unwound by CFI there; a pid
     * probe's program takes no kernel stack): by default silently, as the documented rule says,
     * the same bytes as kernelclauses=off; under kernelclauses=force each is refused with why.
     */
    @Test
    void stackKeysAtPidProbesStayInTheJvmAndForceSaysWhy() throws Exception {
        String script = "pid$target:a.out:sq:entry { @[ustack(2), arg0 % 3] = count(); }";
        Object[] off = run("off", script, ftCount(2000));
        Object[] on = run(null, script, ftCount(2000));
        assertEquals(off[0], on[0]);
        assertTrue((Long) on[1] >= 111, "every hit judged in the JVM: " + on[1]);
        Platform.Run f = platform.run("-q", "-x", "kernelclauses=force", "-n", script, "-c", ftCount(2000));
        assertEquals(1, f.await(), f.toString());
        assertTrue(warnings(f.err()).matches("dtrace: could not enable tracing: cannot enable pid\\d+:a.out:sq:entry:"
                + " clause pid\\$target:a.out:sq:entry cannot run in"
                + " the kernel at pid\\d+:a.out:sq:entry: a ustack\\(\\) or jstack\\(\\) key is unwound in the JVM"
                + " \\(kernelclauses=force\\)\n"), f.toString());
        Platform.Run k = platform.run("-q", "-x", "kernelclauses=force", "-n", "pid$target:a.out:sq:entry { @[stack()] = count(); }",
                "-c", ftCount(2000));
        assertEquals(1, k.await(), k.toString());
        assertTrue(warnings(k.err()).matches("dtrace: could not enable tracing: cannot enable pid\\d+:a.out:sq:entry:"
                + " clause pid\\$target:a.out:sq:entry cannot run in"
                + " the kernel at pid\\d+:a.out:sq:entry \\(kernelclauses=force\\)\n"), k.toString());
    }
}
