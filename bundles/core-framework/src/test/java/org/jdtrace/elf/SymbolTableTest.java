package org.jdtrace.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SymbolTable against binutils, on real files: libc's separate debug file found by build-id
 * names every static function readelf lists there; a program stripped with its names kept in
 * MiniDebugInfo (.gnu_debugdata made with objcopy and xz, as Fedora packages do) or in a
 * .gnu_debuglink file has its static functions named; a debug file whose build-id or CRC does not
 * match is not used.
 */
class SymbolTableTest {

    @TempDir
    Path dir;

    static final String SOURCE = """
            #include <stdio.h>
            __attribute__((noinline)) static int hidden_one(int x) { return x * 3 + 1; }
            __attribute__((noinline)) static int hidden_two(int x) { return hidden_one(x) ^ 5; }
            int main(int argc, char **argv) { printf("%d\\n", hidden_two(argc)); return 0; }
            """;

    static final Path LIBC = Path.of("/lib/x86_64-linux-gnu/libc.so.6");

    /** libc's separate debug file (libc6-dbg); the test is skipped without it. */
    private static Path libcDebugFile(ElfFile libc) {
        Path debug = SymbolTable.debugFile(libc, SymbolTable.DEBUG_ROOT);
        Assumptions.assumeTrue(debug != null, "libc6-dbg is not installed");
        return debug;
    }

    @Test
    void libcsStaticFunctionsAreNamedFromItsBuildIdDebugFile() throws Exception {
        Path libc = LIBC;
        ElfFile elf = ElfFile.open(libc);
        Path debug = libcDebugFile(elf);
        SymbolTable t = SymbolTable.of(elf);
        assertTrue(t.sources().contains(debug.toString()), t.sources().toString());
        // readelf's local functions that are alone at their address: the table names them so
        Map<Long, List<String[]>> byAddr = new HashMap<>();
        List<String[]> all = new ArrayList<>(readelfFunctions(debug, ".symtab"));
        all.addAll(readelfFunctions(libc, ".dynsym")); // the IFUNCs (time over its local time_ifunc)
        for (String[] s : all) byAddr.computeIfAbsent(Long.parseUnsignedLong(s[0], 16), k -> new ArrayList<>()).add(s);
        int checked = 0;
        for (Map.Entry<Long, List<String[]>> e : byAddr.entrySet()) {
            if (e.getValue().size() != 1 || !e.getValue().get(0)[2].equals("LOCAL")) continue;
            int i = t.find(e.getKey());
            assertTrue(i >= 0, "no entry at 0x" + Long.toHexString(e.getKey()) + " " + e.getValue().get(0)[3]);
            assertEquals(e.getValue().get(0)[3], t.name(i));
            checked++;
        }
        assertTrue(checked > 500, "only " + checked + " static functions");
        int msort = t.find(byAddr.entrySet().stream().filter(e -> e.getValue().stream().anyMatch(s -> s[3].startsWith("msort_with_tmp")))
                .findFirst().orElseThrow().getKey());
        assertTrue(t.name(msort).startsWith("msort_with_tmp"), t.name(msort)); // qsort's helper, static
        assertFalse(SymbolTable.of(elf, dir).sources().stream().anyMatch(s -> s.startsWith("/")), "no debug file under an empty root");
    }

    @Test
    void aDebugFileOfAnotherBuildIsNotUsed() throws Exception {
        ElfFile elf = ElfFile.open(LIBC);
        libcDebugFile(elf);
        // under libc's build-id path, another object's debug file (ld.so's)
        ElfFile ld = ElfFile.open(Path.of("/lib64/ld-linux-x86-64.so.2"));
        Path other = SymbolTable.debugFile(ld, SymbolTable.DEBUG_ROOT);
        Assumptions.assumeTrue(other != null);
        String hex = java.util.HexFormat.of().formatHex(elf.buildId().orElseThrow());
        Path fake = dir.resolve(".build-id").resolve(hex.substring(0, 2)).resolve(hex.substring(2) + ".debug");
        Files.createDirectories(fake.getParent());
        Files.copy(other, fake);
        assertNull(SymbolTable.debugFile(elf, dir));
        assertEquals(List.of(".dynsym"), SymbolTable.of(elf, dir).sources());
    }

    @Test
    void miniDebugInfoNamesTheStaticFunctionsOfAStrippedProgram() throws Exception {
        Path prog = compile();
        Map<String, Long> statics = statics(prog);
        Path mini = dir.resolve("mini");
        // Fedora's recipe: the function symbols .dynsym lacks, in an otherwise empty ELF, xz'd
        run("objcopy", "--only-keep-debug", "--remove-section=.comment", "--remove-section=.gdb_index",
                "--keep-symbol=hidden_one", "--keep-symbol=hidden_two", "--keep-symbol=main", "--strip-all", prog.toString(), mini.toString());
        run("objcopy", "--only-keep-debug", "-R", ".debug_*", prog.toString(), mini.toString());
        run("xz", "-f", "-k", mini.toString());
        Path stripped = dir.resolve("stripped");
        run("strip", "--strip-all", "-o", stripped.toString(), prog.toString());
        run("objcopy", "--add-section", ".gnu_debugdata=" + mini + ".xz", stripped.toString());
        try (ElfFile e = ElfFile.open(stripped)) {
            assertFalse(e.hasSymtab());
            SymbolTable t = SymbolTable.of(e, dir);
            assertTrue(t.sources().contains(".gnu_debugdata"), t.sources().toString());
            for (Map.Entry<String, Long> s : statics.entrySet()) {
                assertEquals(s.getKey(), t.describe(s.getValue()));
                assertEquals(s.getKey() + "+0x1", t.describe(s.getValue() + 1));
            }
        }
        // corrupt xz data: the table is the object's own
        Path bad = dir.resolve("bad");
        byte[] junk = new byte[256];
        new java.util.Random(1).nextBytes(junk);
        Files.write(dir.resolve("junk.xz"), junk);
        run("strip", "--strip-all", "-o", bad.toString(), prog.toString());
        run("objcopy", "--add-section", ".gnu_debugdata=" + dir.resolve("junk.xz"), bad.toString());
        try (ElfFile e = ElfFile.open(bad)) {
            SymbolTable t = SymbolTable.of(e, dir);
            assertEquals(List.of(".dynsym"), t.sources());
            assertEquals(-1, t.find(statics.get("hidden_one")));
        }
    }

    @Test
    void aDebuglinkFileIsUsedOnlyWhenItsCrcMatches() throws Exception {
        Path prog = compile();
        Map<String, Long> statics = statics(prog);
        Path debug = dir.resolve("prog.debug"), stripped = dir.resolve("prog.stripped");
        run("objcopy", "--only-keep-debug", prog.toString(), debug.toString());
        run("strip", "--strip-all", "--remove-section=.note.gnu.build-id", "-o", stripped.toString(), prog.toString());
        run("objcopy", "--add-gnu-debuglink=" + debug, stripped.toString());
        try (ElfFile e = ElfFile.open(stripped)) {
            SymbolTable t = SymbolTable.of(e, dir.resolve("none"));
            assertTrue(t.sources().contains(debug.toString()), t.sources().toString());
            for (Map.Entry<String, Long> s : statics.entrySet()) assertEquals(s.getKey(), t.describe(s.getValue()));
        }
        Files.write(debug, new byte[] {1}, java.nio.file.StandardOpenOption.APPEND); // another CRC
        try (ElfFile e = ElfFile.open(stripped)) {
            assertEquals(List.of(".dynsym"), SymbolTable.of(e, dir.resolve("none")).sources());
        }
    }

    private Path compile() throws Exception {
        Path c = dir.resolve("prog.c"), out = dir.resolve("prog");
        Files.writeString(c, SOURCE);
        run("gcc", "-O2", "-g", "-o", out.toString(), c.toString());
        return out;
    }

    /** The static functions of {@code prog} by readelf: name to address. */
    private static Map<String, Long> statics(Path prog) throws Exception {
        Map<String, Long> m = new HashMap<>();
        for (String[] s : readelfFunctions(prog, ".symtab")) {
            if (s[2].equals("LOCAL") && s[3].startsWith("hidden_")) m.put(s[3], Long.parseUnsignedLong(s[0], 16));
        }
        assertEquals(2, m.size(), m.toString());
        return m;
    }

    /** readelf -sW's sized FUNC and IFUNC symbols of {@code table}: {value, size, bind, name}. */
    static List<String[]> readelfFunctions(Path file, String table) throws Exception {
        Process p = new ProcessBuilder("readelf", "-sW", file.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String[]> out = new ArrayList<>();
        boolean symtab = false;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            for (String l; (l = r.readLine()) != null;) {
                if (l.startsWith("Symbol table")) symtab = l.contains("'" + table + "'");
                String[] f = l.trim().split("\\s+");
                if (!symtab || f.length < 8 || !(f[3].equals("FUNC") || f[3].equals("IFUNC")) || f[6].equals("UND")) continue;
                long size = f[2].startsWith("0x") ? Long.parseLong(f[2].substring(2), 16) : Long.parseLong(f[2]);
                if (size == 0) continue;
                out.add(new String[] {f[1], f[2], f[4], f[7].replaceAll("@.*$", "")});
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void aliasesAtOneAddressAreOneEntryNamedByPreferenceSpanningTheLargestSize() {
        int func = ElfSymbol.STT_FUNC;
        SymbolTable t = SymbolTable.build(List.of(
                new ElfSymbol("__local_alias", 0x1000, 0x10, func, ElfSymbol.STB_LOCAL, 0, 1),
                new ElfSymbol("weak_name", 0x1000, 0x40, func, ElfSymbol.STB_WEAK, 0, 1),
                new ElfSymbol("__global_name", 0x1000, 0x20, func, ElfSymbol.STB_GLOBAL, 0, 1),
                new ElfSymbol("zero", 0, 0x10, func, ElfSymbol.STB_GLOBAL, 0, 1),
                new ElfSymbol("later", 0x2000, 0x8, func, ElfSymbol.STB_GLOBAL, 0, 1),
                new ElfSymbol("early", 0x800, 0x8, func, ElfSymbol.STB_GLOBAL, 0, 1)), List.of("test"));
        assertEquals(3, t.size());
        assertEquals(List.of("early", "weak_name", "later"), List.of(t.name(0), t.name(1), t.name(2)));
        assertEquals(0x1040, t.end(1));
        assertEquals("weak_name+0x3f", t.describe(0x103f));
        assertNull(t.describe(0x1040));
    }

    @Test
    void theTableOfLibjvmsFunctionsIsTheOneAnAddressMapWouldMake() throws Exception {
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        Assumptions.assumeTrue(Files.isRegularFile(libjvm), "no " + libjvm);
        List<ElfSymbol> all = new ArrayList<>();
        try (ElfFile elf = ElfFile.open(libjvm)) {
            all.addAll(elf.functions());
            all.addAll(elf.dynamicSymbols().stream().filter(x -> x.isFunction() && x.size() > 0).toList());
        }
        assertTrue(all.size() > 10_000, all.size() + " symbols");
        SymbolTable t = SymbolTable.build(all, List.of("libjvm.so"));
        // the reference: each address's symbols gathered in a map, the preferred one names it
        Map<Long, List<ElfSymbol>> byAddress = new HashMap<>();
        for (ElfSymbol x : all) {
            if (x.value() != 0) byAddress.computeIfAbsent(x.value(), k -> new ArrayList<>()).add(x);
        }
        List<Long> addrs = new ArrayList<>(byAddress.keySet());
        addrs.sort(Long::compareUnsigned);
        assertEquals(addrs.size(), t.size());
        for (int i = 0; i < addrs.size(); i++) {
            List<ElfSymbol> same = new ArrayList<>(byAddress.get(addrs.get(i)));
            same.sort(SymbolTable.PREFERRED);
            assertEquals((long) addrs.get(i), t.start(i));
            assertEquals(same.get(0).name(), t.name(i));
            assertEquals(addrs.get(i) + same.stream().mapToLong(ElfSymbol::size).max().getAsLong(), t.end(i));
        }
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    }
}
