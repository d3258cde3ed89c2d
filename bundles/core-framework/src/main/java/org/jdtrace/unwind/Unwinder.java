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
 * Walk cache: a profile unwinds the same stacks again and again. Where the memory is a stack copy
 * with nothing behind it (StackSnapshot without a fallback), no frame array is asked for, and
 * Modules.state names its answers, a walk records what it read: the first registers whose values
 * it used (a register keeps its first value until a rule sets it; the pc, a CFA register, the sp
 * it compares, the return-address column), and each stack word it read with its value (or that
 * it was outside the copy). A later walk with the same state, known mask, limit and first pc and
 * sp, whose used registers and words are all the same, would take the same steps: its pcs are the
 * recorded ones (a few compares instead of the walk). A walk that calls codeFrame (a pc without
 * CFI: JIT code, frame pointers), evaluates a DWARF expression or copies a register (REGISTER
 * rule) is not kept. WALKS entries, in sets of WAYS found by (state, pc, sp), each set's entries
 * replaced in turn: one pc at one sp is often reached from several callers (a leaf called at the
 * same depth from two functions), and direct-mapped the walks of those callers replaced each
 * other: bench/profile-vs-perf.sh's cfiprof hit 1 walk in 7.
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

        /**
         * An object that stays the same (==) only as long as {@link #cfi} and {@link #bias} answer
         * the same for every pc (a process's mappings as they are now), or null: walks over these
         * modules are not cached (the default).
         *
         * @since 1.3
         */
        default Object state() {
            return null;
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

    // the walk cache (see above)
    private static final int WALKS = 2048, WAYS = 4, READS = 256;
    private final Walk[] walks = new Walk[WALKS];
    /** Each set's entry to replace next. */
    private final byte[] victim = new byte[WALKS / WAYS];
    /** Recording the walk under way: its first registers still unchanged, those used, the words read. */
    private boolean recording, uncacheable;
    private long initial, used;
    private int reads;
    private final long[] readAddr = new long[READS], readValue = new long[READS];
    private final boolean[] readOutside = new boolean[READS];

    /** A walk kept: what it depended on and the pcs it found. */
    private static final class Walk {
        final Object state;
        final long known, used;
        final int limit;
        final long[] regs, addr, value, pcs;
        final boolean[] outside;

        Walk(Object state, long known, long used, int limit, long[] regs, long[] addr, long[] value, boolean[] outside, long[] pcs) {
            this.state = state;
            this.known = known;
            this.used = used;
            this.limit = limit;
            this.regs = regs;
            this.addr = addr;
            this.value = value;
            this.outside = outside;
            this.pcs = pcs;
        }

        boolean matches(Object state, long known, int limit, long[] registers, StackSnapshot mem) {
            if (state != this.state || known != this.known || limit != this.limit) return false;
            for (long u = used; u != 0; u &= u - 1) {
                int r = Long.numberOfTrailingZeros(u);
                if (registers[r] != regs[r]) return false;
            }
            for (int i = 0; i < addr.length; i++) {
                boolean in = mem.covers(addr[i]);
                if (in == outside[i]) return false;
                if (in && mem.word(addr[i]) != value[i]) return false;
            }
            return true;
        }
    }

    /** The set of (state, pc, sp): its first entry's index. */
    private static int walkSet(Object state, long pc, long sp) {
        long h = pc * 0x9E3779B97F4A7C15L ^ sp * 0xC2B2AE3D27D4EB4FL ^ System.identityHashCode(state);
        return ((int) (h ^ (h >>> 29)) & (WALKS / WAYS - 1)) * WAYS;
    }

    /** Marks register r used when it still has its first value. */
    private void use(int r) {
        if (r < 64) used |= initial & (1L << r);
    }

    /** A stack word the step reads, recorded while recording. */
    private long read(Memory mem, long addr) throws IsaException {
        long v;
        try {
            v = mem.readLong(addr);
        } catch (IsaException | RuntimeException e) {
            record(addr, 0, true);
            throw e;
        }
        record(addr, v, false);
        return v;
    }

    private void record(long addr, long v, boolean outside) {
        if (!recording) return;
        if (reads == READS) {
            uncacheable = true;
            return;
        }
        readAddr[reads] = addr;
        readValue[reads] = v;
        readOutside[reads++] = outside;
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
        Object state = fps == null && count <= 64 && registers.length >= count && mem instanceof StackSnapshot s
                && s.alone() ? modules.state() : null;
        if (state == null) return walk(registers, known, mem, modules, pcs, fps, limit, count);
        int set = walkSet(state, registers[numbering.pc()], registers[numbering.sp()]);
        for (int i = set; i < set + WAYS; i++) {
            Walk w = walks[i];
            if (w != null && w.matches(state, known, limit, registers, (StackSnapshot) mem)) {
                System.arraycopy(w.pcs, 0, pcs, 0, w.pcs.length);
                return w.pcs.length;
            }
        }
        recording = true;
        uncacheable = false;
        initial = count == 64 ? known : known & ((1L << count) - 1);
        used = 0;
        reads = 0;
        int n;
        try {
            n = walk(registers, known, mem, modules, pcs, null, limit, count);
        } finally {
            recording = false;
        }
        if (!uncacheable) {
            int way = victim[set / WAYS];
            victim[set / WAYS] = (byte) ((way + 1) & (WAYS - 1));
            walks[set + way] = new Walk(state, known, used, limit, java.util.Arrays.copyOf(registers, count),
                    java.util.Arrays.copyOf(readAddr, reads), java.util.Arrays.copyOf(readValue, reads),
                    java.util.Arrays.copyOf(readOutside, reads), java.util.Arrays.copyOf(pcs, n));
        }
        return n;
    }

    private int walk(long[] registers, long known, Memory mem, Modules modules, long[] pcs, long[] fps, int limit, int count) {
        System.arraycopy(registers, 0, regs, 0, Math.min(count, registers.length));
        int sp = numbering.sp(), fp = numbering.fp(), pcCol = numbering.pc();
        if ((known & (1L << pcCol)) == 0) return 0;
        long pc = regs[pcCol];
        use(pcCol);
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
                uncacheable = true;
                long code = modules.codeFrame(pc);
                newKnown = code > 0 ? sizedStep(known, mem, code, sp, fp, pcCol)
                        : framePointerStep(known, mem, sp, fp, pcCol, -code);
                if (newKnown == 0) break;
            }
            long newPc = next[pcCol];
            if (newPc == 0) break;
            use(sp);
            if (!signal && Long.compareUnsigned(next[sp], regs[sp]) <= 0 && (known & (1L << sp)) != 0) break;
            System.arraycopy(next, 0, regs, 0, count);
            initial &= ~stepSet;
            known = newKnown;
            pc = newPc;
            if (fps != null) fps[n] = (known & (1L << fp)) != 0 ? regs[fp] : 0;
            pcs[n++] = pc;
            exact = signal;
        }
        return n;
    }

    /** The registers the last step set (no longer their first values). */
    private long stepSet;

    /** One CFI step by the current row: fills {@link #next}; answers the new known mask, 0 to stop. */
    private long step(long known, Memory mem) {
        int count = numbering.count();
        long cfa;
        long set = 0;
        if (curCfaExpression >= 0) {
            uncacheable = true;
            if (!DwarfExpression.eval(row, curCfaExpression, false, 0, regs, known, mem, value)) return 0;
            cfa = value[0];
        } else {
            int r = curCfaRegister;
            if (r >= count || (known & (1L << r)) == 0) return 0;
            use(r);
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
            set |= bit;
            try {
                switch (curRule[j]) {
                    case FrameRow.UNDEFINED -> {
                        next[r] = 0;
                        nk &= ~bit;
                        if (r == ra) raDefined = false;
                    }
                    case FrameRow.OFFSET -> {
                        next[r] = read(mem, cfa + op);
                        nk |= bit;
                    }
                    case FrameRow.VAL_OFFSET -> {
                        next[r] = cfa + op;
                        nk |= bit;
                    }
                    case FrameRow.REGISTER -> {
                        uncacheable = true;
                        if (op < count && (known & (1L << op)) != 0) {
                            next[r] = regs[(int) op];
                            nk |= bit;
                        } else {
                            next[r] = 0;
                            nk &= ~bit;
                        }
                    }
                    case FrameRow.EXPRESSION -> {
                        uncacheable = true;
                        if (DwarfExpression.eval(row, op, true, cfa, regs, known, mem, value)) {
                            next[r] = mem.readLong(value[0]);
                            nk |= bit;
                        } else {
                            next[r] = 0;
                            nk &= ~bit;
                        }
                    }
                    case FrameRow.VAL_EXPRESSION -> {
                        uncacheable = true;
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
        if ((set & (1L << ra)) == 0) use(ra); // carried, not set by a rule
        next[pcCol] = next[ra];
        nk |= 1L << pcCol;
        next[numbering.sp()] = cfa;
        nk |= 1L << numbering.sp();
        stepSet = set | 1L << pcCol | 1L << numbering.sp();
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
