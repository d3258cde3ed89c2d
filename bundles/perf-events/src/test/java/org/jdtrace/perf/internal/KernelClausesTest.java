package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.BiFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Clauses that run in the kernel (org.jdtrace.spi.KernelClause, ClauseProgram) for the syscall
 * provider: each D program runs twice on the same real workload (two ft_sys processes, A and B,
 * making N getppid calls each, exec'd from a shell waiting for tracing to start; the clauses
 * name A, so that the JVM path gets A's records alone and drops none), once with
 * {@code -x kernelclauses=off} (every event judged in the JVM) and once with
 * {@code -x kernelclauses=force}; the outputs must be the same bytes, and the records the
 * syscall rings delivered to the JVM tell that the kernel did the work on the second run.
 */
class KernelClausesTest {

    final KernelProvidersTest h = new KernelProvidersTest();
    static final int N = 3000;
    static final List<String> OFF = List.of("-x", "kernelclauses=off"), ON = List.of("-x", "kernelclauses=force");

    @AfterEach
    void tearDown() {
        h.tearDown();
    }

    /** The program's two runs: {output off, output on, delivered off, delivered on}. */
    Object[] bothWays(BiFunction<Long, Long, String> program) throws Exception {
        return h.bothWays(N, OFF, ON, program);
    }

    /** Same bytes both ways, and the kernel path sent fewer than {@code most} records. */
    String same(long most, BiFunction<Long, Long, String> program) throws Exception {
        Object[] r = bothWays(program);
        assertEquals(r[0], r[1], "the same output in the JVM and in the kernel");
        assertTrue((Long) r[3] <= most, "records sent on the kernel path: " + r[3] + " (JVM path " + r[2] + ")");
        assertTrue((Long) r[2] > (Long) r[3], "records sent on the JVM path: " + r[2]);
        return (String) r[0];
    }

    @Test
    void countKeyedByWhatTheKernelKnowsNeverLeavesTheKernel() throws Exception {
        String out = same(5, (a, b) -> "syscall:::entry /pid == " + a + "/ { @[execname, probefunc] = count(); } "
                + "syscall::getppid:entry /pid == " + a + "/ { @n = count(); } "
                + "syscall::getppid:entry /pid == " + a + "/ { @by[pid == " + b + " ? 2 : 1, tid - pid] = count(); } "
                + "END { printa(\"%s %s %@d\\n\", @); printa(\"%@d\\n\", @n); printa(\"%d %d %@d\\n\", @by); }");
        assertTrue(out.contains("ft_sys getppid " + N + "\n") && out.contains("\n" + N + "\n")
                && out.contains("1 0 " + N + "\n"), out);
    }

    @Test
    void sumMinMaxAvgQuantizeAndLquantizeGiveTheJvmsBytes() throws Exception {
        // write(1, "ft_sys\n", 7) at entry; the values returned but those that change from run to
        // run (mmap's and brk's addresses, set_tid_address's tid); getppid's is this JVM's pid
        String out = same(5, (a, b) -> {
            String ret = "syscall:::return /pid == " + a + " && probefunc != \"mmap\" && probefunc != \"brk\""
                    + " && probefunc != \"set_tid_address\"/";
            return "syscall::write:entry /pid == " + a + "/ { @s[arg0] = sum(arg2); } "
                + ret + " { @mn[probefunc] = min(arg0); } "
                + ret + " { @mx = max(arg0); } "
                + ret + " { @av[probefunc] = avg(arg0); } "
                + ret + " { @q = quantize(arg0); } "
                + ret + " { @w[errno != 0] = quantize(arg0, 2); } "
                + ret + " { @l[probefunc == \"getppid\"] = lquantize(arg0 & 0xff, 0, 256, 16); } "
                + ret + " { @lo = lquantize(arg0, -10, 10, 3); } "
                + "syscall:::return /pid == " + a + " && errno != 0/ { @e[probefunc, errno] = count(); }";
        });
        assertTrue(out.startsWith("\n                1               22\n"), "ft_sys writes 7 then 15 bytes: " + out);
    }

    @Test
    void stddevAndLlquantizeGiveTheJvmsBytes() throws Exception {
        // the values returned (as above): stddev's squares past 64 bits and below 0, llquantize's
        // buckets on both sides of 0, its ends, an increment; normalize and trunc at END
        String out = same(5, (a, b) -> {
            String ret = "syscall:::return /pid == " + a + " && probefunc != \"mmap\" && probefunc != \"brk\""
                    + " && probefunc != \"set_tid_address\"/";
            return ret + " { @sd[probefunc] = stddev(arg0); } "
                + ret + " { @sq = stddev((arg0 & 0xfff) << 45); } "
                + ret + " { @sn[errno != 0] = stddev(-(arg0 & 0xffff) * 1000003 - 0x7fffffff); } "
                + ret + " { @ll = llquantize(arg0, 10, 0, 6, 20); } "
                + ret + " { @lw[probefunc == \"getppid\"] = llquantize((arg0 & 0xfff) * 997 - 2000000, 10, 1, 6, 10, 3); } "
                + ret + " { @l2 = llquantize(-arg0, 2, 0, 8, 2); } "
                + "END { normalize(@sn, 3); trunc(@lw, 1); }";
        });
        // getppid's value is this JVM's pid: above 2^9
        assertTrue(out.contains("  getppid  ") && out.contains("<= -512 |"), out);
    }

    @Test
    void integerOperatorsCastsAndShiftsComputeWhatTheJvmComputes() throws Exception {
        // write's arg2 is 7, then 15: keys made of D's operators on it, in the kernel and in the JVM
        String out = same(5, (a, b) -> "syscall::write:entry /pid == " + a + "/ { @k[(char) (arg2 * 37), (arg2 - 100) >> 2,"
                + " (unsigned int) (arg2 - 100) >> 2, (uint64_t) (arg2 - 100) >> 60, ~arg2, -arg2 < 0]"
                + " = sum(arg2 > 10 ? arg2 : -arg2); } "
                + "syscall::write:entry /pid == " + a + "/ { @m[arg2 ^^ 1, arg2 * 0x100000001, arg2 << 62,"
                + " (short) 0x12345678 + arg2, arg2 & 5 | 8] = max(-arg2); } "
                + "syscall::write:entry /pid == " + a + " && (arg2 < 10 ^^ arg2 == 15) && !(arg2 != 7 && arg2 != 15)"
                + " && ((uint64_t) -arg2 > 7 || arg2 >= 0xffffffff)/ { @c[arg2 <= 7, arg2 >= 15, arg2 > 7] = count(); } "
                + "END { printa(\"%d %d %d %d %d %d %@d\\n\", @k); printa(\"%d %d %d %d %d %@d\\n\", @m);"
                + " printa(\"%d %d %d %@d\\n\", @c); }");
        assertEquals(6, out.strip().lines().count(), out);
    }

    @Test
    void truncClearAndNormalizeAtEndGiveTheJvmsBytes() throws Exception {
        same(5, (a, b) -> "syscall:::entry /pid == " + a + "/ { @[probefunc] = count(); } "
                + "syscall:::entry /pid == " + a + " && tid == pid/ { @t[probefunc] = count(); } "
                + "syscall:::entry /pid == " + a + " && probefunc != \"getppid\"/ { @c[probefunc] = count(); } "
                + "END { trunc(@, 2); normalize(@t, 3); printa(@); printa(@t); clear(@c); printa(@c); }");
    }

    @Test
    void predicatesTheKernelEvaluatesDropTheOtherEventsThere() throws Exception {
        // the records of clauses that print still reach the JVM, but only those whose predicate holds
        String out = same(20, (a, b) -> "syscall:::entry /execname == \"ft_sys\" && probefunc == \"write\" && pid == " + a
                + " && !(tid != pid) && (uid == 0 || uid != 0) && ppid > 0 && (int) arg2 >= 7 && (arg0 << 2) == 4/ "
                + "{ printf(\"%s %d %d\\n\", probefunc, arg0, arg2); }");
        assertEquals("write 1 7\nwrite 1 15\n\n", out);
    }

    @Test
    void kernelStackKeysGiveTheJvmsBytesWithTheKernelsOwnFrames() throws Exception {
        // stack() keys alone, with a depth, and beside other keys: kept in the kernel (stack ids)
        // and symbolised at the fold, the same bytes as stack() taken in the record for the JVM
        String out = same(5, (a, b) -> "syscall:::entry /pid == " + a + "/ { @s[stack()] = count(); } "
                + "syscall::getppid:return /pid == " + a + "/ { @m[execname, stack(2)] = sum(arg0 > 0); } "
                + "syscall::write:entry /pid == " + a + "/ { @w[stack(), probefunc] = max(arg2); } "
                + "END { printa(@s); printa(@m); printa(@w); }");
        // each frame as kallsyms names it, and the frames are those bpftrace's kstack gives
        // at raw_syscalls:sys_enter in the same program (outside reference)
        java.util.Set<List<String>> ours = new java.util.HashSet<>();
        List<String> cur = new java.util.ArrayList<>();
        int blocks = 0;
        for (String l : out.strip().lines().toList()) {
            String t = l.strip();
            if (t.startsWith("vmlinux`")) {
                cur.add(t.substring("vmlinux`".length()));
            } else if (t.matches("\\d+") && !cur.isEmpty()) {
                if (blocks++ == 0) ours.add(List.copyOf(cur)); // @s: the only entry stack block first
                cur.clear();
            } else if (!t.isEmpty()) {
                cur.clear();
            }
        }
        assertTrue(out.contains("  ft_sys  ") && out.contains("`do_syscall_64+0x"), out);
        java.util.Set<List<String>> theirs = bpftraceEntryStacks();
        org.junit.jupiter.api.Assumptions.assumeTrue(theirs != null, "bpftrace is not installed");
        // bpftrace prints function+decimal offset: ours in its notation
        java.util.Set<List<String>> mine = new java.util.HashSet<>();
        for (List<String> st : ours) {
            mine.add(st.stream().map(f -> {
                int plus = f.lastIndexOf("+0x");
                return f.substring(0, plus) + "+" + Long.parseLong(f.substring(plus + 3), 16);
            }).toList());
        }
        assertTrue(theirs.containsAll(mine) && !mine.isEmpty(), "jdtrace " + mine + "\nbpftrace " + theirs);
    }

    /** The kernel stacks bpftrace's kstack shows at raw_syscalls:sys_enter for ft_sys's calls; null without bpftrace. */
    private static java.util.Set<List<String>> bpftraceEntryStacks() throws Exception {
        if (!java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/bpftrace"))) return null;
        Process p = new ProcessBuilder("/usr/bin/bpftrace", "-e",
                "tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @[kstack] = count(); }",
                "-c", PerfEventsTest.bin("ft_sys") + " 100").redirectErrorStream(true).start();
        String text;
        try {
            text = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), text);
        } finally {
            p.destroyForcibly();
        }
        java.util.Set<List<String>> out = new java.util.HashSet<>();
        List<String> cur = null;
        for (String l : text.lines().toList()) {
            if (l.startsWith("@[")) cur = new java.util.ArrayList<>();
            else if (l.startsWith("]:") && cur != null) {
                out.add(List.copyOf(cur));
                cur = null;
            } else if (cur != null && !l.isBlank()) cur.add(l.strip());
        }
        return out;
    }

    @Test
    void whatTheKernelCannotKeepRunsInTheJvmAndForceMakesThatAnError() throws Exception {
        // an llquantize of 1,263 buckets is not kept in the kernel: on the JVM path either way, the same bytes
        String big = "llquantize(arg0, 10, 2, 8, 100)";
        BiFunction<Long, Long, String> p = (a, b) -> "syscall::getppid:entry /pid == " + a + "/ { @ = " + big + "; }"
                + " syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        Object[] off = h.countWhileTwoRun(N, OFF, p);
        Object[] on = h.countWhileTwoRun(N, List.of(), p);
        assertEquals(off[0], on[0]);
        assertTrue((Long) on[1] >= N, "the JVM judged every call: " + on[1]);
        h.providers().forEach(h.fw::addProvider);
        String[] r = h.run("-q", "-x", "kernelclauses=force", "-n", "syscall::getppid:entry { @ = " + big + "; }");
        assertEquals("1", r[0]);
        assertEquals("dtrace: could not enable tracing: clause syscall::getppid:entry cannot run in the kernel at"
                + " syscall:vmlinux:getppid:entry (kernelclauses=force)\n", r[2]);
    }

    @Test
    void aUstackKeyStaysInTheJvmAndForceSaysWhy() throws Exception {
        // the user stack is unwound by CFI in the JVM: silently there by default (the documented
        // rule), an error under kernelclauses=force, naming the clause and the reason
        BiFunction<Long, Long, String> p = (a, b) -> "syscall::getppid:entry /pid == " + a + "/ { @[ustack(1)] = count(); } "
                + "syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        // (each record carries a copy of the user stack: a tight loop's calls beyond the rings are
        // drops, so the count is not compared; the two runs' processes differ, so their addresses)
        Object[] on = h.countWhileTwoRun(N, List.of(), p);
        assertFalse(((String) on[2]).contains("runs in the JVM"), (String) on[2]);
        assertTrue((Long) on[1] > 0, "the JVM judged the calls: " + on[1]);
        assertTrue(((String) on[0]).strip().matches("(?s).*\\s\\d+"), (String) on[0]);
        h.providers().forEach(h.fw::addProvider);
        String[] r = h.run("-q", "-x", "kernelclauses=force", "-n", "syscall::getppid:entry { @[ustack()] = count(); }");
        assertEquals("1", r[0]);
        assertEquals("dtrace: could not enable tracing: clause syscall::getppid:entry cannot run in the kernel at"
                + " syscall:vmlinux:getppid:entry: a ustack() or jstack() key is unwound in the JVM (kernelclauses=force)\n", r[2]);
    }

    @Test
    void aMachineWideCountWhileCallsFloodSendsNothingToTheJvm() throws Exception {
        // a process calling getppid as fast as it can all along, tracing enabled meanwhile: the
        // calls are armed with their clause at the batch's commit, never one by one before it,
        // so no record is sent, none is lost ('drops on CPU'), and the process is counted
        h.providers().forEach(h.fw::addProvider);
        Process busy = h.waitingShell("exec " + PerfEventsTest.bin("ft_sys") + " 2000000000");
        busy.getOutputStream().write('\n');
        busy.getOutputStream().flush();
        String[] r = h.run("-q", "-n", "syscall:::entry { @[execname] = count(); } "
                + "tick-2s { printa(\"%s %@d\\n\", @); exit(0); }");
        assertTrue(busy.isAlive(), "the process ran all along");
        assertEquals("0", r[0], r[2]);
        assertEquals("", r[2], "no drops, no warning");
        long n = r[1].lines().filter(l -> l.startsWith("ft_sys ")).mapToLong(l -> Long.parseLong(l.substring(7))).sum();
        assertTrue(n > 10_000, r[1]);
    }

    @Test
    void everyCallIsCountedOrReportedAsADropOnTheJvmPath() throws Exception {
        // 200,000 calls in a burst, each sent to the JVM: a full ring's losses are drops, even
        // those of the process's last calls, after which no record comes to tell of them
        int n = 200_000;
        Object[] r = h.countWhileTwoRun(n, OFF, (a, b) -> "syscall::getppid:entry /pid == " + a + "/ { @ = count(); } "
                + "syscall::exit_group:entry /pid == " + a + "/ { exit(0); } END { printa(\"%@d\\n\", @); }");
        long counted = Long.parseLong(((String) r[0]).strip());
        long drops = 0;
        for (String l : ((String) r[2]).lines().toList()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("dtrace: (\\d+) drops? on CPU \\d+").matcher(l);
            assertTrue(m.matches(), (String) r[2]);
            drops += Long.parseLong(m.group(1));
        }
        // the drops count B's records too (the ring is every call's): at least A's lost ones
        assertTrue(counted <= n && counted + drops >= n, counted + " counted, " + drops + " dropped");
    }

    @Test
    void aFullKernelMapCountsAggregationDrops() throws Exception {
        // 12,000 lseek offsets, each a key: the map holds ClauseMap.ENTRIES, the rest are drops
        h.providers().forEach(h.fw::addProvider);
        Process py = h.waitingShell("exec python3 -c \"import os; fd = os.open('/dev/null', 0); "
                + "[os.lseek(fd, 1000000 + i, 0) for i in range(12000)]\"");
        String[] r = h.traceRun(py, "syscall::lseek:entry /pid == " + py.pid() + " && arg1 >= 1000000/ { @[arg1] = count(); }");
        long keys = r[1].lines().filter(l -> l.matches("\\s+\\d+\\s+1")).count();
        assertEquals(ClauseMap.ENTRIES, keys);
        // by the CPU the refused insertions ran on, as dtrace prints them: one line a CPU
        long drops = 0;
        java.util.Set<String> cpus = new java.util.HashSet<>();
        for (String l : r[2].lines().toList()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("dtrace: (\\d+) aggregation drops? on CPU (\\d+)").matcher(l);
            assertTrue(m.matches() && cpus.add(m.group(2)) && Integer.parseInt(m.group(2)) < ClauseMap.possibleCpus(), r[2]);
            drops += Long.parseLong(m.group(1));
        }
        assertEquals(12000 - ClauseMap.ENTRIES, drops, r[2]);
    }

    @Test
    void aProgramTooBigForBpfLeavesItsClausesToTheJvmWithOneWarning() throws Exception {
        // 12 clauses of 300-term predicates at one probe: their program is too big for BPF's
        // 16-bit jumps: one warning line, the clauses run in the JVM, the same bytes
        BiFunction<Long, Long, String> p = (a, b) -> {
            StringBuilder big = new StringBuilder("pid == " + a + " && (tid == pid");
            for (int i = 0; i < 300; i++) big.append(" || arg0 == ").append(1000 + i);
            StringBuilder prog = new StringBuilder();
            for (int k = 0; k < 12; k++) prog.append("syscall::getppid:entry /").append(big).append(")/ { @c").append(k).append(" = count(); } ");
            return prog.toString();
        };
        refusedRunsInTheJvm(p, "its program is too big for BPF: jump to ");
    }

    @Test
    void aProgramNamingMoreMapsThanTheKernelAllowsSaysSo() throws Exception {
        // a map for each of 64 counting clauses at one probe, and the program's own maps: past
        // the kernel's 64 maps a program, told as that (the kernel's own refusal, E2BIG before
        // any instruction, reads as a verifier failure)
        BiFunction<Long, Long, String> p = (a, b) -> {
            StringBuilder prog = new StringBuilder();
            for (int k = 0; k < ClauseProgram.MAX_CLAUSES; k++) {
                prog.append("syscall::getppid:entry /pid == ").append(a).append("/ { @c").append(k).append(" = count(); } ");
            }
            return prog.toString();
        };
        String err = refusedRunsInTheJvm(p, "its program is too big for BPF: it names ");
        assertTrue(err.matches("(?s).*: it names (6[5-9]|[7-9][0-9]) maps, past the kernel's limit of 64 maps a program\n"), err);
    }

    @Test
    void aProgramTheVerifierRefusesLeavesItsClausesToTheJvmWithOneWarning() throws Exception {
        // getppid's value (this JVM's pid) bit by bit: 22 branches whose sides the verifier keeps
        // apart (lquantize compares the sum), 2^22 paths, past its million instructions
        BiFunction<Long, Long, String> p = (a, b) -> {
            StringBuilder sum = new StringBuilder("0");
            for (int i = 0; i < 22; i++) sum.append(" + (arg0 & ").append(1 << i).append(" ? ").append(1 << i).append(" : 0)");
            return "syscall::getppid:return /pid == " + a + "/ { @ = lquantize(" + sum + ", 0, 100, 1); }";
        };
        refusedRunsInTheJvm(p, "the kernel refused its program: bpf program jdtrace_sys_exit failed: ");
    }

    /**
     * {@code program} runs in the JVM after one warning line whose reason starts with
     * {@code reason}, with the bytes of kernelclauses=off; under kernelclauses=force the refusal
     * is an error. Returns the warning.
     */
    private String refusedRunsInTheJvm(BiFunction<Long, Long, String> program, String reason) throws Exception {
        BiFunction<Long, Long, String> p = (a, b) -> program.apply(a, b) + " syscall::exit_group:entry /pid == " + a + "/ { exit(0); }";
        Object[] off = h.countWhileTwoRun(N, OFF, p);
        Object[] on = h.countWhileTwoRun(N, List.of(), p);
        assertEquals(off[0], on[0]);
        assertTrue(((String) on[0]).contains(" " + N), (String) on[0]);
        assertTrue((Long) on[1] >= N, "every call judged in the JVM: " + on[1]);
        assertEquals("", off[2]);
        String err = (String) on[2];
        String clause = p.apply(1L, 2L).substring(0, p.apply(1L, 2L).indexOf(' '));
        assertTrue(err.startsWith("dtrace: clause " + clause + " runs in the JVM: " + reason)
                && err.lines().count() == 1, err);
        h.providers().forEach(h.fw::addProvider);
        String[] r = h.run("-q", "-x", "kernelclauses=force", "-n", p.apply(1L, 2L));
        assertEquals("1", r[0], r[2]);
        assertTrue(r[2].startsWith("dtrace: could not enable tracing: clause " + clause + ": " + reason)
                && r[2].endsWith(" (kernelclauses=force)\n") && r[2].lines().count() == 1, r[2]);
        return err;
    }

    /**
     * The group-change window of a rebuild (GroupIds) at the syscall programs: consumer A counts a
     * process's getppid entries and returns in the kernel while a second consumer adds its clauses
     * to the same probes and goes, again and again (each time the programs are swapped in before
     * the calls are re-armed with their new groups). A call in that window runs the old programs'
     * groups on the same maps: all N calls are counted, exactly, at entry and at return.
     */
    @Test
    void everyCallIsCountedWhileTheClauseGroupsChangeAtRebuilds() throws Exception {
        int n = 2_000_000;
        h.providers().forEach(h.fw::addProvider);
        Process p = h.waitingSys(n);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.util.concurrent.CompletableFuture<String[]> a = java.util.concurrent.CompletableFuture.supplyAsync(() -> h.run(out,
                "-q", "-x", "kernelclauses=force", "-n", "BEGIN { printf(\"go\\n\"); }"
                + " syscall::getppid:entry /pid == " + p.pid() + "/ { @e = count(); }"
                + " syscall::getppid:return /pid == " + p.pid() + "/ { @r = count(); }"
                + " proc:::exit /pid == " + p.pid() + "/ { exit(0); }"
                + " END { printa(\"entry %@d\\n\", @e); printa(\"return %@d\\n\", @r); }"));
        KernelProvidersTest.awaitLive(out, a);
        p.getOutputStream().write('\n');
        p.getOutputStream().close();
        int changes = 0;
        for (int i = 0; i < 30 && p.isAlive(); i++) {
            String[] b = h.run("-q", "-n", "syscall::getppid:entry" + (i % 2 == 0 ? ",syscall::getppid:return" : "")
                    + " /pid == " + p.pid() + " && arg0 != " + i + "/ { @b = count(); } tick-20ms { exit(0); }");
            assertEquals("0", b[0], b[2]);
            changes++;
        }
        String[] r = a.get();
        assertEquals("0", r[0], r[2]);
        assertTrue(changes >= 4, "the groups changed while the process ran: " + changes + " times: " + r[1]);
        assertTrue(r[1].contains("entry " + n + "\n") && r[1].contains("return " + n + "\n"), "every call counted: " + r[1] + r[2]);
    }
}
