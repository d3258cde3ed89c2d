package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.SdtNote;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.SdtArgument;
import org.junit.jupiter.api.Test;

class SdtArgsTest {

    private final Amd64Abi abi = new Amd64Abi();

    @Test
    void parsesEveryArgumentOfTheSdtNotesOnThisMachine() throws Exception {
        Map<String, Integer> binaries = Map.of("/usr/bin/python3.11", 8,
                "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", 531);
        int specs = 0;
        List<String> failed = new ArrayList<>();
        for (var e : binaries.entrySet()) {
            try (ElfFile elf = ElfFile.open(Path.of(e.getKey()))) {
                List<SdtNote> notes = elf.sdtNotes();
                assertEquals(e.getValue(), notes.size(), e.getKey());
                for (SdtNote n : notes) {
                    for (String spec : n.argumentList()) {
                        specs++;
                        try {
                            SdtArgument a = abi.parseSdtArgument(spec);
                            assertTrue(a.operand() instanceof SdtOperand, spec);
                            assertEquals(spec, a.text());
                        } catch (IsaException x) {
                            failed.add(n.provider() + ":" + n.name() + " " + spec + ": " + x.getMessage());
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), failed);
        System.out.println("sdt: parsed " + specs + " argument specs from " + binaries.size() + " binaries");
        assertTrue(specs > 1000);
    }

    @Test
    void evaluatesEveryOperandFormWithExtensionBySize() throws IsaException {
        Amd64Registers r = new Amd64Registers();
        r.setGpr(0, 0x1234_5678_9ABC_DEF0L); // rax
        r.setGpr(7, 0x1_8000_0000L);         // rdi
        r.setGpr(6, 0x80);                   // rsi
        r.setGpr(12, 0xFFFF_FFFF_FFFF_FF7FL); // r12
        r.setGpr(5, NativeCpu.DATA + 0x100); // rbp
        r.setSp(NativeCpu.DATA + 0x200);
        r.setGpr(2, NativeCpu.DATA + 0x300); // rdx
        r.setGpr(3, 3);                      // rbx as index
        r.raw()[Amd64Registers.FS_BASE] = NativeCpu.DATA + 0x400;
        r.setPc(NativeCpu.CODE + 0x10);
        NativeCpu.SimMemory mem = new NativeCpu.SimMemory(List.of(
                new NativeCpu.Placement(NativeCpu.DATA + 0xF8, NativeCpu.le64(0xFFFF_FFFF_FFFF_FFF6L)),
                new NativeCpu.Placement(NativeCpu.DATA + 0x270, NativeCpu.le64(0x0000_0000_8000_0001L)),
                new NativeCpu.Placement(NativeCpu.DATA + 0x318, NativeCpu.le64(0x1122_3344_5566_7788L)),
                new NativeCpu.Placement(NativeCpu.DATA + 0x428, NativeCpu.le64(0xCAFE_F00DL)),
                new NativeCpu.Placement(NativeCpu.DATA + 0x40, NativeCpu.le64(4242)),
                new NativeCpu.Placement(NativeCpu.DATA + 0x50, NativeCpu.le64(-3))));
        Map<String, Long> symbols = Map.of("counter", NativeCpu.DATA + 0x40, "_ZN4Name3varE", NativeCpu.DATA + 0x40);
        Object[][] cases = {
            {"8@%rax", 0x1234_5678_9ABC_DEF0L}, {"-4@%eax", (long) (int) 0x9ABC_DEF0}, {"4@%eax", 0x9ABC_DEF0L},
            {"2@%ax", 0xDEF0L}, {"-2@%ax", (long) (short) 0xDEF0}, {"1@%al", 0xF0L}, {"-1@%al", -16L},
            {"1@%ah", 0xDEL}, {"-1@%ah", (long) (byte) 0xDE}, {"-4@%edi", (long) Integer.MIN_VALUE},
            {"4@%edi", 0x8000_0000L}, {"-1@%sil", -128L}, {"1@%sil", 0x80L}, {"-1@%r12b", 0x7FL},
            {"-2@%r12w", -129L}, {"-8@%r12", -129L}, {"%rax", 0x1234_5678_9ABC_DEF0L},
            {"8@-8(%rbp)", -10L}, {"-4@-8(%rbp)", -10L}, {"4@-8(%rbp)", 0xFFFF_FFF6L},
            {"-4@112(%rsp)", 0x8000_0001L - 0x1_0000_0000L}, {"8@112(%rsp)", 0x8000_0001L},
            {"8@(%rdx,%rbx,8)", 0x1122_3344_5566_7788L}, {"8@0x12(%rdx,%rbx,2)", 0x1122_3344_5566_7788L},
            {"4@$5", 5L}, {"-4@$-5", -5L}, {"4@$-5", 0xFFFF_FFFBL}, {"8@$0x10", 16L}, {"-1@$255", -1L},
            {"8@counter(%rip)", 4242L}, {"-8@counter+16(%rip)", -3L}, {"4@counter+0x10(%rip)", 0xFFFF_FFFDL},
            {"8@_ZN4Name3varE(%rip)", 4242L}, {"8@%fs:0x28", 0xCAFE_F00DL}, {"8@$counter", NativeCpu.DATA + 0x40},
        };
        for (Object[] c : cases) {
            String spec = (String) c[0];
            SdtArgument a = abi.parseSdtArgument(spec);
            assertEquals((long) c[1], abi.sdtArgumentValue(a, r, mem, symbols::get), spec);
        }
        SdtArgument unmapped = abi.parseSdtArgument("8@0x10(%rsi)");
        assertThrows(IsaException.class, () -> abi.sdtArgumentValue(unmapped, r, mem, symbols::get));
        SdtArgument unknown = abi.parseSdtArgument("8@nosuch(%rip)");
        assertThrows(IsaException.class, () -> abi.sdtArgumentValue(unknown, r, mem, s -> {
            throw new IllegalArgumentException("no symbol " + s);
        }));
        assertThrows(IsaException.class,
                () -> abi.sdtArgumentValue(new SdtArgument(8, "x", "not an operand"), r, mem, symbols::get));
    }

    @Test
    void rejectsMalformedSpecsWithIsaException() {
        String[] bad = {"", " ", "8@", "3@%eax", "16@%rax", "8@%xyz", "8@%", "8@(%rax", "8@(%rax,%rsp,2)",
            "8@(%rax,%rbx,3)", "8@(%eax)", "8@$", "8@$x+y", "8@1(%rip,%rax,1)", "8@%es:", "8@%zz:0x10",
            "8@0x(%rax)", "8@(%rax,%rbx,8,1)", "x@%rax", "8@abc*2", null};
        for (String s : bad) {
            assertThrows(IsaException.class, () -> abi.parseSdtArgument(s), String.valueOf(s));
        }
    }
}
