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
 * Row cache: the rows found are kept in a small direct-mapped cache keyed by (CallFrameInfo,
 * file address), since a profile unwinds the same return addresses again and again; a hit copies
 * the row's CFA rule and the tracked columns' rules back instead of running the FDE's instructions
 * from its start. CallFrameInfo is immutable, so an entry never goes stale.
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

    // the row cache (see above): CACHE entries, each the tracked columns' rules and the CFA's rule
    private static final int CACHE = 512;
    private final CallFrameInfo[] cacheCfi = new CallFrameInfo[CACHE];
    private final long[] cacheAddr = new long[CACHE];
    private final byte[][] cacheRule;
    private final long[][] cacheOperand;
    private final long[] cacheCfa = new long[CACHE * 3];
    private final int[] cacheReturn = new int[CACHE];
    private final boolean[] cacheSignal = new boolean[CACHE];
    private final java.nio.ByteBuffer[] cacheSection = new java.nio.ByteBuffer[CACHE];

    public Unwinder(RegisterNumbering numbering) {
        this.numbering = numbering;
        this.regs = new long[numbering.count()];
        this.next = new long[numbering.count()];
        int cols = Math.min(numbering.count(), FrameRow.COLUMNS);
        this.cacheRule = new byte[CACHE][cols];
        this.cacheOperand = new long[CACHE][cols];
    }

    /** Empties the row cache (a benchmark's cold walks). */
    public void clearCache() {
        java.util.Arrays.fill(cacheCfi, null);
        java.util.Arrays.fill(cacheSection, null);
    }

    /** The row of {@code cfi} at file address {@code vaddr} into {@link #row}, from the cache or by CallFrameInfo.find. */
    private boolean rowAt(CallFrameInfo cfi, long vaddr) {
        int i = (int) (vaddr ^ (vaddr >>> 9) ^ System.identityHashCode(cfi)) & (CACHE - 1);
        int cols = cacheRule[i].length;
        if (cacheCfi[i] == cfi && cacheAddr[i] == vaddr) {
            System.arraycopy(cacheRule[i], 0, row.rule, 0, cols);
            System.arraycopy(cacheOperand[i], 0, row.operand, 0, cols);
            java.util.Arrays.fill(row.rule, cols, FrameRow.COLUMNS, FrameRow.UNSPECIFIED);
            row.cfaRegister = (int) cacheCfa[i * 3];
            row.cfaOffset = cacheCfa[i * 3 + 1];
            row.cfaExpression = cacheCfa[i * 3 + 2];
            row.returnColumn = cacheReturn[i];
            row.signalFrame = cacheSignal[i];
            row.section = cacheSection[i];
            return true;
        }
        if (!cfi.find(vaddr, row)) return false;
        if (row.returnColumn >= cols) return true; // not cacheable in the tracked columns
        for (int r = cols; r < FrameRow.COLUMNS; r++) {
            if (row.rule[r] != FrameRow.UNSPECIFIED) return true; // a rule the cache would drop
        }
        System.arraycopy(row.rule, 0, cacheRule[i], 0, cols);
        System.arraycopy(row.operand, 0, cacheOperand[i], 0, cols);
        cacheCfa[i * 3] = row.cfaRegister;
        cacheCfa[i * 3 + 1] = row.cfaOffset;
        cacheCfa[i * 3 + 2] = row.cfaExpression;
        cacheReturn[i] = row.returnColumn;
        cacheSignal[i] = row.signalFrame;
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
                signal = row.signalFrame;
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

    /** One CFI step by {@link #row}: fills {@link #next}; answers the new known mask, 0 to stop. */
    private long step(long known, Memory mem) {
        int count = numbering.count();
        long cfa;
        if (row.cfaExpression >= 0) {
            if (!DwarfExpression.eval(row, row.cfaExpression, false, 0, regs, known, mem, value)) return 0;
            cfa = value[0];
        } else {
            int r = row.cfaRegister;
            if (r >= count || (known & (1L << r)) == 0) return 0;
            cfa = regs[r] + row.cfaOffset;
        }
        long nk = 0;
        int ra = row.returnColumn;
        if (ra >= FrameRow.COLUMNS) return 0;
        for (int r = 0; r < count; r++) {
            byte rule = r < FrameRow.COLUMNS ? row.rule[r] : FrameRow.UNSPECIFIED;
            long op = r < FrameRow.COLUMNS ? row.operand[r] : 0;
            try {
                switch (rule) {
                    case FrameRow.UNSPECIFIED, FrameRow.SAME_VALUE -> {
                        next[r] = regs[r];
                        nk |= known & (1L << r);
                    }
                    case FrameRow.UNDEFINED -> next[r] = 0;
                    case FrameRow.OFFSET -> {
                        next[r] = mem.readLong(cfa + op);
                        nk |= 1L << r;
                    }
                    case FrameRow.VAL_OFFSET -> {
                        next[r] = cfa + op;
                        nk |= 1L << r;
                    }
                    case FrameRow.REGISTER -> {
                        if (op < count && (known & (1L << op)) != 0) {
                            next[r] = regs[(int) op];
                            nk |= 1L << r;
                        }
                    }
                    case FrameRow.EXPRESSION -> {
                        if (DwarfExpression.eval(row, op, true, cfa, regs, known, mem, value)) {
                            next[r] = mem.readLong(value[0]);
                            nk |= 1L << r;
                        }
                    }
                    case FrameRow.VAL_EXPRESSION -> {
                        if (DwarfExpression.eval(row, op, true, cfa, regs, known, mem, value)) {
                            next[r] = value[0];
                            nk |= 1L << r;
                        }
                    }
                    default -> next[r] = 0;
                }
            } catch (IsaException | RuntimeException e) {
                next[r] = 0; // unreadable: unknown
                nk &= ~(1L << r);
            }
        }
        // the caller's pc is the return-address column (on amd64 the pc's own column)
        int pcCol = numbering.pc();
        if (ra >= count || (nk & (1L << ra)) == 0 || row.rule[ra] == FrameRow.UNDEFINED) return 0;
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
        System.arraycopy(regs, 0, next, 0, numbering.count());
        next[fp] = callerFp;
        next[sp] = cfa;
        next[pcCol] = ret;
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
        System.arraycopy(regs, 0, next, 0, numbering.count());
        next[fp] = callerFp;
        next[sp] = callerSp;
        next[pcCol] = ret;
        // only the callee-saved registers the frame-pointer convention restores are known
        return (1L << fp) | (1L << sp) | (1L << pcCol);
    }
}
