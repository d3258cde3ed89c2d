/*
 * The clauses a syscall program runs in the kernel (org.jdtrace.spi.KernelClause): their
 * predicates, which decide whether the event's record is sent at all, and the aggregations the
 * provider took, kept in per-CPU BPF hash maps (ClauseMap reads them for the consumer).
 *
 * Where it sits: SyscallProgram's head has looked the call up in the armed map (r6 ctx, r7
 * pid_tgid, r8 the call's number, r9 its armed mask) and checked the pid filter. Bits 16..31 of
 * the mask name the call's clause group: the probes whose installed ECBs have the same list of
 * kernel clauses share one group and one block of code. A group's block computes once what its
 * expressions read and helpers give (the process's name, the parent's pid, the uid) into stack
 * slots, runs each taken clause (predicate, key, value, the map update), then decides: the record
 * goes on to the JVM when some ECB there may want it (an ECB without a kernel form, or one whose
 * predicate holds), else the program ends. Group 0 and an unknown group (a program swapped in
 * just before the armed map was rewritten) send the record, as without clauses.
 *
 * Expressions are evaluated into r1..r5 (a register stack: a node's operands take the next
 * registers; a clause deeper than that has no kernel form here, supports()). No helper is called
 * while an expression is evaluated, so r6..r9 and the stack slots stay as the head left them.
 * Semantics are the JVM's: 64-bit two's complement, shifts by the count mod 64, C casts, strcmp
 * equality of execname (the process's name, its group leader's comm as SampleContext reads it)
 * and probefunc (the call's number compared with the numbers of that name).
 *
 * A stack() key (KernelClause.Stack, syscall events only: Event.stackFd) is the id
 * bpf_get_stackid gives the event's kernel stack in the provider's KernelStacks map (r6 the
 * context); a stack it cannot store (a negative id) counts one drop in the clause's slot, as a full
 * aggregation map does. ClauseMap names the frames at the fold.
 *
 * A map value's words (internal; ClauseMap turns them into the consumer's): COUNT {n}, SUM {s},
 * MIN and MAX {n, m} (n tells a CPU's copy that never saw a value from one holding 0), AVG {n, s},
 * STDDEV {n, s, sum of squares high, low} (the square's 128 bits from 32-bit halves, the low word's
 * carry into the high one), QUANTIZE 127 buckets, LQUANTIZE levels + 2 buckets, LLQUANTIZE the
 * consumer's buckets (the bucket found by a binary search, unrolled, over the bounds the consumer
 * gives: KernelClause's parameters). A new key is inserted from a zeroed per-CPU scratch value with
 * BPF_NOEXIST; an insertion the full map refuses counts one drop in the clause's slot of the drops
 * map (ClauseMap reports it as aggregation drops).
 *
 * Thread-locals (KernelClause.whole, see libdtrace's KernelForm for which ones live here): one
 * hash map for the service (ThreadLocalsMap, shared by the syscall and uprobe programs), {u32 tid,
 * u32 the consumer's state number << 8 | the variable's id} -> u64, holds every consumer's and thread's
 * resident thread-locals; a missing key reads 0. A whole clause loads the thread-locals it reads
 * into stack slots (TLS_BASE - 8 * id) before its predicate, runs predicate and aggregation as
 * above, then its stores in order: the value into the slot (later stores of the clause see it)
 * and into the map, or, for 0, the key deleted (DTrace's semantics: assigning 0 frees the
 * variable). A store the full map refuses adds one to the tls drops array (at the
 * consumer's state, an atomic add), which ThreadLocalsMap reports to that consumer as dynamic
 * variable drops. Only the thread itself touches its keys,
 * so no two CPUs race on one key. A thread that exits with variables set leaves them in the map
 * until its consumer's clauses go (ThreadLocalsMap frees the state; as DTrace, whose dynamic
 * variables of a dead thread stay until zeroed or the consumer ends). TIMESTAMP is bpf_ktime_get_ns() once per event (the group's prelude): only whole
 * clauses read it, so it is never compared with the JVM's timestamps.
 *
 * Not thread-safe: one instance builds one program.
 */
package org.jdtrace.perf.internal;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jdtrace.spi.KernelClause;
import org.jdtrace.spi.KernelClause.Variable;

import static org.jdtrace.perf.internal.BpfAsm.*;

final class ClauseProgram {

    static final int GET_CURRENT_UID_GID = 15, TAIL_CALL = 12;
    /** Stack slots (offsets from r10). */
    static final int COMM = -24, PPID = -32, UID = -40, VALUE = -48, INCR = -56;
    static final int MAX_KEY = 128, MAX_VALUE = 4096, MAX_CLAUSES = 64;
    /** Thread-locals (whole clauses): ids below MAX_TLS, their slots, the map's key and value, the event's time. */
    static final int MAX_TLS = 16, TLS_BASE = -256, TLS_KEY = -392, TLS_VALUE = -400, TS = -408;
    static final int GET_KTIME_NS = 5;
    private static final int LAST_REG = R5;

    /**
     * How the program's event reads arguments: entry (args at argsOff) or return (ret at retOff);
     * or, when {@code args} is not null (a uprobe's, UprobeProgram), argument i at context offset
     * args[i] (-1: not in the context, the clause runs in the JVM), its low |argBytes[i]| bytes
     * extended (negative: signed; a USDT register operand), and errno 0.
     */
    record Event(boolean entry, int argsOff, int retOff, Btf.Parent parent, Btf.Leader leader,
            Map<String, List<Integer>> numbers, int[] args, int[] argBytes, int stackFd) {
        Event(boolean entry, int argsOff, int retOff, Btf.Parent parent, Btf.Leader leader, Map<String, List<Integer>> numbers) {
            this(entry, argsOff, retOff, parent, leader, numbers, null, null, -1);
        }

        Event(boolean entry, int argsOff, int retOff, Btf.Parent parent, Btf.Leader leader,
                Map<String, List<Integer>> numbers, int[] args, int[] argBytes) {
            this(entry, argsOff, retOff, parent, leader, numbers, args, argBytes, -1);
        }

        /** The same event whose kernel stack a stack() key takes into {@code fd} (KernelStacks; r6 the context). */
        Event withStacks(int fd) {
            return new Event(entry, argsOff, retOff, parent, leader, numbers, args, argBytes, fd);
        }

        /** Whether argument {@code i} can be read at the event. */
        boolean hasArg(int i) {
            return i >= 0 && i < 10 && (args == null || i < args.length && args[i] >= 0);
        }
    }

    /** A taken clause in a program: its map, its drops slot and its layout. */
    record Taken(KernelClause clause, int mapFd, int slot) {}

    /** Probes with the same kernel clauses: {@code id} in bits 16..31 of their armed masks. */
    record Group(int id, List<KernelClause> clauses) {}

    private final BpfAsm a;
    /** The event of the group being built (UprobeProgram's groups each have their own: event()). */
    private Event ev;
    private int labels;
    /** The thread-locals map and its drops array (-1: none, no whole clause is taken). */
    private int tlsFd = -1, tlsDropsFd = -1;
    /** Their lease: each consumer's state number (null: none). */
    private ThreadLocalsMap.Lease tls;

    ClauseProgram(BpfAsm a, Event ev) {
        this.a = a;
        this.ev = ev;
    }

    /** The maps whole clauses keep thread-locals in and count their drops in (null: no whole clause is taken). */
    ClauseProgram threadLocals(ThreadLocalsMap.Lease tls) {
        this.tls = tls;
        this.tlsFd = tls == null ? -1 : tls.tlsFd();
        this.tlsDropsFd = tls == null ? -1 : tls.dropsFd();
        return this;
    }

    /** The groups built from now on read their arguments as {@code e} says (one program, several layouts). */
    void event(Event e) {
        ev = e;
    }

    // ---- what the kernel can run

    /** True when {@code e} can be evaluated here as an integer. */
    static boolean supports(KernelClause.Expr e, Event ev) {
        return depth(e, ev) >= 0 && depth(e, ev) <= LAST_REG - R1 + 1;
    }

    /** Registers {@code e} needs (-1: it cannot be evaluated as an integer). */
    private static int depth(KernelClause.Expr e, Event ev) {
        return switch (e) {
            case KernelClause.Const c -> 1;
            case KernelClause.Arg x -> ev.hasArg(x.index()) ? 1 : -1;
            case KernelClause.Var v -> switch (v.which()) {
                case PID, TID, UID, ERRNO, TIMESTAMP -> 1;
                case PPID -> ev.parent() != null ? 1 : -1;
                default -> -1;
            };
            case KernelClause.Unary u -> depth(u.operand(), ev);
            case KernelClause.Cast c -> List.of(1, 2, 4, 8).contains(c.width()) ? depth(c.operand(), ev) : -1;
            case KernelClause.Binary b -> {
                int l = depth(b.left(), ev), r = depth(b.right(), ev);
                yield l < 0 || r < 0 ? -1 : Math.max(l, r + 1);
            }
            case KernelClause.Ternary t -> {
                int c = depth(t.cond(), ev), x = depth(t.then(), ev), y = depth(t.otherwise(), ev);
                yield c < 0 || x < 0 || y < 0 ? -1 : Math.max(c, Math.max(x, y));
            }
            case KernelClause.StrCompare s -> stringCompare(s, ev) ? 2 : -1;
            case KernelClause.Str s -> -1;
            case KernelClause.Stack s -> -1;
            case KernelClause.ThreadLocal t -> t.id() >= 0 && t.id() < MAX_TLS ? 1 : -1;
        };
    }

    /** execname or probefunc compared for (in)equality with a constant, or two constants. */
    private static boolean stringCompare(KernelClause.StrCompare s, Event ev) {
        if (s.op() != KernelClause.BinOp.EQ && s.op() != KernelClause.BinOp.NE) return false;
        return stringOperand(s.left(), ev) && stringOperand(s.right(), ev)
                && (s.left() instanceof KernelClause.Str || s.right() instanceof KernelClause.Str);
    }

    private static boolean stringOperand(KernelClause.Expr e, Event ev) {
        return e instanceof KernelClause.Str
                || e instanceof KernelClause.Var v && (v.which() == Variable.PROBEFUNC
                || v.which() == Variable.EXECNAME && ev.leader() != null);
    }

    /** True when the clause's aggregation can be kept here. */
    static boolean takes(KernelClause c, Event ev) {
        KernelClause.Aggregation g = c.aggregation();
        if (c.whole()) {
            for (KernelClause.Store st : c.stores()) {
                if (!supports(st.variable(), ev) || !supports(st.value(), ev)) return false;
            }
            if (g == null) return c.predicate() == null || supports(c.predicate(), ev);
        }
        if (g == null || (c.predicate() != null && !supports(c.predicate(), ev))) return false;
        if (words(g) * 8 > MAX_VALUE || keySize(g) > MAX_KEY) return false;
        for (KernelClause.Expr k : g.keys()) {
            if (k instanceof KernelClause.Stack s) {
                if (ev.stackFd() < 0 || s.frames() < 0) return false;
                continue;
            }
            if (!(k instanceof KernelClause.Var v && (v.which() == Variable.PROBEFUNC
                    || v.which() == Variable.EXECNAME && ev.leader() != null)) && !supports(k, ev)) {
                return false;
            }
        }
        return (g.value() == null || supports(g.value(), ev)) && (g.increment() == null || supports(g.increment(), ev));
    }

    /** The words of a map value (see the file comment), 0 for a function not kept here. */
    static int words(KernelClause.Aggregation g) {
        return switch (g.function()) {
            case COUNT, SUM -> 1;
            case MIN, MAX, AVG -> 2;
            case QUANTIZE -> 127;
            case STDDEV -> 4;
            case LQUANTIZE -> (int) Math.min(Integer.MAX_VALUE / 16, g.parameters()[2] + 2);
            // the bounds of its buckets given (KernelClause), else too big to take
            case LLQUANTIZE -> g.parameters().length > 4 && g.parameters().length - 3 == g.dataWords() ? g.dataWords() : MAX_VALUE;
        };
    }

    /**
     * A key's bytes: 16 for execname, 8 for anything else (probefunc as the call's number, a stack
     * as its KernelStacks id).
     */
    static int keyWidth(KernelClause.Expr k) {
        return k instanceof KernelClause.Var v && v.which() == Variable.EXECNAME ? 16 : 8;
    }

    static int keySize(KernelClause.Aggregation g) {
        int n = 0;
        for (KernelClause.Expr k : g.keys()) n += keyWidth(k);
        return Math.max(8, n);
    }

    // ---- code

    private String fresh(String what) {
        return "c" + (labels++) + what;
    }

    /**
     * The dispatch on the group bits and each group's block; a block ends at {@code record}
     * (send it) or {@code out} (drop the event).
     */
    void groups(List<Group> groups, Map<KernelClause, Taken> taken, int zeroFd, int dropsFd, String record, String out) {
        if (groups.isEmpty()) return;
        a.mov(R1, R9).rshImm(R1, 16);
        for (Group g : groups) a.jeqImm(R1, g.id(), "group" + g.id());
        a.ja(record);
        for (Group g : groups) {
            a.label("group" + g.id());
            Set<Variable> uses = EnumSet.noneOf(Variable.class);
            Set<KernelClause> done = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
            List<KernelClause.Expr> hints = new ArrayList<>();
            boolean always = false;
            for (KernelClause c : g.clauses()) {
                Taken t = c == null ? null : taken.get(c);
                if (t != null) {
                    uses(c.predicate(), uses);
                    for (KernelClause.Store st : c.stores()) uses(st.value(), uses);
                    if (c.aggregation() != null) {
                        for (KernelClause.Expr k : c.aggregation().keys()) uses(k, uses);
                        uses(c.aggregation().value(), uses);
                        uses(c.aggregation().increment(), uses);
                    }
                } else if (c != null && c.whole()) {
                    // not taken: it does not run at all (its thread-locals live only here)
                } else if (c == null || c.predicate() == null || !supports(c.predicate(), ev)) {
                    always = true;
                } else {
                    uses(c.predicate(), uses);
                    hints.add(c.predicate());
                }
            }
            prelude(uses);
            for (KernelClause c : g.clauses()) {
                Taken t = c == null ? null : taken.get(c);
                if (t != null && done.add(c)) aggregate(t, zeroFd, dropsFd);
            }
            if (always) {
                a.ja(record);
                continue;
            }
            for (KernelClause.Expr h : hints) {
                eval(h, R1);
                a.jneImm(R1, 0, record);
            }
            a.ja(out);
        }
    }

    private static void uses(KernelClause.Expr e, Set<Variable> into) {
        switch (e) {
            case null -> { }
            case KernelClause.Var v -> into.add(v.which());
            case KernelClause.Unary u -> uses(u.operand(), into);
            case KernelClause.Cast c -> uses(c.operand(), into);
            case KernelClause.Binary b -> {
                uses(b.left(), into);
                uses(b.right(), into);
            }
            case KernelClause.StrCompare s -> {
                uses(s.left(), into);
                uses(s.right(), into);
            }
            case KernelClause.Ternary t -> {
                uses(t.cond(), into);
                uses(t.then(), into);
                uses(t.otherwise(), into);
            }
            default -> { }
        }
    }

    /** What helpers give, once per event, into the stack slots. */
    private void prelude(Set<Variable> uses) {
        if (uses.contains(Variable.EXECNAME)) {
            String done = fresh("comm");
            a.mov(R1, R10).addImm(R1, COMM).movImm(R2, 16).call(GET_CURRENT_COMM);
            // a thread other than the main one: the process's name is its group leader's comm
            a.mov(R1, R7).rshImm(R1, 32).insn(0xbc, R2, R7, 0, 0).jmp(0x1d, R1, R2, 0, done)
                    .call(GET_CURRENT_TASK).mov(R3, R0).addImm(R3, ev.leader().groupLeader())
                    .mov(R1, R10).addImm(R1, VALUE).movImm(R2, 8).call(PROBE_READ_KERNEL)
                    .ldxDw(R3, R10, VALUE).addImm(R3, ev.leader().comm())
                    .mov(R1, R10).addImm(R1, COMM).movImm(R2, 16).call(PROBE_READ_KERNEL)
                    .label(done);
        }
        if (uses.contains(Variable.PPID)) a.parentTgid(R10, PPID, ev.parent());
        if (uses.contains(Variable.UID)) a.call(GET_CURRENT_UID_GID).insn(0xbc, R0, R0, 0, 0).stxDw(R10, UID, R0);
        if (uses.contains(Variable.TIMESTAMP)) a.call(GET_KTIME_NS).stxDw(R10, TS, R0);
    }

    /** One taken clause: predicate, key, value, the map update, the function. */
    private void aggregate(Taken t, int zeroFd, int dropsFd) {
        KernelClause c = t.clause();
        KernelClause.Aggregation g = c.aggregation();
        String skip = fresh("skip"), have = fresh("have"), again = fresh("again"), drop = fresh("drop");
        if (c.whole()) loadThreadLocals(c);
        if (c.predicate() != null) {
            eval(c.predicate(), R1);
            a.jeqImm(R1, 0, c.whole() ? skip + "_all" : skip);
        }
        if (g == null) {
            a.label(skip);
            stores(c);
            a.label(skip + "_all");
            return;
        }
        int key = INCR - keySize(g);
        int off = key;
        a.movImm(R1, 0).stxDw(R10, key, R1);
        for (KernelClause.Expr k : g.keys()) {
            if (k instanceof KernelClause.Var v && v.which() == Variable.EXECNAME) {
                a.ldxDw(R1, R10, COMM).stxDw(R10, off, R1).ldxDw(R1, R10, COMM + 8).stxDw(R10, off + 8, R1);
            } else if (k instanceof KernelClause.Var v && v.which() == Variable.PROBEFUNC) {
                a.stxDw(R10, off, R8);
            } else if (k instanceof KernelClause.Stack) {
                // the stack's id; none (a full map, a bucket another stack holds): an aggregation drop
                a.mov(R1, R6).ldMap(R2, ev.stackFd()).movImm(R3, 0).call(KernelStacks.GET_STACKID)
                        .jmp(0xc5, R0, 0, 0, drop) // jslt 0
                        .stxDw(R10, off, R0);
            } else {
                eval(k, R1);
                a.stxDw(R10, off, R1);
            }
            off += keyWidth(k);
        }
        if (g.value() != null) {
            eval(g.value(), R1);
            a.stxDw(R10, VALUE, R1);
        }
        if (g.increment() != null) eval(g.increment(), R1);
        else a.movImm(R1, 1);
        a.stxDw(R10, INCR, R1);
        a.ldMap(R1, t.mapFd()).mov(R2, R10).addImm(R2, key).call(MAP_LOOKUP_ELEM).jneImm(R0, 0, have);
        // a new key: inserted from the zeroed scratch value (BPF_NOEXIST; another CPU may win)
        a.lookupKey0(zeroFd).jeqImm(R0, 0, skip)
                .mov(R3, R0).ldMap(R1, t.mapFd()).mov(R2, R10).addImm(R2, key).movImm(R4, 1).call(MAP_UPDATE_ELEM)
                .jmp(0x65, R0, 0, -1, again) // r0 > -1: inserted
                .jmp(0x15, R0, 0, -17, again) // -EEXIST
                .label(drop)
                .stW(R10, -4, t.slot()).ldMap(R1, dropsFd).mov(R2, R10).addImm(R2, -4).call(MAP_LOOKUP_ELEM)
                .jeqImm(R0, 0, skip)
                .ldxDw(R1, R0, 0).addImm(R1, 1).stxDw(R0, 0, R1)
                .ja(skip)
                .label(again)
                .ldMap(R1, t.mapFd()).mov(R2, R10).addImm(R2, key).call(MAP_LOOKUP_ELEM).jeqImm(R0, 0, skip)
                .label(have);
        apply(g, skip);
        a.label(skip);
        if (c.whole()) {
            stores(c);
            a.label(skip + "_all");
        }
    }

    /** r0: the value's words (this CPU's); the function applied (r1..r4 clobbered). */
    private void apply(KernelClause.Aggregation g, String skip) {
        switch (g.function()) {
            case COUNT -> a.ldxDw(R1, R0, 0).ldxDw(R2, R10, INCR).insn(0x0f, R1, R2, 0, 0).stxDw(R0, 0, R1);
            case SUM -> a.ldxDw(R1, R0, 0).ldxDw(R2, R10, VALUE).insn(0x0f, R1, R2, 0, 0).stxDw(R0, 0, R1);
            case AVG -> a.ldxDw(R1, R0, 0).addImm(R1, 1).stxDw(R0, 0, R1)
                    .ldxDw(R1, R0, 8).ldxDw(R2, R10, VALUE).insn(0x0f, R1, R2, 0, 0).stxDw(R0, 8, R1);
            case MIN, MAX -> {
                String set = fresh("set"), count = fresh("n");
                a.ldxDw(R1, R0, 0).ldxDw(R2, R10, VALUE).jeqImm(R1, 0, set).ldxDw(R3, R0, 8)
                        .jmp(g.function() == KernelClause.Function.MIN ? 0x7d : 0xdd, R2, R3, 0, count) // jsge / jsle
                        .label(set).stxDw(R0, 8, R2)
                        .label(count).addImm(R1, 1).stxDw(R0, 0, R1);
            }
            case QUANTIZE -> {
                String nz = fresh("nz"), pos = fresh("pos"), idx = fresh("idx");
                a.ldxDw(R2, R10, VALUE).jneImm(R2, 0, nz).movImm(R1, 63).ja(idx)
                        .label(nz).jmp(0x65, R2, 0, 0, pos) // jsgt 0
                        .insn(0x87, R2, 0, 0, 0); // neg: the magnitude, unsigned
                log2(R2, R3);
                a.movImm(R1, 62).insn(0x1f, R1, R3, 0, 0).jmp(0x65, R1, 0, -1, idx).movImm(R1, 0).ja(idx)
                        .label(pos);
                log2(R2, R3);
                a.movImm(R1, 64).insn(0x0f, R1, R3, 0, 0).label(idx);
                bump(R1, 126, skip);
            }
            case LQUANTIZE -> {
                long base = g.parameters()[0], step = g.parameters()[1], levels = g.parameters()[2];
                String ge = fresh("ge"), over = fresh("over"), idx = fresh("idx");
                a.ldxDw(R2, R10, VALUE).ldImm64(R3, base).jmp(0x7d, R2, R3, 0, ge).movImm(R1, 0).ja(idx)
                        .label(ge).insn(0x1f, R2, R3, 0, 0).ldImm64(R3, step).insn(0x3f, R2, R3, 0, 0)
                        .ldImm64(R3, levels).jmp(0x3d, R2, R3, 0, over)
                        .mov(R1, R2).addImm(R1, 1).ja(idx)
                        .label(over).ldImm64(R1, levels + 1)
                        .label(idx);
                bump(R1, (int) levels + 1, skip);
            }
            case STDDEV -> stddev();
            case LLQUANTIZE -> {
                long[] p = g.parameters();
                String idx = fresh("idx");
                a.ldxDw(R2, R10, VALUE);
                search(p, 4, 4, p.length, idx);
                a.label(idx);
                bump(R1, p.length - 4, skip);
            }
        }
    }

    /**
     * r1 = lo - first + the number of bounds p[lo..hi) <= r2 (signed), for r2 >= p[lo - 1] and
     * r2 < p[hi]; then to {@code done}. A binary search unrolled into the program.
     */
    private void search(long[] p, int first, int lo, int hi, String done) {
        if (lo == hi) {
            a.movImm(R1, lo - first).ja(done);
            return;
        }
        int mid = (lo + hi) >>> 1;
        String below = fresh("below");
        a.ldImm64(R3, p[mid]).jmp(0xcd, R2, R3, 0, below); // jslt
        search(p, first, mid + 1, hi, done);
        a.label(below);
        search(p, first, lo, mid, done);
    }

    /**
     * stddev's words {n, s, sum of squares high, low} (r0) updated with the value (as the
     * consumer's Aggregation.apply: the square of |v| in 128 bits); r1..r5 clobbered.
     */
    private void stddev() {
        String pos = fresh("pos");
        a.ldxDw(R2, R10, VALUE)
                .ldxDw(R1, R0, 0).addImm(R1, 1).stxDw(R0, 0, R1)
                .ldxDw(R1, R0, 8).insn(0x0f, R1, R2, 0, 0).stxDw(R0, 8, R1)
                .jmp(0x65, R2, 0, -1, pos).insn(0x87, R2, 0, 0, 0).label(pos) // |v|, unsigned
                .mov(R3, R2).insn(0x77, R3, 0, 0, 32) // r3 = high half
                .insn(0x67, R2, 0, 0, 32).insn(0x77, R2, 0, 0, 32) // r2 = low half
                .mov(R4, R2).insn(0x2f, R4, R2, 0, 0) // r4 = low * low: the square's low word so far
                .mov(R5, R3).insn(0x2f, R5, R3, 0, 0) // r5 = high * high: its high word
                .insn(0x2f, R2, R3, 0, 0); // r2 = low * high, added twice at bit 32
        for (int i = 0; i < 2; i++) {
            String nc = fresh("nc");
            a.mov(R3, R2).insn(0x67, R3, 0, 0, 32).insn(0x0f, R4, R3, 0, 0)
                    .jmp(0x3d, R4, R3, 0, nc).addImm(R5, 1).label(nc) // jge: no carry
                    .mov(R3, R2).insn(0x77, R3, 0, 0, 32).insn(0x0f, R5, R3, 0, 0);
        }
        String nc = fresh("nc");
        a.ldxDw(R1, R0, 24).insn(0x0f, R1, R4, 0, 0).stxDw(R0, 24, R1)
                .jmp(0x3d, R1, R4, 0, nc).addImm(R5, 1).label(nc)
                .ldxDw(R1, R0, 16).insn(0x0f, R1, R5, 0, 0).stxDw(R0, 16, R1);
    }

    /** words[r] += incr, r checked against {@code max} for the verifier. */
    private void bump(int r, int max, String skip) {
        a.jgtImm(r, max, skip).insn(0x67, r, 0, 0, 3).mov(R3, R0).insn(0x0f, R3, r, 0, 0)
                .ldxDw(R2, R3, 0).ldxDw(R4, R10, INCR).insn(0x0f, R2, R4, 0, 0).stxDw(R3, 0, R2);
    }

    /** dst = floor(log2(x)) of x (unsigned, not 0); x clobbered, r4 used. */
    private void log2(int x, int dst) {
        a.movImm(dst, 0);
        for (int s : new int[] {32, 16, 8, 4, 2, 1}) {
            String next = fresh("l");
            a.ldImm64(R4, 1L << s).jmp(0xad, x, R4, 0, next) // jlt
                    .insn(0x77, x, 0, 0, s).addImm(dst, s).label(next);
        }
    }

    /** reg = the integer value of {@code e} (supports(e) holds); registers above reg clobbered. */
    void eval(KernelClause.Expr e, int reg) {
        switch (e) {
            case KernelClause.Const c -> {
                if (c.value() == (int) c.value()) a.movImm(reg, (int) c.value());
                else a.ldImm64(reg, c.value());
            }
            case KernelClause.Arg x -> {
                if (ev.args() != null) {
                    a.ldxDw(reg, R6, ev.args()[x.index()]);
                    int bytes = ev.argBytes()[x.index()], bits = 64 - 8 * Math.abs(bytes);
                    if (bits > 0) a.insn(0x67, reg, 0, 0, bits).insn(bytes < 0 ? 0xc7 : 0x77, reg, 0, 0, bits);
                }
                else if (ev.entry() && x.index() < 6) a.ldxDw(reg, R6, ev.argsOff() + 8 * x.index());
                else if (!ev.entry() && x.index() < 2) a.ldxDw(reg, R6, ev.retOff());
                else a.movImm(reg, 0);
            }
            case KernelClause.Var v -> variable(v.which(), reg);
            case KernelClause.Unary u -> {
                eval(u.operand(), reg);
                switch (u.op()) {
                    case NEG -> a.insn(0x87, reg, 0, 0, 0);
                    case BITNOT -> a.insn(0xa7, reg, 0, 0, -1);
                    case NOT -> truth(0x15, reg, 0, true); // reg == 0
                }
            }
            case KernelClause.Cast c -> {
                eval(c.operand(), reg);
                int bits = 64 - 8 * c.width();
                if (bits > 0) a.insn(0x67, reg, 0, 0, bits).insn(c.signed() ? 0xc7 : 0x77, reg, 0, 0, bits);
            }
            case KernelClause.Ternary t -> {
                String no = fresh("else"), end = fresh("end");
                eval(t.cond(), reg);
                a.jeqImm(reg, 0, no);
                eval(t.then(), reg);
                a.ja(end).label(no);
                eval(t.otherwise(), reg);
                a.label(end);
            }
            case KernelClause.Binary b -> binary(b, reg);
            case KernelClause.StrCompare s -> strCompare(s, reg);
            case KernelClause.Str s -> throw new IllegalArgumentException("a string is no integer");
            case KernelClause.Stack s -> throw new IllegalArgumentException("a stack is no integer");
            case KernelClause.ThreadLocal t -> a.ldxDw(reg, R10, tlsSlot(t.id()));
        }
    }

    private void variable(Variable v, int reg) {
        switch (v) {
            case PID -> a.mov(reg, R7).rshImm(reg, 32);
            case TID -> a.insn(0xbc, reg, R7, 0, 0);
            case PPID -> a.ldxDw(reg, R10, PPID);
            case UID -> a.ldxDw(reg, R10, UID);
            case TIMESTAMP -> a.ldxDw(reg, R10, TS);
            case ERRNO -> {
                if (ev.entry()) {
                    a.movImm(reg, 0);
                    return;
                }
                String zero = fresh("z"), end = fresh("e");
                a.ldxDw(reg, R6, ev.retOff())
                        .jmp(0x65, reg, 0, -1, zero) // jsgt -1: not negative
                        .jmp(0xc5, reg, 0, -4095, zero) // jslt -4095: no errno
                        .insn(0x87, reg, 0, 0, 0).ja(end)
                        .label(zero).movImm(reg, 0).label(end);
            }
            default -> throw new IllegalArgumentException(v + " is no integer");
        }
    }

    /** reg = 1 when the jump {@code op} of reg (against src or imm) is taken, else 0. */
    private void truth(int op, int reg, int srcOrImm, boolean imm) {
        String yes = fresh("t"), end = fresh("e");
        if (imm) a.jmp(op, reg, 0, srcOrImm, yes);
        else a.jmp(op, reg, srcOrImm, 0, yes);
        a.movImm(reg, 0).ja(end).label(yes).movImm(reg, 1).label(end);
    }

    private void binary(KernelClause.Binary b, int reg) {
        switch (b.op()) {
            case LAND, LOR -> {
                String decided = fresh("d"), end = fresh("e");
                boolean and = b.op() == KernelClause.BinOp.LAND;
                eval(b.left(), reg);
                a.jmp(and ? 0x15 : 0x55, reg, 0, 0, decided);
                eval(b.right(), reg);
                a.jmp(and ? 0x15 : 0x55, reg, 0, 0, decided);
                a.movImm(reg, and ? 1 : 0).ja(end).label(decided).movImm(reg, and ? 0 : 1).label(end);
                return;
            }
            default -> { }
        }
        eval(b.left(), reg);
        eval(b.right(), reg + 1);
        int r = reg + 1;
        boolean u = b.unsigned();
        switch (b.op()) {
            case ADD -> a.insn(0x0f, reg, r, 0, 0);
            case SUB -> a.insn(0x1f, reg, r, 0, 0);
            case MUL -> a.insn(0x2f, reg, r, 0, 0);
            case OR -> a.insn(0x4f, reg, r, 0, 0);
            case AND -> a.insn(0x5f, reg, r, 0, 0);
            case XOR -> a.insn(0xaf, reg, r, 0, 0);
            case SHL -> a.insn(0x6f, reg, r, 0, 0);
            case SHR -> a.insn(u ? 0x7f : 0xcf, reg, r, 0, 0);
            case EQ -> truth(0x1d, reg, r, false);
            case NE -> truth(0x5d, reg, r, false);
            case LT -> truth(u ? 0xad : 0xcd, reg, r, false);
            case LE -> truth(u ? 0xbd : 0xdd, reg, r, false);
            case GT -> truth(u ? 0x2d : 0x6d, reg, r, false);
            case GE -> truth(u ? 0x3d : 0x7d, reg, r, false);
            case LXOR -> {
                truth(0x55, reg, 0, true);
                truth(0x55, r, 0, true);
                a.insn(0xaf, reg, r, 0, 0);
            }
            default -> throw new IllegalArgumentException(b.op().toString());
        }
    }

    /** execname or probefunc ==/!= a constant (or two constants): reg = 0 or 1. */
    private void strCompare(KernelClause.StrCompare s, int reg) {
        boolean eq = s.op() == KernelClause.BinOp.EQ;
        KernelClause.Expr var = s.left() instanceof KernelClause.Str ? s.right() : s.left();
        String text = ((KernelClause.Str) (var == s.left() ? s.right() : s.left())).value();
        if (var instanceof KernelClause.Str other) {
            a.movImm(reg, other.value().equals(text) == eq ? 1 : 0);
            return;
        }
        String no = fresh("ne"), end = fresh("e");
        if (((KernelClause.Var) var).which() == Variable.PROBEFUNC) {
            List<Integer> nrs = ev.numbers().getOrDefault(text, List.of());
            String yes = fresh("eq");
            for (int nr : nrs) a.jeqImm(R8, nr, yes);
            a.ja(no).label(yes);
        } else {
            byte[] b = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            if (b.length > 15) {
                a.ja(no); // a comm holds 15 bytes
            } else {
                byte[] w = java.util.Arrays.copyOf(b, 16);
                for (int i = 0; i < 2; i++) {
                    long word = java.nio.ByteBuffer.wrap(w, 8 * i, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
                    a.ldxDw(reg, R10, COMM + 8 * i).ldImm64(reg + 1, word).jneReg(reg, reg + 1, no);
                }
            }
        }
        a.movImm(reg, eq ? 1 : 0).ja(end).label(no).movImm(reg, eq ? 0 : 1).label(end);
    }

    // ---- thread-locals (whole clauses; see the file comment)

    static int tlsSlot(int id) {
        return TLS_BASE - 8 * id;
    }

    /** The slots of the thread-locals {@code c} reads = their values in the map (0 when missing). */
    private void loadThreadLocals(KernelClause c) {
        Set<Integer> ids = new java.util.TreeSet<>();
        reads(c.predicate(), ids);
        for (KernelClause.Store st : c.stores()) reads(st.value(), ids);
        if (c.aggregation() != null) {
            for (KernelClause.Expr k : c.aggregation().keys()) reads(k, ids);
            reads(c.aggregation().value(), ids);
            reads(c.aggregation().increment(), ids);
        }
        int state = ids.isEmpty() ? 0 : tls.state(c);
        for (int id : ids) {
            String none = fresh("tls0"), done = fresh("tls");
            tlsKey(state, id);
            a.ldMap(R1, tlsFd).mov(R2, R10).addImm(R2, TLS_KEY).call(MAP_LOOKUP_ELEM)
                    .jeqImm(R0, 0, none)
                    .ldxDw(R1, R0, 0).ja(done)
                    .label(none).movImm(R1, 0)
                    .label(done).stxDw(R10, tlsSlot(id), R1);
        }
    }

    private static void reads(KernelClause.Expr e, Set<Integer> into) {
        switch (e) {
            case null -> { }
            case KernelClause.ThreadLocal t -> into.add(t.id());
            case KernelClause.Unary u -> reads(u.operand(), into);
            case KernelClause.Cast c -> reads(c.operand(), into);
            case KernelClause.Binary b -> {
                reads(b.left(), into);
                reads(b.right(), into);
            }
            case KernelClause.Ternary t -> {
                reads(t.cond(), into);
                reads(t.then(), into);
                reads(t.otherwise(), into);
            }
            default -> { }
        }
    }

    /** The stack's map key = {this thread's tid, the consumer's state << 8 | id} (ThreadLocalsMap). */
    private void tlsKey(int state, int id) {
        a.stxW(R10, TLS_KEY, R7).stW(R10, TLS_KEY + 4, state << 8 | id);
    }

    /** The clause's stores, in order: slot and map (a value of 0 deletes the key). */
    private void stores(KernelClause c) {
        int state = c.stores().isEmpty() ? 0 : tls.state(c);
        for (KernelClause.Store st : c.stores()) {
            int id = st.variable().id();
            String delete = fresh("del"), done = fresh("stored");
            eval(st.value(), R1);
            a.stxDw(R10, tlsSlot(id), R1).stxDw(R10, TLS_VALUE, R1);
            tlsKey(state, id);
            a.ldxDw(R1, R10, TLS_VALUE).jeqImm(R1, 0, delete)
                    .ldMap(R1, tlsFd).mov(R2, R10).addImm(R2, TLS_KEY).mov(R3, R10).addImm(R3, TLS_VALUE)
                    .movImm(R4, 0) // BPF_ANY
                    .call(MAP_UPDATE_ELEM)
                    .jmp(0x65, R0, 0, -1, done) // r0 > -1: stored
                    .stW(R10, -4, state).ldMap(R1, tlsDropsFd).mov(R2, R10).addImm(R2, -4).call(MAP_LOOKUP_ELEM) // the state's slot
                    .jeqImm(R0, 0, done)
                    .movImm(R1, 1).insn(0xdb, R0, R1, 0, 0) // atomic add: a dynamic variable drop
                    .ja(done)
                    .label(delete)
                    .ldMap(R1, tlsFd).mov(R2, R10).addImm(R2, TLS_KEY).call(MAP_DELETE_ELEM)
                    .label(done);
        }
    }
}
