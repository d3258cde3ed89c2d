package org.jdtrace.isa;

/**
 * One decoded instruction. Offsets are relative to the instruction's first byte; -1 when absent.
 * {@code map} is the opcode map (0 one-byte, 1 = 0F, 2 = 0F38, 3 = 0F3A, 4+ for VEX/EVEX-only
 * maps as the ISA defines them); {@code opcode} the opcode byte within it.
 */
public record Instruction(
        long pc,
        byte[] bytes,
        int prefixes,
        int map,
        int opcode,
        int modrmOffset,
        int dispOffset,
        int dispSize,
        int immOffset,
        int immSize,
        boolean ripRelative,
        Kind kind) {

    public int length() {
        return bytes.length;
    }

    /** What the instruction does to control flow, as tracing cares about it. */
    public enum Kind {
        OTHER, RET, RET_IMM, JMP_REL, JMP_INDIRECT, CALL_REL, CALL_INDIRECT, JCC, LOOP, JRCXZ,
        PUSH, NOP, INT3, SYSCALL, HLT, ILLEGAL
    }
}
