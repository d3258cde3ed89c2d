package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Instruction.Kind;
import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;

/** Function analysis on real functions: the isa_zoo fixture, libc and libjvm. */
class FunctionAnalyzerTest {

    static final Path ZOO = RealBinaries.FIXTURES.resolve("isa_zoo");

    private final Amd64Isa isa = new Amd64Isa();

    private FunctionAnalysis analyze(ElfFile elf, String name) throws Exception {
        ElfSymbol s = elf.symbol(name).orElseThrow();
        return isa.analyze(elf.bytes(s), s.value());
    }

    private static List<Integer> offsetsOf(FunctionAnalysis a, Kind kind) {
        List<Integer> l = new ArrayList<>();
        for (Instruction i : a.instructions()) {
            if (i.kind() == kind) {
                l.add((int) (i.pc() - a.start()));
            }
        }
        return l;
    }

    @Test
    void switchJumpTableIsNotAReturn() throws Exception {
        try (ElfFile elf = ElfFile.open(ZOO)) {
            FunctionAnalysis a = analyze(elf, "zoo_switch");
            assertTrue(a.instrumentable(), a.refusal());
            assertEquals(1, offsetsOf(a, Kind.JMP_INDIRECT).size(), "the dispatch jmp *%reg");
            List<Integer> rets = offsetsOf(a, Kind.RET);
            assertTrue(rets.size() >= 8, "one ret per case");
            assertEquals(rets, a.returnOffsets());
            int tiled = 0;
            for (Instruction i : a.instructions()) {
                assertEquals(a.start() + tiled, i.pc());
                tiled += i.length();
            }
            assertEquals(a.size(), tiled);
        }
    }

    @Test
    void tailCallsAreReturns() throws Exception {
        try (ElfFile elf = ElfFile.open(ZOO)) {
            FunctionAnalysis a = analyze(elf, "zoo_tail");
            assertTrue(a.instrumentable(), a.refusal());
            List<Integer> jumps = offsetsOf(a, Kind.JMP_REL);
            assertFalse(jumps.isEmpty(), "gcc turns both calls into jmps");
            List<Integer> expected = new ArrayList<>(offsetsOf(a, Kind.RET));
            expected.addAll(jumps);
            expected.sort(null);
            assertEquals(expected, a.returnOffsets());
            // A jmp inside the function is not a return: zoo_goto jumps back into its loop.
            FunctionAnalysis g = analyze(elf, "zoo_goto");
            assertTrue(g.instrumentable(), g.refusal());
            assertFalse(offsetsOf(g, Kind.JMP_REL).isEmpty());
            assertEquals(offsetsOf(g, Kind.RET), g.returnOffsets(), "computed goto and loop jumps stay inside");
        }
    }

    @Test
    void referencesIntoTheMiddleOfInstructionsAreRefused() throws Exception {
        try (ElfFile elf = ElfFile.open(ZOO)) {
            FunctionAnalysis a = analyze(elf, "zoo_encodings");
            assertFalse(a.instrumentable());
            assertTrue(a.refusal().contains("into the middle of an instruction or data"), a.refusal());
            assertTrue(a.returnOffsets().isEmpty());
        }
    }

    @Test
    void truncatedAndUndecodableFunctionsAreRefused() throws Exception {
        try (ElfFile elf = ElfFile.open(ZOO)) {
            ElfSymbol s = elf.symbol("zoo_switch").orElseThrow();
            byte[] code = elf.bytes(s);
            FunctionAnalysis cut = isa.analyze(java.util.Arrays.copyOf(code, 0x10), s.value()); // inside movslq at +0xe
            assertFalse(cut.instrumentable());
            assertTrue(cut.refusal().contains("runs past the end"), cut.refusal());
            byte[] bad = code.clone();
            bad[0x0c] = 0x06; // push %es: invalid in 64-bit mode
            FunctionAnalysis b = isa.analyze(bad, s.value());
            assertFalse(b.instrumentable());
            assertTrue(b.refusal().startsWith("cannot decode at +0xc"), b.refusal());
            assertThrows(IsaException.class, () -> isa.analyze(new byte[0], 0));
        }
    }

    @Test
    void wholeLibrariesAnalyse() throws Exception {
        for (Path file : List.of(RealBinaries.LIBC, RealBinaries.LIBJVM)) {
            Map<String, Integer> reasons = new TreeMap<>();
            int ok = 0;
            int all = 0;
            long returns = 0;
            try (ElfFile elf = ElfFile.open(file)) {
                for (ElfSymbol s : elf.functions()) {
                    FunctionAnalysis a = isa.analyze(elf.bytes(s), s.value());
                    all++;
                    if (a.instrumentable()) {
                        ok++;
                        returns += a.returnOffsets().size();
                        java.util.Set<Long> starts = new java.util.HashSet<>();
                        a.instructions().forEach(i -> starts.add(i.pc()));
                        for (int r : a.returnOffsets()) {
                            assertTrue(starts.contains(s.value() + r));
                        }
                    } else {
                        reasons.merge(a.refusal().replaceAll("[+]0x\\p{XDigit}+", "+N").replaceAll("0x\\p{XDigit}+", "A"), 1, Integer::sum);
                    }
                }
            }
            System.out.printf("analysis: %s: %d functions, %d instrumentable, %d return sites; refusals %s%n", file, all, ok,
                    returns, reasons);
            assertTrue(ok > all * 0.95, file + ": most functions are instrumentable");
        }
    }
}
