package org.jdtrace.bench.elf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.SymbolTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cost of building one object's SymbolTable, as a whole-machine profile does for every object
 * its samples land in (ObjectFiles.symbols), above all for the dtrace JVM's own libjvm.so (70,000
 * .symtab entries, 3.3 MB of names): a fresh ElfFile (the mapping and its section headers; its
 * symbol cache would otherwise hide the reading) and SymbolTable.of, plus the name of one function
 * (the first describe() of a sample). libc.so.6 has only .dynsym here, plus libc6-dbg's debug file
 * when installed. The first build in a dtrace run is mostly interpreted (jvm.options'
 * CompileThresholdScaling=10): SymbolTableCold times that in a fresh JVM.
 * Run: java -jar bench/target/benchmarks.jar SymbolTableBenchmark
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SymbolTableBenchmark {

    @Param({"libjvm", "libc"})
    public String object;

    private Path path;

    @Setup
    public void setup() {
        path = path(object);
    }

    /** libjvm: this JVM's libjvm.so; libc: the system's libc.so.6; else a path. */
    static Path path(String object) {
        Path p = switch (object) {
            case "libjvm" -> Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
            case "libc" -> Path.of("/lib/x86_64-linux-gnu/libc.so.6");
            default -> Path.of(object);
        };
        if (!Files.isRegularFile(p)) throw new IllegalStateException("no " + p);
        return p;
    }

    @Benchmark
    public String of() throws Exception {
        try (ElfFile elf = ElfFile.open(path)) {
            SymbolTable t = SymbolTable.of(elf);
            return t.name(t.size() / 2);
        }
    }
}
