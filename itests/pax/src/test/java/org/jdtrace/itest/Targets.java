package org.jdtrace.itest;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

import org.jdtrace.elf.ElfSymbol;

/** What the itests read of a traced process from /proc: where a symbol is, its code, its tracer. */
final class Targets {

    private Targets() {}

    /** Where {@code sym} of the executable {@code bin} is in process {@code pid} (PIE: load base + value). */
    static long address(long pid, String bin, ElfSymbol sym) throws IOException {
        String real = new File(bin).getCanonicalPath();
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 6 && f[5].equals(real) && Long.parseLong(f[2], 16) == 0) {
                return Long.parseUnsignedLong(f[0].substring(0, f[0].indexOf('-')), 16) + sym.value();
            }
        }
        throw new AssertionError("no mapping of " + bin + " in " + pid);
    }

    /** {@code len} bytes of process {@code pid} at {@code addr}, read through /proc/PID/mem. */
    static byte[] memory(long pid, long addr, int len) throws IOException {
        try (RandomAccessFile mem = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
            byte[] b = new byte[len];
            mem.seek(addr);
            mem.readFully(b);
            return b;
        }
    }

    /** The TracerPid of process {@code pid} ("0": not traced). */
    static String tracerPid(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(l -> l.startsWith("TracerPid:")).findFirst().orElse("TracerPid:\t0").substring(10).trim();
    }
}
