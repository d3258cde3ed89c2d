package org.jdtrace.bench.isa;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Function analysis speed: every sized function symbol of libjvm.so (about 48,000) analysed as
 * the pid provider would before instrumenting {@code pid$target:libjvm.so::}. Function bytes are
 * read from the ELF file at setup. Target: under one second per pass.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class AnalyzeBenchmark {

    public String file = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so";

    private final Isa isa = new Amd64Isa();
    private final List<byte[]> code = new ArrayList<>();
    private final List<Long> starts = new ArrayList<>();

    @Setup
    public void setup() throws Exception {
        try (ElfFile elf = ElfFile.open(Path.of(file))) {
            for (ElfSymbol s : elf.functions()) {
                code.add(elf.bytes(s));
                starts.add(s.value());
            }
        }
        System.out.printf("%n[analyze] %s: %d functions%n", file, code.size());
    }

    @Benchmark
    public int analyzeAllFunctions() throws IsaException {
        int returns = 0;
        for (int i = 0; i < code.size(); i++) {
            FunctionAnalysis a = isa.analyze(code.get(i), starts.get(i));
            returns += a.returnOffsets().size();
        }
        return returns;
    }

    /** The same including reading each function's bytes from the mapped file. */
    @Benchmark
    public int readAndAnalyzeAllFunctions() throws Exception {
        int returns = 0;
        try (ElfFile elf = ElfFile.open(Path.of(file))) {
            for (ElfSymbol s : elf.functions()) {
                returns += isa.analyze(elf.bytes(s), s.value()).returnOffsets().size();
            }
        }
        return returns;
    }
}
