package org.jdtrace.isa.amd64.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The real binaries of this machine (and the project's fixtures) that the decoder is proven on. */
final class RealBinaries {

    static final Path LIBC = Path.of("/usr/lib/x86_64-linux-gnu/libc.so.6");
    static final Path LIBSTDCXX = Path.of("/usr/lib/x86_64-linux-gnu/libstdc++.so.6");
    static final Path PYTHON = Path.of("/usr/bin/python3.11");
    static final Path LIBJVM = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so");
    /** Built by the fixtures module (the isa-amd64 pom depends on it so that -am builds it). */
    static final Path FIXTURES = Path.of(System.getProperty("jdtrace.fixtures", "../../fixtures/target/bin"));

    private RealBinaries() {}

    /** Every binary the proof covers; the system ones that do not exist here are left out. */
    static List<Path> all() {
        List<Path> l = new ArrayList<>();
        for (Path p : List.of(LIBC, LIBSTDCXX, PYTHON, LIBJVM)) {
            if (Files.exists(p)) {
                l.add(p);
            }
        }
        l.addAll(fixtures());
        return l;
    }

    static List<Path> fixtures() {
        if (!Files.isDirectory(FIXTURES)) {
            throw new IllegalStateException("fixtures not built: " + FIXTURES.toAbsolutePath()
                    + " (build with -pl bundles/isa-amd64 -am)");
        }
        try (Stream<Path> s = Files.list(FIXTURES)) {
            return s.filter(Files::isRegularFile).filter(Files::isExecutable).sorted().toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
