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
 * ({@link FunctionAnalyzer}) live here; emulation ({@link Emulator}), the displacement policy
 * ({@link DisplacementPolicy}), out-of-line relocation ({@link Relocator}) and the ABI
 * ({@link Amd64Abi}, {@link Amd64Registers}) are separate classes of this bundle.
 */
@Component(property = "isa=amd64")
public final class Amd64Isa implements Isa {

    private static final byte[] INT3 = {(byte) 0xCC};
    private static final byte[] SYSCALL = {0x0f, 0x05};

    private final FunctionAnalyzer analyzer = new FunctionAnalyzer();
    private final Amd64Abi abi = new Amd64Abi();

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
    public byte[] syscallInstruction() {
        return SYSCALL.clone();
    }

    @Override
    public long pcAfterBreakpoint(long pc) {
        return pc + 1;
    }

    /** See {@link DisplacementPolicy}: fasttrap's choices, emulation first. */
    @Override
    public Displacement displacement(Instruction insn) {
        return insn == null ? Displacement.REFUSE : DisplacementPolicy.of(insn);
    }

    @Override
    public void emulate(Instruction insn, RegisterFile regs, Memory mem) throws IsaException {
        if (insn == null || regs == null || mem == null) {
            throw new IsaException("nothing to emulate", insn == null ? 0 : insn.pc());
        }
        Emulator.emulate(insn, regs, mem);
    }

    @Override
    public byte[] outOfLine(Instruction insn, long slot) throws IsaException {
        if (insn == null) {
            throw new IsaException("no instruction", slot);
        }
        return Relocator.outOfLine(insn, slot);
    }

    @Override
    public int outOfLineMaxSize() {
        return Relocator.MAX_SIZE;
    }

    @Override
    public int maxInstructionLength() {
        return Decoder.MAX_LENGTH;
    }

    @Override
    public Abi abi() {
        return abi;
    }

    @Override
    public RegisterFile newRegisterFile() {
        return new Amd64Registers();
    }
}
