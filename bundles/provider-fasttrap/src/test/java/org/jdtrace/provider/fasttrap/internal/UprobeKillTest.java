package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfFile;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of a tracer whose entry, return and offset probes are hit all the time (every other
 * trial a JVM crash instead: SIGSEGV sent to it, which HotSpot takes for a fatal error): the kernel
 * removes its uprobes with its descriptors, the target runs on and computes right (ft_spin
 * checks every result of work()), 20 times of 20; the function's code in the target is the
 * file's again after each kill (it holds the uprobe's int3 while traced), no tracer holds the
 * process, and nothing is left in tracefs' uprobe_events.
 */
class UprobeKillTest {

    static final int TRIALS = 20;

    @Test
    void killingTheTracerLeavesTheTargetRunningAndRight() throws Exception {
        String bin = UprobePidProviderTest.bin("ft_spin");
        byte[] code;
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            code = elf.bytes(elf.symbol("work").orElseThrow());
        }
        Path out = Files.createTempFile("spin", ".out");
        ProcessHandle target = UprobePidProviderTest.orphan(out, "", bin);
        try {
            for (int i = 0; i < TRIALS; i++) {
                boolean crash = i % 2 == 1;
                Process tracer = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-ea",
                        "--enable-native-access=ALL-UNNAMED", "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=/dev/null",
                        "-cp", System.getProperty("java.class.path"),
                        UprobeTracerMain.class.getName(), Long.toString(target.pid()), "work")
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                try {
                    BufferedReader r = new BufferedReader(new InputStreamReader(tracer.getInputStream()));
                    String line = r.readLine();
                    assertTrue(line != null && line.startsWith("tracing "), "trial " + i + ": " + line);
                    long addr = Long.parseLong(line.substring(8));
                    assertNotEquals(code[0], text(target.pid(), addr, 1)[0], "the uprobe's breakpoint is in the text while traced");
                    assertEquals("0", UprobePidProviderTest.tracerPid(target.pid()), "no ptrace attachment while tracing");
                    if (crash) {
                        new ProcessBuilder("kill", "-SEGV", Long.toString(tracer.pid())).start().waitFor();
                    } else {
                        tracer.destroyForcibly(); // SIGKILL
                    }
                    assertTrue(tracer.waitFor(30, TimeUnit.SECONDS));
                    // HotSpot's fatal error handler ends a crashed JVM with status 1 when it dumps no core
                    assertEquals(crash ? 1 : 137, tracer.exitValue(), "trial " + i + ": crashed or killed");
                    assertTrue(target.isAlive(), "trial " + i + ": the target died");
                    assertEquals(java.util.HexFormat.of().formatHex(code),
                            java.util.HexFormat.of().formatHex(text(target.pid(), addr, code.length)), "trial " + i);
                } finally {
                    tracer.destroyForcibly();
                }
            }
            assertTrue(noUprobeEvents(), "uprobe_events is empty");
            new ProcessBuilder("kill", "-USR1", Long.toString(target.pid())).start().waitFor();
            UprobePidProviderTest.awaitGone(target);
            assertTrue(Files.readString(out).matches("ok \\d+\n"), Files.readString(out));
        } finally {
            target.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }

    static byte[] text(long pid, long addr, int len) throws Exception {
        try (RandomAccessFile mem = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
            byte[] b = new byte[len];
            mem.getChannel().read(java.nio.ByteBuffer.wrap(b), addr);
            return b;
        }
    }

    /** tracefs' uprobe_events holds no probe (jdtrace never writes there; nothing of it stays). */
    static boolean noUprobeEvents() throws Exception {
        for (Path p : List.of(Path.of("/sys/kernel/tracing/uprobe_events"), Path.of("/sys/kernel/debug/tracing/uprobe_events"))) {
            if (Files.isReadable(p) && !Files.readString(p).isBlank()) return false;
        }
        return true;
    }
}
