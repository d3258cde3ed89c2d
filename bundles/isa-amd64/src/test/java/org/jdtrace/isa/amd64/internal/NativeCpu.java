package org.jdtrace.isa.amd64.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

/**
 * Runs instructions on this machine's CPU through the fixture {@code isa_harness} (see its source
 * for the protocol) and models the same address space in Java for the emulator. A case is "bytes
 * placed at addresses + initial registers + entry"; the harness reports the registers and every
 * changed byte after control left the instruction.
 */
final class NativeCpu {

    static final long CODE = 0x1000_0000L, DATA = 0x2000_0000L, STACK = 0x3000_0000L, FAR = 0x6000_0000_0000L;
    static final long[] REGIONS = {CODE, DATA, STACK, FAR};
    static final int SIZE = 0x10000;
    /** rflags bits the harness lets a case choose and the comparison looks at. */
    static final long FLAGS = 0xCD5;

    record Placement(long addr, byte[] bytes) {}

    /** regs: rax rcx rdx rbx rsp rbp rsi rdi r8..r15 (hardware order), then rflags. */
    record Case(long entry, List<Placement> placements, long[] regs) {}

    record Result(int sig, long pc, long addr, long[] regs, String xmm, String memory) {

        /** Where control went: the int3 reached, or the unmapped target fetched; -1 if it faulted. */
        long landed(long entry) {
            if (sig == 5) {
                return pc;
            }
            if (sig == 11 && addr == pc && pc != entry) {
                return pc;
            }
            return -1;
        }
    }

    static Path harness() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path p = d.resolve("fixtures/target/bin/isa_harness");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IllegalStateException("fixtures/target/bin/isa_harness not built (run the fixtures module)");
    }

    static List<Result> run(List<Case> cases) throws Exception {
        Process p = new ProcessBuilder(harness().toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            CompletableFuture<Void> feed = CompletableFuture.runAsync(() -> {
                try (Writer w = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.US_ASCII)) {
                    int id = 0;
                    for (Case c : cases) {
                        StringBuilder sb = new StringBuilder();
                        sb.append(Integer.toHexString(id++)).append(' ').append(Long.toHexString(c.entry()))
                                .append(' ').append(Integer.toHexString(c.placements().size()));
                        for (Placement pl : c.placements()) {
                            sb.append(' ').append(Long.toHexString(pl.addr())).append(' ')
                                    .append(HexFormat.of().formatHex(pl.bytes()));
                        }
                        for (long r : c.regs()) {
                            sb.append(' ').append(Long.toHexString(r));
                        }
                        w.write(sb.append('\n').toString());
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            List<Result> out = new ArrayList<>();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
                String line;
                while ((line = r.readLine()) != null) {
                    String[] t = line.split(" ");
                    if (t.length < 22) {
                        throw new IllegalStateException("harness: " + line);
                    }
                    long[] regs = new long[17];
                    for (int i = 0; i < 17; i++) {
                        regs[i] = Long.parseUnsignedLong(t[4 + i], 16);
                    }
                    String mem = String.join(" ", Arrays.copyOfRange(t, 22, t.length));
                    out.add(new Result(Integer.parseInt(t[1]), Long.parseUnsignedLong(t[2], 16),
                            Long.parseUnsignedLong(t[3], 16), regs, t[21], mem));
                }
            }
            feed.get(60, TimeUnit.SECONDS);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || out.size() != cases.size()) {
                throw new IllegalStateException("harness ended with " + out.size() + "/" + cases.size() + " results");
            }
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    /** The same four regions in Java, with the same initial contents, for the emulator. */
    static final class SimMemory implements Memory {
        private final Map<Long, byte[]> regions = new TreeMap<>();
        private final Map<Long, byte[]> before = new TreeMap<>();

        SimMemory(List<Placement> placements) {
            for (long base : REGIONS) {
                byte[] b = new byte[SIZE];
                for (int i = 0; i < SIZE; i++) {
                    b[i] = (base == CODE || base == FAR) ? (byte) 0xCC : (byte) (i * 131 + 7);
                }
                regions.put(base, b);
            }
            for (Placement pl : placements) {
                byte[] r = regions.get(regionOf(pl.addr(), pl.bytes().length));
                System.arraycopy(pl.bytes(), 0, r, (int) (pl.addr() - regionOf(pl.addr(), 0)), pl.bytes().length);
            }
            regions.forEach((k, v) -> before.put(k, v.clone()));
        }

        private static long regionOf(long addr, int len) {
            for (long base : REGIONS) {
                if (addr >= base && addr + len <= base + SIZE && addr + len >= addr) {
                    return base;
                }
            }
            return -1;
        }

        @Override
        public void read(long addr, byte[] buf, int off, int len) throws IsaException {
            long base = regionOf(addr, len);
            if (base < 0) {
                throw new IsaException("fault", addr);
            }
            System.arraycopy(regions.get(base), (int) (addr - base), buf, off, len);
        }

        @Override
        public void write(long addr, byte[] buf, int off, int len) throws IsaException {
            long base = regionOf(addr, len);
            if (base < 0) {
                throw new IsaException("fault", addr);
            }
            System.arraycopy(buf, off, regions.get(base), (int) (addr - base), len);
        }

        /** Changed byte runs in the harness's format. */
        String diff() {
            StringBuilder sb = new StringBuilder();
            for (long base : REGIONS) {
                byte[] now = regions.get(base), was = before.get(base);
                for (int i = 0; i < SIZE;) {
                    if (now[i] == was[i]) {
                        i++;
                        continue;
                    }
                    sb.append(sb.isEmpty() ? "" : " ").append(Long.toHexString(base + i)).append(':');
                    while (i < SIZE && now[i] != was[i]) {
                        sb.append(String.format("%02x", now[i++] & 0xFF));
                    }
                }
            }
            return sb.toString();
        }
    }

    /** Registers of a case as a ptrace register file. */
    static Amd64Registers registers(long[] hwAndFlags, long pc) {
        Amd64Registers r = new Amd64Registers();
        for (int hw = 0; hw < 16; hw++) {
            r.setGpr(hw, hwAndFlags[hw]);
        }
        r.raw()[Amd64Registers.EFLAGS] = hwAndFlags[16];
        r.setPc(pc);
        return r;
    }

    static long[] hwAndFlags(Amd64Registers r) {
        long[] out = new long[17];
        for (int hw = 0; hw < 16; hw++) {
            out[hw] = r.gpr(hw);
        }
        out[16] = r.flags();
        return out;
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    static byte[] le64(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    private NativeCpu() {}
}
