package org.jdtrace.bench.elf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.SymbolTable;

/**
 * The first SymbolTable builds of a fresh JVM, in thread CPU time, as a dtrace run makes them before
 * the JIT has compiled anything of it: run it under jvm.options' JIT flags (or -Xint). Each argument
 * (libjvm, libc or a path) is built once, in order, then 4 more times; each build's CPU is printed.
 * Run: java -XX:CompileThresholdScaling=10 -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
 *          -cp bench/target/benchmarks.jar org.jdtrace.bench.elf.SymbolTableCold libjvm libc
 */
public final class SymbolTableCold {

    private SymbolTableCold() {}

    public static void main(String[] args) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (String a : args) {
            Path p = SymbolTableBenchmark.path(a);
            StringBuilder line = new StringBuilder(a);
            for (int i = 0; i < 5; i++) {
                long t0 = threads.getCurrentThreadCpuTime();
                int n;
                try (ElfFile elf = ElfFile.open(p)) {
                    SymbolTable t = SymbolTable.of(elf);
                    n = t.size() + t.name(t.size() / 2).length();
                }
                long t1 = threads.getCurrentThreadCpuTime();
                line.append(i == 0 ? ": " : " ").append(String.format("%.1f", (t1 - t0) / 1e6)).append(i == 0 ? " ms (then" : "");
                if (n < 0) throw new AssertionError();
            }
            System.out.println(line.append(" ms)"));
        }
    }
}
