package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.EnumMap;
import java.util.Map;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.Isa.Displacement;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.RegisterFile;
import org.junit.jupiter.api.Test;

/** The displacement policy and its wiring into the Amd64Isa service methods. */
class DisplacementPolicyTest {

    private final Isa isa = new Amd64Isa();

    private Displacement of(String hex) throws IsaException {
        byte[] b = NativeCpu.hex(hex);
        return isa.displacement(isa.decode(b, 0, 0x401000));
    }

    @Test
    void fasttrapsChoices() throws IsaException {
        String[] emulate = {"c3", "f3 c3", "c2 08 00", "eb 10", "e9 00 01 00 00", "e8 00 01 00 00", "74 05",
            "0f 85 00 01 00 00", "e2 fe", "e3 10", "ff e0", "41 ff 24 c4", "ff 15 00 10 00 00", "55", "41 57",
            "6a 00", "68 00 01 00 00", "ff 35 00 10 00 00", "90", "66 90", "f3 90", "0f 1f 44 00 00",
            "f3 0f 1e fa"};
        String[] outOfLine = {"48 89 e5", "48 83 ec 28", "0f 05", "48 8b 05 00 10 00 00", "41 90", "cd 80",
            "c5 f9 6f c6", "8f 05 00 10 00 00", "c6 f8 01"};
        String[] refuse = {"cc", "f4", "0f 0b", "ff 2c 24", "ff 1c 24", "cb", "ca 08 00", "48 cf",
            "c7 f8 00 01 00 00", "0f 34", "f1"};
        for (String h : emulate) {
            assertEquals(Displacement.EMULATE, of(h), h);
        }
        for (String h : outOfLine) {
            assertEquals(Displacement.OUT_OF_LINE, of(h), h);
        }
        for (String h : refuse) {
            assertEquals(Displacement.REFUSE, of(h), h);
        }
    }

    @Test
    void serviceMethodsAreWired() throws IsaException {
        RegisterFile regs = isa.newRegisterFile();
        assertEquals(Amd64Registers.SLOTS, regs.raw().length);
        regs.setPc(0x401000);
        byte[] jmp = NativeCpu.hex("eb 10");
        isa.emulate(isa.decode(jmp, 0, 0x401000), regs, new NativeCpu.SimMemory(java.util.List.of()));
        assertEquals(0x401012, regs.pc());
        byte[] mov = NativeCpu.hex("48 8b 05 00 10 00 00");
        byte[] copy = isa.outOfLine(isa.decode(mov, 0, 0x401000), 0x402000);
        assertTrue(copy.length <= isa.outOfLineMaxSize());
        assertEquals(0x1000 + 0x401007 - 0x402007, (copy[3] & 0xFF) | (copy[4] & 0xFF) << 8 | copy[5] << 16 | copy[6] << 24);
        assertEquals(10, isa.abi().uregNumber("R_RAX"));
    }

    /**
     * Every instruction of every function in libc: the policy always answers, emulation and
     * relocation of what it chooses never throw anything but IsaException.
     */
    @Test
    void everyLibcInstructionGetsAnAnswer() throws Exception {
        Map<Displacement, Integer> counts = new EnumMap<>(Displacement.class);
        int emulated = 0, relocated = 0;
        try (ElfFile elf = ElfFile.open(RealBinaries.LIBC)) {
            for (ElfSymbol fn : elf.functions()) {
                byte[] code;
                try {
                    code = elf.bytes(fn);
                } catch (Exception e) {
                    continue;
                }
                long pc = fn.value();
                for (int off = 0; off < code.length;) {
                    Instruction insn;
                    try {
                        insn = isa.decode(code, off, pc + off);
                    } catch (IsaException e) {
                        break;
                    }
                    Displacement d = isa.displacement(insn);
                    counts.merge(d, 1, Integer::sum);
                    try {
                        if (d == Displacement.EMULATE) {
                            RegisterFile regs = isa.newRegisterFile();
                            regs.setPc(insn.pc());
                            regs.setSp(NativeCpu.STACK + 0x8000);
                            isa.emulate(insn, regs, new NativeCpu.SimMemory(java.util.List.of()));
                            emulated++;
                        } else if (d == Displacement.OUT_OF_LINE) {
                            for (long slot : new long[] {insn.pc() + 0x10000, 0x7f00_0000_0000L}) {
                                try {
                                    assertTrue(isa.outOfLine(insn, slot).length <= isa.outOfLineMaxSize());
                                    relocated++;
                                } catch (IsaException refusedFar) {
                                    if (slot != 0x7f00_0000_0000L) {
                                        throw refusedFar;
                                    }
                                }
                            }
                        }
                    } catch (IsaException faultOrRefusal) {
                        // an emulated memory access outside the model, or a refused far copy
                    } catch (RuntimeException e) {
                        fail(fn.name() + "+" + off + ": " + e);
                    }
                    off += insn.length();
                }
            }
        }
        System.out.println("libc displacement: " + counts + ", emulated " + emulated + ", relocated copies "
                + relocated);
        assertTrue(counts.getOrDefault(Displacement.EMULATE, 0) > 10_000);
        assertTrue(counts.getOrDefault(Displacement.OUT_OF_LINE, 0) > 100_000);
    }
}
