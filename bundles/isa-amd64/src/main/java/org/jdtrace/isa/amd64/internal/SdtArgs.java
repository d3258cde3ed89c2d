package org.jdtrace.isa.amd64.internal;

import java.util.Map;
import java.util.function.ToLongFunction;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.isa.SdtArgument;

/**
 * SystemTap SDT argument specs on amd64. {@code <sys/sdt.h>} has the compiler describe each probe
 * argument as {@code [-]N@operand} with the operand in AT&T syntax, exactly as the assembler would
 * accept it for an instruction ({@code -4@%edi}, {@code 8@-8(%rbp)}, {@code 8@sym(%rip)},
 * {@code -8@sym+16(%rip)}, {@code 8@(%rdx,%rax,8)}, {@code 4@$5}, {@code 1@%al}). N is the size in
 * bytes, negative for signed; without {@code N@} the argument is 8 bytes. The value is the operand
 * (a register's bits, the bytes at a memory address, an immediate) truncated to |N| bytes and
 * sign- or zero-extended to 64 bits. Symbols (in memory references and immediates) resolve
 * through the caller's symbol lookup; a rip-relative reference with a symbol is that symbol's
 * address plus the displacement (which is what the assembler encoded).
 */
final class SdtArgs {

    private static final Map<String, Integer> REG64 = names("rax rcx rdx rbx rsp rbp rsi rdi", "");
    private static final Map<String, Integer> REG32 = names("eax ecx edx ebx esp ebp esi edi", "d");
    private static final Map<String, Integer> REG16 = names("ax cx dx bx sp bp si di", "w");
    private static final Map<String, Integer> REG8 = names("al cl dl bl spl bpl sil dil", "b");
    private static final Map<String, Integer> REG8H = Map.of("ah", 0, "ch", 1, "dh", 2, "bh", 3);

    private static Map<String, Integer> names(String low, String suffix) {
        java.util.HashMap<String, Integer> m = new java.util.HashMap<>();
        String[] n = low.split(" ");
        for (int i = 0; i < 8; i++) {
            m.put(n[i], i);
        }
        for (int i = 8; i < 16; i++) {
            m.put("r" + i + suffix, i);
            if (suffix.equals("b")) {
                m.put("r" + i + "l", i);
            }
        }
        return Map.copyOf(m);
    }

    static SdtArgument parse(String spec) throws IsaException {
        if (spec == null) {
            throw bad("null", "no argument");
        }
        String s = spec.strip();
        int size = 8;
        int at = s.indexOf('@');
        if (at > 0 && s.substring(0, at).matches("-?\\d{1,2}")) {
            size = Integer.parseInt(s.substring(0, at));
            s = s.substring(at + 1);
            int abs = Math.abs(size);
            if (abs != 1 && abs != 2 && abs != 4 && abs != 8) {
                throw bad(spec, "size " + size);
            }
        }
        if (s.isEmpty()) {
            throw bad(spec, "no operand");
        }
        return new SdtArgument(size, spec, operand(s, spec));
    }

    private static SdtOperand operand(String s, String spec) throws IsaException {
        if (s.startsWith("$")) {
            Disp d = disp(s.substring(1), spec);
            return new SdtOperand.Imm(d.symbol, d.value);
        }
        int segment = 0;
        if (s.startsWith("%") && s.length() > 3 && s.charAt(3) == ':') {
            String seg = s.substring(1, 3);
            segment = switch (seg) {
                case "fs" -> 4;
                case "gs" -> 5;
                case "cs", "ds", "es", "ss" -> 0;
                default -> throw bad(spec, "segment " + seg);
            };
            s = s.substring(4);
        } else if (s.startsWith("%")) {
            return register(s.substring(1), spec);
        }
        int open = s.indexOf('(');
        if (open < 0) {
            Disp d = disp(s, spec);
            return new SdtOperand.Mem(segment, d.symbol, d.value, -1, -1, 1);
        }
        if (!s.endsWith(")")) {
            throw bad(spec, "unbalanced parenthesis");
        }
        Disp d = open == 0 ? new Disp(null, 0) : disp(s.substring(0, open), spec);
        String[] parts = s.substring(open + 1, s.length() - 1).split(",", -1);
        if (parts.length > 3) {
            throw bad(spec, "too many address parts");
        }
        int base = -1, index = -1, scale = 1;
        String b = parts[0].strip();
        if (!b.isEmpty()) {
            if (b.equals("%rip")) {
                base = SdtOperand.RIP;
            } else {
                base = reg64(b, spec);
            }
        }
        if (parts.length >= 2) {
            String i = parts[1].strip();
            if (!i.isEmpty()) {
                index = reg64(i, spec);
                if (index == 4 || base == SdtOperand.RIP) {
                    throw bad(spec, "bad index " + i);
                }
            }
        }
        if (parts.length == 3) {
            String sc = parts[2].strip();
            scale = switch (sc) {
                case "1" -> 1;
                case "2" -> 2;
                case "4" -> 4;
                case "8" -> 8;
                default -> throw bad(spec, "scale " + sc);
            };
        }
        if (base < 0 && index < 0 && open > 0 && parts.length == 1 && b.isEmpty()) {
            throw bad(spec, "empty address");
        }
        return new SdtOperand.Mem(segment, d.symbol, d.value, base, index, scale);
    }

    private static int reg64(String r, String spec) throws IsaException {
        Integer hw = r.startsWith("%") ? REG64.get(r.substring(1)) : null;
        if (hw == null) {
            throw bad(spec, "not a 64-bit address register: " + r);
        }
        return hw;
    }

    private static SdtOperand.Reg register(String name, String spec) throws IsaException {
        Integer hw;
        if ((hw = REG64.get(name)) != null) {
            return new SdtOperand.Reg(hw, 8, false);
        }
        if ((hw = REG32.get(name)) != null) {
            return new SdtOperand.Reg(hw, 4, false);
        }
        if ((hw = REG16.get(name)) != null) {
            return new SdtOperand.Reg(hw, 2, false);
        }
        if ((hw = REG8.get(name)) != null) {
            return new SdtOperand.Reg(hw, 1, false);
        }
        if ((hw = REG8H.get(name)) != null) {
            return new SdtOperand.Reg(hw, 1, true);
        }
        throw bad(spec, "unknown register %" + name);
    }

    private record Disp(String symbol, long value) {}

    /** {@code 123}, {@code -0x10}, {@code sym}, {@code sym+16}, {@code sym-0x8}. */
    private static Disp disp(String t, String spec) throws IsaException {
        t = t.strip();
        if (t.isEmpty()) {
            throw bad(spec, "empty displacement");
        }
        char c = t.charAt(0);
        if (c == '-' || c == '+' || Character.isDigit(c)) {
            return new Disp(null, number(t, spec));
        }
        int k = 0;
        while (k < t.length() && (Character.isLetterOrDigit(t.charAt(k)) || "_.$@".indexOf(t.charAt(k)) >= 0)) {
            k++;
        }
        String sym = t.substring(0, k);
        String rest = t.substring(k);
        long off = 0;
        if (!rest.isEmpty()) {
            if (rest.charAt(0) != '+' && rest.charAt(0) != '-') {
                throw bad(spec, "bad displacement " + t);
            }
            off = number(rest, spec);
        }
        return new Disp(sym, off);
    }

    private static long number(String t, String spec) throws IsaException {
        boolean neg = false;
        String n = t;
        if (n.startsWith("+") || n.startsWith("-")) {
            neg = n.charAt(0) == '-';
            n = n.substring(1);
        }
        try {
            long v;
            if (n.startsWith("0x") || n.startsWith("0X")) {
                v = Long.parseUnsignedLong(n.substring(2), 16);
            } else {
                v = Long.parseUnsignedLong(n);
            }
            return neg ? -v : v;
        } catch (NumberFormatException e) {
            throw bad(spec, "bad number " + t);
        }
    }

    static long value(SdtArgument arg, Amd64Registers regs, Memory mem, ToLongFunction<String> symbols)
            throws IsaException {
        if (!(arg.operand() instanceof SdtOperand op)) {
            throw new IsaException("not an amd64 SDT argument: " + arg.text(), regs.pc());
        }
        int size = Math.abs(arg.size());
        long raw = switch (op) {
            case SdtOperand.Reg r -> r.high() ? (regs.gpr(r.hw()) >>> 8) & 0xFF : regs.gpr(r.hw());
            case SdtOperand.Imm i -> i.value() + symbol(i.symbol(), symbols, regs.pc());
            case SdtOperand.Mem m -> Emulator.read(mem, address(m, regs, symbols), size);
        };
        if (op instanceof SdtOperand.Reg r && !r.high()) {
            raw = extend(raw, r.width(), false);
        }
        return extend(raw, size, arg.size() < 0);
    }

    static long address(SdtOperand.Mem m, Amd64Registers regs, ToLongFunction<String> symbols) throws IsaException {
        long ea = m.disp() + symbol(m.symbol(), symbols, regs.pc());
        if (m.base() == SdtOperand.RIP) {
            if (m.symbol() == null) {
                ea += regs.pc();
            }
        } else if (m.base() >= 0) {
            ea += regs.gpr(m.base());
        }
        if (m.index() >= 0) {
            ea += regs.gpr(m.index()) * m.scale();
        }
        if (m.segment() == 4) {
            ea += regs.raw()[Amd64Registers.FS_BASE];
        } else if (m.segment() == 5) {
            ea += regs.raw()[Amd64Registers.GS_BASE];
        }
        return ea;
    }

    private static long symbol(String name, ToLongFunction<String> symbols, long pc) throws IsaException {
        if (name == null) {
            return 0;
        }
        if (symbols == null) {
            throw new IsaException("no symbol table to resolve " + name, pc);
        }
        try {
            return symbols.applyAsLong(name);
        } catch (RuntimeException e) {
            throw new IsaException("cannot resolve symbol " + name + ": " + e.getMessage(), pc);
        }
    }

    /** The low {@code bytes} bytes of {@code v}, sign- or zero-extended. */
    static long extend(long v, int bytes, boolean signed) {
        if (bytes >= 8) {
            return v;
        }
        int shift = 64 - 8 * bytes;
        return signed ? v << shift >> shift : v << shift >>> shift;
    }

    private static IsaException bad(String spec, String why) {
        return new IsaException("bad SDT argument '" + spec + "': " + why, 0);
    }

    private SdtArgs() {}
}
