package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two consumers on one process in one JVM (as in the gogo shell): A runs ft_pair with -c and
 * counts work()'s entries, returns and the hits of its second instruction; B grabs the same
 * process with -p, counts other()'s entries and returns, and ends while A traces on. The
 * process's shared state (its ProcessState, uprobes, captured contexts) is held by both grabs
 * and let go only by the last (dt_proc's reference count): A still counts every one of the calls
 * ft_pair counts itself, the target is never left stopped or under ptrace, and once both end no
 * perf event or BPF descriptor of theirs is left in this JVM. The reverse order too: A's end
 * kills the command it created (dtrace -c), and B, still tracing, ends as its process exits; and
 * with two -p grabs, the first one's end leaves the second tracing.
 */
class SharedTargetTest {

    private final Platform platform = new Platform(true);
    private final List<Long> targets = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (long pid : targets) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        platform.close();
    }

    /** The offset of work()'s second instruction in ft_pair (an offset probe's name). */
    private static long secondInstruction(String bin) throws Exception {
        try (org.jdtrace.elf.ElfFile elf = org.jdtrace.elf.ElfFile.open(Path.of(bin))) {
            long work = elf.symbol("work").orElseThrow().value();
            byte[] code = elf.read(work, 16);
            return Platform.ISA.decode(code, 0, work).length();
        }
    }

    /** Consumer A: -c ft_pair, work()'s entries, returns and second instruction counted. */
    private Platform.Run startA(String bin, String path) throws Exception {
        String off = Long.toHexString(secondInstruction(bin));
        Platform.Run a = platform.run("-q", "-x", "uprobes=" + path, "-c", bin, "-n",
                "BEGIN { printf(\"target %d\\n\", $target); }"
                        + " pid$target:a.out:work:entry { @e = count(); }"
                        + " pid$target:a.out:work:return { @r = count(); }"
                        + " pid$target:a.out:work:" + off + " { @o = count(); }"
                        + " END { printa(\"entry %@d\\n\", @e); printa(\"return %@d\\n\", @r); printa(\"offset %@d\\n\", @o); }");
        targets.add(a.target());
        Thread.sleep(300); // A's probes are in and firing
        return a;
    }

    /** Consumer B: -p the same process, other()'s entries and returns, until {@code rounds} rounds of ft_pair. */
    private Platform.Run startB(long pid, int rounds) throws Exception {
        Platform.Run b = platform.run("-q", "-p", Long.toString(pid), "-n",
                "BEGIN { printf(\"grabbed\\n\"); }"
                        + " pid$target:a.out:other:entry { @e = count(); }"
                        + " pid$target:a.out:other:return { @r = count(); }"
                        + " pid$target:a.out:other:entry /arg0 == 999/ { n++; }"
                        + " pid$target:a.out:other:entry /n == " + rounds + "/ { exit(0); }"
                        + " END { printa(\"entry %@d\\n\", @e); printa(\"return %@d\\n\", @r); }");
        for (int i = 0; i < 600 && !b.out().contains("grabbed\n"); i++) Thread.sleep(50);
        assertTrue(b.out().contains("grabbed\n"), "B grabbed the process: " + b);
        return b;
    }

    private static long count(String out, String what) {
        Matcher m = Pattern.compile("(?m)^" + what + " (\\d+)$").matcher(out);
        assertTrue(m.find(), what + " in " + out);
        return Long.parseLong(m.group(1));
    }

    /** The process's state letter and TracerPid (/proc/PID/status). */
    private static String stateAndTracer(long pid) throws Exception {
        String state = null, tracer = null;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("State:")) state = line.substring(6).strip().substring(0, 1);
            if (line.startsWith("TracerPid:")) tracer = line.substring(10).strip();
        }
        return state + " " + tracer;
    }

    /** This JVM's perf event and BPF descriptors, by kind (/proc/self/fd). */
    private static Map<String, Integer> kernelFds() throws Exception {
        Map<String, Integer> n = new TreeMap<>(Map.of("perf_event", 0, "bpf-prog", 0, "bpf-map", 0, "bpf_link", 0));
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path f : s.toList()) {
                String link;
                try {
                    link = Files.readSymbolicLink(f).toString();
                } catch (Exception e) {
                    continue;
                }
                for (String k : n.keySet()) if (link.contains(k)) n.merge(k, 1, Integer::sum);
            }
        }
        return n;
    }

    /** A run on ft_count first, so that what stays open for the platform's life (the rings) is in the baseline. */
    private Map<String, Integer> baseline() throws Exception {
        Platform.Run w = platform.run("-q", "-n", "pid$target:a.out:sq:entry { @ = count(); }", "-c", Platform.bin("ft_count") + " 100");
        assertEquals(0, w.await(), w.toString());
        return kernelFds();
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void aSecondConsumersEndLeavesTheFirstCountingEveryHit() throws Exception {
        secondConsumersEnd("on", 300);
    }

    /** The same on the ptrace path (-x uprobes=off: B's -p joins it), fewer rounds: a stop a hit. */
    @Test
    void onThePtracePathToo() throws Exception {
        secondConsumersEnd("off", 20);
    }

    private void secondConsumersEnd(String path, int rounds) throws Exception {
        Map<String, Integer> before = baseline();
        String bin = Platform.bin("ft_pair");
        Platform.Run a = startA(bin, path);
        long pid = targets.get(0);
        Platform.Run b = startB(pid, rounds);
        assertEquals(0, b.await(), b.toString());
        long be = count(b.out(), "entry"), br = count(b.out(), "return");
        // B's first round is partial, and its end comes with its exit() record: the hits around
        // it are its own to count or not
        assertTrue(be >= (rounds - 1) * 1000L && br >= (rounds - 2) * 1000L, "B counted other()'s calls while it traced: " + b);
        assertTrue(alive(pid), "the target runs on after B's end");
        String st = stateAndTracer(pid).replace("R ", "S ");
        if (path.equals("on")) assertEquals("S 0", st, "neither stopped nor traced after B's end");
        else {
            // A's hits stop it for a moment each (t): it runs between them
            for (int i = 0; i < 100 && st.startsWith("t "); i++) st = stateAndTracer(pid).replace("R ", "S ");
            assertTrue(st.startsWith("S ") && !st.equals("S 0"), "running, traced by A alone after B's end: " + st);
        }
        Thread.sleep(500); // A traces on, alone
        new ProcessBuilder("kill", "-USR1", Long.toString(pid)).start().waitFor();
        assertEquals(0, a.await(), a.toString());
        Matcher own = Pattern.compile("work (\\d+) other (\\d+)\n").matcher(a.out());
        assertTrue(own.find(), "the target's own counts: " + a);
        long calls = Long.parseLong(own.group(1));
        assertTrue(calls > rounds * 1000L, "the target ran through B's whole run: " + a);
        assertEquals(calls, count(a.out(), "entry"), "A counted every entry: " + a);
        assertEquals(calls, count(a.out(), "return"), "A counted every return: " + a);
        assertEquals(calls, count(a.out(), "offset"), "A counted every offset hit: " + a);
        assertEquals(before, kernelFds(), "nothing of either consumer left in the kernel");
        System.out.printf("uprobes=%s: ft_pair called work %d times; A counted %d entries, %d returns, %d offset hits;"
                + " B counted %d entries and %d returns of other()%n", path, calls, count(a.out(), "entry"),
                count(a.out(), "return"), count(a.out(), "offset"), be, br);
    }

    /**
     * The reverse order without a kill: ft_pair started here, A grabs it first (-p) and ends
     * first, after 200 of its rounds, while B, grabbed second, traces on: B's probes still fire
     * after A's end (it counts on past 400 rounds), and once both let go the process runs on,
     * neither stopped nor traced, and ends at SIGUSR1 printing its own counts.
     */
    @Test
    void theFirstGrabbersEndLeavesTheSecondTracing() throws Exception {
        Map<String, Integer> before = baseline();
        // not a child of this JVM (whose process reaper would take the stops of a grab): a shell's
        Path out = Files.createTempFile("ft_pair", ".out");
        Process sh = new ProcessBuilder("sh", "-c", "\"$0\" >\"$1\" 2>&1 </dev/null & echo $!", Platform.bin("ft_pair"),
                out.toString()).start();
        long pid = Long.parseLong(new String(sh.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip());
        targets.add(pid);
        assertEquals(0, sh.waitFor());
        Platform.Run a = platform.run("-q", "-p", Long.toString(pid), "-n",
                "BEGIN { printf(\"grabbed\\n\"); }"
                        + " pid$target:a.out:work:entry { @e = count(); }"
                        + " pid$target:a.out:work:entry /arg0 == 999/ { n++; }"
                        + " pid$target:a.out:work:entry /n == 200/ { exit(0); }"
                        + " END { printa(\"entry %@d\\n\", @e); }");
        for (int i = 0; i < 600 && !a.out().contains("grabbed\n"); i++) Thread.sleep(50);
        assertTrue(a.out().contains("grabbed\n"), "A grabbed the process: " + a);
        Platform.Run b = startB(pid, 400);
        assertEquals(0, a.await(), a.toString());
        assertTrue(count(a.out(), "entry") >= 190_000, a.toString());
        assertTrue(b.thread.isAlive(), "B traces on after A's end: " + b);
        assertEquals(0, b.await(), b.toString()); // its 400th round came after A's end
        assertTrue(count(b.out(), "entry") >= 390_000, "B counted other()'s calls while it traced: " + b);
        assertTrue(alive(pid), "the target runs on after both ends");
        assertEquals("S 0", stateAndTracer(pid).replace("R ", "S "), "neither stopped nor traced after both ends");
        new ProcessBuilder("kill", "-USR1", Long.toString(pid)).start().waitFor();
        for (int i = 0; i < 1500 && alive(pid); i++) Thread.sleep(20);
        assertFalse(alive(pid), "ft_pair ends at SIGUSR1");
        String own = Files.readString(out);
        Files.delete(out);
        assertTrue(own.matches("work (\\d+) other \\1\n"), "every call made, untouched: " + own);
        assertEquals(before, kernelFds(), "nothing of either consumer left in the kernel");
    }

    @Test
    void theCreatorsEndKillsItsCommandAndTheGrabberEndsWithIt() throws Exception {
        Map<String, Integer> before = baseline();
        String bin = Platform.bin("ft_pair");
        String off = Long.toHexString(secondInstruction(bin));
        // A ends on its own after 200 rounds of ft_pair, while B traces
        Platform.Run a = platform.run("-q", "-c", bin, "-n",
                "BEGIN { printf(\"target %d\\n\", $target); }"
                        + " pid$target:a.out:work:entry { @e = count(); }"
                        + " pid$target:a.out:work:" + off + " { @o = count(); }"
                        + " pid$target:a.out:work:entry /arg0 == 999/ { n++; }"
                        + " pid$target:a.out:work:entry /n == 200/ { exit(0); }");
        long pid = a.target();
        targets.add(pid);
        Platform.Run b = startB(pid, Integer.MAX_VALUE);
        assertEquals(0, a.await(), a.toString());
        assertEquals(0, b.await(), b.toString());
        assertTrue(count(b.out(), "entry") > 0 && b.err().isEmpty(), "B traced until its process went: " + b);
        for (int i = 0; i < 100 && alive(pid); i++) Thread.sleep(20);
        assertFalse(alive(pid), "dtrace -c kills its command at its end");
        assertEquals(before, kernelFds(), "nothing of either consumer left in the kernel");
    }
}
