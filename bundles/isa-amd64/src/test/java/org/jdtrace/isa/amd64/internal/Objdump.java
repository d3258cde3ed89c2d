package org.jdtrace.isa.amd64.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;

/**
 * GNU objdump as the reference decoder: one run over a whole file, stream-parsed into the sorted
 * addresses where objdump starts an instruction and which of them it calls {@code (bad)}.
 */
final class Objdump {

    static final String OBJDUMP = "/usr/bin/objdump";

    /** Instruction starts of a file in ascending order; {@code bad.get(i)} for (bad). */
    record Listing(long[] starts, BitSet bad) {

        /** Index of the first start >= addr. */
        int indexOf(long addr) {
            int i = Arrays.binarySearch(starts, addr);
            return i >= 0 ? i : -i - 1;
        }

        int size() {
            return starts.length;
        }
    }

    private Objdump() {}

    static Listing disassemble(Path file) {
        return run(file, OBJDUMP, "-d", "-w", "-z", "--no-show-raw-insn", file.toString());
    }

    /** A raw blob of amd64 code at address 0. */
    static Listing disassembleRaw(Path file) {
        return run(file, OBJDUMP, "-D", "-b", "binary", "-m", "i386:x86-64", "-w", "-z", "--no-show-raw-insn", file.toString());
    }

    private static Listing run(Path file, String... cmd) {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long[] starts = new long[1 << 16];
        BitSet bad = new BitSet();
        int n = 0;
        boolean sorted = true;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.ISO_8859_1), 1 << 16)) {
            String line;
            while ((line = r.readLine()) != null) {
                int colon = line.indexOf(":\t");
                if (colon <= 0) {
                    continue;
                }
                long addr = 0;
                int i = 0;
                while (i < colon && line.charAt(i) == ' ') {
                    i++;
                }
                if (i == colon) {
                    continue;
                }
                boolean hex = true;
                for (; i < colon; i++) {
                    int d = Character.digit(line.charAt(i), 16);
                    if (d < 0) {
                        hex = false;
                        break;
                    }
                    addr = addr << 4 | d;
                }
                if (!hex) {
                    continue;
                }
                if (n == starts.length) {
                    starts = Arrays.copyOf(starts, n * 2);
                }
                if (n > 0 && addr <= starts[n - 1]) {
                    sorted = false;
                }
                if (line.indexOf("(bad)", colon) >= 0) {
                    bad.set(n);
                }
                starts[n++] = addr;
            }
            if (p.waitFor() != 0) {
                throw new IllegalStateException("objdump failed on " + file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (!sorted) {
            throw new IllegalStateException("objdump listing of " + file + " is not in address order");
        }
        return new Listing(Arrays.copyOf(starts, n), bad);
    }

    /** objdump's text for [from, to), for failure messages. */
    static String text(Path file, long from, long to) {
        try {
            Process p = new ProcessBuilder(OBJDUMP, "-d", "-w", "-z", "--start-address=0x" + Long.toHexString(from),
                    "--stop-address=0x" + Long.toHexString(to), file.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            p.waitFor();
            int i = out.indexOf(">:\n");
            return i < 0 ? out : out.substring(i + 3);
        } catch (IOException | InterruptedException e) {
            return "(objdump failed: " + e + ")";
        }
    }
}
