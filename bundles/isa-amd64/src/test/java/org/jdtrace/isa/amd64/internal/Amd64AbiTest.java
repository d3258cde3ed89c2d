package org.jdtrace.isa.amd64.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.junit.jupiter.api.Test;

class Amd64AbiTest {

    private final Amd64Abi abi = new Amd64Abi();

    @Test
    void uregNumbersAreDtraceOnLinuxs() {
        // dtrace-utils' x86_64 regs.d: the struct pt_regs index; the i386 names are the same registers
        Map<String, Integer> want = Map.ofEntries(Map.entry("R_R15", 0), Map.entry("R_R14", 1), Map.entry("R_R13", 2),
                Map.entry("R_R12", 3), Map.entry("R_RBP", 4), Map.entry("R_RBX", 5), Map.entry("R_R11", 6),
                Map.entry("R_R10", 7), Map.entry("R_R9", 8), Map.entry("R_R8", 9), Map.entry("R_RAX", 10),
                Map.entry("R_RCX", 11), Map.entry("R_RDX", 12), Map.entry("R_RSI", 13), Map.entry("R_RDI", 14),
                Map.entry("R_ERR", 15), Map.entry("R_RIP", 16), Map.entry("R_CS", 17), Map.entry("R_RFL", 18),
                Map.entry("R_RSP", 19), Map.entry("R_SS", 20), Map.entry("R_DS", 21), Map.entry("R_ES", 22),
                Map.entry("R_FS", 23), Map.entry("R_GS", 24), Map.entry("R_TRAPNO", 25), Map.entry("R_EAX", 10),
                Map.entry("R_EBX", 5), Map.entry("R_ECX", 11), Map.entry("R_EDX", 12), Map.entry("R_ESI", 13),
                Map.entry("R_EDI", 14), Map.entry("R_EBP", 4), Map.entry("R_EIP", 16), Map.entry("R_EFL", 18),
                Map.entry("R_ESP", 19), Map.entry("R_PC", 16), Map.entry("R_FP", 4), Map.entry("R_SP", 19),
                Map.entry("R_PS", 18), Map.entry("R_R0", 10), Map.entry("R_R1", 5));
        assertEquals(want, abi.uregNames());
        want.forEach((name, n) -> assertEquals(n, abi.uregNumber(name), name));
        assertEquals(-1, abi.uregNumber("R_XYZ"));
        assertEquals(-1, abi.uregNumber("R_UESP"));
    }

    @Test
    void uregsReadTheRightRegisters() throws IsaException {
        Amd64Registers r = new Amd64Registers();
        for (int slot = 0; slot < Amd64Registers.SLOTS; slot++) {
            r.raw()[slot] = 0x1000 + slot;
        }
        String[][] pairs = {{"R_RAX", "RAX"}, {"R_EAX", "RAX"}, {"R_R0", "RAX"}, {"R_R1", "RBX"}, {"R_RBX", "RBX"},
            {"R_RCX", "RCX"}, {"R_ECX", "RCX"}, {"R_RDX", "RDX"}, {"R_RSI", "RSI"}, {"R_RDI", "RDI"},
            {"R_EBP", "RBP"}, {"R_FP", "RBP"}, {"R_RBP", "RBP"}, {"R_RSP", "RSP"}, {"R_SP", "RSP"}, {"R_ESP", "RSP"},
            {"R_PC", "RIP"}, {"R_RIP", "RIP"}, {"R_EIP", "RIP"}, {"R_RFL", "EFLAGS"},
            {"R_PS", "EFLAGS"}, {"R_CS", "CS"}, {"R_SS", "SS"}, {"R_DS", "DS"}, {"R_ES", "ES"}, {"R_FS", "FS"},
            {"R_GS", "GS"}, {"R_R8", "R8"}, {"R_R9", "R9"}, {"R_R10", "R10"}, {"R_R11", "R11"}, {"R_R12", "R12"},
            {"R_R13", "R13"}, {"R_R14", "R14"}, {"R_R15", "R15"}};
        for (String[] p : pairs) {
            int slot;
            try {
                slot = Amd64Registers.class.getField(p[1]).getInt(null);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            assertEquals(0x1000 + slot, abi.ureg(r, abi.uregNumber(p[0])), p[0]);
        }
        assertEquals(0x1000 + Amd64Registers.ORIG_RAX, abi.ureg(r, abi.uregNumber("R_ERR")));
        assertEquals(0, abi.ureg(r, abi.uregNumber("R_TRAPNO")));
        assertThrows(IsaException.class, () -> abi.ureg(r, 26));
        assertThrows(IsaException.class, () -> abi.ureg(r, -1));
        org.jdtrace.isa.RegisterFile shortFile = new org.jdtrace.isa.RegisterFile() {
            public long[] raw() { return new long[3]; }
            public long pc() { return 0; }
            public void setPc(long pc) {}
            public long sp() { return 0; }
            public void setSp(long sp) {}
        };
        assertThrows(IsaException.class, () -> abi.ureg(shortFile, 0));
    }

    @Test
    void argumentsAndReturnValues() throws IsaException {
        Amd64Registers r = new Amd64Registers();
        r.setGpr(7, 10);
        r.setGpr(6, 11);
        r.setGpr(2, 12);
        r.setGpr(1, 13);
        r.setGpr(8, 14);
        r.setGpr(9, 15);
        r.setGpr(0, 99);
        r.setSp(NativeCpu.STACK + 0x100);
        NativeCpu.SimMemory mem = new NativeCpu.SimMemory(List.of(
                new NativeCpu.Placement(NativeCpu.STACK + 0x100, NativeCpu.le64(0x4005d0)),
                new NativeCpu.Placement(NativeCpu.STACK + 0x108, NativeCpu.le64(16)),
                new NativeCpu.Placement(NativeCpu.STACK + 0x110, NativeCpu.le64(17))));
        for (int i = 0; i < 8; i++) {
            assertEquals(10 + i, abi.entryArgument(r, mem, i), "arg" + i);
        }
        assertEquals(0x4005d0, abi.returnAddressAtEntry(r, mem));
        assertEquals(99, abi.returnValue(r, false));
        r.setGpr(2, 77);
        assertEquals(77, abi.returnValue(r, true));
        assertThrows(IsaException.class, () -> abi.entryArgument(r, mem, -1));
        r.setSp(0x7000_0000L);
        assertThrows(IsaException.class, () -> abi.entryArgument(r, mem, 6));
    }

    /** A real gcc frame-pointer chain, dumped by the fpstack fixture, walked from dump()'s registers. */
    record Dump(long pc, long rbp, long rsp, long[] rets, byte[] stack) {}

    static Dump fpstack() throws Exception {
        Path exe = NativeCpu.harness().resolveSibling("fpstack");
        Process p = new ProcessBuilder(exe.toString()).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            String[] head = r.readLine().split(" ");
            long[] rets = Arrays.stream(r.readLine().split(" ")).skip(1).mapToLong(s -> Long.parseUnsignedLong(s, 16))
                    .toArray();
            byte[] stack = HexFormat.of().parseHex(r.readLine().substring("stack ".length()));
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
            return new Dump(Long.parseUnsignedLong(head[1], 16), Long.parseUnsignedLong(head[3], 16),
                    Long.parseUnsignedLong(head[5], 16), rets, stack);
        } finally {
            p.destroyForcibly();
        }
    }

    static Memory stackMemory(long base, byte[] bytes) {
        return new Memory() {
            @Override
            public void read(long addr, byte[] buf, int off, int len) throws IsaException {
                if (addr < base || addr + len > base + bytes.length || addr + len < addr) {
                    throw new IsaException("unreadable", addr);
                }
                System.arraycopy(bytes, (int) (addr - base), buf, off, len);
            }

            @Override
            public void write(long addr, byte[] buf, int off, int len) throws IsaException {
                throw new IsaException("read-only", addr);
            }
        };
    }

    @Test
    void walksARealFramePointerChainAndSurvivesBadFrames() throws Exception {
        Dump d = fpstack();
        Amd64Registers r = new Amd64Registers();
        r.setPc(d.pc());
        r.setSp(d.rsp());
        r.setGpr(5, d.rbp());
        long[] want = new long[d.rets().length + 1];
        want[0] = d.pc();
        System.arraycopy(d.rets(), 0, want, 1, d.rets().length);
        long[] got = abi.stack(r, stackMemory(d.rsp(), d.stack()), 100);
        assertTrue(got.length >= want.length && got.length <= want.length + 2, Arrays.toString(got));
        assertArrayEquals(want, Arrays.copyOf(got, want.length));
        assertArrayEquals(Arrays.copyOf(want, 3), abi.stack(r, stackMemory(d.rsp(), d.stack()), 3));
        assertEquals(0, abi.stack(r, stackMemory(d.rsp(), d.stack()), 0).length);

        // f3's frame (the one dump() returns into) made to point at itself: a cycle ends the walk
        long f3 = readLong(d.stack(), (int) (d.rbp() - d.rsp()));
        byte[] cyclic = d.stack().clone();
        putLong(cyclic, (int) (f3 - d.rsp()), f3);
        assertArrayEquals(Arrays.copyOf(want, 3), abi.stack(r, stackMemory(d.rsp(), cyclic), 100));
        // a misaligned saved frame pointer
        byte[] misaligned = d.stack().clone();
        putLong(misaligned, (int) (f3 - d.rsp()), f3 + 0x13);
        assertArrayEquals(Arrays.copyOf(want, 3), abi.stack(r, stackMemory(d.rsp(), misaligned), 100));
        // a "return address" that is text, no user address (a frame without a frame pointer)
        byte[] text = d.stack().clone();
        putLong(text, (int) (f3 - d.rsp()) + 8, 0x2f656c61636f6c2fL); // "/locale/"
        assertArrayEquals(Arrays.copyOf(want, 2), abi.stack(r, stackMemory(d.rsp(), text), 100));
        // a saved frame pointer into unreadable memory
        byte[] wild = d.stack().clone();
        putLong(wild, (int) (f3 - d.rsp()), 0x7fff_0000_0000L);
        assertArrayEquals(Arrays.copyOf(want, 3), abi.stack(r, stackMemory(d.rsp(), wild), 100));
        // rbp itself garbage: only the pc
        r.setGpr(5, 0x1234_5678_9abc_def0L);
        assertArrayEquals(new long[] {d.pc()}, abi.stack(r, stackMemory(d.rsp(), d.stack()), 100));
        r.setGpr(5, 0);
        assertArrayEquals(new long[] {d.pc()}, abi.stack(r, stackMemory(d.rsp(), d.stack()), 100));
    }

    private static long readLong(byte[] b, int at) {
        long v = 0;
        for (int k = 7; k >= 0; k--) {
            v = v << 8 | (b[at + k] & 0xFF);
        }
        return v;
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int k = 0; k < 8; k++) {
            b[at + k] = (byte) (v >>> (8 * k));
        }
    }

    @Test
    void syscallTableIsTheX8664Abi() {
        Map<Integer, String> n = abi.syscallNames();
        assertEquals("read", n.get(0));
        assertEquals("write", n.get(1));
        assertEquals("ioctl", n.get(16));
        assertEquals("getppid", n.get(110));
        assertEquals("openat", n.get(257));
        assertEquals("exit_group", n.get(231));
        assertTrue(n.size() > 350 && !n.containsKey(400), "the 335..423 hole has no names: " + n.size());
        assertEquals(n.size(), Set.copyOf(n.values()).size(), "names are unique");
    }

    @Test
    void syscallArgumentsAreRdiRsiRdxR10R8R9() throws IsaException {
        long[] raw = new long[Amd64Registers.SLOTS];
        raw[Amd64Registers.RDI] = 1;
        raw[Amd64Registers.RSI] = 2;
        raw[Amd64Registers.RDX] = 3;
        raw[Amd64Registers.RCX] = 99; // the syscall instruction clobbers rcx: never an argument
        raw[Amd64Registers.R10] = 4;
        raw[Amd64Registers.R8] = 5;
        raw[Amd64Registers.R9] = 6;
        raw[Amd64Registers.ORIG_RAX] = 257;
        raw[Amd64Registers.RAX] = -2;
        Amd64Registers r = new Amd64Registers(raw);
        for (int i = 0; i < 6; i++) assertEquals(i + 1, abi.syscallArgument(r, i));
        assertThrows(IsaException.class, () -> abi.syscallArgument(r, 6));
        assertEquals(257, abi.syscallNumber(r));
        assertEquals(-2, abi.syscallReturn(r));
    }

    /**
     * A call set up by setSyscall reads back through the entry-side accessors as the kernel
     * would see it (number in rax, orig_rax -1 against restart); the number of a name is the one
     * unistd_64.h gives (the outside reference, when the header is installed); the instruction
     * is the decoder's SYSCALL.
     */
    @Test
    void setSyscallPutsTheNumberAndArgumentsWhereTheSyscallInstructionTakesThem() throws Exception {
        Amd64Registers r = new Amd64Registers();
        Arrays.fill(r.raw(), 0x5a5a);
        abi.setSyscall(r, abi.syscallNumberOf("mmap"), 10, 20, 30, 40, 50, 60);
        assertEquals(abi.syscallNumberOf("mmap"), r.raw()[Amd64Registers.RAX]);
        assertEquals(-1, abi.syscallNumber(r), "orig_rax: no restart of an interrupted call");
        for (int i = 0; i < 6; i++) assertEquals(10 * (i + 1), abi.syscallArgument(r, i));
        assertEquals(0x5a5a, r.raw()[Amd64Registers.RCX], "other registers untouched");
        assertThrows(IllegalArgumentException.class, () -> abi.setSyscall(r, 0, 1, 2, 3, 4, 5, 6, 7));
        assertEquals(-1, abi.syscallNumberOf("no_such_call"));
        Path header = Path.of("/usr/include/x86_64-linux-gnu/asm/unistd_64.h");
        if (java.nio.file.Files.isRegularFile(header)) {
            for (String line : java.nio.file.Files.readAllLines(header)) {
                String[] w = line.trim().split("\\s+");
                if (w.length == 3 && w[0].equals("#define") && w[1].startsWith("__NR_")) {
                    assertEquals(Long.parseLong(w[2]), abi.syscallNumberOf(w[1].substring(5)), w[1]);
                }
            }
        } else {
            assertEquals(9, abi.syscallNumberOf("mmap"));
            assertEquals(11, abi.syscallNumberOf("munmap"));
        }
        Amd64Isa isa = new Amd64Isa();
        byte[] call = isa.syscallInstruction();
        assertEquals(org.jdtrace.isa.Instruction.Kind.SYSCALL, isa.decode(call, 0, 0x1000).kind());
        assertEquals(call.length, isa.decode(call, 0, 0x1000).length());
    }

    /**
     * The calling thread's registers (getcontext): the pc in an executable mapping of this
     * process, the stack and frame pointers in a writable one, as /proc/self/maps gives them;
     * two reads on the same thread a few frames apart keep the stack pointer within a page or so.
     */
    @Test
    void theCallingThreadsRegistersAreItsOwn() throws Exception {
        long pc = abi.callingThreadUreg(abi.uregNumber("R_PC"));
        long sp = abi.callingThreadUreg(abi.uregNumber("R_SP"));
        List<String> maps = java.nio.file.Files.readAllLines(Path.of("/proc/self/maps"));
        assertTrue(maps.stream().anyMatch(m -> within(m, pc, 'x')), "pc " + Long.toHexString(pc) + " executable");
        assertTrue(maps.stream().anyMatch(m -> within(m, sp, 'w')), "sp " + Long.toHexString(sp) + " writable");
        long[] other = new long[1];
        Thread t = new Thread(() -> {
            try {
                other[0] = abi.callingThreadUreg(abi.uregNumber("R_SP"));
            } catch (IsaException e) {
                throw new AssertionError(e);
            }
        });
        t.start();
        t.join();
        assertTrue(Math.abs(other[0] - sp) > 64 * 1024, "another thread's stack is elsewhere: "
                + Long.toHexString(other[0]) + " vs " + Long.toHexString(sp));
        long again = abi.callingThreadUreg(abi.uregNumber("R_SP"));
        assertTrue(Math.abs(again - sp) < 8192, "the same thread's stack: " + Long.toHexString(again) + " vs " + Long.toHexString(sp));
    }

    private static boolean within(String mapsLine, long address, char permission) {
        String[] f = mapsLine.split("\\s+");
        String[] range = f[0].split("-");
        long lo = Long.parseUnsignedLong(range[0], 16), hi = Long.parseUnsignedLong(range[1], 16);
        return Long.compareUnsigned(address, lo) >= 0 && Long.compareUnsigned(address, hi) < 0 && f[1].indexOf(permission) >= 0;
    }
}
