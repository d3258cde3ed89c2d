package org.jdtrace.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SymbolTable read from raw symbol bytes (no String or ElfSymbol per symbol, names decoded on
 * demand) is the table the ElfSymbol way made: a reference built here as SymbolTable.of did before,
 * from ElfFile.functions()/dynamicSymbols(), MiniDebugInfo's and the debug file's functions, sorted
 * by address with PREFERRED first among a same address's symbols (a stable sort), one entry per
 * address spanning the largest alias size (its functions are readelf -sW's, checked for libjvm.so
 * and libc.so.6). Compared entry by entry (start, end, name) with the same
 * sources, on this machine's libc.so.6 (with its build-id debug file), ld.so, libjvm.so, every
 * debug file under /usr/lib/debug, the fixtures' binaries, programs with MiniDebugInfo or a
 * debuglink file, corrupt symbol tables, and random tables with many aliases, some at addresses
 * too high to pack an index beside them (a kernel's).
 */
class SymbolTableEquivalenceTest {

    @TempDir
    Path dir;

    /** The reference: SymbolTable.of as it was, from ElfSymbol records. */
    record Reference(long[] start, long[] end, String[] name, List<String> sources) {}

    static Reference reference(ElfFile elf, Path debugRoot) throws Exception {
        List<ElfSymbol> all = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        try {
            all.addAll(elf.functions());
            sources.add(elf.hasSymtab() ? ".symtab" : ".dynsym");
            if (elf.hasSymtab()) {
                for (ElfSymbol s : elf.dynamicSymbols()) {
                    if (s.isFunction() && s.size() > 0) all.add(s);
                }
            }
        } catch (ElfException | RuntimeException e) {
            // no symbols of its own
        }
        try {
            Optional<ElfSection> mini = elf.section(".gnu_debugdata");
            if (mini.isPresent() && mini.get().type() != ElfSection.SHT_NOBITS) {
                ByteBuffer b = elf.contents(mini.get());
                byte[] in = new byte[b.remaining()];
                b.duplicate().get(in);
                byte[] image;
                try (InputStream xz = new org.tukaani.xz.XZInputStream(new ByteArrayInputStream(in))) {
                    image = xz.readAllBytes();
                }
                all.addAll(ElfFile.of(elf.path() + "(.gnu_debugdata)", image).functions());
                sources.add(".gnu_debugdata");
            }
        } catch (java.io.IOException | RuntimeException e) {
            // corrupt MiniDebugInfo
        }
        Path debug = SymbolTable.debugFile(elf, debugRoot);
        if (debug != null) {
            try (ElfFile d = ElfFile.open(debug)) {
                all.addAll(d.functions());
                sources.add(debug.toString());
            } catch (ElfException | RuntimeException e) {
                // unreadable debug file
            }
        }
        return reference(all, sources);
    }

    static Reference reference(List<ElfSymbol> all, List<String> sources) {
        ElfSymbol[] sorted = all.stream().filter(x -> x.value() != 0).toArray(ElfSymbol[]::new);
        Arrays.sort(sorted, (a, b) -> {
            int c = Long.compareUnsigned(a.value(), b.value());
            return c != 0 ? c : SymbolTable.PREFERRED.compare(a, b);
        });
        List<long[]> spans = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < sorted.length; i++) {
            ElfSymbol s = sorted[i];
            if (i == 0 || s.value() != sorted[i - 1].value()) {
                spans.add(new long[] {s.value(), s.size()});
                names.add(s.name());
            } else {
                long[] last = spans.get(spans.size() - 1);
                last[1] = Math.max(last[1], s.size());
            }
        }
        return new Reference(spans.stream().mapToLong(x -> x[0]).toArray(), spans.stream().mapToLong(x -> x[0] + x[1]).toArray(),
                names.toArray(String[]::new), List.copyOf(sources));
    }

    /** Every entry of {@code t} is the reference's; returns how many entries there are. */
    static int assertSame(Reference r, SymbolTable t, String what) {
        assertEquals(r.sources(), t.sources(), what);
        assertEquals(r.start().length, t.size(), what + ": entries");
        for (int i = 0; i < t.size(); i++) {
            String at = what + " entry " + i + " at 0x" + Long.toHexString(r.start()[i]);
            assertEquals(r.start()[i], t.start(i), at);
            assertEquals(r.end()[i], t.end(i), at);
            assertEquals(r.name()[i], t.name(i), at);
        }
        return t.size();
    }

    private static int compare(Path file, Path debugRoot) throws Exception {
        Reference r;
        try (ElfFile elf = ElfFile.open(file)) {
            r = reference(elf, debugRoot);
        }
        try (ElfFile elf = ElfFile.open(file)) { // a fresh file: nothing read before
            return assertSame(r, SymbolTable.of(elf, debugRoot), file.toString());
        }
    }

    @Test
    void libcWithItsDebugFileLdSoAndLibjvmAreTheReferenceTables() throws Exception {
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        assertTrue(compare(libc, SymbolTable.DEBUG_ROOT) > 1_000);
        assertTrue(compare(libc, dir) > 1_000); // .dynsym alone
        assertTrue(compare(Path.of("/lib64/ld-linux-x86-64.so.2"), SymbolTable.DEBUG_ROOT) > 10);
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        Assumptions.assumeTrue(Files.isRegularFile(libjvm), "no " + libjvm);
        assertTrue(compare(libjvm, SymbolTable.DEBUG_ROOT) > 10_000);
    }

    @Test
    void theReferencesSymbolsAreReadelfsForLibjvmAndLibc() throws Exception {
        // the reference reads ElfFile.functions(): readelf -sW lists the same functions
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        Assumptions.assumeTrue(Files.isRegularFile(libjvm), "no " + libjvm);
        for (Path file : List.of(libjvm, Path.of("/lib/x86_64-linux-gnu/libc.so.6"))) {
            try (ElfFile elf = ElfFile.open(file)) {
                String table = elf.hasSymtab() ? ".symtab" : ".dynsym";
                List<String> ours = new ArrayList<>();
                for (ElfSymbol s : elf.functions()) {
                    String bind = switch (s.binding()) {
                        case ElfSymbol.STB_LOCAL -> "LOCAL";
                        case ElfSymbol.STB_GLOBAL -> "GLOBAL";
                        case ElfSymbol.STB_WEAK -> "WEAK";
                        case ElfSymbol.STB_GNU_UNIQUE -> "UNIQUE";
                        default -> "?" + s.binding();
                    };
                    // readelf leaves the version off .dynsym's names here (readelfFunctions)
                    ours.add(Long.toHexString(s.value()) + " " + s.size() + " " + bind + " " + s.name().replaceAll("@.*$", ""));
                }
                List<String> theirs = new ArrayList<>();
                for (String[] f : SymbolTableTest.readelfFunctions(file, table)) {
                    long size = f[1].startsWith("0x") ? Long.parseLong(f[1].substring(2), 16) : Long.parseLong(f[1]);
                    theirs.add(Long.toHexString(Long.parseUnsignedLong(f[0], 16)) + " " + size + " " + f[2] + " " + f[3]);
                }
                ours.sort(null);
                theirs.sort(null);
                assertTrue(ours.size() > 1_000, file + ": " + ours.size());
                assertEquals(theirs, ours, file.toString());
            }
        }
    }

    @Test
    void everyDebugFileUnderUsrLibDebugIsItsReferenceTable() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(SymbolTable.DEBUG_ROOT), "no " + SymbolTable.DEBUG_ROOT);
        int files = 0;
        try (Stream<Path> s = Files.walk(SymbolTable.DEBUG_ROOT)) {
            for (Path p : s.filter(p -> p.toString().endsWith(".debug") && Files.isRegularFile(p)).toList()) {
                compare(p, dir);
                files++;
            }
        }
        Assumptions.assumeTrue(files > 0, "no debug files");
    }

    @Test
    void theFixturesBinariesAreTheirReferenceTables() throws Exception {
        Path bin = Path.of("../../fixtures/target/bin").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isDirectory(bin), "fixtures not built");
        int files = 0;
        try (Stream<Path> s = Files.list(bin)) {
            for (Path p : s.sorted().toList()) {
                byte[] magic = new byte[4];
                try (InputStream in = Files.newInputStream(p)) {
                    if (in.readNBytes(magic, 0, 4) < 4 || magic[0] != 0x7f || magic[1] != 'E') continue;
                }
                compare(p, SymbolTable.DEBUG_ROOT);
                files++;
            }
        }
        assertTrue(files > 0, "no ELF file in " + bin);
    }

    @Test
    void miniDebugInfoAndDebuglinkProgramsAreTheirReferenceTables() throws Exception {
        Path prog = compile();
        assertTrue(compare(prog, dir) > 3);
        Path mini = dir.resolve("mini"), stripped = dir.resolve("stripped");
        run("objcopy", "--only-keep-debug", "-R", ".debug_*", prog.toString(), mini.toString());
        run("xz", "-f", "-k", mini.toString());
        run("strip", "--strip-all", "-o", stripped.toString(), prog.toString());
        run("objcopy", "--add-section", ".gnu_debugdata=" + mini + ".xz", stripped.toString());
        assertTrue(compare(stripped, dir) > 3);
        Path debug = dir.resolve("prog.debug"), linked = dir.resolve("prog.linked");
        run("objcopy", "--only-keep-debug", prog.toString(), debug.toString());
        run("strip", "--strip-all", "--remove-section=.note.gnu.build-id", "-o", linked.toString(), prog.toString());
        run("objcopy", "--add-gnu-debuglink=" + debug, linked.toString());
        assertTrue(compare(linked, dir.resolve("none")) > 3);
    }

    @Test
    void aSymbolTableWithABadNameIsLeftOutAsBefore() throws Exception {
        Path prog = compile();
        ElfSection symtab, strtab;
        try (ElfFile elf = ElfFile.open(prog)) {
            symtab = elf.section(".symtab").orElseThrow();
            strtab = elf.sections().get(symtab.link());
        }
        // the last symbol's name offset beyond the string table
        byte[] image = Files.readAllBytes(prog);
        int last = (int) (symtab.offset() + symtab.size() - 24);
        ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).putInt(last, (int) strtab.size() + 5);
        Path outside = dir.resolve("outside");
        Files.write(outside, image);
        // the string table's last NUL gone: its last name unterminated
        image = Files.readAllBytes(prog);
        image[(int) (strtab.offset() + strtab.size() - 1)] = 'x';
        Path unterminated = dir.resolve("unterminated");
        Files.write(unterminated, image);
        for (Path p : List.of(outside, unterminated)) {
            compare(p, dir);
            try (ElfFile elf = ElfFile.open(p)) {
                assertFalse(SymbolTable.of(elf, dir).sources().contains(".symtab"), p.toString());
            }
        }
    }

    @Test
    void randomTablesWithManyAliasesAreTheReferenceTables() {
        Random r = new Random(21);
        String[] stems = {"f", "_f", "__f", "g", "_g", "a", "__a", "\u00e9t\u00e9", "z"};
        int[] bindings = {ElfSymbol.STB_LOCAL, ElfSymbol.STB_GLOBAL, ElfSymbol.STB_WEAK, ElfSymbol.STB_GNU_UNIQUE};
        for (long base : new long[] {0x1000, 0x400000, 0xffffffff81000000L, 0x7fff_0000_0000_0000L}) {
            for (int round = 0; round < 20; round++) {
                List<ElfSymbol> all = new ArrayList<>();
                int n = 1 + r.nextInt(3000);
                for (int i = 0; i < n; i++) {
                    long value = r.nextInt(20) == 0 ? 0 : base + 16L * r.nextInt(Math.max(1, n / 3));
                    all.add(new ElfSymbol(stems[r.nextInt(stems.length)] + r.nextInt(4), value, 1 + r.nextInt(64),
                            ElfSymbol.STT_FUNC, bindings[r.nextInt(bindings.length)], 0, 1));
                }
                assertSame(reference(all, List.of("random")), SymbolTable.build(all, List.of("random")),
                        "base 0x" + Long.toHexString(base) + " round " + round);
            }
        }
    }

    @Test
    void namesDecodedByManyThreadsAtOnceAreTheSame() throws Exception {
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        Reference r;
        try (ElfFile elf = ElfFile.open(libc)) {
            r = reference(elf, SymbolTable.DEBUG_ROOT);
        }
        try (ElfFile elf = ElfFile.open(libc)) {
            SymbolTable t = SymbolTable.of(elf);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failed = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int k = 0; k < 4; k++) {
                int from = k;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < t.size(); i++) {
                            int e = (i * 7 + from * 101) % t.size();
                            assertEquals(r.name()[e], t.name(e));
                            assertEquals(r.name()[e], t.describe(t.start(e)), "entry " + e);
                        }
                    } catch (Throwable x) {
                        failed.add(x);
                    }
                }));
            }
            for (Thread x : threads) x.join();
            assertEquals(List.of(), failed);
        }
    }

    private Path compile() throws Exception {
        Path c = dir.resolve("prog.c"), out = dir.resolve("prog");
        Files.writeString(c, SymbolTableTest.SOURCE);
        run("gcc", "-O2", "-g", "-o", out.toString(), c.toString());
        return out;
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    }
}
