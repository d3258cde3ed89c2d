package org.jdtrace.isa;

import java.util.List;

/**
 * A function as the pid provider instruments it: its entry, every instruction (offsets from the
 * start), its return sites ({@code ret}, {@code ret imm16}, tail-call {@code jmp}s that leave the
 * function) and, when it must not be instrumented, why ({@code refusal} non-null: data or a jump
 * table inside the function, an instruction that can be neither emulated nor run out of line).
 */
public record FunctionAnalysis(long start, int size, List<Instruction> instructions,
        List<Integer> returnOffsets, String refusal) {

    public boolean instrumentable() {
        return refusal == null;
    }
}
