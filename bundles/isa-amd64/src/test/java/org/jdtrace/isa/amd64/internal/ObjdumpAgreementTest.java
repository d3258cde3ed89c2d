package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;

/**
 * The proof of the decoder: every sized function symbol of real binaries of this machine is
 * decoded linearly from its address to its end, and every instruction boundary must be one
 * GNU objdump reports, with the same length; where objdump prints {@code (bad)} the decoder must
 * refuse, and nowhere else.
 */
class ObjdumpAgreementTest {

    /** Result of one binary. */
    record Result(Path file, int functions, long instructions, long bad, List<String> failures) {}

    @Test
    void everyFunctionOfRealBinariesDecodesAsObjdumpDoes() throws Exception {
        List<Path> files = RealBinaries.all();
        assertTrue(files.size() >= 5, "libc, python and libjvm and the fixtures at least: " + files);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Result>> futures = new ArrayList<>();
        for (Path f : files) {
            futures.add(pool.submit(() -> compare(f)));
        }
        int functions = 0;
        long instructions = 0;
        long bad = 0;
        List<String> failures = new ArrayList<>();
        try {
            for (Future<Result> fu : futures) {
                Result r = fu.get();
                System.out.printf("objdump agreement: %s: %d functions, %d instructions, %d (bad) refused, %d failures%n",
                        r.file(), r.functions(), r.instructions(), r.bad(), r.failures().size());
                functions += r.functions();
                instructions += r.instructions();
                bad += r.bad();
                failures.addAll(r.failures());
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("objdump agreement: %d binaries, %d functions, %d instructions, %d (bad) refused%n",
                files.size(), functions, instructions, bad);
        if (!failures.isEmpty()) {
            fail(failures.size() + " disagreements with objdump, first ones:\n"
                    + String.join("\n", failures.subList(0, Math.min(25, failures.size()))));
        }
        assertTrue(instructions > 1_000_000, "the proof covers millions of instructions");
    }

    static Result compare(Path file) throws ElfException {
        Objdump.Listing listing = Objdump.disassemble(file);
        long[] starts = listing.starts();
        List<String> failures = new ArrayList<>();
        int functions = 0;
        long instructions = 0;
        long bad = 0;
        try (ElfFile elf = ElfFile.open(file)) {
            Set<Long> seen = new HashSet<>();
            for (ElfSymbol sym : elf.functions()) {
                if (!seen.add(sym.value()) || elf.sectionAt(sym.value()).map(s -> !s.executable()).orElse(true)) {
                    continue;
                }
                functions++;
                long start = sym.value();
                int size = (int) sym.size();
                byte[] code = readWithSlack(elf, start, size);
                int k = listing.indexOf(start);
                int off = 0;
                while (off < size && failures.size() < 100) {
                    long a = start + off;
                    while (k < starts.length && starts[k] < a) {
                        k++;
                    }
                    if (k >= starts.length || starts[k] != a) {
                        failures.add(describe(file, sym, a, code, off, "objdump has no instruction here"));
                        break;
                    }
                    boolean objBad = listing.bad().get(k);
                    Instruction insn;
                    try {
                        insn = Decoder.decode(code, off, code.length, a);
                    } catch (IsaException e) {
                        if (!objBad) {
                            failures.add(describe(file, sym, a, code, off, "decoder refused: " + e.getMessage()));
                            break;
                        }
                        bad++;
                        off = k + 1 < starts.length ? (int) (starts[k + 1] - start) : size;
                        continue;
                    }
                    if (objBad) {
                        failures.add(describe(file, sym, a, code, off, "objdump says (bad), decoder accepted "
                                + insn.length() + " bytes"));
                        break;
                    }
                    instructions++;
                    long next = a + insn.length();
                    if (k + 1 < starts.length && starts[k + 1] != next && (next < start + size || starts[k + 1] < next)) {
                        failures.add(describe(file, sym, a, code, off, "decoder length " + insn.length()
                                + ", objdump " + (starts[k + 1] - a)));
                        break;
                    }
                    off += insn.length();
                }
            }
        }
        return new Result(file, functions, instructions, bad, failures);
    }

    /** The function's bytes plus up to 15 following bytes, so an overrunning last instruction decodes. */
    static byte[] readWithSlack(ElfFile elf, long start, int size) throws ElfException {
        for (int slack = Decoder.MAX_LENGTH; slack > 0; slack--) {
            try {
                return elf.read(start, size + slack);
            } catch (ElfException e) {
                // the section ends sooner
            }
        }
        return elf.read(start, size);
    }

    static String describe(Path file, ElfSymbol sym, long a, byte[] code, int off, String what) {
        byte[] around = java.util.Arrays.copyOfRange(code, off, Math.min(code.length, off + 16));
        return file.getFileName() + " " + sym.name() + "+0x" + Long.toHexString(a - sym.value()) + " @0x" + Long.toHexString(a)
                + ": " + what + "; bytes " + HexFormat.ofDelimiter(" ").formatHex(around)
                + "\n    objdump: " + Objdump.text(file, a, a + 16).strip().replace("\n", "\n             ");
    }
}
