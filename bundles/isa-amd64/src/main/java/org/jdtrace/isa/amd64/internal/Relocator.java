package org.jdtrace.isa.amd64.internal;

import java.io.ByteArrayOutputStream;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.IsaException;

/**
 * Out-of-line execution: the bytes that run a displaced instruction from a scratch slot at another
 * address and then continue at {@code pc + length}.
 *
 * Every slot ends with {@code jmp *0(%rip)} followed by the 8-byte absolute return address, so the
 * slot may be any distance from the code. The instruction itself is copied unchanged unless it is
 * rip-relative, where its operand must still reach the original target {@code T = pc + len + disp}:
 * <ul>
 * <li><b>near</b> (the slot within +-2 GiB of T): disp32 is recomputed for the slot's address.
 * <li><b>far</b>: the ModRM operand is rewritten to {@code 0(%scratch)} (mod=10, disp32 = 0, so
 * the length of the instruction does not change) with a scratch register loaded with T. The
 * scratch is {@code %rsi} or {@code %rdi} (for VEX/EVEX encodings also r8-r11 with the B bit),
 * whichever the instruction does not name in ModRM.reg or VEX.vvvv; no instruction with a ModRM
 * memory operand uses rsi/rdi implicitly (only the string instructions do, and they have no
 * ModRM). Its value is preserved on the stack without touching the red zone:
 * {@code lea -128(%rsp),%rsp; push %scratch; movabs $T,%scratch; insn'; pop %scratch;
 * lea 128(%rsp),%rsp}. None of these change flags, and the saved value sits above rsp while the
 * instruction runs, so a signal arriving in the slot cannot clobber it. Because rsp is 136 bytes
 * lower while the instruction runs, the far form is refused (IsaException) for instructions that
 * use rsp: ModRM.reg or VEX.vvvv naming rsp as a general register (conservatively: reg = 4 for any
 * opcode where reg is not an opcode extension) and {@code pop m} (8F /0).
 * </ul>
 * {@code syscall} is followed by {@code movabs $pc+2,%rcx} so that rcx holds what the CPU would
 * have left there (the return address) instead of an address inside the slot; r11 already holds
 * rflags as it would. Faults inside the slot report a slot address; mapping them back is the
 * caller's business.
 */
final class Relocator {

    /** Largest output: lea(5) push(2) movabs(10) insn(15+1) pop(2) lea(8) jmp(6) address(8). */
    static final int MAX_SIZE = 64;

    private static final int HW_RSI = 6, HW_RDI = 7;

    static byte[] outOfLine(Instruction insn, long slot) throws IsaException {
        try {
            return relocate(insn, slot);
        } catch (IsaException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IsaException("cannot relocate: " + e, insn.pc());
        }
    }

    private static byte[] relocate(Instruction insn, long slot) throws IsaException {
        byte[] code = insn.bytes();
        long pc = insn.pc();
        int len = code.length;
        if (len == 0 || len > Decoder.MAX_LENGTH) {
            throw new IsaException("bad instruction length " + len, pc);
        }
        long back = pc + len;
        ByteArrayOutputStream out = new ByteArrayOutputStream(MAX_SIZE);
        if (!insn.ripRelative()) {
            out.writeBytes(code);
            if (insn.kind() == Instruction.Kind.SYSCALL) {
                out.write(0x48);
                out.write(0xB9); // movabs $back, %rcx
                writeLong(out, back);
            }
        } else {
            Form f = Form.parse(code, pc);
            Form.Operand o = f.operand(code, pc);
            if (!o.ripRelative || o.dispPos != insn.dispOffset() || f.modrmPos() != insn.modrmOffset()) {
                throw new IsaException("rip-relative operand not where the decoder put it", pc);
            }
            long target = back + o.disp;
            if (f.addr32) {
                target &= 0xFFFF_FFFFL;
            }
            long newDisp = target - (slot + len);
            if (!f.addr32 && newDisp == (int) newDisp) {
                byte[] copy = code.clone();
                putInt(copy, o.dispPos, (int) newDisp);
                out.writeBytes(copy);
            } else {
                far(f, o, code, pc, target, out);
            }
        }
        out.writeBytes(new byte[] {(byte) 0xFF, 0x25, 0, 0, 0, 0}); // jmp *0(%rip)
        writeLong(out, back);
        if (out.size() > MAX_SIZE) {
            throw new IsaException("out-of-line copy too long", pc);
        }
        return out.toByteArray();
    }

    private static void far(Form f, Form.Operand o, byte[] code, long pc, long target, ByteArrayOutputStream out)
            throws IsaException {
        boolean extended = f.vex != 0;
        if (f.map == 0 && f.opcode == 0x8F && f.vex == 0) {
            throw new IsaException("pop to a rip-relative operand cannot run far from its code", pc);
        }
        if (usesRsp(f, o)) {
            throw new IsaException("instruction names %rsp; it cannot run far from its rip-relative target", pc);
        }
        int scratch = -1;
        int[] candidates = extended ? new int[] {HW_RSI, HW_RDI, 8, 9, 10, 11} : new int[] {HW_RSI, HW_RDI};
        for (int c : candidates) {
            if (c != o.reg && c != f.vvvv) {
                scratch = c;
                break;
            }
        }
        if (scratch < 0) {
            throw new IsaException("no scratch register for the rip-relative operand", pc);
        }
        byte[] insn = code.clone();
        int modrmPos = f.modrmPos();
        insn[modrmPos] = (byte) (0x80 | (o.reg & 7) << 3 | (scratch & 7));
        putInt(insn, o.dispPos, 0);
        boolean high = scratch >= 8;
        if (f.rexPos >= 0) {
            insn[f.rexPos] = (byte) (high ? insn[f.rexPos] | 1 : insn[f.rexPos] & ~1);
        } else if (f.vex == 2) {
            if (high) {
                insn = vex2to3(insn, f.vexPos);
                modrmPos++;
            }
        } else if (f.vex != 0) {
            int p1 = f.vexPos + 1;
            insn[p1] = (byte) (high ? insn[p1] & ~0x20 : insn[p1] | 0x20); // B is stored inverted
        }
        if (insn.length > Decoder.MAX_LENGTH) {
            throw new IsaException("rewritten instruction longer than 15 bytes", pc);
        }
        out.writeBytes(new byte[] {0x48, (byte) 0x8D, 0x64, 0x24, (byte) 0x80}); // lea -128(%rsp),%rsp
        if (high) {
            out.write(0x41);
        }
        out.write(0x50 | (scratch & 7)); // push %scratch
        out.write(high ? 0x49 : 0x48);
        out.write(0xB8 | (scratch & 7)); // movabs $target,%scratch
        writeLong(out, target);
        out.writeBytes(insn);
        if (high) {
            out.write(0x41);
        }
        out.write(0x58 | (scratch & 7)); // pop %scratch
        out.writeBytes(new byte[] {0x48, (byte) 0x8D, (byte) 0xA4, 0x24, (byte) 0x80, 0, 0, 0}); // lea 128(%rsp),%rsp
    }

    /** C5 [R vvvv L pp] becomes C4 [R X B 00001] [W=0 vvvv L pp], with B set (stored inverted: 0). */
    private static byte[] vex2to3(byte[] insn, int at) {
        byte[] out = new byte[insn.length + 1];
        System.arraycopy(insn, 0, out, 0, at);
        int p = insn[at + 1] & 0xFF;
        out[at] = (byte) 0xC4;
        out[at + 1] = (byte) ((p & 0x80) | 0x40 | 0x01); // ~R kept, ~X = 1, ~B = 0, map 0F
        out[at + 2] = (byte) (p & 0x7F);                // W = 0, vvvv L pp as they were
        System.arraycopy(insn, at + 2, out, at + 3, insn.length - at - 2);
        return out;
    }

    /**
     * Whether ModRM.reg or VEX.vvvv may name rsp as a general register. Conservative: reg = 4 counts
     * unless the opcode uses reg as an opcode extension (groups) ; vvvv = 4 counts only for the BMI
     * instructions, whose vvvv is a general register.
     */
    private static boolean usesRsp(Form f, Form.Operand o) {
        boolean bmi = (f.vex == 3 || f.vex == 4) && ((f.map == 2 && f.opcode >= 0xF2 && f.opcode <= 0xF7)
                || (f.map == 3 && f.opcode == 0xF0));
        if (f.vex != 0) {
            return bmi && (o.reg == 4 || f.vvvv == 4);
        }
        if (o.reg != 4) {
            return false;
        }
        if (f.map == 0) {
            return switch (f.opcode) {
                case 0x80, 0x81, 0x83, 0xC0, 0xC1, 0xC6, 0xC7, 0xD0, 0xD1, 0xD2, 0xD3, 0xD8, 0xD9, 0xDA, 0xDB,
                     0xDC, 0xDD, 0xDE, 0xDF, 0xF6, 0xF7, 0xFE, 0xFF -> false;
                default -> true;
            };
        }
        if (f.map == 1) {
            return switch (f.opcode) {
                case 0x00, 0x01, 0x0D, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0xAE, 0xBA, 0xC7 -> false;
                default -> true;
            };
        }
        return true;
    }

    private static void putInt(byte[] b, int at, int v) {
        for (int k = 0; k < 4; k++) {
            b[at + k] = (byte) (v >>> (8 * k));
        }
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
        for (int k = 0; k < 8; k++) {
            out.write((int) (v >>> (8 * k)) & 0xFF);
        }
    }

    private Relocator() {}
}
