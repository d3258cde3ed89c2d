package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every opcode of every map, under every mandatory prefix and with ModRM forms of every
 * displacement size, decoded by objdump and by the decoder. Each sample sits in its own 32-byte
 * slot padded with nops, so objdump is back in step at every slot. Lengths must agree wherever
 * objdump accepts; wherever objdump prints (bad) the decoder must refuse (OpcodeMaps holds the
 * defined opcodes), with no exception: a (bad) sample the decoder gives a length fails the test.
 * The only samples where the two may differ are the DELIBERATE refusals below.
 */
class OpcodeSweepTest {

    static final int SLOT = 32;
    /** ModRM (and SIB/displacement) forms: register, [reg], rip+disp32, SIB, SIB+disp8, disp32, reg fields 0-7. */
    static final int[][] MODRM = {
        {0xC1}, {0x05, 0x11, 0x22, 0x33, 0x44}, {0x04, 0x25, 0x11, 0x22, 0x33, 0x44}, {0x4C, 0x24, 0x08},
        {0x94, 0x88, 0x11, 0x22, 0x33, 0x44}, {0x00}, {0x68, 0x10}, {0xF8}
    };
    /**
     * Encodings refused on purpose although objdump decodes them (see Decoder's header comment), by
     * the start of the refusal's message:
     * 66 on a near branch, call or return (AMD truncates the target to 16 bits, Intel ignores the
     * prefix: no single length and effect to relocate); a REX that is followed by another prefix
     * (the CPU ignores it, objdump prints it as a separate "rex" pseudo-instruction); 3DNow! (0F 0F,
     * 0F 0E: dropped by AMD in 2011, and its opcode byte sits after the operands); and a VEX,
     * EVEX or XOP escape after REX, LOCK, 66, F2 or F3 (#UD on every CPU, objdump still decodes it).
     */
    static final List<String> DELIBERATE = List.of("operand-size prefix on a branch", "REX prefix not immediately",
            "3DNow!", "VEX/EVEX/XOP after");
    static final byte[] TAIL = {0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78};

    @Test
    void everyOpcodeMapAgreesWithObjdump(@TempDir Path dir) throws Exception {
        List<byte[]> samples = new ArrayList<>();
        int[][] legacyPrefixes = {{}, {0x66}, {0xF2}, {0xF3}, {0x48}, {0x67}};
        for (int[] pfx : legacyPrefixes) {
            for (int op = 0; op < 256; op++) {
                for (int[] m : MODRM) {
                    samples.add(sample(pfx, new int[] {op}, m));
                    samples.add(sample(pfx, new int[] {0x0F, op}, m));
                    samples.add(sample(pfx, new int[] {0x0F, 0x38, op}, m));
                    samples.add(sample(pfx, new int[] {0x0F, 0x3A, op}, m));
                }
            }
        }
        // VEX (C5, C4 maps 1-3), EVEX (maps 1,2,3,5,6) and XOP (maps 8-10) with pp = 0..3 and W/L set or not.
        for (int pp = 0; pp < 4; pp++) {
            for (int wl = 0; wl < 4; wl += 3) {
                int w = (wl & 1) << 7;
                int l = (wl & 2) << 1;
                for (int op = 0; op < 256; op++) {
                    for (int[] m : new int[][] {MODRM[0], MODRM[2], MODRM[4]}) {
                        samples.add(sample(new int[] {0xC5, 0xF8 | l | pp}, new int[] {op}, m));
                        for (int map = 1; map <= 3; map++) {
                            samples.add(sample(new int[] {0xC4, 0xE0 | map, w | 0x78 | l | pp}, new int[] {op}, m));
                        }
                        for (int map : new int[] {1, 2, 3, 5, 6}) {
                            samples.add(sample(new int[] {0x62, 0xF0 | map, w | 0x7C | pp, 0x48 | (l << 3)}, new int[] {op}, m));
                        }
                        if (pp == 0) {
                            for (int map = 8; map <= 10; map++) {
                                samples.add(sample(new int[] {0x8F, 0xE0 | map, w | 0x78 | l}, new int[] {op}, m));
                            }
                        }
                    }
                }
            }
        }
        compare("opcode sweep", samples, dir);
    }

    /**
     * What the maps alone do not decide, against objdump: a vvvv that names a register (1 and 6,
     * which exist in every register class) on every VEX, EVEX and XOP opcode with a register, a
     * SIB and a rip-relative operand (an instruction without a vvvv operand must refuse it; AMX
     * tiles and gathers then also meet coinciding registers), EVEX.V' clear, EVEX map 2 with a mask
     * register (gathers and scatters need one; a gather's destination must differ from its index),
     * and MPX with REX.R, REX.X and REX.B (bnd0-bnd3 only).
     */
    @Test
    void registerFieldsAgreeWithObjdump(@TempDir Path dir) throws Exception {
        List<byte[]> samples = new ArrayList<>();
        int[][] modrms = {MODRM[0], MODRM[1], MODRM[4]};
        for (int pp = 0; pp < 4; pp++) {
            for (int op = 0; op < 256; op++) {
                for (int[] m : modrms) {
                    for (int v : new int[] {1, 6}) {
                        int vvvv = (~v & 15) << 3;
                        for (int map = 1; map <= 3; map++) {
                            samples.add(sample(new int[] {0xC4, 0xE0 | map, vvvv | pp}, new int[] {op}, m));
                            samples.add(sample(new int[] {0xC4, 0xE0 | map, 0x80 | vvvv | 4 | pp}, new int[] {op}, m));
                        }
                        for (int map : new int[] {1, 2, 3, 5, 6}) {
                            samples.add(sample(new int[] {0x62, 0xF0 | map, vvvv | 4 | pp, 0x48}, new int[] {op}, m));
                            samples.add(sample(new int[] {0x62, 0xF0 | map, 0x80 | vvvv | 4 | pp, 0x28}, new int[] {op}, m));
                        }
                        if (pp == 0) {
                            for (int map = 8; map <= 10; map++) {
                                samples.add(sample(new int[] {0x8F, 0xE0 | map, vvvv}, new int[] {op}, m));
                                samples.add(sample(new int[] {0x8F, 0xE0 | map, 0x80 | vvvv | 4}, new int[] {op}, m));
                            }
                        }
                    }
                    for (int map : new int[] {1, 2, 3, 5, 6}) {
                        samples.add(sample(new int[] {0x62, 0xF0 | map, 0x7C | pp, 0x40}, new int[] {op}, m));
                    }
                }
                // With a mask register (gathers and scatters need one), and destination = VSIB index.
                for (int[] m : new int[][] {MODRM[0], MODRM[1], MODRM[4], {0x0C, 0x88}}) {
                    samples.add(sample(new int[] {0x62, 0xF2, 0x7C | pp, 0x49}, new int[] {op}, m));
                    samples.add(sample(new int[] {0x62, 0xF2, 0xFC | pp, 0x29}, new int[] {op}, m));
                }
            }
        }
        for (int[] pfx : new int[][] {{}, {0x66}, {0xF3}, {0xF2}}) {
            for (int rex : new int[] {0x44, 0x42, 0x41}) {
                int[] p = Arrays.copyOf(pfx, pfx.length + 1);
                p[pfx.length] = rex;
                for (int op : new int[] {0x1A, 0x1B}) {
                    for (int[] m : MODRM) {
                        samples.add(sample(p, new int[] {0x0F, op}, m));
                    }
                }
            }
        }
        compare("register fields", samples, dir);
    }

    /**
     * fwait (9B) before every x87 opcode and ModRM form, and before other opcodes, with prefixes
     * before and after it: objdump makes one instruction of fwait and an x87 opcode (fstsw, fstcw,
     * finit...) and lets it stand alone before anything else.
     */
    @Test
    void fwaitAgreesWithObjdump(@TempDir Path dir) throws Exception {
        List<byte[]> samples = new ArrayList<>();
        int[][] before = {{}, {0x66}, {0x67, 0xF3}};
        int[][] after = {{}, {0x66}, {0x48}, {0x9B}, {0xF2, 0x41}};
        for (int[] b : before) {
            for (int[] a : after) {
                if (b.length > 0 && a.length > 0) {
                    continue; // prefixes on both sides: objdump splits them in ways no CPU does
                }
                int[] pfx = Arrays.copyOf(b, b.length + 1 + a.length);
                pfx[b.length] = 0x9B;
                System.arraycopy(a, 0, pfx, b.length + 1, a.length);
                for (int op : new int[] {0xD8, 0xD9, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF, 0x90, 0x0F, 0x89, 0xC3}) {
                    for (int[] m : MODRM) {
                        samples.add(sample(pfx, new int[] {op}, m));
                    }
                    for (int modrm = 0xC0; modrm <= 0xFF; modrm++) {
                        samples.add(sample(pfx, new int[] {op}, new int[] {modrm}));
                    }
                }
            }
        }
        compare("fwait", samples, dir);
    }

    /** Decodes every sample in its own slot with objdump and the decoder and fails on any disagreement. */
    private static void compare(String what, List<byte[]> samples, Path dir) throws Exception {
        ByteArrayOutputStream blob = new ByteArrayOutputStream();
        for (byte[] s : samples) {
            byte[] slot = new byte[SLOT];
            Arrays.fill(slot, (byte) 0x90);
            System.arraycopy(s, 0, slot, 0, s.length);
            blob.write(slot);
        }
        Path bin = dir.resolve("sweep.bin");
        byte[] image = blob.toByteArray();
        Files.write(bin, image);
        Objdump.Listing listing = Objdump.disassembleRaw(bin);
        List<String> failures = new ArrayList<>();
        int accepted = 0;
        int refused = 0;
        int deliberate = 0;
        List<String> badAccepted = new ArrayList<>();
        for (int i = 0; i < samples.size(); i++) {
            long at = (long) i * SLOT;
            int k = listing.indexOf(at);
            assertEquals(at, listing.starts()[k], "objdump in step at slot " + i);
            boolean bad = listing.bad().get(k);
            int objLen = (int) (listing.starts()[k + 1] - at);
            byte[] slot = Arrays.copyOfRange(image, (int) at, (int) at + SLOT);
            String sample = HexFormat.ofDelimiter(" ").formatHex(samples.get(i));
            try {
                int len = Decoder.decode(slot, 0, SLOT, at).length();
                accepted++;
                if (bad) {
                    badAccepted.add(sample + ": decoder length " + len + ", objdump (bad)");
                } else if (len != objLen) {
                    failures.add(sample + ": decoder length " + len + ", objdump " + objLen);
                }
            } catch (IsaException e) {
                refused++;
                if (!bad) {
                    if (DELIBERATE.stream().anyMatch(e.getMessage()::startsWith)) {
                        deliberate++;
                    } else {
                        failures.add(sample + ": decoder refused (" + e.getMessage() + "), objdump length " + objLen);
                    }
                }
            }
        }
        System.out.printf(what + ": %d samples, %d accepted, %d refused (%d of them deliberately where objdump"
                + " decodes), %d undefined opcodes objdump calls (bad) given a length, %d disagreements%n",
                samples.size(), accepted, refused, deliberate, badAccepted.size(), failures.size());
        failures.addAll(badAccepted);
        if (!failures.isEmpty()) {
            fail(failures.size() + " disagreements, first ones:\n" + String.join("\n", failures.subList(0, Math.min(60, failures.size()))));
        }
    }

    private static byte[] sample(int[] prefixes, int[] opcode, int[] modrm) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int p : prefixes) {
            b.write(p);
        }
        for (int o : opcode) {
            b.write(o);
        }
        for (int m : modrm) {
            b.write(m);
        }
        byte[] head = b.toByteArray();
        byte[] s = Arrays.copyOf(head, Math.min(15, head.length + TAIL.length));
        System.arraycopy(TAIL, 0, s, head.length, s.length - head.length);
        return s;
    }
}
