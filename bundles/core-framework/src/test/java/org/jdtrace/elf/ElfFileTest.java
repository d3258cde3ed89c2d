package org.jdtrace.elf;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Reads real ELF files of this machine and checks what it finds against binutils. */
class ElfFileTest {

    static final Path PYTHON = Path.of("/usr/bin/python3.11");
    static final Path LIBJVM = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so");
    static final Path LIBC = Path.of("/usr/lib/x86_64-linux-gnu/libc.so.6");

    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor(), () -> String.join(" ", cmd) + " failed");
        return new String(out);
    }

    /** readelf -n's SDT notes as "provider:name pc base sem args" lines. */
    static List<String> readelfSdt(Path file) throws Exception {
        Pattern p = Pattern.compile("Provider: (\\S+)\\s+Name: (\\S+)\\s+Location: 0x(\\p{XDigit}+), Base: 0x(\\p{XDigit}+), "
                + "Semaphore: 0x(\\p{XDigit}+)\\s+Arguments:[ ]?([^\\n]*)");
        Matcher m = p.matcher(run("readelf", "-n", "-W", file.toString()));
        List<String> l = new ArrayList<>();
        while (m.find()) {
            l.add(m.group(1) + ":" + m.group(2) + " " + Long.parseUnsignedLong(m.group(3), 16) + " "
                    + Long.parseUnsignedLong(m.group(4), 16) + " " + Long.parseUnsignedLong(m.group(5), 16)
                    + " " + m.group(6).strip());
        }
        return l;
    }

    static List<String> sdtLines(ElfFile elf) throws ElfException {
        List<String> l = new ArrayList<>();
        for (SdtNote n : elf.sdtNotes()) {
            l.add(n.provider() + ":" + n.name() + " " + n.pc() + " " + n.base() + " " + n.semaphore() + " " + n.arguments());
        }
        return l;
    }

    @Test
    void pythonSdtNotesMatchReadelf() throws Exception {
        assumeTrue(Files.exists(PYTHON));
        try (ElfFile elf = ElfFile.open(PYTHON)) {
            assertEquals(ElfFile.EM_X86_64, elf.machine());
            List<SdtNote> notes = elf.sdtNotes();
            assertEquals(8, notes.size());
            assertEquals(readelfSdt(PYTHON), sdtLines(elf));
            long base = elf.stapsdtBase().orElseThrow();
            for (SdtNote n : notes) {
                assertEquals("python", n.provider());
                assertNotEquals(0, n.semaphore(), n.name() + " has a semaphore");
                assertEquals(n.pc(), n.pc(base), "not prelinked: no adjustment");
                assertTrue(elf.sectionAt(n.pc()).orElseThrow().executable(), "probe site in code");
                assertEquals(".probes", elf.sectionAt(n.semaphore()).orElseThrow().name());
            }
            SdtNote moved = notes.get(0);
            assertEquals(moved.pc() + 0x1000, moved.pc(base + 0x1000));
            assertEquals(moved.semaphore() + 0x1000, moved.semaphore(base + 0x1000));
        }
    }

    @Test
    void libjvmSdtNotesMatchReadelf() throws Exception {
        assumeTrue(Files.exists(LIBJVM));
        try (ElfFile elf = ElfFile.open(LIBJVM)) {
            assertEquals(531, elf.sdtNotes().size());
            assertEquals(readelfSdt(LIBJVM), sdtLines(elf));
            assertTrue(elf.sdtNotes().stream().allMatch(n -> n.provider().startsWith("hotspot") || n.provider().equals("hs_private")));
            assertTrue(elf.sdtNotes().stream().allMatch(n -> n.semaphore() == 0));
            assertTrue(elf.hasSymtab());
        }
    }

    @Test
    void dynamicSymbolsByPrefixAreReadelfsWithThatPrefix() throws Exception {
        for (Path file : List.of(LIBJVM, LIBC)) {
            if (!Files.exists(file)) continue;
            try (ElfFile elf = ElfFile.open(file)) {
                Pattern row = Pattern.compile("^ *\\d+: (\\p{XDigit}+) +\\d+ +\\S+ +\\S+ +\\S+ +\\S+ +(\\S+)", Pattern.MULTILINE);
                String readelf = run("readelf", "--dyn-syms", "-W", file.toString());
                for (String prefix : List.of("gHotSpotVM", "JVM_", "mall", "", "no such prefix")) {
                    List<String> expected = new ArrayList<>();
                    for (Matcher m = row.matcher(readelf); m.find();) {
                        // readelf appends @VERSION to names
                        String name = m.group(2).replaceAll("@.*", "");
                        if (name.startsWith(prefix)) expected.add(name + "/" + Long.parseUnsignedLong(m.group(1), 16));
                    }
                    List<String> actual = new ArrayList<>();
                    for (ElfSymbol s : elf.dynamicSymbols(prefix)) actual.add(s.name() + "/" + s.value());
                    assertEquals(expected, actual, file + " " + prefix);
                    assertEquals(elf.dynamicSymbols().stream().filter(s -> s.name().startsWith(prefix)).toList(),
                            elf.dynamicSymbols(prefix), file + " " + prefix);
                }
                assertEquals(file == LIBJVM, !elf.dynamicSymbols("gHotSpotVM").isEmpty(), file.toString());
            }
        }
    }

    @Test
    void libcHasOnlyDynsymWithIfuncs() throws Exception {
        assumeTrue(Files.exists(LIBC));
        try (ElfFile elf = ElfFile.open(LIBC)) {
            assertEquals(ElfFile.ET_DYN, elf.type());
            assertFalse(elf.hasSymtab());
            assertTrue(elf.sdtNotes().isEmpty());
            // Every defined sized FUNC/IFUNC that readelf lists, with the same value and size.
            Map<String, String> expected = new HashMap<>();
            Pattern row = Pattern.compile("^\\s*\\d+: (\\p{XDigit}+)\\s+(\\d+)\\s+(FUNC|IFUNC)\\s+\\S+\\s+\\S+\\s+(\\S+)\\s+(\\S+)", Pattern.MULTILINE);
            Matcher m = row.matcher(run("readelf", "--dyn-syms", "-W", LIBC.toString()));
            while (m.find()) {
                if (!m.group(4).equals("UND") && Long.parseLong(m.group(2)) > 0) {
                    expected.put(m.group(5) + "/" + Long.parseUnsignedLong(m.group(1), 16), m.group(2) + " " + m.group(3));
                }
            }
            Map<String, String> actual = new HashMap<>();
            for (ElfSymbol s : elf.functions()) {
                actual.put(s.name() + "/" + s.value(), s.size() + " " + (s.isIfunc() ? "IFUNC" : "FUNC"));
            }
            // readelf appends @VERSION to names; compare on the unversioned name.
            Map<String, String> expectedPlain = new HashMap<>();
            expected.forEach((k, v) -> expectedPlain.put(k.replaceAll("@[^/]*", ""), v));
            assertEquals(expectedPlain, actual);
            ElfSymbol strlen = elf.symbol("strlen").orElseThrow();
            assertTrue(strlen.isIfunc(), "strlen is an IFUNC resolver");
            ElfSymbol malloc = elf.symbol("malloc").orElseThrow();
            assertEquals(ElfSymbol.STT_FUNC, malloc.type());
            assertEquals(ElfSymbol.STB_GLOBAL, malloc.binding());
            assertTrue(elf.sections().get(malloc.sectionIndex()).executable());
        }
    }

    @Test
    void functionBytesAreTheFileBytesObjdumpShows() throws Exception {
        assumeTrue(Files.exists(LIBC));
        try (ElfFile elf = ElfFile.open(LIBC)) {
            ElfSymbol sym = elf.symbol("getpid").orElseThrow();
            byte[] code = elf.bytes(sym);
            assertEquals(sym.size(), code.length);
            String dump = run("objdump", "-s", "--start-address=0x" + Long.toHexString(sym.value()),
                    "--stop-address=0x" + Long.toHexString(sym.value() + sym.size()), "-j", ".text", LIBC.toString());
            StringBuilder hex = new StringBuilder();
            Matcher m = Pattern.compile("^ \\p{XDigit}+ ((?:\\p{XDigit}{2,8} ){1,4})", Pattern.MULTILINE).matcher(dump);
            while (m.find()) {
                hex.append(m.group(1).replace(" ", ""));
            }
            StringBuilder mine = new StringBuilder();
            for (byte b : code) {
                mine.append(String.format("%02x", b));
            }
            assertEquals(hex.toString(), mine.toString());
            assertThrows(ElfException.class, () -> elf.read(0x7fff_0000_0000L, 4));
            assertThrows(ElfException.class, () -> elf.read(sym.value(), -1));
        }
    }

    @Test
    void pltSlotsCarryTheNamesObjdumpGivesThem() throws Exception {
        for (Path file : List.of(PYTHON, LIBC)) {
            if (!Files.exists(file)) {
                continue;
            }
            Map<Long, String> objdump = new HashMap<>();
            Matcher m = Pattern.compile("^(\\p{XDigit}+) <([^>]+)@plt>:", Pattern.MULTILINE)
                    .matcher(run("objdump", "-d", "-j", ".plt", "-j", ".plt.sec", file.toString()));
            while (m.find()) {
                objdump.put(Long.parseUnsignedLong(m.group(1), 16), m.group(2));
            }
            try (ElfFile elf = ElfFile.open(file)) {
                List<PltEntry> plt = elf.plt();
                assertFalse(plt.isEmpty(), file + " has a PLT");
                int named = 0;
                for (PltEntry e : plt) {
                    if (!e.name().startsWith("*")) {
                        assertEquals(objdump.get(e.address()), e.name(), file + " slot at 0x" + Long.toHexString(e.address()));
                        named++;
                    }
                }
                assertTrue(named > 0);
            }
        }
    }

    @Test
    void badAndTruncatedFilesGiveElfException() throws Exception {
        assumeTrue(Files.exists(PYTHON));
        byte[] whole = Files.readAllBytes(PYTHON);
        assertThrows(ElfException.class, () -> ElfFile.of("empty", new byte[0]));
        assertThrows(ElfException.class, () -> ElfFile.of("text", "#!/bin/sh\necho hello world, not elf at all....................................\n".getBytes()));
        assertThrows(ElfException.class, () -> ElfFile.open(Path.of("/nonexistent/file")));
        byte[] elf32 = whole.clone();
        elf32[4] = 1;
        ElfException e = assertThrows(ElfException.class, () -> ElfFile.of("elf32", elf32));
        assertTrue(e.getMessage().contains("64-bit"), e.getMessage());
        // Truncations: every structure behind the cut must be refused cleanly.
        int[] cuts = {64, 100, 0x1000, whole.length / 2, whole.length - 4096, whole.length - 1};
        for (int cut : cuts) {
            exerciseEverything("cut" + cut, java.util.Arrays.copyOf(whole, cut));
        }
        // Random corruption of the headers and tables.
        Random rnd = new Random(42);
        for (int round = 0; round < 200; round++) {
            byte[] bad = whole.clone();
            for (int k = 0; k < 8; k++) {
                int at = rnd.nextInt(4) == 0 ? rnd.nextInt(64) : (int) (whole.length - 1 - rnd.nextInt(0x4000));
                bad[at] = (byte) rnd.nextInt();
            }
            exerciseEverything("corrupt" + round, bad);
        }
    }

    private static void exerciseEverything(String name, byte[] image) {
        try (ElfFile elf = ElfFile.of(name, image)) {
            elf.sections();
            elf.segments();
            for (ElfSymbol s : elf.functions()) {
                try {
                    elf.bytes(s);
                } catch (ElfException expected) {
                    // a symbol pointing outside the truncated file
                }
            }
            elf.plt();
            elf.sdtNotes();
            elf.stapsdtBase();
        } catch (ElfException expected) {
            assertNotNull(expected.getMessage());
        }
    }
}
