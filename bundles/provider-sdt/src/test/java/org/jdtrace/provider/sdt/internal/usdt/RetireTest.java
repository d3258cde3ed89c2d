package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.elf.SdtNote;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * illumos bug 6573659 on a real process: pid probes and USDT probes at once, a pid offset
 * probe on the very instruction of a USDT site (one shared int3). Stopping provider-sdt
 * mid-run retires every USDT probe and puts every semaphore back, while the pid probes fire at
 * every hit (exact counts), the process gets no SIGTRAP and its output is right; started again,
 * the retained enabling matches and the USDT probes fire again.
 */
class RetireTest {

    private final Platform platform = new Platform();

    @AfterEach
    void tearDown() {
        platform.close();
    }

    /** The -c target: a child of this JVM running {@code bin}. */
    static ProcessHandle target(String bin) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            Optional<ProcessHandle> h = ProcessHandle.current().children()
                    .filter(c -> c.info().command().map(bin::equals).orElse(false)).findFirst();
            if (h.isPresent()) return h.get();
            Thread.sleep(5);
        }
        return null;
    }

    static byte[] memory(long pid, long addr, int len) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
            f.seek(addr);
            byte[] b = new byte[len];
            f.readFully(b);
            return b;
        }
    }

    /** The load bias of {@code bin} in {@code pid} (PIE): its lowest mapping minus the first PT_LOAD. */
    static long bias(long pid, String bin) throws Exception {
        for (String l : java.nio.file.Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
            if (l.endsWith(bin) && l.split("\\s+")[2].equals("00000000")) {
                return Long.parseUnsignedLong(l.substring(0, l.indexOf('-')), 16);
            }
        }
        throw new AssertionError("no mapping of " + bin);
    }

    @Test
    void stoppingProviderSdtLeavesPidProbesFiringAtEveryHit() throws Exception {
        String bin = Platform.bin("ft_usdt");
        SdtNote tick, sum;
        ElfSymbol work;
        try (ElfFile elf = ElfFile.open(Path.of(bin))) {
            tick = elf.sdtNotes().stream().filter(n -> n.name().equals("tick")).findFirst().orElseThrow();
            sum = elf.sdtNotes().stream().filter(n -> n.name().equals("expensive__sum")).findFirst().orElseThrow();
            work = elf.symbol("work").orElseThrow();
        }
        long off = tick.pc() - work.value();
        int n = 3000;
        String d = "pid$target:a.out:work:entry { @e = count(); }"
                + " pid$target:a.out:work:" + Long.toHexString(off) + " { @o = count(); }"
                + " jdt$target:::tick { printf(\"u %d\\n\", arg1); }"
                + " jdt$target:::expensive-sum { @s = count(); }"
                + " END { printa(\"entry %@d\\n\", @e); printa(\"offset %@d\\n\", @o); }";
        Platform.Run r = platform.run("-q", "-n", d, "-c", bin + " " + n + " 1");
        ProcessHandle t = target(bin);
        assertNotNull(t, r.toString());
        long semaphore = sum.semaphore() + bias(t.pid(), bin);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!r.out().contains("u 200\n") && System.nanoTime() < deadline) Thread.sleep(5);
        assertTrue(r.out().contains("u 200\n"), r.toString());
        assertArrayEquals(new byte[] {1, 0}, memory(t.pid(), semaphore, 2), "the enabled probe's semaphore is set");

        platform.stopUsdt();
        assertArrayEquals(new byte[] {0, 0}, memory(t.pid(), semaphore, 2), "provider-sdt stopped: the semaphore is back to 0");
        assertTrue(t.isAlive());
        Thread.sleep(500); // the pid probes go on alone
        platform.startUsdt(); // the retained enabling matches the new probes

        assertEquals(0, r.await(), r.toString());
        assertTrue(r.out().contains("entry " + n + "\n"), "every call counted at entry: " + r);
        assertTrue(r.out().contains("offset " + n + "\n"), "every hit of the shared int3 counted: " + r);
        long sumOfWork = (long) n * (n - 1);
        String program = r.out().lines().filter(l -> l.startsWith("sum ")).findFirst().orElseThrow();
        assertTrue(program.startsWith("sum " + sumOfWork + " expensive "), "the program's output: " + program);
        TreeSet<Long> fired = new TreeSet<>();
        r.out().lines().filter(l -> l.startsWith("u ")).forEach(l -> fired.add(Long.parseLong(l.substring(2))));
        long gap = 0;
        for (long i = 0; i < n; i++) if (!fired.contains(i)) gap++;
        assertTrue(gap > 0, "no USDT firing while provider-sdt was stopped");
        assertTrue(fired.contains((long) n - 1), "the USDT probe fires again after the restart: " + fired.last());
        long expensive = Long.parseLong(program.substring(program.lastIndexOf(' ') + 1));
        assertTrue(expensive > 0 && expensive < n, "the guarded code ran only while the semaphore was set: " + expensive);
    }
}
