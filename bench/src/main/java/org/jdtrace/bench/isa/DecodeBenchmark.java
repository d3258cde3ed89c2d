package org.jdtrace.bench.isa;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSection;
import org.jdtrace.isa.Instruction;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Length decoding speed: libc's whole .text decoded linearly, one instruction after another
 * (a byte that does not decode is skipped). The score is one pass; MB/s = text size / score
 * (the size is printed at setup). Target: at least 50 MB/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class DecodeBenchmark {

    public String file = "/usr/lib/x86_64-linux-gnu/libc.so.6";

    private final Isa isa = new Amd64Isa();
    private byte[] text;
    private long base;

    @Setup
    public void setup() throws Exception {
        try (ElfFile elf = ElfFile.open(Path.of(file))) {
            ElfSection s = elf.section(".text").orElseThrow();
            base = s.addr();
            text = elf.read(s.addr(), (int) s.size());
        }
        System.out.printf("%n[decode] %s .text: %d bytes (%.2f MB)%n", file, text.length, text.length / 1e6);
    }

    @Benchmark
    public long decodeText(Blackhole bh) {
        long count = 0;
        int off = 0;
        while (off < text.length) {
            try {
                Instruction i = isa.decode(text, off, base + off);
                bh.consume(i);
                off += i.length();
                count++;
            } catch (IsaException e) {
                off++;
            }
        }
        return count;
    }
}
