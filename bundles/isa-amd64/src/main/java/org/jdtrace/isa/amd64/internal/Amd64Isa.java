package org.jdtrace.isa.amd64.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.FunctionAnalysis;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.isa.RegisterFile;
import org.osgi.service.component.annotations.Component;

/**
 * The amd64 ISA service. Decoding ({@link Decoder}) and function analysis
 * ({@link FunctionAnalyzer}) live here; emulation, out-of-line relocation and the ABI are
 * separate classes of this bundle.
 */
@Component(property = "isa=amd64")
public final class Amd64Isa implements Isa {

    private static final byte[] INT3 = {(byte) 0xCC};

    private final FunctionAnalyzer analyzer = new FunctionAnalyzer(this::displacement);

    @Override
    public String name() {
        return "amd64";
    }

    @Override
    public Instruction decode(byte[] code, int offset, long pc) throws IsaException {
        if (code == null) {
            throw new IsaException("no code", pc);
        }
        return Decoder.decode(code, offset, code.length, pc);
    }

    @Override
    public FunctionAnalysis analyze(byte[] code, long start) throws IsaException {
        if (code == null || code.length == 0) {
            throw new IsaException("empty function at 0x" + Long.toHexString(start), start);
        }
        return analyzer.analyze(code, start);
    }

    @Override
    public byte[] breakpoint() {
        return INT3.clone();
    }

    @Override
    public long pcAfterBreakpoint(long pc) {
        return pc + 1;
    }

    /**
     * Provisional policy until the emulator lands: control transfers and push are emulated,
     * everything else runs out of line; nothing is refused.
     */
    @Override
    public Displacement displacement(Instruction insn) {
        return switch (insn.kind()) {
            case RET, RET_IMM, JMP_REL, JMP_INDIRECT, CALL_REL, CALL_INDIRECT, JCC, LOOP, JRCXZ, PUSH, NOP ->
                Displacement.EMULATE;
            default -> Displacement.OUT_OF_LINE;
        };
    }

    @Override
    public void emulate(Instruction insn, RegisterFile regs, Memory mem) throws IsaException {
        throw new IsaException("amd64 emulation is not available yet", insn.pc());
    }

    @Override
    public byte[] outOfLine(Instruction insn, long slot) throws IsaException {
        throw new IsaException("amd64 out-of-line execution is not available yet", insn.pc());
    }

    @Override
    public int outOfLineMaxSize() {
        return 64;
    }

    @Override
    public Abi abi() {
        throw new UnsupportedOperationException("amd64 ABI is not available yet");
    }

    @Override
    public RegisterFile newRegisterFile() {
        throw new UnsupportedOperationException("amd64 register file is not available yet");
    }
}
