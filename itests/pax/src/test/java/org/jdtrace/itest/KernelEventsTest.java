package org.jdtrace.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.After;
import org.junit.Assume;
import org.junit.Before;
import org.junit.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The machine-wide providers of the perf-events bundle as users run them (the distribution's
 * launcher in a JVM of its own): profile-N against perf(1) on the same program, execname of busy
 * processes, syscall with strings read in the kernel, errno, proc exec-success, sched on/off-cpu,
 * and the SVG flame graph parsed frame by frame. Needs root (perf events and BPF for the whole
 * machine) and perf (linux-perf) for the comparison. Every process a test starts is killed in
 * {@code @After}.
 */
public class KernelEventsTest {

    private final List<Process> started = new ArrayList<>();
    private final List<Path> files = new ArrayList<>();

    @Before
    public void root() {
        Assume.assumeTrue("needs root", "root".equals(System.getProperty("user.name")));
    }

    @After
    public void cleanUp() throws IOException {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Path f : files) Files.deleteIfExists(f);
    }

    private static File root0() throws IOException {
        return new File(System.getProperty("jdtrace.dist")).getCanonicalFile().getParentFile().getParentFile().getParentFile();
    }

    static String bin(String name) throws IOException {
        return new File(root0(), "fixtures/target/bin/" + name).getPath();
    }

    private Path tmp(String suffix) throws IOException {
        Path f = Files.createTempFile("kernel-itest", suffix);
        files.add(f);
        return f;
    }

    /** Runs dtrace to its end; its stdout (stderr appended to failure messages). */
    private String[] dtrace(long timeoutSeconds, String... args) throws Exception {
        Path out = tmp(".out"), err = tmp(".err");
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-XX:+UseSerialGC",
                "-jar", new File(System.getProperty("jdtrace.dist"), "jdtrace-launcher.jar").getPath()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        started.add(p);
        assertTrue("dtrace ends: " + String.join(" ", args), p.waitFor(timeoutSeconds, TimeUnit.SECONDS));
        return new String[] {Files.readString(out), Files.readString(err), Integer.toString(p.exitValue())};
    }

    private Process start(String... argv) throws IOException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(p);
        return p;
    }

    /** The share (percent) of each leaf function in "frame ... count" blocks of a printa of @[ustack()]. */
    static Map<String, Double> leafShares(String out) {
        Map<String, Long> n = new HashMap<>();
        long total = 0;
        String leaf = null;
        for (String line : out.split("\n")) {
            String t = line.strip();
            if (t.isEmpty()) {
                leaf = null;
                continue;
            }
            if (t.matches("\\d+")) {
                long c = Long.parseLong(t);
                total += c;
                if (leaf != null) n.merge(leaf, c, Long::sum);
                leaf = null;
            } else if (leaf == null) {
                leaf = t.replaceAll("\\+0x[0-9a-f]+$", "").replaceAll("^.*`", "");
            }
        }
        Map<String, Double> shares = new HashMap<>();
        for (var e : n.entrySet()) shares.put(e.getKey(), 100.0 * e.getValue() / total);
        return shares;
    }

    @Test
    public void printaPercentASymbolisesUserPcKeysAsNmReadsTheBinary() throws Exception {
        String burn = bin("ft_burn");
        String[] r = dtrace(120, "-q", "-n",
                "profile-997 /pid == $target/ { @[arg1] = count(); } END { printa(\"%A %@d\\n\", @); }", "-c", burn + " 2");
        assertEquals(r[0] + r[1], "0", r[2]);
        // nm -S: each function symbol's size
        Process nm = new ProcessBuilder("nm", "-S", "--defined-only", burn).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        started.add(nm);
        Map<String, Long> sizes = new HashMap<>();
        for (String l : new String(nm.getInputStream().readAllBytes()).split("\n")) {
            String[] f = l.trim().split("\\s+");
            if (f.length == 4 && (f[2].equals("T") || f[2].equals("t"))) {
                sizes.put(f[3], Long.parseUnsignedLong(f[1], 16));
            }
        }
        assertTrue(nm.waitFor(60, TimeUnit.SECONDS));
        assertTrue("nm lists hot_a: " + sizes, sizes.containsKey("hot_a"));
        // ft_burn`function+0xoff: a function nm lists, the offset inside its size
        Map<String, Long> counts = new HashMap<>();
        long total = 0;
        Matcher m = Pattern.compile("(?m)^(\\S+) (\\d+)$").matcher(r[0]);
        while (m.find()) {
            long n = Long.parseLong(m.group(2));
            total += n;
            Matcher k = Pattern.compile("ft_burn`(\\w+)(?:\\+0x([0-9a-f]+))?").matcher(m.group(1));
            if (!k.matches()) continue;
            Long size = sizes.get(k.group(1));
            assertTrue("nm has " + m.group(1), size != null);
            long off = k.group(2) == null ? 0 : Long.parseLong(k.group(2), 16);
            assertTrue(m.group(1) + " lies inside " + k.group(1) + "'s " + size + " bytes", off < size);
            counts.merge(k.group(1), n, Long::sum);
        }
        assertTrue("samples: " + r[0], total > 0);
        assertTrue("hot_a holds most samples: " + counts + " of " + total, counts.getOrDefault("hot_a", 0L) * 100 / total > 40);
    }

    @Test
    public void profileSharesOfTheHottestFunctionsAgreeWithPerf() throws Exception {
        String burn = bin("ft_burn");
        String[] r = dtrace(120, "-q", "-n", "profile-997 /pid == $target/ { @[ustack()] = count(); }", "-c", burn + " 3");
        assertEquals(r[0] + r[1], "0", r[2]);
        Map<String, Double> ours = leafShares(r[0]);

        Path data = tmp(".perf");
        Process rec = new ProcessBuilder("perf", "record", "-q", "-F", "997", "-g", "-o", data.toString(), burn, "3")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(rec);
        assertTrue(rec.waitFor(60, TimeUnit.SECONDS));
        Process rep = new ProcessBuilder("perf", "report", "-i", data.toString(), "--no-children", "--sort", "sym",
                "--stdio", "-g", "none").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        started.add(rep);
        String report = new String(rep.getInputStream().readAllBytes());
        assertTrue(rep.waitFor(60, TimeUnit.SECONDS));
        Map<String, Double> perf = new HashMap<>();
        Matcher m = Pattern.compile("(?m)^\\s+([0-9.]+)%\\s+\\[[.k]\\]\\s+(\\S+)").matcher(report);
        while (m.find()) perf.merge(m.group(2), Double.parseDouble(m.group(1)), Double::sum);

        for (String f : List.of("hot_a", "hot_b", "hot_c")) {
            double a = ours.getOrDefault(f, 0.0), b = perf.getOrDefault(f, 0.0);
            assertTrue(f + ": jdtrace " + a + "% vs perf " + b + "%\n" + ours + "\n" + perf, Math.abs(a - b) <= 5.0);
        }
        assertTrue("hot_a is the hottest: " + ours, ours.getOrDefault("hot_a", 0.0) > 40);
    }

    @Test
    public void profileNamesTheBusyProcessesOfTheMachine() throws Exception {
        start(bin("ft_burn"), "60"); // killed in @After
        String[] r = dtrace(120, "-q", "-n", "profile-99 { @[execname] = count(); } tick-3s { exit(0); }");
        assertEquals(r[0] + r[1], "0", r[2]);
        Matcher m = Pattern.compile("(?m)^\\s*ft_burn\\s+(\\d+)$").matcher(r[0]);
        assertTrue("ft_burn sampled: " + r[0] + r[1], m.find() && Long.parseLong(m.group(1)) > 20);
    }

    @Test
    public void stackAndKernelPcOfProfileSamples() throws Exception {
        Path script = tmp(".sh");
        Files.writeString(script, "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); : > /dev/null; done\n");
        String[] r = dtrace(120, "-q", "-n",
                "profile-997 /pid == $target && arg0 != 0/ { @k[stack()] = count(); } "
                + "profile-997 /pid == $target && arg1 != 0/ { @u[uregs[R_PC] == arg1] = count(); }",
                "-c", "/bin/sh " + script);
        assertEquals(r[0] + r[1], "0", r[2]);
        assertTrue("kernel frames through kallsyms: " + r[0], r[0].contains("vmlinux`"));
        assertTrue("uregs[R_PC] is the user pc: " + r[0], r[0].matches("(?s).*\\n\\s+1\\s+\\d+\\n.*") && !r[0].matches("(?s).*\\n\\s+0\\s+\\d+\\n.*"));
    }

    @Test
    public void syscallStringsAreReadInTheKernelForEveryShortLivedProcess() throws Exception {
        Path script = tmp(".sh");
        Files.writeString(script, "sleep 3; i=0; while [ $i -lt 200 ]; do cat /etc/hostname > /dev/null; i=$((i+1)); done\n");
        String[] r = dtrace(180, "-q", "-n",
                "syscall::openat:entry /execname == \"cat\" && copyinstr(arg1) == \"/etc/hostname\"/ { printf(\"%s %s\\n\", execname, copyinstr(arg1)); }",
                "-c", "/bin/sh " + script);
        assertEquals(r[0] + r[1], "0", r[2]);
        long lines = r[0].lines().filter(l -> l.equals("cat /etc/hostname")).count();
        assertEquals(r[0] + r[1], 200, lines);
    }

    @Test
    public void syscallReturnGivesErrnoAndEveryProcessIsCounted() throws Exception {
        // a process dtrace does not control, making system calls all along (killed in @After),
        // under a name of its own (a symlink: the comm is the name exec'd)
        Path sleeper = Files.createTempDirectory("kernel-itest").resolve("jtsleep" + (System.nanoTime() % 100_000_000L));
        Files.createSymbolicLink(sleeper, Path.of("/bin/sleep"));
        files.add(sleeper);
        files.add(sleeper.getParent());
        start("/bin/sh", "-c", "while :; do " + sleeper + " 0.05; done");
        // the target lives 0.2 s before it becomes cat (same pid), so that the trace lasts long
        // enough to see the other process's calls whatever the machine's speed
        Path script = tmp(".sh");
        Files.writeString(script, "sleep 0.2\nexec /bin/cat /no/such/file\n");
        String[] r = dtrace(120, "-q", "-n",
                "syscall::openat:return /pid == $target && errno != 0/ { @e[errno] = count(); } "
                + "syscall:::entry { @c[execname, probefunc] = count(); } END { printa(\"errno %d %@d\\n\", @e); printa(\"%s %s %@d\\n\", @c); }",
                "-c", "/bin/sh " + script);
        assertTrue("ENOENT at return: " + r[0] + r[1], r[0].matches("(?s)(.*\\n)?errno 2 \\d+\n.*"));
        assertTrue("cat's own calls: " + r[0], r[0].matches("(?s).*\\ncat openat \\d+\\n.*"));
        assertTrue("a process dtrace does not control: " + r[0],
                r[0].matches("(?s).*\\n" + sleeper.getFileName() + " \\S+ \\d+\\n.*"));
    }

    @Test
    public void procExecSuccessNamesEachCommand() throws Exception {
        // the three commands under names of their own (symlinks: the comm is the name exec'd), so
        // that the machine's other execs of true, ls and date (other tests) are not counted
        String tag = "jt" + (System.nanoTime() % 100_000_000L);
        List<String> names = new java.util.ArrayList<>();
        StringBuilder run = new StringBuilder("sleep 2");
        for (String cmd : List.of("true", "ls", "date")) {
            Path link = Files.createTempDirectory("kernel-itest").resolve(tag + cmd);
            Files.createSymbolicLink(link, Path.of("/bin", cmd));
            files.add(link);
            files.add(link.getParent());
            names.add(link.getFileName().toString());
            run.append("; ").append(link).append(cmd.equals("ls") ? " / > /dev/null" : " > /dev/null");
        }
        Path script = tmp(".sh");
        Files.writeString(script, run + "\n");
        String[] r = dtrace(120, "-q", "-n", "proc:::exec-success { printf(\"%s\\n\", execname); }", "-c", "/bin/sh " + script);
        assertEquals(r[0] + r[1], "0", r[2]);
        // the machine's other execs may come between, and, as in DTrace, events of different
        // CPUs' buffers need not print in the order they happened: each of the three, once
        for (String name : names) {
            assertEquals(r[0], 1, r[0].lines().filter(name::equals).count());
        }
    }

    @Test
    public void schedOffCpuToOnCpuQuantizes() throws Exception {
        String[] r = dtrace(120, "-q", "-n",
                "sched:::off-cpu { self->ts = timestamp; } sched:::on-cpu /self->ts/ { @[execname] = quantize(timestamp - self->ts); self->ts = 0; } tick-2s { exit(0); }");
        assertEquals(r[0] + r[1], "0", r[2]);
        assertTrue("a quantize: " + r[0], r[0].contains("------------- Distribution -------------"));
    }

    /**
     * A profile of a Java program as perf users run Java (-XX:+PreserveFramePointer, the perf map
     * written by `jcmd PID Compiler.perfmap` and written again every half second while code is
     * compiled): in the folded flame-graph output the hot chain's Outer$Inner.spin is named, its
     * caller is Outer.run in most samples, and both sit above the interpreter's or Outer.main's
     * frame and libjvm.so's (JavaCalls::call_helper) toward the root.
     */
    @Test
    public void profileOfAJavaProgramNamesTheHotChainAboveTheInterpreterAndLibjvm() throws Exception {
        Path dir = Files.createTempDirectory("outer");
        Path src = dir.resolve("Outer.java");
        Files.copy(root0().toPath().resolve("fixtures/src/java/Outer.java"), src);
        files.add(src);
        files.add(dir.resolve("Outer.class"));
        files.add(dir.resolve("Outer$Inner.class"));
        files.add(dir);
        assertEquals(0, javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", dir.toString(), src.toString()));
        Path jdk = Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent();
        Process java = start(jdk.resolve("java").toString(), "-XX:+PreserveFramePointer", "-cp", dir.toString(), "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=dontinline,Outer$Inner::spin", "-XX:CompileCommand=dontinline,Outer::run", "Outer", "300");
        Path map = Path.of("/tmp/perf-" + java.pid() + ".map");
        files.add(map);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread jcmd = Thread.ofPlatform().start(() -> {
            while (!stop.get() && java.isAlive()) {
                try {
                    new ProcessBuilder(jdk.resolve("jcmd").toString(), Long.toString(java.pid()), "Compiler.perfmap")
                            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                    Thread.sleep(500);
                } catch (Exception e) {
                    return;
                }
            }
        });
        String[] r;
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline && !(Files.exists(map) && Files.readString(map).contains("Outer$Inner.spin")
                    && Files.readString(map).contains("Outer.run"))) {
                Thread.sleep(200);
            }
            r = dtrace(180, "-q", "-x", "folded", "-p", Long.toString(java.pid()),
                    "-n", "profile-997 /pid == $target/ { @[ustack()] = count(); } tick-10s { exit(0); }");
        } finally {
            stop.set(true);
            jcmd.join();
        }
        assertEquals(r[1], "0", r[2]);
        long inSpin = 0, fromRun = 0, overJvm = 0;
        Map<String, Long> callers = new HashMap<>();
        for (String line : r[0].split("\n")) {
            int sp = line.lastIndexOf(' ');
            if (sp < 0 || !line.substring(sp + 1).matches("\\d+")) continue;
            List<String> frames = List.of(line.substring(0, sp).split(";"));
            long n = Long.parseLong(line.substring(sp + 1));
            if (!frames.get(frames.size() - 1).equals("[jit]`Outer$Inner.spin")) continue;
            inSpin += n;
            String caller = frames.size() > 1 ? frames.get(frames.size() - 2) : "-";
            callers.merge(caller, n, Long::sum);
            if (!caller.equals("[jit]`Outer.run")) continue;
            fromRun += n;
            // toward the root: Outer.main (compiled or interpreted) then libjvm.so's JavaCalls
            int below = frames.size() - 3, helper = frames.indexOf("libjvm.so`_ZN9JavaCalls11call_helperEP9JavaValueRK12methodHandleP17JavaCallArgumentsP10JavaThread");
            if (below >= 0 && frames.get(below).matches("\\[jit\\]`(Outer.main|Interpreter)") && helper >= 0 && helper < below) overJvm += n;
        }
        assertTrue("samples in Outer$Inner.spin: " + inSpin + "\n" + r[0] + r[1], inSpin >= 30);
        assertTrue(fromRun + " of " + inSpin + " callers are Outer.run: " + callers, fromRun * 2 > inSpin);
        assertTrue(overJvm + " of " + fromRun + " go on through Outer.main into JavaCalls::call_helper:\n" + r[0], overJvm * 10 >= fromRun * 9);
    }

    @Test
    public void flameGraphSvgHoldsEveryFrameAtItsShare() throws Exception {
        Path svg = tmp(".svg");
        String[] r = dtrace(120, "-q", "-x", "folded", "-x", "flamegraph=" + svg, "-n",
                "profile-997 /pid == $target/ { @[ustack()] = count(); }", "-c", bin("ft_burn") + " 2");
        assertEquals(r[0] + r[1], "0", r[2]);
        // folded lines: frames root first, ';'-separated, a count
        Map<String, Long> folded = new HashMap<>();
        long total = 0;
        for (String l : r[0].split("\n")) {
            if (l.isBlank()) continue;
            assertTrue("folded: " + l, l.matches("\\S.* \\d+"));
            long n = Long.parseLong(l.substring(l.lastIndexOf(' ') + 1));
            total += n;
            String leaf = l.substring(0, l.lastIndexOf(' '));
            leaf = leaf.substring(leaf.lastIndexOf(';') + 1);
            folded.merge(leaf, n, Long::sum);
        }
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        NodeList gs = doc.getElementsByTagName("g");
        double allWidth = 0;
        Map<String, double[]> frames = new HashMap<>();
        for (int i = 0; i < gs.getLength(); i++) {
            Element g = (Element) gs.item(i);
            String title = g.getElementsByTagName("title").item(0).getTextContent();
            Element rect = (Element) g.getElementsByTagName("rect").item(0);
            Matcher m = Pattern.compile("(.*) \\((\\d+) samples, ([0-9.]+)%\\)").matcher(title);
            assertTrue(title, m.matches());
            double w = Double.parseDouble(rect.getAttribute("width"));
            if (m.group(1).equals("all")) {
                allWidth = w;
                assertEquals(total, Long.parseLong(m.group(2)));
            }
            frames.put(m.group(1), new double[] {Long.parseLong(m.group(2)), w, Double.parseDouble(rect.getAttribute("x")),
                    Double.parseDouble(rect.getAttribute("y"))});
        }
        assertTrue(allWidth > 0);
        for (var e : folded.entrySet()) {
            double[] f = frames.get(e.getKey());
            if (f == null) continue; // a leaf also seen deeper in another path: its title sums them
            assertTrue(e.getKey(), f[0] >= e.getValue());
        }
        double[] a = frames.get("ft_burn`hot_a"), main = frames.get("ft_burn`main");
        assertTrue("hot_a and main are frames: " + frames.keySet(), a != null && main != null);
        assertEquals("width is the share", a[0] / total * allWidth, a[1], 0.05);
        assertTrue("hot_a sits on main", a[3] < main[3] && a[2] >= main[2] && a[2] + a[1] <= main[2] + main[1] + 0.01);
    }
}
