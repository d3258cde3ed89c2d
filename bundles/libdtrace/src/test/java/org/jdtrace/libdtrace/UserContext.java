package org.jdtrace.libdtrace;

import java.util.Arrays;
import java.util.Map;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

/**
 * A user-level probe context with a fixed process image: a stack of pcs (innermost first), a
 * symbol table of functions (start, size, module`name) and one readable memory region. What the
 * pid provider's PidContext gives at a firing, without a process: the D half's contract with it.
 */
record UserContext(long[] args, long[] stack, Map<Long, String> functions, long size, long base, byte[] memory)
        implements ProbeContext {

    public long arg(int i) { return i < args.length ? args[i] : 0; }
    public long pid() { return 4242; }
    public long ppid() { return 1; }
    public long tid() { return 4242; }
    public String execname() { return "work"; }
    public int cpu() { return 0; }

    @Override
    public long[] ustack(int max) {
        return Arrays.copyOf(stack, Math.min(max, stack.length));
    }

    /** module`function+0xoff for a pc inside a function of {@code size} bytes, else null. */
    @Override
    public String usym(long pc) {
        for (Map.Entry<Long, String> f : functions.entrySet()) {
            long off = pc - f.getKey();
            if (off >= 0 && off < size) return f.getValue() + (off == 0 ? "" : "+0x" + Long.toHexString(off));
        }
        return null;
    }

    @Override
    public long ucaller() {
        return stack.length > 1 ? stack[1] : 0;
    }

    @Override
    public byte[] copyin(long addr, int len) throws FaultException {
        if (len < 0 || addr < base || addr + len > base + memory.length) {
            throw new FaultException(FaultException.Kind.BADADDR, addr);
        }
        return Arrays.copyOfRange(memory, (int) (addr - base), (int) (addr - base) + len);
    }

    @Override
    public String copyinstr(long addr, int max) throws FaultException {
        byte[] b = copyin(addr, 1);
        StringBuilder sb = new StringBuilder();
        for (long a = addr; sb.length() < max && (b = copyin(a, 1))[0] != 0; a++) sb.append((char) b[0]);
        return sb.toString();
    }
}
