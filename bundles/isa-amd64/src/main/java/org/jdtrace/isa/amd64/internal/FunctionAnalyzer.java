/*
 * FunctionAnalyzer: what the pid provider may instrument in one function.
 *
 * The function's bytes are decoded linearly from the symbol address, as illumos' dt_pid does
 * (libdtrace/i386/dt_isadep.c): compilers lay x86-64 functions out as one instruction stream, so
 * a linear sweep finds every instruction unless data or hand-written tricks sit inside the range.
 * Because a breakpoint planted in the middle of an instruction (or in data) corrupts the target,
 * the analysis refuses the whole function (FunctionAnalysis.refusal) when it cannot prove that
 * the sweep is the real instruction stream:
 *   - an instruction that does not decode;
 *   - instructions that do not tile [start, start+size) exactly;
 *   - a relative branch, or a rip-relative address, that points inside the function but not at
 *     an instruction start (data or a jump table in the range, or overlapping code).
 * An instruction that can be neither emulated nor executed out of line (int3, hlt, ud2, far
 * transfers: Isa.displacement says REFUSE) does not refuse the function: only a tracepoint on
 * that one instruction is impossible, and the provider, which asks Isa.displacement for every
 * tracepoint it plants anyway, skips that offset alone.
 *
 * Return sites are, as fasttrap treats them: ret and ret imm16; jmp rel whose target leaves the
 * function (a tail call); and an indirect jmp that is not a jump-table dispatch. A dispatch is
 * recognised as gcc and clang emit it: a memory operand with an index register
 * (jmp *tbl(,%rax,8)), the CET "notrack" (3E) prefix, or jmp *%reg shortly after a load or add
 * with an indexed memory operand (movslq (%rdx,%rax,4),%rax; add %rdx,%rax; jmp *%rax), or any
 * jmp *%reg in a function that takes the address of its own code (lea label(%rip) into the
 * function: computed goto, gcc's &&label).
 * Conditional branches out of the function (gcc's conditional tail calls) are not return sites,
 * as in DTrace. A refused analysis lists the instructions decoded so far and no return sites.
 */
package org.jdtrace.isa.amd64.internal;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Instruction.Kind;
import org.jdtrace.isa.IsaException;

/** Decodes and classifies every instruction of one function. */
public final class FunctionAnalyzer {

    /** How far back (in instructions) a table load may precede its jmp *%reg. */
    private static final int TABLE_LOAD_WINDOW = 6;


    /** Analyses {@code code} (the whole function) at {@code start}. */
    public FunctionAnalysis analyze(byte[] code, long start) throws IsaException {
        int size = code.length;
        List<Instruction> insns = new ArrayList<>();
        List<Integer> returns = new ArrayList<>();
        BitSet starts = new BitSet(size + 1);
        int off = 0;
        while (off < size) {
            Instruction insn;
            try {
                insn = Decoder.decode(code, off, size, start + off);
            } catch (IsaException e) {
                String why = off + Decoder.MAX_LENGTH > size && e.getMessage().startsWith("truncated")
                        ? "last instruction runs past the end of the function at +0x" + Integer.toHexString(off)
                        : "cannot decode at +0x" + Integer.toHexString(off) + ": " + e.getMessage();
                return new FunctionAnalysis(start, size, List.copyOf(insns), List.of(), why);
            }
            starts.set(off);
            insns.add(insn);
            off += insn.length();
        }
        boolean internalLabels = false;
        for (Instruction insn : insns) {
            long t = insn.ripRelative() ? target(insn) : Long.MIN_VALUE;
            internalLabels |= t > start && t < start + size && insn.map() == 0 && insn.opcode() == 0x8D;
        }
        String refusal = null;
        for (int i = 0; i < insns.size() && refusal == null; i++) {
            Instruction insn = insns.get(i);
            int at = (int) (insn.pc() - start);
            long target = target(insn);
            if (target != Long.MIN_VALUE && target >= start && target < start + size && !starts.get((int) (target - start))) {
                refusal = (insn.ripRelative() ? "rip-relative reference" : "branch") + " at +0x" + Integer.toHexString(at)
                        + " into the middle of an instruction or data at +0x" + Long.toHexString(target - start);
            } else if (isReturn(insns, i, start, size, internalLabels)) {
                returns.add(at);
            }
        }
        return new FunctionAnalysis(start, size, List.copyOf(insns), refusal == null ? List.copyOf(returns) : List.of(),
                refusal);
    }

    private static boolean isReturn(List<Instruction> insns, int i, long start, int size, boolean internalLabels) {
        Instruction insn = insns.get(i);
        switch (insn.kind()) {
            case RET, RET_IMM:
                return true;
            case JMP_REL: {
                long t = target(insn);
                return t < start || t >= start + size;
            }
            case JMP_INDIRECT:
                return !(internalLabels && isRegisterOperand(insn)) && !isTableDispatch(insns, i);
            default:
                return false;
        }
    }

    /** Whether the indirect jmp {@code insns[i]} dispatches through a jump table. */
    static boolean isTableDispatch(List<Instruction> insns, int i) {
        Instruction jmp = insns.get(i);
        if ((jmp.prefixes() & Prefix.DS) != 0) {
            return true; // notrack: the compiler says this is a switch
        }
        if (hasIndex(jmp)) {
            return true;
        }
        if (!isRegisterOperand(jmp)) {
            return false;
        }
        for (int k = i - 1; k >= 0 && k >= i - TABLE_LOAD_WINDOW; k--) {
            Instruction prev = insns.get(k);
            if (prev.kind() != Kind.OTHER) {
                break; // another basic block
            }
            if (prev.map() == 0 && (prev.opcode() == 0x63 || prev.opcode() == 0x8B || prev.opcode() == 0x03)
                    && hasIndex(prev)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isRegisterOperand(Instruction insn) {
        return insn.modrmOffset() >= 0 && (insn.bytes()[insn.modrmOffset()] & 0xC0) == 0xC0;
    }

    /** A memory operand with a SIB byte that names an index register. */
    private static boolean hasIndex(Instruction insn) {
        int m = insn.modrmOffset();
        if (m < 0 || m + 1 >= insn.length()) {
            return false;
        }
        int modrm = insn.bytes()[m] & 0xFF;
        if ((modrm >>> 6) == 3 || (modrm & 7) != 4) {
            return false;
        }
        int sib = insn.bytes()[m + 1] & 0xFF;
        int index = ((sib >>> 3) & 7) | ((insn.prefixes() & Prefix.REX_X) != 0 ? 8 : 0);
        return index != 4;
    }

    /**
     * The address a relative branch goes to, or a rip-relative operand refers to;
     * Long.MIN_VALUE when the instruction has neither.
     */
    static long target(Instruction insn) {
        long next = insn.pc() + insn.length();
        if (insn.ripRelative()) {
            return next + readSigned(insn.bytes(), insn.dispOffset(), 4);
        }
        switch (insn.kind()) {
            case JMP_REL, CALL_REL, JCC, LOOP, JRCXZ:
                return next + readSigned(insn.bytes(), insn.immOffset(), insn.immSize());
            default:
                return Long.MIN_VALUE;
        }
    }

    private static long readSigned(byte[] b, int off, int size) {
        switch (size) {
            case 1:
                return b[off];
            case 2:
                return (short) ((b[off] & 0xFF) | (b[off + 1] << 8));
            default:
                return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | b[off + 3] << 24;
        }
    }
}
