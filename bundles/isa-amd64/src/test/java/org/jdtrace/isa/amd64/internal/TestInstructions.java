package org.jdtrace.isa.amd64.internal;

import org.jdtrace.isa.Instruction;

/** Instructions for tests: the bytes as given, so the emulator's own reading of them is what is tested. */
final class TestInstructions {

    static Instruction raw(long pc, byte[] bytes) {
        return new Instruction(pc, bytes.clone(), 0, 0, bytes.length > 0 ? bytes[0] & 0xFF : 0, -1, -1, 0, -1, 0, false,
                Instruction.Kind.OTHER);
    }

    private TestInstructions() {}
}
