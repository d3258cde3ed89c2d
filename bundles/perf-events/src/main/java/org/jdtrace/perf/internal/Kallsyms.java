/*
 * The kernel's text symbols from /proc/kallsyms (real addresses as root; all zeros otherwise,
 * when stack() frames stay hex), read once on first use, sorted by address. lookup(pc) gives
 * {@code module`function+0xoff} as DTrace prints kernel frames ({@code vmlinux} for the core
 * kernel, the module's name for a module's symbol). Immutable after load; safe from any thread.
 */
package org.jdtrace.perf.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

final class Kallsyms {

    private final long[] addrs;
    private final String[] names;

    private Kallsyms(long[] addrs, String[] names) {
        this.addrs = addrs;
        this.names = names;
    }

    static Kallsyms load() {
        record Sym(long addr, String name) {}
        List<Sym> syms = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(Path.of("/proc/kallsyms"))) {
            for (String line; (line = r.readLine()) != null; ) {
                int a = line.indexOf(' '), b = line.indexOf(' ', a + 1);
                if (a < 0 || b < 0) continue;
                char t = line.charAt(a + 1);
                if (t != 't' && t != 'T' && t != 'w' && t != 'W') continue;
                long addr = Long.parseUnsignedLong(line, 0, a, 16);
                if (addr == 0) continue;
                String rest = line.substring(b + 1);
                int tab = rest.indexOf('\t');
                String name;
                if (tab < 0) {
                    name = "vmlinux`" + rest;
                } else {
                    String mod = rest.substring(tab + 1).strip();
                    if (mod.startsWith("[") && mod.endsWith("]")) mod = mod.substring(1, mod.length() - 1);
                    name = mod + "`" + rest.substring(0, tab);
                }
                syms.add(new Sym(addr, name));
            }
        } catch (IOException e) {
            return new Kallsyms(new long[0], new String[0]);
        }
        syms.sort((x, y) -> Long.compareUnsigned(x.addr, y.addr));
        long[] addrs = new long[syms.size()];
        String[] names = new String[syms.size()];
        for (int i = 0; i < addrs.length; i++) {
            addrs[i] = syms.get(i).addr;
            names[i] = syms.get(i).name;
        }
        return new Kallsyms(addrs, names);
    }

    int size() {
        return addrs.length;
    }

    /**
     * The address of vmlinux's function {@code name} (the first of that name) in the kallsyms
     * file {@code file}, or 0, without building the table: the file is read in chunks of whole
     * lines, each searched with one indexOf, and only up to the line that names it (a load parses
     * all 120,000 lines; tick-N wants one address at its start, and do_idle is in the file's
     * first seventh: reading the rest cost 30 ms of kernel time and 26 MB of heap per run).
     */
    static long address(Path file, String name) {
        String tail = " " + name + "\n"; // a module's symbol has a tab and [module] after its name
        byte[] buf = new byte[1 << 16];
        int len = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf, len, buf.length - len)) >= 0; ) {
                len += n;
                int end = len;
                while (end > 0 && buf[end - 1] != '\n') end--;
                if (end == 0) { // no whole line yet
                    if (len == buf.length) buf = Arrays.copyOf(buf, 2 * len);
                    continue;
                }
                long addr = address(new String(buf, 0, end, StandardCharsets.ISO_8859_1), tail);
                if (addr != 0) return addr;
                System.arraycopy(buf, end, buf, 0, len - end);
                len -= end;
            }
        } catch (IOException e) {
            return 0;
        }
        return 0;
    }

    /** The address on the first "ADDR t name" line of {@code text} (whole lines) that ends in {@code tail}, or 0. */
    private static long address(String text, String tail) {
        for (int at = text.indexOf(tail); at >= 0; at = text.indexOf(tail, at + 1)) {
            int start = text.lastIndexOf('\n', at) + 1;
            int a = text.indexOf(' ', start);
            if (a != at - 2) continue; // "ADDR T name": the type is the one character between
            char t = text.charAt(a + 1);
            if (t != 't' && t != 'T' && t != 'w' && t != 'W') continue;
            try {
                long addr = Long.parseUnsignedLong(text, start, a, 16);
                if (addr != 0) return addr;
            } catch (NumberFormatException e) {
                // not a kallsyms line
            }
        }
        return 0;
    }

    /** The address of vmlinux's function {@code name} (the first of that name), or 0. */
    long address(String name) {
        String n = "vmlinux`" + name;
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(n)) return addrs[i];
        }
        return 0;
    }

    /** {@code module`function+0xoff}, or null below the first symbol. */
    String lookup(long pc) {
        int lo = 0, hi = addrs.length - 1, at = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(addrs[mid], pc) <= 0) {
                at = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (at < 0) return null;
        long off = pc - addrs[at];
        return off == 0 ? names[at] : names[at] + "+0x" + Long.toHexString(off);
    }

    @Override
    public String toString() {
        return "kallsyms(" + addrs.length + " symbols" + (addrs.length > 0 ? ", first " + Arrays.toString(new String[] {names[0]}) : "") + ")";
    }
}
