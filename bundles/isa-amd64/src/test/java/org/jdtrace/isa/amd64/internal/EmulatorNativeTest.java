package org.jdtrace.isa.amd64.internal;

import static org.jdtrace.isa.amd64.internal.NativeCpu.CODE;
import static org.jdtrace.isa.amd64.internal.NativeCpu.DATA;
import static org.jdtrace.isa.amd64.internal.NativeCpu.STACK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;

/**
 * Every emulated form against the CPU: each case runs natively in the isa_harness fixture and in
 * the emulator from the same registers and memory; registers, flags, where control went and every
 * changed byte must agree, and where the CPU faults the emulator must throw and change nothing.
 */
class EmulatorNativeTest {

    /** Where the instruction under test sits (any CODE address; the rest of CODE is int3). */
    static final long AT = CODE + 0x4000;
    static final long RSP = STACK + 0x8000;

    private final List<NativeCpu.Case> cases = new ArrayList<>();
    private final List<String> names = new ArrayList<>();

    /** Initial registers: poison values that land nowhere mapped when misused as addresses. */
    static long[] baseRegs() {
        long[] r = new long[17];
        for (int i = 0; i < 16; i++) {
            r[i] = 0x0BAD_0000_0000_0000L | (long) i << 40 | 0x1234_5678L * (i + 1);
        }
        r[4] = RSP;
        r[16] = 0x202;
        return r;
    }

    private void add(String name, byte[] insn, long[] regs, NativeCpu.Placement... data) {
        List<NativeCpu.Placement> pl = new ArrayList<>();
        pl.add(new NativeCpu.Placement(AT, insn));
        pl.addAll(Arrays.asList(data));
        cases.add(new NativeCpu.Case(AT, pl, regs));
        names.add(name + " [" + HexFormat.of().formatHex(insn) + "]");
    }

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    private static byte[] le32(long v) {
        return Arrays.copyOf(NativeCpu.le64(v), 4);
    }

    private static NativeCpu.Placement at(long addr, byte[] b) {
        return new NativeCpu.Placement(addr, b);
    }

    private void returns() {
        long[] r = baseRegs();
        add("ret", bytes(0xC3), r, at(RSP, NativeCpu.le64(CODE + 0x500)));
        add("rep ret", bytes(0xF3, 0xC3), r, at(RSP, NativeCpu.le64(CODE + 0x500)));
        add("ret $0x18", bytes(0xC2, 0x18, 0x00), r, at(RSP, NativeCpu.le64(CODE + 0x520)));
        add("ret $0xfff8", bytes(0xC2, 0xF8, 0xFF), r, at(RSP, NativeCpu.le64(CODE + 0x520)));
        add("ret to non-canonical", bytes(0xC3), r, at(RSP, NativeCpu.le64(0x8000_0000_0000_1000L)));
        long[] bad = baseRegs();
        bad[4] = 0x7000_0000L;
        add("ret with unmapped rsp", bytes(0xC3), bad);
    }

    private void directBranches() {
        long[] r = baseRegs();
        add("jmp rel8 fwd", bytes(0xEB, 0x30), r);
        add("jmp rel8 back", bytes(0xEB, 0x80), r);
        add("jmp rel32 fwd", concat(bytes(0xE9), le32(0x1234)), r);
        add("jmp rel32 back", concat(bytes(0xE9), le32(-0x3000)), r);
        add("jmp rel32 far unmapped", concat(bytes(0xE9), le32(0x7000_0000)), r);
        add("call rel32", concat(bytes(0xE8), le32(0x400)), r);
        add("call rel32 back", concat(bytes(0xE8), le32(-0x400)), r);
        add("bnd jmp", concat(bytes(0xF2, 0xE9), le32(0x40)), r);
        long[] bad = baseRegs();
        bad[4] = 0x7000_0000L;
        add("call with unmapped rsp", concat(bytes(0xE8), le32(0x400)), bad);
        long[] flagsSet = {0x202, 0x203, 0x206, 0x212, 0x242, 0x282, 0xA02, 0x8C3, 0xA82, 0x2C7, 0xA42, 0x8D7};
        for (int cc = 0; cc < 16; cc++) {
            for (long fl : flagsSet) {
                long[] q = baseRegs();
                q[16] = fl;
                add("j" + cc + " rel8 flags " + Long.toHexString(fl), bytes(0x70 + cc, 0x40), q);
                add("j" + cc + " rel32 flags " + Long.toHexString(fl), concat(bytes(0x0F, 0x80 + cc), le32(-0x1000)), q);
            }
        }
        long[] counts = {0, 1, 2, 0x1_0000_0000L, 0x1_0000_0001L, 0xFFFF_FFFF_0000_0000L, -1};
        for (long rcx : counts) {
            for (long fl : new long[] {0x202, 0x242}) {
                long[] q = baseRegs();
                q[1] = rcx;
                q[16] = fl;
                for (int op = 0xE0; op <= 0xE3; op++) {
                    add("loop" + Integer.toHexString(op) + " rcx=" + Long.toHexString(rcx), bytes(op, 0x50), q);
                    add("addr32 loop" + Integer.toHexString(op) + " rcx=" + Long.toHexString(rcx), bytes(0x67, op, 0xA0), q);
                }
            }
        }
    }

    /**
     * jmp/call/push through every ModRM and SIB form. The base register points into DATA (or the
     * stack for rsp), the index holds a small count, and the pointer sits where the CPU (if the
     * encoding means what we think) will read it.
     */
    private void indirect() {
        int[] exts = {2, 4, 6};
        for (int ext : exts) {
            for (int hw = 0; hw < 16; hw++) {
                long[] r = baseRegs();
                if (hw != 4) {
                    r[hw] = CODE + 0x600 + hw * 16;
                }
                add("ff/" + ext + " reg " + hw, concat(hw >= 8 ? bytes(0x41) : new byte[0], bytes(0xFF, 0xC0 | ext << 3 | (hw & 7))), r);
            }
            for (int rexB = 0; rexB < 2; rexB++) {
                for (int mod = 0; mod < 3; mod++) {
                    for (int rm = 0; rm < 8; rm++) {
                        if (rm == 4) {
                            sib(ext, rexB, mod);
                            continue;
                        }
                        byte[] disp = mod == 1 ? bytes(0x28) : mod == 2 ? le32(0x1238) : new byte[0];
                        long[] r = baseRegs();
                        long ea;
                        if (mod == 0 && rm == 5) {
                            int len = 2 + rexB + 4;
                            disp = le32(DATA + 0x100 - (AT + len));
                            ea = DATA + 0x100;
                        } else {
                            int base = rm | rexB << 3;
                            r[base] = DATA + 0x2000;
                            ea = DATA + 0x2000 + (mod == 1 ? 0x28 : mod == 2 ? 0x1238 : 0);
                        }
                        byte[] insn = concat(rexB == 1 ? bytes(0x41) : new byte[0], bytes(0xFF, mod << 6 | ext << 3 | rm), disp);
                        add("ff/" + ext + " mod" + mod + " rm" + rm + " rexB" + rexB, insn, r,
                                at(ea, NativeCpu.le64(CODE + 0x700 + rm * 8)));
                        // the same with garbage behind it: a pattern-filled DATA word is not canonical
                        add("ff/" + ext + " mod" + mod + " rm" + rm + " rexB" + rexB + " garbage", insn, r);
                    }
                }
            }
        }
        // hand-picked encodings called out as tricky
        long[] r = baseRegs();
        r[12] = DATA + 0x3000;
        r[0] = 5;
        add("call *(%r12,%rax,8)", bytes(0x41, 0xFF, 0x14, 0xC4), r, at(DATA + 0x3028, NativeCpu.le64(CODE + 0x880)));
        r = baseRegs();
        r[12] = DATA + 0x3000;
        r[6] = 7;
        add("jmp *(%r12,%rsi,8)", bytes(0x41, 0xFF, 0x24, 0xF4), r, at(DATA + 0x3038, NativeCpu.le64(CODE + 0x888)));
        r = baseRegs();
        r[13] = DATA + 0x3000;
        add("jmp *0x0(%r13)", bytes(0x41, 0xFF, 0x65, 0x00), r, at(DATA + 0x3000, NativeCpu.le64(CODE + 0x890)));
        add("jmp *disp32 (no base)", concat(bytes(0xFF, 0x24, 0x25), le32(DATA + 0x40)), baseRegs(),
                at(DATA + 0x40, NativeCpu.le64(CODE + 0x898)));
        r = baseRegs();
        r[0] = 0xFFFF_FFFF_0000_0000L | (DATA + 0x50);
        add("addr32 jmp *(%eax)", bytes(0x67, 0xFF, 0x20), r, at(DATA + 0x50, NativeCpu.le64(CODE + 0x8A0)));
        r = baseRegs();
        r[0] = DATA + 0x60;
        add("notrack jmp *(%rax)", bytes(0x3E, 0xFF, 0x20), r, at(DATA + 0x60, NativeCpu.le64(CODE + 0x8A8)));
        add("jmp *(%rsp)", bytes(0xFF, 0x24, 0x24), baseRegs(), at(RSP, NativeCpu.le64(CODE + 0x8B0)));
        add("call *(%rsp)", bytes(0xFF, 0x14, 0x24), baseRegs(), at(RSP, NativeCpu.le64(CODE + 0x8B8)));
        add("push (%rsp)", bytes(0xFF, 0x34, 0x24), baseRegs());
        add("push 8(%rsp)", bytes(0xFF, 0x74, 0x24, 0x08), baseRegs());
        r = baseRegs();
        r[0] = 0x7000_0000L;
        add("jmp *(%rax) unmapped", bytes(0xFF, 0x20), r);
        add("call *(%rax) unmapped", bytes(0xFF, 0x10), r);
    }

    private void sib(int ext, int rexB, int mod) {
        for (int rexX = 0; rexX < 2; rexX++) {
            for (int scale = 0; scale < 4; scale++) {
                for (int idx = 0; idx < 8; idx++) {
                    for (int bs = 0; bs < 8; bs++) {
                        int index = idx | rexX << 3;
                        boolean noIndex = index == 4;
                        boolean noBase = bs == 5 && mod == 0;
                        int base = bs | rexB << 3;
                        long[] r = baseRegs();
                        long ea;
                        byte[] disp = mod == 1 ? bytes(0xF0) : mod == 2 || noBase ? le32(noBase ? DATA + 0x500 : 0x1100) : new byte[0];
                        long d = mod == 1 ? -0x10 : noBase ? DATA + 0x500 : mod == 2 ? 0x1100 : 0;
                        long baseVal = 0, indexVal = 0;
                        if (!noBase && !noIndex && base == index) {
                            long v = (DATA + 0x4000) / (1 + (1L << scale));
                            r[base] = v;
                            baseVal = v;
                            indexVal = v;
                        } else {
                            if (!noBase) {
                                baseVal = base == 4 ? RSP : DATA + 0x2000;
                                r[base] = baseVal;
                            }
                            if (!noIndex) {
                                indexVal = 3;
                                if (index == 4) {
                                    throw new AssertionError();
                                }
                                r[index] = indexVal;
                            }
                        }
                        ea = baseVal + (indexVal << scale) + d;
                        int prefix = (rexB == 1 || rexX == 1) ? 0x40 | rexX << 1 | rexB : 0;
                        byte[] insn = concat(prefix != 0 ? bytes(prefix) : new byte[0],
                                bytes(0xFF, mod << 6 | ext << 3 | 4, scale << 6 | idx << 3 | bs), disp);
                        add("ff/" + ext + " sib mod" + mod + " s" + scale + " i" + index + " b" + base
                                + (noBase ? " nobase" : ""), insn, r, at(ea, NativeCpu.le64(CODE + 0x900 + bs * 8)));
                    }
                }
            }
        }
    }

    private void pushesAndNops() {
        for (int hw = 0; hw < 16; hw++) {
            byte[] insn = concat(hw >= 8 ? bytes(0x41) : new byte[0], bytes(0x50 | (hw & 7)));
            add("push reg " + hw, insn, baseRegs());
            add("pushw reg " + hw, concat(bytes(0x66), insn), baseRegs());
        }
        add("push %rbp with REX.W", bytes(0x48, 0x55), baseRegs());
        add("push imm8", bytes(0x6A, 0x85), baseRegs());
        add("push imm8 positive", bytes(0x6A, 0x7F), baseRegs());
        add("push imm32", concat(bytes(0x68), le32(0x8765_4321L)), baseRegs());
        add("pushw imm16", bytes(0x66, 0x68, 0x34, 0x92), baseRegs());
        add("pushw imm8", bytes(0x66, 0x6A, 0xF0), baseRegs());
        long[] r = baseRegs();
        r[3] = DATA + 0x200;
        add("push 0x10(%rbx)", bytes(0xFF, 0x73, 0x10), r);
        add("pushw 0x10(%rbx)", bytes(0x66, 0xFF, 0x73, 0x10), r);
        add("push rip-relative", concat(bytes(0xFF, 0x35), le32(DATA + 0x300 - (AT + 6))), r);
        long[] bad = baseRegs();
        bad[4] = 0x7000_0008L;
        add("push with unmapped rsp", bytes(0x55), bad);
        add("nop", bytes(0x90), baseRegs());
        add("xchg %ax,%ax", bytes(0x66, 0x90), baseRegs());
        add("rex.w nop", bytes(0x48, 0x90), baseRegs());
        add("pause", bytes(0xF3, 0x90), baseRegs());
        add("nopl (%rax)", bytes(0x0F, 0x1F, 0x00), baseRegs());
        add("nopl 0(%rax)", bytes(0x0F, 0x1F, 0x40, 0x00), baseRegs());
        add("nopl 0(%rax,%rax,1)", bytes(0x0F, 0x1F, 0x44, 0x00, 0x00), baseRegs());
        add("nopw 0(%rax,%rax,1)", bytes(0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00), baseRegs());
        add("nopl 0L(%rax)", bytes(0x0F, 0x1F, 0x80, 0, 0, 0, 0), baseRegs());
        add("nopw 0L(%rax,%rax,1)", bytes(0x66, 0x0F, 0x1F, 0x84, 0, 0, 0, 0, 0), baseRegs());
        add("cs nopw 0L(%rax,%rax,1)", bytes(0x66, 0x2E, 0x0F, 0x1F, 0x84, 0, 0, 0, 0, 0), baseRegs());
        add("data16 cs nopw", bytes(0x66, 0x66, 0x2E, 0x0F, 0x1F, 0x84, 0, 0, 0, 0, 0), baseRegs());
        add("endbr64", bytes(0xF3, 0x0F, 0x1E, 0xFA), baseRegs());
        add("endbr32", bytes(0xF3, 0x0F, 0x1E, 0xFB), baseRegs());
    }

    @Test
    void everyEmulatedFormMatchesTheCpu() throws Exception {
        returns();
        directBranches();
        indirect();
        pushesAndNops();
        List<NativeCpu.Result> results = NativeCpu.run(cases);
        List<String> failures = new ArrayList<>();
        int landed = 0, faulted = 0;
        for (int k = 0; k < cases.size(); k++) {
            NativeCpu.Case c = cases.get(k);
            NativeCpu.Result n = results.get(k);
            String why = compare(c, n);
            if (why != null) {
                failures.add(names.get(k) + ": " + why);
            } else if (n.landed(c.entry()) >= 0) {
                landed++;
            } else {
                faulted++;
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + cases.size() + " cases differ from the CPU:\n"
                    + String.join("\n", failures.subList(0, Math.min(40, failures.size()))));
        }
        System.out.println("emulator: " + cases.size() + " cases match the CPU (" + landed + " transfers, "
                + faulted + " faults)");
        assertTrue(faulted > 0 && landed > 1000);
    }

    static String compare(NativeCpu.Case c, NativeCpu.Result n) {
        byte[] code = c.placements().get(0).bytes();
        Instruction insn;
        try {
            insn = Decoder.decode(code, 0, code.length, c.entry());
        } catch (IsaException e) {
            return "decoder: " + e.getMessage();
        }
        if (insn.length() != code.length) {
            return "decoder length " + insn.length();
        }
        Amd64Registers regs = NativeCpu.registers(c.regs(), c.entry());
        Amd64Registers before = regs.copy();
        NativeCpu.SimMemory mem = new NativeCpu.SimMemory(c.placements());
        long landed = n.landed(c.entry());
        try {
            Emulator.emulate(insn, regs, mem);
        } catch (IsaException e) {
            if (landed >= 0) {
                return "emulator threw " + e.getMessage() + " but the CPU went to " + Long.toHexString(landed);
            }
            if (!Arrays.equals(before.raw(), regs.raw()) || !mem.diff().isEmpty()) {
                return "emulator changed state before it threw";
            }
            return null;
        }
        if (landed < 0) {
            return "CPU faulted (signal " + n.sig() + " at " + Long.toHexString(n.pc()) + ") but the emulator went to "
                    + Long.toHexString(regs.pc());
        }
        if (regs.pc() != landed) {
            return "pc " + Long.toHexString(regs.pc()) + " != CPU " + Long.toHexString(landed);
        }
        long[] got = NativeCpu.hwAndFlags(regs);
        for (int i = 0; i < 16; i++) {
            if (got[i] != n.regs()[i]) {
                return "reg " + i + " " + Long.toHexString(got[i]) + " != CPU " + Long.toHexString(n.regs()[i]);
            }
        }
        if ((got[16] & NativeCpu.FLAGS) != (n.regs()[16] & NativeCpu.FLAGS)) {
            return "flags differ";
        }
        String diff = mem.diff();
        if (!diff.equals(n.memory())) {
            return "memory [" + diff + "] != CPU [" + n.memory() + "]";
        }
        return null;
    }

    @Test
    void refusesWhatItDoesNotEmulate() {
        byte[][] refused = {
            bytes(0x66, 0xC3), bytes(0x66, 0xEB, 0x10), bytes(0x41, 0x90), bytes(0x0F, 0x05), bytes(0xCC),
            bytes(0x48, 0x89, 0xE5), bytes(0xFF, 0x28), bytes(0x0F, 0x1F, 0x48, 0x00), bytes(0xF0, 0xFF, 0x30),
        };
        for (byte[] b : refused) {
            Instruction insn = TestInstructions.raw(AT, b);
            assertEquals(false, Emulator.canEmulate(insn), HexFormat.of().formatHex(b));
            try {
                Emulator.emulate(insn, new Amd64Registers(), new NativeCpu.SimMemory(List.of()));
                fail("emulated " + HexFormat.of().formatHex(b));
            } catch (IsaException expected) {
                // refused
            }
        }
    }

    @Test
    void truncatedOrMislengthedBytesThrowIsaException() {
        byte[] full = concat(bytes(0x41, 0xFF, 0x94, 0xC4), le32(0x100));
        for (int len = 0; len < full.length; len++) {
            Instruction insn = TestInstructions.raw(AT, Arrays.copyOf(full, len));
            assertThrowsIsa(insn);
        }
        assertThrowsIsa(TestInstructions.raw(AT, bytes(0xC3, 0x90)));
        assertThrowsIsa(TestInstructions.raw(AT, bytes(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                0x66, 0x66, 0x66, 0x66, 0x66, 0x90)));
    }

    private static void assertThrowsIsa(Instruction insn) {
        try {
            Emulator.emulate(insn, new Amd64Registers(), new NativeCpu.SimMemory(List.of()));
            fail("no exception for " + HexFormat.of().formatHex(insn.bytes()));
        } catch (IsaException expected) {
            // good
        } catch (RuntimeException e) {
            fail("threw " + e + " for " + HexFormat.of().formatHex(insn.bytes()));
        }
    }
}
