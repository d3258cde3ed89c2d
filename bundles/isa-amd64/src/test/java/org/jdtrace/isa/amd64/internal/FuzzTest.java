package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;

/**
 * Hostile input: seeded random bytes, real libc code with flipped bytes, and truncated buffers.
 * The decoder and the analyzer may refuse (IsaException) but never throw anything else, never
 * read outside their limit and never loop: each round is bounded in size, the whole run in time
 * (120 s: a guard against a loop, not a speed target; seconds on a quiet machine, 20 s was
 * exceeded at load 20).
 */
class FuzzTest {

    private final Amd64Isa isa = new Amd64Isa();

    @Test
    void randomBytes() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            Random rnd = new Random(0x5eed);
            byte[] buf = new byte[64];
            long decoded = 0;
            for (int round = 0; round < 300_000; round++) {
                rnd.nextBytes(buf);
                int limit = 1 + rnd.nextInt(buf.length);
                decoded += decodeAll(buf, limit);
            }
            assertTrue(decoded > 100_000, "random bytes decode often: " + decoded);
        });
    }

    @Test
    void mutatedAndTruncatedLibcCode() throws Exception {
        List<byte[]> functions = new java.util.ArrayList<>();
        try (ElfFile elf = ElfFile.open(RealBinaries.LIBC)) {
            for (ElfSymbol s : elf.functions()) {
                if (s.size() > 16 && s.size() < 4096 && functions.size() < 400) {
                    functions.add(elf.bytes(s));
                }
            }
        }
        assertTrue(functions.size() > 100);
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            Random rnd = new Random(42);
            int analysed = 0;
            for (int round = 0; round < 20_000; round++) {
                byte[] code = functions.get(rnd.nextInt(functions.size())).clone();
                int flips = 1 + rnd.nextInt(4);
                for (int k = 0; k < flips; k++) {
                    int at = rnd.nextInt(code.length);
                    code[at] = (byte) (rnd.nextBoolean() ? rnd.nextInt() : code[at] ^ (1 << rnd.nextInt(8)));
                }
                int cut = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(code.length) : code.length;
                byte[] truncated = java.util.Arrays.copyOf(code, cut);
                decodeAll(truncated, truncated.length);
                try {
                    FunctionAnalysis a = isa.analyze(truncated, 0x400000);
                    analysed++;
                    int covered = 0;
                    for (Instruction i : a.instructions()) {
                        covered += i.length();
                    }
                    assertTrue(covered <= truncated.length + Decoder.MAX_LENGTH);
                } catch (IsaException refused) {
                    // an acceptable answer
                }
            }
            assertTrue(analysed > 0);
        });
    }

    /** Decodes from every offset; returns how many decoded. Only IsaException may be thrown. */
    private int decodeAll(byte[] buf, int limit) {
        int ok = 0;
        byte[] code = java.util.Arrays.copyOf(buf, limit);
        for (int off = 0; off < limit; off++) {
            try {
                Instruction i = isa.decode(code, off, off);
                assertTrue(i.length() >= 1 && off + i.length() <= limit && i.length() <= Decoder.MAX_LENGTH);
                ok++;
            } catch (IsaException refused) {
                // fine
            }
        }
        return ok;
    }
}
