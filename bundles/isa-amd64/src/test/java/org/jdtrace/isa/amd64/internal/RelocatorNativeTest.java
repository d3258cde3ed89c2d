package org.jdtrace.isa.amd64.internal;

import static org.jdtrace.isa.amd64.internal.NativeCpu.CODE;
import static org.jdtrace.isa.amd64.internal.NativeCpu.DATA;
import static org.jdtrace.isa.amd64.internal.NativeCpu.FAR;
import static org.jdtrace.isa.amd64.internal.NativeCpu.STACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;

/**
 * Out-of-line copies against the CPU: each instruction runs at its own address, then its
 * relocated copy runs from a slot near it (disp32 re-targeted) and from a slot more than 2 GiB
 * away (scratch register), and all three leave the same general registers, flags, xmm registers
 * and memory, and continue at pc + length. The only difference allowed is the 8 bytes the far
 * form saves its scratch register in, below the red zone.
 */
class RelocatorNativeTest {

    static final long AT = CODE + 0x4000;
    static final long NEAR_SLOT = CODE + 0x8000;
    static final long FAR_SLOT = FAR + 0x100;
    static final long RSP = STACK + 0x8000;
    static final long TARGET = DATA + 0x180;

    /** Encodings with a 0x11223344 rip-relative placeholder, which the test points at TARGET. */
    static final String[] RIP_RELATIVE = {
        "48 8b 05 44 33 22 11", "48 89 0d 44 33 22 11", "48 8d 15 44 33 22 11", "48 83 05 44 33 22 11 05",
        "81 3d 44 33 22 11 78 56 34 12", "c7 05 44 33 22 11 f0 de bc 9a", "8b 35 44 33 22 11",
        "8b 3d 44 33 22 11", "4c 8b 05 44 33 22 11", "0f b6 05 44 33 22 11", "38 05 44 33 22 11",
        "f2 48 0f 2c 05 44 33 22 11", "c4 e2 48 f2 3d 44 33 22 11", "c4 e3 7b f0 05 44 33 22 11 03",
        "c4 e2 71 f7 05 44 33 22 11", "c5 fb 2c 05 44 33 22 11", "c5 c8 58 3d 44 33 22 11",
        "c5 cd fe 3d 44 33 22 11", "f3 0f 6f 1d 44 33 22 11", "0f 11 2d 44 33 22 11",
        "6b 0d 44 33 22 11 77", "f0 0f c1 1d 44 33 22 11", "0f b1 15 44 33 22 11",
        "67 8b 05 44 33 22 11", "62 f1 4d 48 fe 3d 44 33 22 11", "48 0f a3 0d 44 33 22 11",
        "0f 95 05 44 33 22 11", "66 0f 38 00 2d 44 33 22 11", "c4 e2 79 18 35 44 33 22 11",
        "f3 0f 10 3d 44 33 22 11",
    };
    /** Far from their target these must be refused: they use rsp, which the far form moves. */
    static final String[] FAR_REFUSED = {"88 25 44 33 22 11", "48 8b 25 44 33 22 11", "8f 05 44 33 22 11",
        "48 89 25 44 33 22 11"};
    static final String[] PLAIN = {"48 01 d8", "48 0f af d1", "48 87 f7", "48 89 e5", "48 83 ec 28",
        "48 8d 44 9c 08", "0f 05", "f3 48 ab", "c5 f9 6f c6", "99", "48 c7 c0 ff ff ff ff"};

    /** Encodings that need a CPU feature beyond x86-64-v3, by /proc/cpuinfo flag. */
    static final Map<String, String> NEEDS = Map.of("62 f1 4d 48 fe 3d 44 33 22 11", "avx512f");

    /** True when this CPU has {@code flag} (a word of /proc/cpuinfo's flags line). */
    static boolean cpuHas(String flag) throws java.io.IOException {
        return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo")).stream()
                .filter(l -> l.startsWith("flags"))
                .findFirst()
                .map(l -> List.of(l.substring(l.indexOf(':') + 1).trim().split("\\s+")).contains(flag))
                .orElse(false);
    }

    static long[] regs() {
        long[] r = new long[17];
        for (int i = 0; i < 16; i++) {
            r[i] = 0x11L * (i + 1);
        }
        r[0] = 39; // getpid, for the syscall case
        r[4] = RSP;
        r[7] = DATA + 0x800; // rdi for stos
        r[1] = 3;
        r[16] = 0x203;
        return r;
    }

    static Instruction decoded(String hex, long pc) throws IsaException {
        byte[] b = NativeCpu.hex(hex);
        Instruction insn = Decoder.decode(b, 0, b.length, pc);
        if (insn.ripRelative()) {
            int disp = (int) (TARGET - (pc + b.length));
            for (int k = 0; k < 4; k++) {
                b[insn.dispOffset() + k] = (byte) (disp >>> (8 * k));
            }
            insn = Decoder.decode(b, 0, b.length, pc);
        }
        assertEquals(b.length, insn.length(), hex);
        return insn;
    }

    @Test
    void relocatedCopiesBehaveLikeTheOriginal() throws Exception {
        List<String> all = new ArrayList<>(List.of(RIP_RELATIVE));
        all.addAll(List.of(PLAIN));
        all.addAll(List.of(FAR_REFUSED));
        List<String> unsupported = new ArrayList<>();
        for (Map.Entry<String, String> e : NEEDS.entrySet()) {
            if (!cpuHas(e.getValue())) {
                all.remove(e.getKey()); // the CPU would raise SIGILL: nothing to compare with
                unsupported.add(e.getKey() + " (no " + e.getValue() + ")");
            }
        }
        List<NativeCpu.Case> cases = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        int refused = 0;
        for (String hex : all) {
            Instruction insn = decoded(hex, AT);
            NativeCpu.Placement original = new NativeCpu.Placement(AT, insn.bytes());
            cases.add(new NativeCpu.Case(AT, List.of(original), regs()));
            labels.add(hex + " original");
            for (long slot : new long[] {NEAR_SLOT, FAR_SLOT}) {
                byte[] copy;
                try {
                    copy = Relocator.outOfLine(insn, slot);
                } catch (IsaException e) {
                    if (slot == FAR_SLOT && List.of(FAR_REFUSED).contains(hex)) {
                        refused++;
                        cases.add(new NativeCpu.Case(AT, List.of(original), regs())); // keep pairs aligned
                        labels.add(hex + " refused");
                        continue;
                    }
                    throw new AssertionError(hex + " at " + Long.toHexString(slot) + ": " + e.getMessage());
                }
                assertTrue(copy.length <= Relocator.MAX_SIZE);
                if (slot == NEAR_SLOT && !hex.startsWith("67") && insn.kind() != Instruction.Kind.SYSCALL) { // eip-relative always uses the scratch form
                    assertEquals(insn.length() + 14, copy.length, "near copy of " + hex + " needs no scratch");
                }
                if (slot == FAR_SLOT && List.of(FAR_REFUSED).contains(hex)) {
                    fail("far copy of " + hex + " should have been refused");
                }
                cases.add(new NativeCpu.Case(slot, List.of(original, new NativeCpu.Placement(slot, copy)), regs()));
                labels.add(hex + " from " + Long.toHexString(slot) + " [" + HexFormat.of().formatHex(copy) + "]");
            }
        }
        List<NativeCpu.Result> results = NativeCpu.run(cases);
        List<String> failures = new ArrayList<>();
        int compared = 0;
        for (int k = 0; k < cases.size(); k += 3) {
            NativeCpu.Result orig = results.get(k);
            long len = cases.get(k).placements().get(0).bytes().length;
            if (orig.sig() != 5 || orig.pc() != AT + len) {
                failures.add(labels.get(k) + ": did not run natively (signal " + orig.sig() + " at "
                        + Long.toHexString(orig.pc()) + ")");
                continue;
            }
            for (int j = 1; j <= 2; j++) {
                if (labels.get(k + j).endsWith("refused")) {
                    continue;
                }
                String why = differs(orig, results.get(k + j), AT + len);
                if (why != null) {
                    failures.add(labels.get(k + j) + ": " + why);
                }
                compared++;
            }
        }
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures));
        }
        System.out.println("relocator: " + compared + " relocated copies match the original on the CPU ("
                + all.size() + " instructions, " + refused + " refused far"
                + (unsupported.isEmpty() ? "" : "; not run on this CPU: " + unsupported) + ")");
        assertEquals(FAR_REFUSED.length, refused);
    }

    private static String differs(NativeCpu.Result want, NativeCpu.Result got, long back) {
        if (got.sig() != 5 || got.pc() != back) {
            return "ended with signal " + got.sig() + " at " + Long.toHexString(got.pc());
        }
        for (int i = 0; i < 16; i++) {
            if (want.regs()[i] != got.regs()[i]) {
                return "reg " + i + " " + Long.toHexString(got.regs()[i]) + " != " + Long.toHexString(want.regs()[i]);
            }
        }
        if ((want.regs()[16] & NativeCpu.FLAGS) != (got.regs()[16] & NativeCpu.FLAGS)) {
            return "flags";
        }
        if (!want.xmm().equals(got.xmm())) {
            return "xmm registers differ";
        }
        Map<Long, String> a = bytes(want.memory()), b = bytes(got.memory());
        if (!a.equals(b)) {
            return "memory " + b + " != " + a;
        }
        return null;
    }

    /** Changed bytes by address, without the far form's save area below the red zone. */
    private static Map<Long, String> bytes(String diff) {
        Map<Long, String> m = new TreeMap<>();
        if (diff.isBlank()) {
            return m;
        }
        for (String run : diff.split(" ")) {
            String[] p = run.split(":");
            long addr = Long.parseUnsignedLong(p[0], 16);
            for (int i = 0; i < p[1].length() / 2; i++) {
                long a = addr + i;
                if (a < RSP - 128 && a >= RSP - 256) {
                    continue;
                }
                m.put(a, p[1].substring(2 * i, 2 * i + 2));
            }
        }
        return m;
    }

    @Test
    void badInputThrowsIsaException() {
        Instruction empty = new Instruction(AT, new byte[0], 0, 0, 0, -1, -1, 0, -1, 0, true, Instruction.Kind.OTHER);
        Instruction lying = new Instruction(AT, NativeCpu.hex("48 8b 05"), 0, 0, 0x8b, 2, 3, 4, -1, 0, true,
                Instruction.Kind.OTHER);
        Instruction wrongOffsets = new Instruction(AT, NativeCpu.hex("48 8b 05 00 00 00 00"), 0, 0, 0x8b, 1, 2, 4, -1, 0,
                true, Instruction.Kind.OTHER);
        for (Instruction insn : List.of(empty, lying, wrongOffsets)) {
            try {
                Relocator.outOfLine(insn, FAR_SLOT);
                fail("relocated " + HexFormat.of().formatHex(insn.bytes()));
            } catch (IsaException expected) {
                // good
            }
        }
    }
}
