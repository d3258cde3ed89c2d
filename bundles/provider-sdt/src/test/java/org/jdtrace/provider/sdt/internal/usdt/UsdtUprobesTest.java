package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.jdtrace.elf.ElfFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** USDT probes on the kernel's uprobes: the same probes, the is-enabled semaphore counted by the kernel. */
class UsdtUprobesTest {

    private final Platform platform = new Platform(true);

    @AfterEach
    void tearDown() {
        platform.close();
    }

    @Test
    void isEnabledProbesFireAtEveryCallWithTheirArguments() throws Exception {
        Platform.Run r = platform.run("-q", "-n", "jdt$target:::expensive-sum { @ = count(); @s = sum(arg0); }"
                + " jdt$target:::tick /arg1 != -(int) arg0/ { @bad = count(); }"
                + " END { printa(\"fired %@d\\n\", @); printa(\"total %@d\\n\", @s); }",
                "-c", Platform.bin("ft_usdt") + " 200");
        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("expensive 200\n"), r.toString());
        assertTrue(r.out().contains("fired 200\n"), r.toString());
        long total = 0;
        for (long i = 0; i < 200; i++) for (long k = 0; k <= i % 100; k++) total += k * k;
        assertTrue(r.out().contains("total " + total + "\n"), r.toString());
        assertTrue(!r.out().contains("@bad") && r.out().lines().filter(l -> l.matches("\\s+\\d+")).count() == 0, r.toString());
    }

    /**
     * A destructive clause at a USDT probe acts at the hit (-w; the process held there, Holds):
     * raise(SIGUSR1), whose default action ends ft_usdt, at tick 5 kills it before tick 6, where
     * a raise after the hit would come once the short run had finished (done would fire).
     */
    @Test
    void raiseAtAUsdtProbeActsBeforeTheProgramRunsOn() throws Exception {
        Platform.Run r = platform.run("-q", "-w", "-n", "jdt$target:::tick { @ = count(); }"
                + " jdt$target:::tick /arg1 == 5/ { raise(SIGUSR1); printf(\"raised\\n\"); }"
                + " jdt$target:::done { printf(\"done\\n\"); } END { printa(\"ticks %@d\\n\", @); }",
                "-c", Platform.bin("ft_usdt") + " 200");
        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("raised\n") && !r.out().contains("done"), r.toString());
        assertTrue(r.out().contains("ticks 6\n"), r.toString());
    }

    /**
     * The semaphore is the kernel's to count (ref_ctr_offset): it is 1 while dtrace -p traces the
     * probe, and 0 again as soon as the uprobes' descriptors close (here all perf events at once,
     * as when dtrace is killed), with no write of jdtrace's.
     */
    @Test
    void theKernelCountsTheSemaphoreAndTakesItBackWithTheDescriptors() throws Exception {
        String bin = Platform.bin("ft_usdt");
        long sym;
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            sym = elf.symbol("jdt_expensive__sum_semaphore").orElseThrow().value();
        }
        // started by a shell that exits at once: not this JVM's child, whose reaper would take its stops
        Process sh = new ProcessBuilder("/bin/sh", "-c", bin + " 100000 1 >/dev/null & echo $!").start();
        ProcessHandle target = ProcessHandle.of(Long.parseLong(new String(sh.getInputStream().readAllBytes()).strip())).orElseThrow();
        sh.waitFor();
        try {
            long sem = bias(target.pid(), bin) + sym;
            assertEquals(0, semaphore(target.pid(), sem));
            Platform.Run r = platform.run("-q", "-n", "jdt$target:::expensive-sum { @ = count(); }", "-p", Long.toString(target.pid()));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (semaphore(target.pid(), sem) == 0 && System.nanoTime() < deadline) Thread.sleep(5);
            assertEquals(1, semaphore(target.pid(), sem), r.toString());
            platform.perf.close(); // every link goes, the USDT provider is not told
            assertEquals(0, semaphore(target.pid(), sem));
            assertTrue(target.isAlive());
        } finally {
            target.destroyForcibly();
        }
    }

    /** The load bias of {@code bin} in process {@code pid}: where its offset-0 mapping starts. */
    static long bias(long pid, String bin) throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
            String[] f = l.split("\\s+");
            if (f.length >= 6 && f[5].equals(bin) && Long.parseLong(f[2], 16) == 0) return Long.parseLong(f[0].split("-")[0], 16);
        }
        throw new IllegalStateException(bin + " not mapped in " + pid);
    }

    static int semaphore(long pid, long addr) throws Exception {
        try (RandomAccessFile mem = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
            ByteBuffer b = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN);
            mem.getChannel().read(b, addr);
            return Short.toUnsignedInt(b.getShort(0));
        }
    }
}
