package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HexFormat;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Instruction.Kind;
import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;

/** The fields of decoded instructions (lengths are proven against objdump elsewhere). */
class DecoderTest {

    static Instruction d(String hex) throws IsaException {
        byte[] b = HexFormat.of().parseHex(hex.replace(" ", ""));
        return Decoder.decode(b, 0, b.length, 0x1000);
    }

    static void refused(String hex, String why) {
        IsaException e = assertThrows(IsaException.class, () -> d(hex), hex);
        assertTrue(e.getMessage().contains(why), e.getMessage());
        assertEquals(0x1000, e.address());
    }

    /**
     * Isa.maxInstructionLength is the decoder's bound (the CPU's: #GP past 15 bytes): a 15-byte
     * instruction (14 operand-size prefixes and a nop) decodes whole from a buffer of that size;
     * one more prefix is refused.
     */
    @Test
    void theLongestInstructionFitsTheIsasMaximumLength() throws IsaException {
        int max = new Amd64Isa().maxInstructionLength();
        byte[] b = new byte[max];
        java.util.Arrays.fill(b, (byte) 0x66);
        b[max - 1] = (byte) 0x90;
        assertEquals(max, Decoder.decode(b, 0, b.length, 0x1000).length());
        refused("66".repeat(max) + "90", "");
    }

    @Test
    void ripRelativeWithImmediate() throws IsaException {
        Instruction i = d("c5 fd 70 2d 20 00 00 00 1b"); // vpshufd $0x1b,0x20(%rip),%ymm5
        assertEquals(9, i.length());
        assertTrue(i.ripRelative());
        assertEquals(1, i.map());
        assertEquals(0x70, i.opcode());
        assertEquals(3, i.modrmOffset());
        assertEquals(4, i.dispOffset());
        assertEquals(4, i.dispSize());
        assertEquals(8, i.immOffset());
        assertEquals(1, i.immSize());
        assertTrue((i.prefixes() & Prefix.VEX) != 0);
        assertEquals(0x1000 + 9 + 0x20, FunctionAnalyzer.target(i));
    }

    @Test
    void prefixesRexAndOperandSize() throws IsaException {
        Instruction i = d("f0 48 0f b1 0d 10 00 00 00"); // lock cmpxchg %rcx,0x10(%rip)
        assertEquals(Prefix.LOCK | Prefix.REX | Prefix.REX_W, i.prefixes());
        assertEquals(1, i.map());
        assertEquals(0xB1, i.opcode());
        assertTrue(i.ripRelative());
        Instruction w = d("66 c7 44 24 08 34 12"); // movw $0x1234,0x8(%rsp)
        assertEquals(Prefix.OPSIZE, w.prefixes());
        assertEquals(2, w.immSize());
        assertEquals(5, w.immOffset());
        assertEquals(4, w.dispOffset());
        assertEquals(1, w.dispSize());
        assertFalse(w.ripRelative());
        Instruction q = d("48 c7 c0 ff ff ff ff"); // mov $-1,%rax: REX.W keeps imm32
        assertEquals(4, q.immSize());
        assertEquals(-1, q.dispOffset());
        Instruction abs = d("49 bb 88 77 66 55 44 33 22 11"); // movabs $imm64,%r11
        assertEquals(8, abs.immSize());
        assertEquals(Prefix.REX | Prefix.REX_W | Prefix.REX_B, abs.prefixes());
        assertEquals(4, d("67 a1 44 33 22 11").immSize()); // moffs32
        assertEquals(8, d("a1 88 77 66 55 44 33 22 11").immSize()); // moffs64
        Instruction enter = d("c8 34 12 03");
        assertEquals(1, enter.immOffset());
        assertEquals(3, enter.immSize());
        Instruction sib = d("48 8b 14 c5 00 00 00 00"); // mov 0x0(,%rax,8),%rdx: SIB, no base, disp32
        assertEquals(4, sib.dispOffset());
        assertEquals(4, sib.dispSize());
        assertFalse(sib.ripRelative());
    }

    @Test
    void extendedEncodingsCarryTheirMap() throws IsaException {
        Instruction evex = d("62 f6 75 48 98 50 02"); // vfmadd132ph 0x80(%rax),%zmm1,%zmm2
        assertEquals(6, evex.map());
        assertEquals(0x98, evex.opcode());
        assertTrue((evex.prefixes() & Prefix.EVEX) != 0);
        assertEquals(5, evex.modrmOffset());
        assertEquals(1, evex.dispSize());
        Instruction vex3 = d("c4 e3 fd 00 d1 4e"); // vpermq $0x4e,%ymm1,%ymm2
        assertEquals(3, vex3.map());
        assertTrue((vex3.prefixes() & Prefix.REX_W) != 0);
        assertEquals(1, vex3.immSize());
        Instruction xop = d("8f ea 78 10 d8 34 12 00 00"); // bextr $0x1234,%eax,%ebx
        assertEquals(10, xop.map());
        assertEquals(4, xop.immSize());
        assertEquals(2, d("0f 38 f0 07").map());
        assertEquals(3, d("66 0f 3a 0b 00 04").map());
    }

    @Test
    void kinds() throws IsaException {
        assertEquals(Kind.RET, d("c3").kind());
        assertEquals(Kind.RET, d("f3 c3").kind());
        assertEquals(Kind.RET, d("f2 c3").kind());
        assertEquals(Kind.RET_IMM, d("c2 08 00").kind());
        assertEquals(Kind.JMP_REL, d("e9 00 01 00 00").kind());
        assertEquals(Kind.JMP_REL, d("eb fe").kind());
        assertEquals(Kind.JMP_INDIRECT, d("ff e0").kind());
        assertEquals(Kind.JMP_INDIRECT, d("3e ff e0").kind());
        assertEquals(Kind.JMP_INDIRECT, d("ff 25 00 10 00 00").kind());
        assertEquals(Kind.CALL_REL, d("e8 00 00 00 00").kind());
        assertEquals(Kind.CALL_INDIRECT, d("ff 14 d8").kind());
        assertEquals(Kind.JCC, d("74 05").kind());
        assertEquals(Kind.JCC, d("0f 85 00 01 00 00").kind());
        assertEquals(Kind.LOOP, d("e2 00").kind());
        assertEquals(Kind.JRCXZ, d("e3 02").kind());
        assertEquals(Kind.PUSH, d("55").kind());
        assertEquals(Kind.PUSH, d("41 57").kind());
        assertEquals(Kind.NOP, d("90").kind());
        assertEquals(Kind.OTHER, d("49 90").kind()); // xchg %rax,%r8
        assertEquals(Kind.OTHER, d("f3 90").kind()); // pause
        assertEquals(Kind.NOP, d("66 2e 0f 1f 84 00 00 00 00 00").kind());
        assertEquals(Kind.NOP, d("f3 0f 1e fa").kind()); // endbr64
        assertEquals(Kind.INT3, d("cc").kind());
        assertEquals(Kind.SYSCALL, d("0f 05").kind());
        assertEquals(Kind.HLT, d("f4").kind());
        assertEquals(Kind.ILLEGAL, d("0f 0b").kind());
        assertEquals(Kind.OTHER, d("48 89 e5").kind());
        assertEquals(0x1000 + 2 - 2, FunctionAnalyzer.target(d("eb fe")));
        assertEquals(0x1000 + 5 + 0x100, FunctionAnalyzer.target(d("e9 00 01 00 00")));
    }

    @Test
    void fwaitLeadsAnX87Instruction() throws IsaException {
        Instruction fstsw = d("9b dd 7c 24 fe"); // fstsw -0x2(%rsp)
        assertEquals(5, fstsw.length());
        assertEquals(0xDD, fstsw.opcode());
        assertEquals(2, fstsw.modrmOffset());
        assertEquals(4, fstsw.dispOffset());
        Instruction fstcw = d("9b d9 3d 10 00 00 00"); // fstcw 0x10(%rip)
        assertTrue(fstcw.ripRelative());
        assertEquals(3, fstcw.dispOffset());
        assertEquals(1, d("9b 90").length());      // fwait; nop
        assertEquals(2, d("66 9b 0f 0b").length()); // data16 fwait; ud2
    }

    @Test
    void refusals() {
        for (String op : new String[] {"06", "07", "0e", "16", "17", "1e", "1f", "27", "2f", "37", "3f", "60", "61",
            "82 c0 01", "9a 00 00 00 00 00 00", "ce", "d4 0a", "d5 0a", "d6", "ea 00 00 00 00 00 00"}) {
            refused(op, "invalid in 64-bit mode");
        }
        refused("0f 0f c1 9e", "3DNow!");
        refused("48 66 90", "REX prefix not immediately");
        refused("66 e8 00 00", "operand-size prefix on a branch");
        refused("66 c3", "operand-size prefix on a branch");
        refused("fe f8", "undefined opcode map 0 fe");        // inc/dec group: /2-/7 do not exist
        refused("ff ff", "undefined opcode map 0 ff");        // /7
        refused("8d c0", "undefined opcode map 0 8d");        // lea of a register
        refused("0f c7 c8", "undefined opcode map 1 c7");     // cmpxchg8b of a register
        refused("f3 0f 50 c0", "undefined opcode F3 map 1 50"); // movmskps has no F3 form
        refused("c5 f9 50 00", "undefined opcode VEX 66 map 1 50"); // vmovmskpd needs a register
        refused("c4 e2 79 5a 00", "undefined opcode VEX 66 map 2 5a"); // vbroadcasti128 is 256-bit only
        refused("c5 b8 28 c1", "vvvv names a register");      // vmovaps has no vvvv operand
        refused("62 f2 7d 49 90 00", "undefined opcode EVEX 66 map 2 90"); // vpgatherdd needs a SIB (VSIB)
        refused("c4 e2 75 92 04 c8", "gather with overlapping");  // vgatherdps: mask ymm1 = index ymm1
        refused("44 0f 1a 00", "MPX bound register");         // bndldx into bnd8
        refused("c4 e2 7b 5e c1", "registers that must differ"); // tdpbssd %tmm0 twice
        refused("c4 e0 78 10 c0", "undefined VEX map");
        refused("62 f4 7c 48 10 c0", "undefined EVEX");
        refused("66 c5 f8 77", "VEX/EVEX/XOP after");
        refused("48 8b", "truncated");
        refused("e8 00 00 00", "truncated");
        refused("66 ".repeat(15) + "90", "longer than 15");
        refused("2e ".repeat(15) + "90", "longer than 15");
        refused("", "no bytes");
    }

    @Test
    void limitIsRespected() throws IsaException {
        byte[] b = HexFormat.of().parseHex("e800000000c3");
        assertThrows(IsaException.class, () -> Decoder.decode(b, 0, 4, 0));
        assertEquals(5, Decoder.decode(b, 0, 5, 0).length());
        assertEquals(Kind.RET, Decoder.decode(b, 5, 6, 5).kind());
        assertThrows(IsaException.class, () -> Decoder.decode(b, 6, 6, 6));
        assertThrows(IsaException.class, () -> Decoder.decode(b, -1, 6, 0));
        assertThrows(IsaException.class, () -> Decoder.decode(b, 0, 7, 0));
        assertEquals(14, d("66 66 66 66 66 66 66 66 66 66 66 66 66 90").length());
    }
}
