package org.jdtrace.unwind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CallFrameInfo against binutils: every row of every FDE that {@code readelf
 * --debug-dump=frames-interp} prints for this machine's libc, dynamic linker and libstdc++ (the
 * CFA rule and each register's rule at the row's first address) must be the row find() gives,
 * and every FDE's range must be one functions() lists.
 */
class CallFrameInfoTest {

    /** readelf's column names: DWARF register numbers on amd64 (ra is the return-address column). */
    private static final Map<String, Integer> REG = Map.ofEntries(Map.entry("rax", 0), Map.entry("rdx", 1),
            Map.entry("rcx", 2), Map.entry("rbx", 3), Map.entry("rsi", 4), Map.entry("rdi", 5), Map.entry("rbp", 6),
            Map.entry("rsp", 7), Map.entry("r8", 8), Map.entry("r9", 9), Map.entry("r10", 10), Map.entry("r11", 11),
            Map.entry("r12", 12), Map.entry("r13", 13), Map.entry("r14", 14), Map.entry("r15", 15), Map.entry("ra", 16));

    @ParameterizedTest
    @ValueSource(strings = {"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/bin/sort"})
    void everyRowIsReadelfs(String file) throws Exception {
        Path path = Path.of(file);
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(path), file + " is not on this machine");
        int rows = compare(path);
        assertTrue(rows > 100, "only " + rows + " rows compared in " + file);
    }

    /** The vDSO's own CFI (read from this JVM's memory: the kernel maps the same image into every process). */
    @org.junit.jupiter.api.Test
    void theVdsosRowsAreReadelfs(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        byte[] image = vdso();
        org.junit.jupiter.api.Assumptions.assumeTrue(image != null, "no [vdso] mapping");
        Path copy = dir.resolve("vdso.so");
        Files.write(copy, image);
        assertTrue(compare(copy) > 5);
    }

    /** This process's vDSO image, or null. */
    static byte[] vdso() throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/self/maps"))) {
            if (!l.endsWith("[vdso]")) continue;
            String[] se = l.substring(0, l.indexOf(' ')).split("-");
            long start = Long.parseUnsignedLong(se[0], 16), end = Long.parseUnsignedLong(se[1], 16);
            try (java.io.RandomAccessFile mem = new java.io.RandomAccessFile("/proc/self/mem", "r")) {
                mem.seek(start);
                byte[] b = new byte[(int) (end - start)];
                mem.readFully(b);
                return b;
            }
        }
        return null;
    }

    /** Compares every row readelf prints for {@code path}; answers how many. */
    static int compare(Path path) throws Exception {
        ElfFile elf = ElfFile.open(path);
        CallFrameInfo cfi = CallFrameInfo.of(elf);
        assertFalse(cfi.isEmpty());
        long[][] functions = cfi.functions();
        FrameRow row = new FrameRow();
        Process p = new ProcessBuilder("readelf", "-wN", "--debug-dump=frames-interp", path.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        int compared = 0, fdes = 0;
        List<String> failures = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            String[] header = null;
            String[] cieRow = null;
            String[] cieHeader = null;
            String cieAt = null;
            Map<String, String[][]> cies = new java.util.HashMap<>();
            boolean inFde = false, fdeHasRows = false;
            long fdeBegin = 0;
            while ((line = r.readLine()) != null) {
                if (line.contains("terminator")) continue;
                if (line.contains(" CIE ") || line.contains(" FDE ")) {
                    if (inFde && !fdeHasRows && cieRow != null) compared += check(cfi, row, fdeBegin, cieHeader, cieRow, failures);
                }
                if (line.contains(" CIE ")) {
                    inFde = false;
                    header = null;
                    cieAt = line.substring(0, 8);
                    continue;
                }
                if (line.contains(" FDE ")) {
                    String[][] c = cies.get(line.substring(line.indexOf("cie=") + 4, line.indexOf("cie=") + 12));
                    cieHeader = c == null ? null : c[0];
                    cieRow = c == null ? null : c[1];
                    int pc = line.indexOf("pc=");
                    String[] range = line.substring(pc + 3).split("\\.\\.");
                    fdeBegin = Long.parseUnsignedLong(range[0], 16);
                    long end = Long.parseUnsignedLong(range[1].trim(), 16);
                    if (!listed(functions, fdeBegin, end)) failures.add("FDE " + line + " not in functions()");
                    inFde = true;
                    fdeHasRows = false;
                    fdes++;
                    continue;
                }
                String t = line.trim();
                if (t.startsWith("LOC")) {
                    header = t.split("\\s+");
                    continue;
                }
                if (header == null || t.isEmpty() || !Character.isLetterOrDigit(t.charAt(0))) continue;
                String[] cols = t.split("\\s+");
                if (cols.length != header.length) continue;
                if (!inFde) {
                    cies.put(cieAt, new String[][] {header, cols});
                    continue;
                }
                fdeHasRows = true;
                compared += check(cfi, row, Long.parseUnsignedLong(cols[0], 16), header, cols, failures);
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(fdes > 0, "readelf printed no FDE for " + path);
        assertEquals(List.of(), failures.subList(0, Math.min(20, failures.size())), failures.size() + " failures in " + path);
        return compared;
    }

    private static boolean listed(long[][] functions, long begin, long end) {
        for (long[] f : functions) if (f[0] == begin && f[1] == end) return true;
        return false;
    }

    private static int check(CallFrameInfo cfi, FrameRow row, long loc, String[] header, String[] cols, List<String> failures) {
        String where = "0x" + Long.toHexString(loc);
        if (!cfi.find(loc, row)) {
            failures.add(where + ": no row");
            return 1;
        }
        String cfa = cols[1];
        if (cfa.equals("exp")) {
            if (row.cfaRegister() != -1) failures.add(where + ": CFA exp, got register " + row.cfaRegister());
        } else {
            int sign = Math.max(cfa.indexOf('+'), cfa.indexOf('-'));
            int reg = REG.getOrDefault(cfa.substring(0, sign), -2);
            long off = Long.parseLong(cfa.substring(sign + (cfa.charAt(sign) == '+' ? 1 : 0)));
            if (row.cfaRegister() != reg || row.cfaOffset() != off) {
                failures.add(where + ": CFA " + cfa + ", got r" + row.cfaRegister() + "+" + row.cfaOffset());
            }
        }
        for (int c = 2; c < header.length; c++) {
            Integer reg = REG.get(header[c]);
            if (reg == null) continue;
            String want = cols[c];
            byte rule = row.rule(reg);
            long op = row.operand(reg);
            boolean ok = switch (want) {
                case "u" -> rule == FrameRow.UNSPECIFIED || rule == FrameRow.UNDEFINED;
                case "s" -> rule == FrameRow.SAME_VALUE;
                case "exp" -> rule == FrameRow.EXPRESSION;
                case "vexp" -> rule == FrameRow.VAL_EXPRESSION;
                default -> {
                    if (want.startsWith("c")) yield rule == FrameRow.OFFSET && op == Long.parseLong(want.substring(1).replace("+", ""));
                    if (want.startsWith("v")) yield rule == FrameRow.VAL_OFFSET && op == Long.parseLong(want.substring(1).replace("+", ""));
                    Integer other = REG.get(want);
                    yield other != null && rule == FrameRow.REGISTER && op == other;
                }
            };
            if (!ok) failures.add(where + ": " + header[c] + " " + want + ", got rule " + rule + " operand " + op);
        }
        return 1;
    }
}
