/*
 * Unwinder: a thread's user stack from its registers and memory, frame by frame through the
 * call-frame information of the objects its pcs are in (the job libgcc's _Unwind_Find_FDE and
 * uw_frame_state_for do, and perf's --call-graph dwarf does with libdw).
 *
 * Input: the registers in DWARF numbering (RegisterNumbering gives the sp, fp and pc columns)
 * with a bit mask of those known (a kernel sample may carry only some), a Memory (a stopped
 * process's memory through ptrace or /proc/PID/mem, or a StackSnapshot of the bytes above the sp
 * copied at the event) and a Modules lookup that maps a pc to its object's CallFrameInfo and load
 * bias. Each step: find the row for the pc (the pc itself in the first frame and in the frame a
 * signal frame interrupted; pc - 1 after a call, whose return address may be the first byte of
 * the next function), compute the CFA and the caller's registers by the row's rules, and take the
 * return-address column as the caller's pc. Registers without a rule keep their values
 * (callee-saved, as libgcc assumes); a rule whose memory cannot be read makes that register
 * unknown, and an unknown CFA ends the walk.
 *
 * Frame pointers are used only where a pc lies in an object without any CFI or in no object at
 * all (JIT code): CFA = fp + fpFrameSize, the caller's fp at [fp], its pc at [fp + size/2]. A pc
 * in an object that has CFI but no FDE for it ends the walk (a frame-pointer guess there would
 * invent frames). JIT code that knows its own frames says so through Modules.codeFrame (HotSpot's
 * compiled methods keep no frame pointer without -XX:+PreserveFramePointer, but their frame size
 * is in the JVM's CodeBlob: org.jdtrace.proc.HotSpotVm): a sized frame has CFA = sp + size, the
 * caller's pc at [CFA - word] and its fp at [CFA - 2 words]; a frame-pointer frame may name a
 * slot holding its caller's sp (HotSpot's interpreter: [fp - 8], the sp before a compiled
 * caller's adapter extended its stack).
 *
 * Row cache: a row is kept in its compact form, the CFA rule and only the columns the unwinder
 * tracks that have a rule (the return address and the few callee-saved registers a prologue
 * saved), in a direct-mapped cache keyed by (CallFrameInfo, file address), since a profile
 * unwinds the same return addresses again and again: a hit is the FDE search and the run of its
 * instructions saved, and a step applies only those few rules (every other register keeps its
 * value) with no allocation. CallFrameInfo is immutable, so an entry never goes stale.
 *
 * Termination: at most max frames; the walk ends at an undefined return-address rule (the
 * outermost frame: _start, clone's child), a zero pc, a pc that does not move the stack (a CFA
 * not above the previous sp, except in and just after a signal frame), or any failure. Nothing
 * throws. Thread safety: an Unwinder holds scratch state and serves one thread at a time.
 */
package org.jdtrace.unwind;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;

/** Walks user stacks by CFI; one instance per thread (it keeps scratch state). */
public final class Unwinder {

    /** Where a pc belongs: its object's call-frame information and load bias. */
    public interface Modules {
        /**
         * The CFI of the object containing process address {@code pc} (an empty one when the
         * object has none), or null when {@code pc} is in no object (JIT code, anonymous memory).
         */
        CallFrameInfo cfi(long pc);

        /** The load bias of the object containing {@code pc} (process address - file address). */
        long bias(long pc);

        /**
         * How to leave a frame whose pc is in no object ({@link #cfi} null): 0 by frame pointers
         * (the default); a positive size: the frame spans that many bytes above the sp, the caller's
         * pc in its last word and its fp in the word below (HotSpot's compiled frames); a negative
         * -d: by frame pointers, the caller's sp read from [fp - d] (HotSpot's interpreter frames).
         *
         * @since 1.1
         */
        default long codeFrame(long pc) {
            return 0;
        }
    }

    private final RegisterNumbering numbering;
    private final FrameRow row = new FrameRow();
    private final long[] regs, next;
    private final long[] value = new long[1];
    /** Columns a compact row can name: the numbering's registers (DWARF 0 .. cols - 1). */
    private final int cols;

    // the current row, compact (see above): n rules of registers reg[], their rules and operands
    private int curN, curCfaRegister, curReturn;
    private long curCfaOffset, curCfaExpression;
    private boolean curSignal;
    private final byte[] curReg, curRule;
    private final long[] curOp;

    // the row cache: CACHE entries of the same
    private static final int CACHE = 1024;
    private final CallFrameInfo[] cacheCfi = new CallFrameInfo[CACHE];
    private final long[] cacheAddr = new long[CACHE];
    private final int[] cacheN = new int[CACHE], cacheCfaRegister = new int[CACHE], cacheReturn = new int[CACHE];
    private final long[] cacheCfaOffset = new long[CACHE], cacheCfaExpression = new long[CACHE];
    private final boolean[] cacheSignal = new boolean[CACHE];
    private final java.nio.ByteBuffer[] cacheSection = new java.nio.ByteBuffer[CACHE];
    private final byte[] cacheReg, cacheRule;
    private final long[] cacheOp;

    public Unwinder(RegisterNumbering numbering) {
        this.numbering = numbering;
        this.regs = new long[numbering.count()];
        this.next = new long[numbering.count()];
        this.cols = Math.min(numbering.count(), FrameRow.COLUMNS);
        this.curReg = new byte[cols];
        this.curRule = new byte[cols];
        this.curOp = new long[cols];
        this.cacheReg = new byte[CACHE * cols];
        this.cacheRule = new byte[CACHE * cols];
        this.cacheOp = new long[CACHE * cols];
    }

    /** Empties the row cache (a benchmark's cold walks). */
    public void clearCache() {
        java.util.Arrays.fill(cacheCfi, null);
        java.util.Arrays.fill(cacheSection, null);
    }

    /** The row of {@code cfi} at file address {@code vaddr} into the cur* fields, from the cache or by CallFrameInfo.find. */
    private boolean rowAt(CallFrameInfo cfi, long vaddr) {
        int i = (int) (vaddr ^ (vaddr >>> 10) ^ (vaddr >>> 20) ^ System.identityHashCode(cfi)) & (CACHE - 1);
        int base = i * cols;
        if (cacheCfi[i] == cfi && cacheAddr[i] == vaddr) {
            int n = cacheN[i];
            System.arraycopy(cacheReg, base, curReg, 0, n);
            System.arraycopy(cacheRule, base, curRule, 0, n);
            System.arraycopy(cacheOp, base, curOp, 0, n);
            curN = n;
            curCfaRegister = cacheCfaRegister[i];
            curCfaOffset = cacheCfaOffset[i];
            curCfaExpression = cacheCfaExpression[i];
            curReturn = cacheReturn[i];
            curSignal = cacheSignal[i];
            row.section = cacheSection[i];
            return true;
        }
        if (!cfi.find(vaddr, row)) return false;
        int n = 0;
        for (int r = 0; r < cols; r++) {
            byte rule = row.rule[r];
            if (rule == FrameRow.UNSPECIFIED || rule == FrameRow.SAME_VALUE) continue;
            curReg[n] = (byte) r;
            curRule[n] = rule;
            curOp[n++] = row.operand[r];
        }
        curN = n;
        curCfaRegister = row.cfaRegister;
        curCfaOffset = row.cfaOffset;
        curCfaExpression = row.cfaExpression;
        curReturn = row.returnColumn;
        curSignal = row.signalFrame;
        System.arraycopy(curReg, 0, cacheReg, base, n);
        System.arraycopy(curRule, 0, cacheRule, base, n);
        System.arraycopy(curOp, 0, cacheOp, base, n);
        cacheN[i] = n;
        cacheCfaRegister[i] = curCfaRegister;
        cacheCfaOffset[i] = curCfaOffset;
        cacheCfaExpression[i] = curCfaExpression;
        cacheReturn[i] = curReturn;
        cacheSignal[i] = curSignal;
        cacheSection[i] = row.section;
        cacheAddr[i] = vaddr;
        cacheCfi[i] = cfi;
        return true;
    }

    public RegisterNumbering numbering() {
        return numbering;
    }

    /**
     * Walks the stack: {@code pcs[0]} is the pc of {@code registers}, then each caller's; answers
     * how many pcs were written (at most {@code max} and {@code pcs.length}).
     *
     * @param registers DWARF-numbered values (not changed)
     * @param known bit r set when register r is known
     */
    public int walk(long[] registers, long known, Memory mem, Modules modules, long[] pcs, int max) {
        return walk(registers, known, mem, modules, pcs, null, max);
    }

    /**
     * As {@link #walk(long[], long, Memory, Modules, long[], int)}, also writing each frame's fp
     * register into {@code fps} (0 where it is not known): what a JIT's frames keep there (HotSpot's
     * interpreter frame: its Method* and bcp at fixed offsets below fp). {@code fps} may be null.
     *
     * @since 1.1
     */
    public int walk(long[] registers, long known, Memory mem, Modules modules, long[] pcs, long[] fps, int max) {
        int limit = Math.min(max, pcs.length);
        if (fps != null) limit = Math.min(limit, fps.length);
        if (limit <= 0) return 0;
        int count = numbering.count();
        System.arraycopy(registers, 0, regs, 0, Math.min(count, registers.length));
        int sp = numbering.sp(), fp = numbering.fp(), pcCol = numbering.pc();
        if ((known & (1L << pcCol)) == 0) return 0;
        long pc = regs[pcCol];
        int n = 0;
        if (fps != null) fps[n] = (known & (1L << fp)) != 0 ? regs[fp] : 0;
        pcs[n++] = pc;
        boolean exact = true; // the first frame's pc is where the thread is, not a return address
        while (n < limit) {
            CallFrameInfo cfi = modules.cfi(pc);
            long newKnown;
            boolean signal = false;
            if (cfi != null && !cfi.isEmpty()) {
                long bias = modules.bias(pc);
                if (!rowAt(cfi, (exact ? pc : pc - 1) - bias)) break;
                newKnown = step(known, mem);
                if (newKnown == 0) break;
                signal = curSignal;
            } else {
                long code = modules.codeFrame(pc);
                newKnown = code > 0 ? sizedStep(known, mem, code, sp, fp, pcCol)
                        : framePointerStep(known, mem, sp, fp, pcCol, -code);
                if (newKnown == 0) break;
            }
            long newPc = next[pcCol];
            if (newPc == 0) break;
            if (!signal && Long.compareUnsigned(next[sp], regs[sp]) <= 0 && (known & (1L << sp)) != 0) break;
            System.arraycopy(next, 0, regs, 0, count);
            known = newKnown;
            pc = newPc;
            if (fps != null) fps[n] = (known & (1L << fp)) != 0 ? regs[fp] : 0;
            pcs[n++] = pc;
            exact = signal;
        }
        return n;
    }

    /** One CFI step by the current row: fills {@link #next}; answers the new known mask, 0 to stop. */
    private long step(long known, Memory mem) {
        int count = numbering.count();
        long cfa;
        if (curCfaExpression >= 0) {
            if (!DwarfExpression.eval(row, curCfaExpression, false, 0, regs, known, mem, value)) return 0;
            cfa = value[0];
        } else {
            int r = curCfaRegister;
            if (r >= count || (known & (1L << r)) == 0) return 0;
            cfa = regs[r] + curCfaOffset;
        }
        int ra = curReturn;
        if (ra >= cols) return 0;
        // a register without a rule (or same_value) keeps its value and its knownness
        System.arraycopy(regs, 0, next, 0, count);
        long nk = count >= 64 ? known : known & ((1L << count) - 1);
        boolean raDefined = true;
        for (int j = 0, n = curN; j < n; j++) {
            int r = curReg[j];
            long op = curOp[j];
            long bit = 1L << r;
            try {
                switch (curRule[j]) {
                    case FrameRow.UNDEFINED -> {
                        next[r] = 0;
                        nk &= ~bit;
                        if (r == ra) raDefined = false;
                    }
                    case FrameRow.OFFSET -> {
                        next[r] = mem.readLong(cfa + op);
                        nk |= bit;
                    }
                    case FrameRow.VAL_OFFSET -> {
                        next[r] = cfa + op;
                        nk |= bit;
                    }
                    case FrameRow.REGISTER -> {
                        if (op < count && (known & (1L << op)) != 0) {
                            next[r] = regs[(int) op];
                            nk |= bit;
                        } else {
                            next[r] = 0;
                            nk &= ~bit;
                        }
                    }
                    case FrameRow.EXPRESSION -> {
                        if (DwarfExpression.eval(row, op, true, cfa, regs, known, mem, value)) {
                            next[r] = mem.readLong(value[0]);
                            nk |= bit;
                        } else {
                            next[r] = 0;
                            nk &= ~bit;
                        }
                    }
                    case FrameRow.VAL_EXPRESSION -> {
                        if (DwarfExpression.eval(row, op, true, cfa, regs, known, mem, value)) {
                            next[r] = value[0];
                            nk |= bit;
                        } else {
                            next[r] = 0;
                            nk &= ~bit;
                        }
                    }
                    default -> {
                        next[r] = 0;
                        nk &= ~bit;
                    }
                }
            } catch (IsaException | RuntimeException e) {
                next[r] = 0; // unreadable: unknown
                nk &= ~bit;
            }
        }
        // the caller's pc is the return-address column (on amd64 the pc's own column)
        int pcCol = numbering.pc();
        if (ra >= count || (nk & (1L << ra)) == 0 || !raDefined) return 0;
        next[pcCol] = next[ra];
        nk |= 1L << pcCol;
        next[numbering.sp()] = cfa;
        nk |= 1L << numbering.sp();
        return nk;
    }

    /**
     * One step out of a frame of {@code size} bytes above the sp (Modules.codeFrame): fills
     * {@link #next}; answers the new known mask, 0 to stop.
     */
    private long sizedStep(long known, Memory mem, long size, int sp, int fp, int pcCol) {
        if ((known & (1L << sp)) == 0) return 0;
        int word = numbering.fpFrameSize() / 2;
        long cfa = regs[sp] + size;
        long ret, callerFp;
        try {
            ret = mem.readLong(cfa - word);
            callerFp = size >= 2L * word ? mem.readLong(cfa - 2L * word) : regs[fp];
        } catch (IsaException | RuntimeException e) {
            return 0;
        }
        caller(sp, fp, pcCol, cfa, callerFp, ret);
        long fpKnown = size >= 2L * word ? 1L << fp : known & (1L << fp);
        return fpKnown | (1L << sp) | (1L << pcCol);
    }

    /**
     * One frame-pointer step: fills {@link #next}; answers the new known mask, 0 to stop. With
     * {@code senderSlot} > 0 the caller's sp is read from [fp - senderSlot] (Modules.codeFrame).
     */
    private long framePointerStep(long known, Memory mem, int sp, int fp, int pcCol, long senderSlot) {
        if ((known & (1L << fp)) == 0) return 0;
        long f = regs[fp];
        int size = numbering.fpFrameSize(), word = size / 2;
        if (f == 0 || (f & (word - 1)) != 0) return 0;
        if ((known & (1L << sp)) != 0 && Long.compareUnsigned(f, regs[sp]) < 0) return 0;
        long callerFp, ret, callerSp = f + size;
        try {
            callerFp = mem.readLong(f);
            ret = mem.readLong(f + word);
            if (senderSlot > 0) {
                long s = mem.readLong(f - senderSlot);
                // a sender sp below the frame's own link, or far above it, is not one: keep f + size
                if (Long.compareUnsigned(s, f + size) >= 0 && s - f < (1L << 20)) callerSp = s;
            }
        } catch (IsaException | RuntimeException e) {
            return 0;
        }
        caller(sp, fp, pcCol, callerSp, callerFp, ret);
        // only the callee-saved registers the frame-pointer convention restores are known
        return (1L << fp) | (1L << sp) | (1L << pcCol);
    }

    /** Fills {@link #next} with this frame's registers and the caller's sp, fp and pc (sizedStep, framePointerStep). */
    private void caller(int sp, int fp, int pcCol, long callerSp, long callerFp, long ret) {
        System.arraycopy(regs, 0, next, 0, numbering.count());
        next[fp] = callerFp;
        next[sp] = callerSp;
        next[pcCol] = ret;
    }
}
