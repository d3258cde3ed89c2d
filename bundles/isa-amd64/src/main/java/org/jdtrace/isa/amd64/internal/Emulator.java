package org.jdtrace.isa.amd64.internal;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.isa.RegisterFile;

/**
 * Emulates, on a stopped thread's registers and memory, the displaced instructions whose effect
 * depends on where they execute (everything that reads rip or transfers control) plus the common
 * cheap ones at function entry: {@code ret}, {@code ret imm16}, {@code jmp}/{@code call} rel and
 * indirect (every ModRM/SIB form, rip-relative, %fs/%gs), the 16 {@code jcc} in rel8 and rel32,
 * {@code loop}/{@code loope}/{@code loopne}/{@code jrcxz}/{@code jecxz}, {@code push} (register,
 * immediate, memory; 16-bit with 66) and the nops ({@code 90}, {@code 66 90}, {@code pause},
 * {@code 0F 1F /0}, {@code endbr64}/{@code endbr32}). This is what fasttrap does in the kernel
 * (its FASTTRAP_T_RET, _JMP, _JCC, _LOOP, _JCXZ, _CALL, _PUSHL_EBP, _NOP); everything else runs
 * out of line (see {@link Relocator}).
 *
 * Invariants: the instruction is re-read from its own bytes (the decoder's length must agree);
 * all memory reads happen before any write, and registers change only after every memory access
 * succeeded, so a fault (IsaException from {@link Memory}) leaves the thread untouched. No flags
 * are changed by any emulated form. Branches with an operand-size prefix (which truncate rip to 16
 * bits on AMD and are ignored on Intel) are refused rather than guessed.
 */
final class Emulator {

    private static final int CF = 1, PF = 1 << 2, ZF = 1 << 6, SF = 1 << 7, OF = 1 << 11;

    /** Whether {@code emulate} handles this instruction (same checks, no side effects). */
    static boolean canEmulate(Instruction insn) {
        try {
            return plan(insn) != null;
        } catch (IsaException | RuntimeException e) {
            return false;
        }
    }

    static void emulate(Instruction insn, RegisterFile file, Memory mem) throws IsaException {
        try {
            Step step = plan(insn);
            if (step == null) {
                throw new IsaException("not an emulated instruction", insn.pc());
            }
            Amd64Registers regs = Amd64Registers.of(file);
            step.run(insn, regs, mem);
        } catch (IsaException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IsaException("cannot emulate: " + e, insn.pc());
        }
    }

    private interface Step {
        void run(Instruction insn, Amd64Registers regs, Memory mem) throws IsaException;
    }

    /** Checks the form and returns how to execute it, or null when it is not an emulated form. */
    private static Step plan(Instruction insn) throws IsaException {
        byte[] code = insn.bytes();
        long pc = insn.pc();
        Form f = Form.parse(code, pc);
        if (f.vex != 0 || f.lock) {
            return null;
        }
        int op = f.opcode;
        int after = f.opcodePos + 1;
        if (f.map == 0) {
            switch (op) {
                case 0xC3:
                    return expect(insn, after, f.opsize16 ? null : (i, r, m) -> ret(i, r, m, 0));
                case 0xC2: {
                    int imm = Form.at(code, after, pc) | Form.at(code, after + 1, pc) << 8;
                    return expect(insn, after + 2, f.opsize16 ? null : (i, r, m) -> ret(i, r, m, imm));
                }
                case 0xEB, 0xE9: {
                    int size = op == 0xEB ? 1 : 4;
                    long rel = imm(code, after, size, pc);
                    return expect(insn, after + size, f.opsize16 ? null : (i, r, m) -> r.setPc(target(next(i) + rel, i)));
                }
                case 0xE8: {
                    long rel = imm(code, after, 4, pc);
                    return expect(insn, after + 4, f.opsize16 ? null : (i, r, m) -> call(i, r, m, next(i) + rel));
                }
                case 0xE0, 0xE1, 0xE2, 0xE3: {
                    long rel = imm(code, after, 1, pc);
                    return expect(insn, after + 1, f.opsize16 ? null : (i, r, m) -> loop(f, op, i, r, rel));
                }
                case 0x6A, 0x68: {
                    int size = op == 0x6A ? 1 : f.opsize16 ? 2 : 4;
                    long value = imm(code, after, size, pc);
                    return expect(insn, after + size, (i, r, m) -> push(r, m, value, f.opsize16 ? 2 : 8, i));
                }
                case 0x90:
                    return expect(insn, after, f.b ? null : (i, r, m) -> r.setPc(next(i)));
                case 0xFF: {
                    Form.Operand o = f.operand(code, pc);
                    int ext = o.reg & 7;
                    if (ext == 2 || ext == 4) {
                        return expect(insn, o.end, f.opsize16 ? null : (i, r, m) -> {
                            long target = o.isMemory() ? m.readLong(address(f, o, i, r)) : r.gpr(o.register);
                            if (ext == 2) {
                                call(i, r, m, target);
                            } else {
                                r.setPc(target(target, i));
                            }
                        });
                    }
                    if (ext == 6) {
                        int size = f.opsize16 ? 2 : 8;
                        return expect(insn, o.end, (i, r, m) -> {
                            long value = o.isMemory() ? read(m, address(f, o, i, r), size) : r.gpr(o.register);
                            push(r, m, value, size, i);
                        });
                    }
                    return null;
                }
                default:
                    if (op >= 0x50 && op <= 0x57) {
                        int hw = (op & 7) | (f.b ? 8 : 0);
                        return expect(insn, after, (i, r, m) -> push(r, m, r.gpr(hw), f.opsize16 ? 2 : 8, i));
                    }
                    if (op >= 0x70 && op <= 0x7F) {
                        long rel = imm(code, after, 1, pc);
                        return expect(insn, after + 1, f.opsize16 ? null : (i, r, m) -> jcc(op & 0xF, i, r, rel));
                    }
                    return null;
            }
        }
        if (f.map == 1) {
            if (op >= 0x80 && op <= 0x8F) {
                long rel = imm(code, after, 4, pc);
                return expect(insn, after + 4, f.opsize16 ? null : (i, r, m) -> jcc(op & 0xF, i, r, rel));
            }
            if (op == 0x1F) {
                Form.Operand o = f.operand(code, pc);
                return expect(insn, o.end, (o.reg & 7) != 0 ? null : (i, r, m) -> r.setPc(next(i)));
            }
            if (op == 0x1E && f.rep && (Form.at(code, after, pc) == 0xFA || Form.at(code, after, pc) == 0xFB)) {
                return expect(insn, after + 1, (i, r, m) -> r.setPc(next(i)));
            }
        }
        return null;
    }

    /** The step, provided the instruction ends exactly where the decoder said. */
    private static Step expect(Instruction insn, int length, Step step) throws IsaException {
        if (step == null) {
            return null;
        }
        if (length != insn.length()) {
            throw new IsaException("instruction length " + insn.length() + " disagrees with its form (" + length + ")",
                    insn.pc());
        }
        return step;
    }

    private static long next(Instruction insn) {
        return insn.pc() + insn.length();
    }

    static long imm(byte[] code, int at, int size, long pc) throws IsaException {
        long v = 0;
        for (int k = size - 1; k >= 0; k--) {
            v = v << 8 | Form.at(code, at + k, pc);
        }
        int shift = 64 - 8 * size;
        return v << shift >> shift;
    }

    private static void ret(Instruction insn, Amd64Registers regs, Memory mem, int extra) throws IsaException {
        long sp = regs.sp();
        long target = target(mem.readLong(sp), insn);
        regs.setSp(sp + 8 + extra);
        regs.setPc(target);
    }

    private static void call(Instruction insn, Amd64Registers regs, Memory mem, long target) throws IsaException {
        target(target, insn);
        long sp = regs.sp() - 8;
        mem.writeLong(sp, next(insn));
        regs.setSp(sp);
        regs.setPc(target);
    }

    private static void push(Amd64Registers regs, Memory mem, long value, int size, Instruction insn)
            throws IsaException {
        long sp = regs.sp() - size;
        write(mem, sp, value, size);
        regs.setSp(sp);
        regs.setPc(next(insn));
    }

    private static void jcc(int cc, Instruction insn, Amd64Registers regs, long rel) throws IsaException {
        regs.setPc(target(next(insn) + (condition(cc, regs.flags()) ? rel : 0), insn));
    }

    /** Condition {@code cc} (the low nibble of Jcc/SETcc/CMOVcc) on {@code flags}. */
    static boolean condition(int cc, long flags) {
        boolean cf = (flags & CF) != 0, pf = (flags & PF) != 0, zf = (flags & ZF) != 0;
        boolean sf = (flags & SF) != 0, of = (flags & OF) != 0;
        boolean t = switch (cc >> 1) {
            case 0 -> of;
            case 1 -> cf;
            case 2 -> zf;
            case 3 -> cf || zf;
            case 4 -> sf;
            case 5 -> pf;
            case 6 -> sf != of;
            default -> zf || sf != of;
        };
        return (cc & 1) == 0 ? t : !t;
    }

    private static void loop(Form f, int op, Instruction insn, Amd64Registers regs, long rel) throws IsaException {
        long rcx = regs.gpr(Amd64Registers.HW_RCX);
        long count, newRcx = rcx;
        boolean taken;
        if (op == 0xE3) {
            count = f.addr32 ? rcx & 0xFFFF_FFFFL : rcx;
            taken = count == 0;
        } else {
            if (f.addr32) {
                // a 32-bit count is written as ECX, which (as any 32-bit write) clears the upper half
                count = (rcx - 1) & 0xFFFF_FFFFL;
                newRcx = count;
            } else {
                count = rcx - 1;
                newRcx = count;
            }
            boolean zf = (regs.flags() & ZF) != 0;
            taken = count != 0 && (op == 0xE2 || (op == 0xE1) == zf);
        }
        long to = target(next(insn) + (taken ? rel : 0), insn);
        regs.setGpr(Amd64Registers.HW_RCX, newRcx);
        regs.setPc(to);
    }

    /**
     * A control transfer's target, which must be canonical: the CPU raises #GP on the transferring
     * instruction itself (before any effect) for a non-canonical one.
     */
    private static long target(long target, Instruction insn) throws IsaException {
        if ((target << 16 >> 16) != target) {
            throw new IsaException("control transfer to non-canonical address 0x" + Long.toHexString(target),
                    insn.pc());
        }
        return target;
    }

    /** The effective address of a memory operand (rip-relative against the next instruction). */
    static long address(Form f, Form.Operand o, Instruction insn, Amd64Registers regs) {
        long ea;
        if (o.ripRelative) {
            ea = next(insn) + o.disp;
        } else {
            ea = o.disp;
            if (o.base >= 0) {
                ea += regs.gpr(o.base);
            }
            if (o.index >= 0) {
                ea += regs.gpr(o.index) << o.scale;
            }
        }
        if (f.addr32) {
            ea &= 0xFFFF_FFFFL;
        }
        if (f.segment == 4) {
            ea += regs.raw()[Amd64Registers.FS_BASE];
        } else if (f.segment == 5) {
            ea += regs.raw()[Amd64Registers.GS_BASE];
        }
        return ea;
    }

    static long read(Memory mem, long addr, int size) throws IsaException {
        byte[] b = new byte[size];
        mem.read(addr, b, 0, size);
        long v = 0;
        for (int k = size - 1; k >= 0; k--) {
            v = v << 8 | (b[k] & 0xFF);
        }
        return v;
    }

    static void write(Memory mem, long addr, long value, int size) throws IsaException {
        byte[] b = new byte[size];
        for (int k = 0; k < size; k++) {
            b[k] = (byte) (value >>> (8 * k));
        }
        mem.write(addr, b, 0, size);
    }
}
