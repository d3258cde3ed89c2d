package org.jdtrace.unwind;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad CFI: this machine's libraries' .eh_frame and .eh_frame_hdr with bytes flipped, runs
 * overwritten and the sections cut short. Every lookup must answer (a row or none) without an
 * exception, and an unwind over a random stack through the damaged CFI must end within its
 * frame budget. Seeds are fixed, so a failure replays.
 */
class CallFrameInfoFuzzTest {

    private static final RegisterNumbering AMD64 = new RegisterNumbering(17, 7, 6, 16, 16);

    @ParameterizedTest
    @ValueSource(strings = {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/lib64/ld-linux-x86-64.so.2"})
    void mutatedSectionsNeverThrowAndWalksEnd(String file) throws Exception {
        Path path = Path.of(file);
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(path));
        ElfFile elf = ElfFile.open(path);
        ElfSection ehs = elf.section(".eh_frame").orElseThrow(), hs = elf.section(".eh_frame_hdr").orElseThrow();
        byte[] eh = bytes(elf.contents(ehs)), hdr = bytes(elf.contents(hs));
        long[][] fns = CallFrameInfo.of(elf).functions();
        Random rnd = new Random(file.hashCode());
        FrameRow row = new FrameRow();
        Unwinder unwinder = new Unwinder(AMD64);
        long[] pcs = new long[64];
        int rows = 0, walks = 0;
        for (int round = 0; round < 300; round++) {
            byte[] e = eh.clone(), h = hdr.clone();
            switch (round % 4) {
                case 0 -> { for (int i = 0; i < 1 + rnd.nextInt(64); i++) e[rnd.nextInt(e.length)] ^= (byte) (1 << rnd.nextInt(8)); }
                case 1 -> { int at = rnd.nextInt(e.length); for (int i = at; i < Math.min(e.length, at + 256); i++) e[i] = (byte) rnd.nextInt(); }
                case 2 -> { e = java.util.Arrays.copyOf(e, rnd.nextInt(e.length)); h = java.util.Arrays.copyOf(h, rnd.nextInt(h.length)); }
                default -> { for (int i = 0; i < 1 + rnd.nextInt(16); i++) h[rnd.nextInt(h.length)] = (byte) rnd.nextInt(); }
            }
            CallFrameInfo cfi = CallFrameInfo.of("fuzz", e, ehs.addr(), h, hs.addr());
            for (int k = 0; k < 50; k++) {
                long[] f = fns[rnd.nextInt(fns.length)];
                long pc = f[0] + (f[1] > f[0] ? rnd.nextLong(f[1] - f[0]) : 0);
                if (cfi.find(pc, row)) rows++;
            }
            cfi.functions();
            // a walk over random stack bytes with every pc in this object
            byte[] stack = new byte[4096];
            rnd.nextBytes(stack);
            long sp = 0x7ff000000000L;
            for (int i = 0; i < stack.length; i += 8) {
                if (rnd.nextInt(3) == 0) {
                    long[] f = fns[rnd.nextInt(fns.length)];
                    ByteBuffer.wrap(stack).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(i, 0x10000000L + f[0] + 1);
                } else if (rnd.nextInt(3) == 0) {
                    ByteBuffer.wrap(stack).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(i, sp + rnd.nextInt(stack.length));
                }
            }
            long[] regs = new long[17];
            for (int i = 0; i < regs.length; i++) regs[i] = sp + rnd.nextInt(stack.length);
            regs[7] = sp;
            regs[16] = 0x10000000L + fns[rnd.nextInt(fns.length)][0] + 4;
            Unwinder.Modules mods = new Unwinder.Modules() {
                @Override
                public CallFrameInfo cfi(long pc) {
                    return pc >= 0x10000000L && pc < 0x20000000L ? cfi : null;
                }

                @Override
                public long bias(long pc) {
                    return 0x10000000L;
                }
            };
            int n = unwinder.walk(regs, (1L << 17) - 1, new StackSnapshot(sp, stack, stack.length, null), mods, pcs, pcs.length);
            assertTrue(n >= 1 && n <= pcs.length);
            walks++;
        }
        assertTrue(rows > 0 && walks == 300, rows + " rows");
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
