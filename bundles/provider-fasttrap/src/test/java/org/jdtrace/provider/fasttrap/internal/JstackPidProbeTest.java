package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import javax.tools.ToolProvider;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jstack() at a pid probe in another HotSpot JVM (this JDK, interpreting: -Xint), grabbed as
 * dtrace -p grabs it: at libjvm.so's JVM_NanoTime, the native behind System.nanoTime(), which
 * Outer.main calls in its loop, the Java frames are the interpreter's frames of
 * java.lang.System.nanoTime and Outer.main, named by their methods, between JVM_NanoTime and the
 * call stub's caller in libjvm.so; the bottom Java frame is the one `jcmd PID Thread.print` ends
 * the main thread with.
 */
class JstackPidProbeTest {

    private final PidProvider provider = new PidProvider(new Amd64Isa(), 250_000, null);
    private final TestRegistry registry = new TestRegistry(provider);
    private TargetProcess target;
    private ProcessHandle jvm;

    @TempDir
    Path dir;

    @AfterEach
    void cleanUp() throws Exception {
        if (target != null) target.close();
        provider.deactivate();
        if (jvm != null) {
            jvm.destroyForcibly();
            jvm.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void jstackAtJvmNanoTimeNamesTheInterpreterFramesOfItsJavaCallers() throws Exception {
        Path src = dir.resolve("Outer.java");
        Files.copy(Path.of("../../fixtures/src/java/Outer.java"), src);
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", dir.toString(), src.toString()));
        Path bin = Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent();
        // not a child of this JVM (whose process reaper would wait for it and see the grab's
        // stops): started by a shell that leaves it to init, as a process dtrace -p grabs is
        Process sh = new ProcessBuilder("sh", "-c", "\"$0\" -Xint -cp \"$1\" Outer 120 1000 >/dev/null 2>&1 </dev/null & echo $!",
                bin.resolve("java").toString(), dir.toString()).start();
        long pid = Long.parseLong(new String(sh.getInputStream().readAllBytes()).strip());
        sh.waitFor();
        jvm = ProcessHandle.of(pid).orElseThrow();
        // the outside reference: the JVM's own list of the main thread's Java frames, once in main's loop
        String bottom = null;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (bottom == null && System.nanoTime() < deadline) {
            Thread.sleep(300);
            Process jcmd = new ProcessBuilder(bin.resolve("jcmd").toString(), Long.toString(jvm.pid()), "Thread.print")
                    .redirectErrorStream(true).start();
            String dump = new String(jcmd.getInputStream().readAllBytes());
            jcmd.waitFor();
            int at = dump.indexOf("\"main\"");
            if (at < 0) continue;
            String main = dump.substring(at, Math.max(at, dump.indexOf("\n\n", at)));
            String last = null;
            for (String line : main.split("\n")) {
                if (line.strip().startsWith("at ")) last = line.strip().substring(3, line.strip().indexOf('('));
            }
            if (last != null && last.equals("Outer.main")) bottom = last;
        }
        assertEquals("Outer.main", bottom, "jcmd's bottom frame of main");

        target = provider.control().grab((int) jvm.pid());
        provider.provide(ProbeDescription.parse("pid" + jvm.pid() + ":libjvm.so:JVM_NanoTime:entry"));
        List<List<String>> stacks = Collections.synchronizedList(new ArrayList<>());
        registry.enable(registry.probe("libjvm.so", "JVM_NanoTime", "entry"), c -> {
            if (stacks.size() < 20) {
                String[] f = c.jstack(40);
                stacks.add(f == null ? List.of() : List.of(f));
            }
        });
        target.go();
        deadline = System.nanoTime() + 60_000_000_000L;
        while (stacks.size() < 20 && System.nanoTime() < deadline) Thread.sleep(100);
        assertTrue(stacks.size() >= 20, "hits: " + stacks.size());
        List<String> expected = List.of("[interpreter]`java.lang.System.nanoTime", "[interpreter]`" + bottom);
        for (List<String> f : List.copyOf(stacks).subList(0, 20)) {
            assertEquals("libjvm.so`JVM_NanoTime", f.get(0), f.toString());
            assertEquals(expected, f.stream().filter(x -> x.startsWith("[interpreter]")).toList(), f.toString());
            int java = f.indexOf("[interpreter]`Outer.main");
            int helper = -1;
            for (int i = 0; i < f.size(); i++) if (f.get(i).startsWith("libjvm.so`_ZN9JavaCalls11call_helper")) helper = i;
            assertTrue(java > 1 && helper > java, "JavaCalls::call_helper below Outer.main: " + f);
        }
    }
}
