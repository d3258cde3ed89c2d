package org.jdtrace.isa.amd64.internal;

import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa.Displacement;
import org.jdtrace.isa.IsaException;

/**
 * How an instruction under a tracepoint is made to take effect, after fasttrap's tracepoint
 * types (fasttrap_isa.c): what depends on where it runs is emulated (FASTTRAP_T_RET, _RET16,
 * _JMP, _JCC, _LOOP, _JCXZ, _CALL, _PUSHL_EBP, _NOP: here every form {@link Emulator} accepts),
 * everything else is copied to a scratch slot and run there (FASTTRAP_T_COMMON, see
 * {@link Relocator}), including {@code syscall}. Refused: {@code int3} (another debugger's
 * breakpoint, or a deliberate trap whose signal must report the original pc), {@code int1},
 * {@code hlt} and undefined opcodes (they fault, and the fault must come from the original
 * address), control transfers the emulator does not take (far jmp/call/ret, iret, sysenter,
 * sysexit, sysret, and near branches with an operand-size prefix) and {@code xbegin}, whose
 * rel32 abort address would be wrong out of line.
 */
final class DisplacementPolicy {

    static Displacement of(Instruction insn) {
        switch (insn.kind()) {
            case INT3, HLT, ILLEGAL:
                return Displacement.REFUSE;
            case SYSCALL:
                return Displacement.OUT_OF_LINE;
            default:
                break;
        }
        if (Emulator.canEmulate(insn)) {
            return Displacement.EMULATE;
        }
        switch (insn.kind()) {
            case RET, RET_IMM, JMP_REL, JMP_INDIRECT, CALL_REL, CALL_INDIRECT, JCC, LOOP, JRCXZ, PUSH, NOP:
                return Displacement.REFUSE; // a transfer or form the emulator does not take
            default:
                break;
        }
        Form f;
        try {
            f = Form.parse(insn.bytes(), insn.pc());
        } catch (IsaException e) {
            return Displacement.REFUSE;
        }
        if (f.vex != 0) {
            return Displacement.OUT_OF_LINE;
        }
        int op = f.opcode;
        if (f.map == 0) {
            switch (op) {
                case 0xCA, 0xCB, 0xCF, 0xF1, 0xCC, 0xCE, 0xF4, 0xEA, 0x9A:
                    return Displacement.REFUSE;
                case 0xFF: {
                    int ext = modrmReg(insn);
                    return ext == 3 || ext == 5 || ext == 7 || ext < 0 ? Displacement.REFUSE : Displacement.OUT_OF_LINE;
                }
                case 0xC7:
                    return modrmByte(insn) == 0xF8 ? Displacement.REFUSE : Displacement.OUT_OF_LINE;
                default:
                    if ((op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3) || op == 0xE8 || op == 0xE9
                            || op == 0xEB || op == 0xC2 || op == 0xC3) {
                        return Displacement.REFUSE;
                    }
                    return Displacement.OUT_OF_LINE;
            }
        }
        if (f.map == 1) {
            if ((op >= 0x80 && op <= 0x8F) || op == 0x34 || op == 0x35 || op == 0x07 || op == 0x0B || op == 0xB9
                    || op == 0xFF) {
                return Displacement.REFUSE;
            }
        }
        return Displacement.OUT_OF_LINE;
    }

    private static int modrmByte(Instruction insn) {
        int p = insn.modrmOffset();
        return p < 0 || p >= insn.bytes().length ? -1 : insn.bytes()[p] & 0xFF;
    }

    private static int modrmReg(Instruction insn) {
        int m = modrmByte(insn);
        return m < 0 ? -1 : (m >> 3) & 7;
    }

    private DisplacementPolicy() {}
}
