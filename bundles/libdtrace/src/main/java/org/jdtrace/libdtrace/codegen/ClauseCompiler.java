/*
 * ClauseCompiler: turns one lowered clause (Ir.Clause) into a JVM class implementing EcbBody,
 * with the ClassFile API, and loads it as a hidden class of this package (so it can be
 * unloaded with the consumer and needs no class loader of its own).
 *
 * The generated fire(ctx, probe, epid) is straight-line code: skip if the consumer is
 * draining, fetch this thread's DThread once, evaluate the predicate, open the record, run the
 * actions, commit the record. D integers are JVM longs, strings are Strings; this-> variables
 * are JVM locals; constants the clause needs (aggregations, formats, prebuilt records) sit in
 * an Object[] field. A clause that only aggregates never opens a record, so @ = count() costs a
 * DState.thread() lookup and an increment. trace() and printf() record their values raw, one
 * argument at a time (DThread.traceInt, printf/argLong/argStr): no array, no boxing, no Datum, so
 * a recording firing allocates nothing once its thread's buffers have grown.
 *
 * Faults: division by zero throws DFault with the action number (1-based, 0 for the predicate)
 * and the location of the division; a context fault (FaultException from copyin, a subroutine,
 * a memory operation...) is caught around the predicate and actions and rethrown as a DFault
 * with the number of the action that was running and the location of the call that faulted,
 * both kept in locals. A location is the bytecode offset, in the generated fire() method, of
 * the invokestatic that faulted (Rt.div, a Subr or Mem entry, commit/discard): every such call
 * is a fault site, written in two passes (the first marks the sites, the second writes each
 * one's offset, found in the first pass's class). The fault report prints it where DTrace on
 * Linux prints the BPF pc of the faulting instruction. The record under construction is then
 * abandoned.
 *
 * this-> scalars live in JVM locals while the clause runs; they start from, and every store is
 * written through to, the thread's rt.FiringLocals, which keeps them across the clauses of one
 * firing as DTrace keeps clause-local variables (the lowering's temporaries are not carried).
 *
 * Class file version 49 (Java 5), without a StackMapTable: the JVM verifies the class by type
 * inference (its verifier for classes older than version 50, native code), so the ClassFile API
 * computes no stack maps: its StackMapGenerator, with a class hierarchy resolver that loads the
 * classes the code names, ran interpreted for every clause of every script at start-up. Version
 * 49 has all the generated code uses: no invokedynamic, no condy, no static or private
 * interface methods.
 *
 * D's memory (rt.Mem): a clause with a memory operation (Ir.MemOp, tracemem) resets its thread's
 * scratch when it starts, so alloca()'d memory lives until the clause ends; each operation is
 * a fault site (above), so a bad address is reported at the offset of the operation.
 */
package org.jdtrace.libdtrace.codegen;

import static java.lang.constant.ConstantDescs.*;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdtrace.libdtrace.codegen.Ir.*;
import org.jdtrace.libdtrace.rt.Aggregation;
import org.jdtrace.libdtrace.rt.AggKind;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.DThread;
import org.jdtrace.libdtrace.rt.Datum;
import org.jdtrace.libdtrace.rt.Tuple;
import org.jdtrace.engine.EcbBody;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

public final class ClauseCompiler {

    private static final AtomicInteger SEQ = new AtomicInteger();

    private static final ClassDesc CD_ECB = desc(EcbBody.class);
    private static final ClassDesc CD_STATE = desc(DState.class);
    private static final ClassDesc CD_THREAD = desc(DThread.class);
    private static final ClassDesc CD_CTX = desc(ProbeContext.class);
    private static final ClassDesc CD_PROBE = desc(Probe.class);
    private static final ClassDesc CD_RT = desc(Rt.class);
    private static final ClassDesc CD_SUBR = desc(Subr.class);
    private static final ClassDesc CD_MEM = desc(org.jdtrace.libdtrace.rt.Mem.class);
    private static final ClassDesc CD_AGG = desc(Aggregation.class);
    private static final ClassDesc CD_TUPLE = desc(Tuple.class);
    private static final ClassDesc CD_FRAMES = desc(org.jdtrace.libdtrace.rt.StackFrames.class);
    private static final ClassDesc CD_DATUM = desc(Datum.class);
    private static final ClassDesc CD_FMT = desc(org.jdtrace.libdtrace.print.PrintfFormat.class);
    private static final ClassDesc CD_RECFMT = desc(org.jdtrace.libdtrace.rt.RecordFormat.class);
    private static final ClassDesc CD_OBJS = CD_Object.arrayType();
    private static final ClassDesc CD_FAULT = desc(org.jdtrace.spi.FaultException.class);
    private static final ClassDesc CD_DFAULT = desc(org.jdtrace.engine.DFault.class);
    private static final ClassDesc CD_FIRING = desc(org.jdtrace.libdtrace.rt.FiringLocals.class);

    private static final int L_THIS = 0, L_CTX = 1, L_PROBE = 2, L_EPID = 3, L_THREAD = 4, L_FIRST = 5;

    private static ClassDesc desc(Class<?> c) {
        return ClassDesc.of(c.getName());
    }

    private final DState state;
    private final List<Object> constants = new ArrayList<>();
    private final Map<Integer, Integer> clauseLocals = new HashMap<>();
    private final Map<Integer, VKind> clauseLocalKinds = new HashMap<>();
    private int nextLocal = L_FIRST;
    /** The clause uses D's memory (an Ir.MemOp): its scratch is reset when it starts. */
    private boolean usesMemory;
    /** The clause reads or writes this-> scalars, or calls strtok: it joins its firing's FiringLocals. */
    private boolean usesFiringLocals;
    /** Clause-local slots at or above this are the lowering's temporaries, never carried. */
    private static final int CARRIED_SLOTS = 1 << 24;
    /** The local holding the location (bytecode offset) of the fault site under way (0: none yet). */
    private int offsetLocal;
    /** Locals holding this firing's timestamp and vtimestamp, each read once. */
    private final Map<Builtin, Integer> clockLocals = new java.util.EnumMap<>(Builtin.class);
    private int action;
    /** The end of fire(): a false predicate, or speculate() of an inactive speculation, jumps here. */
    private Label out;
    /** Fault sites emitted so far in this pass (see site()). */
    private int siteCount;
    /** Per site, the bytecode offset of its faulting call in fire() (null: first pass, markers). */
    private int[] siteOffsets;
    /** The clause has a fault site that records its offset: offsetLocal is kept. */
    private boolean usesSites;
    private ClassDesc self;

    private ClauseCompiler(DState state) {
        this.state = state;
    }

    /** Compiles and loads a clause; the result is ready to fire. */
    public static EcbBody compile(DState state, Ir.Clause clause) {
        EcbBody body = new ClauseCompiler(state).build(clause);
        state.needs(body, new DState.BufferNeeds(o -> RecordSize.principal(clause, o), o -> RecordSize.aggregationEntry(clause, o)));
        return body;
    }

    private EcbBody build(Ir.Clause clause) {
        String name = ClauseCompiler.class.getPackageName() + ".Clause" + SEQ.incrementAndGet();
        self = ClassDesc.of(name);
        collectLocals(clause);
        ClassFile cf = ClassFile.of(ClassFile.StackMapsOption.DROP_STACK_MAPS);
        byte[] bytes = generate(cf, clause);
        if (siteCount > 0) {
            // the first pass marked each fault site; the second writes each one's real offset
            siteOffsets = locateSites(cf.parse(bytes), siteCount);
            bytes = generate(cf, clause);
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return (EcbBody) lookup.findConstructor(lookup.lookupClass(),
                    MethodType.methodType(void.class, DState.class, Object[].class))
                    .invoke(state, constants.toArray());
        } catch (Throwable e) {
            throw new IllegalStateException("cannot load generated clause: " + e, e);
        }
    }

    /** One pass of code generation; the same clause gives the same code whatever siteOffsets holds. */
    private byte[] generate(ClassFile cf, Ir.Clause clause) {
        constants.clear();
        siteCount = 0;
        return cf.build(self, cb -> {
            cb.withVersion(ClassFile.JAVA_5_VERSION, 0); // no StackMapTable: see the theory above
            cb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL);
            cb.withInterfaceSymbols(CD_ECB);
            cb.withField("st", CD_STATE, ClassFile.ACC_PRIVATE | ClassFile.ACC_FINAL);
            cb.withField("k", CD_OBJS, ClassFile.ACC_PRIVATE | ClassFile.ACC_FINAL);
            cb.withMethodBody(INIT_NAME, MethodTypeDesc.of(CD_void, CD_STATE, CD_OBJS), ClassFile.ACC_PUBLIC, c -> {
                c.aload(0);
                c.invokespecial(CD_Object, INIT_NAME, MTD_void);
                c.aload(0);
                c.aload(1);
                c.putfield(self, "st", CD_STATE);
                c.aload(0);
                c.aload(2);
                c.putfield(self, "k", CD_OBJS);
                c.return_();
            });
            cb.withMethodBody("fire", MethodTypeDesc.of(CD_void, CD_CTX, CD_PROBE, CD_int), ClassFile.ACC_PUBLIC,
                    c -> fireBody(c, clause));
        });
    }

    /**
     * A fault site: pushes, as a short, where a fault of the call that follows is reported. In the
     * first pass that is the site's number (a marker); in the second, the bytecode offset of the
     * call in fire(), found in the first pass's class (sipush is 3 bytes whatever its value, so
     * both passes lay the code out alike). An offset past a short's range is -1: no location.
     */
    private void site(CodeBuilder c) {
        int k = ++siteCount;
        c.sipush(siteOffsets == null ? k : siteOffsets[k - 1]);
    }

    /** The offset of the first invoke after each site marker of the first pass's fire(). */
    private static int[] locateSites(java.lang.classfile.ClassModel cm, int n) {
        int[] at = new int[n];
        java.util.Arrays.fill(at, -1);
        for (var m : cm.methods()) {
            if (!m.methodName().equalsString("fire")) continue;
            int bci = 0;
            int pending = -1;
            for (var e : m.code().orElseThrow()) {
                if (!(e instanceof java.lang.classfile.Instruction ins)) continue;
                if (ins instanceof java.lang.classfile.instruction.InvokeInstruction && pending > 0) {
                    at[pending - 1] = bci <= Short.MAX_VALUE ? bci : -1;
                    pending = -1;
                } else if (ins.opcode() == java.lang.classfile.Opcode.SIPUSH
                        && ins instanceof java.lang.classfile.instruction.ConstantInstruction ci
                        && ci.constantValue() instanceof Integer v && v >= 1 && v <= n && at[v - 1] < 0) {
                    pending = v;
                }
                bci += ins.sizeInBytes();
            }
        }
        return at;
    }

    // ---- locals (this->)

    private void collectLocals(Ir.Clause clause) {
        if (clause.predicate() != null) scan(clause.predicate());
        for (Stmt s : clause.body()) scan(s);
    }

    private void scan(Stmt s) {
        switch (s) {
            case Eval e -> scan(e.expr());
            case Trace t -> scan(t.value());
            case Printf p -> p.args().forEach(this::scan);
            case Aggregate a -> {
                a.keys().forEach(this::scan);
                if (a.value() != null) scan(a.value());
                if (a.incr() != null) scan(a.incr());
            }
            case Trunc t -> { if (t.keep() != null) scan(t.keep()); }
            case Normalize n -> scan(n.normal());
            case Exit e -> scan(e.status());
            case TraceMem m -> {
                usesMemory = true;
                scan(m.addr());
                scan(m.size());
                scan(m.dsize());
            }
            case Print p -> {
                usesMemory = true;
                scan(p.addr());
            }
            case PrintValue p -> scan(p.value());
            case Spec sp -> {
                usesSites = true;
                scan(sp.id());
            }
            case Setopt so -> {
                scan(so.name());
                if (so.value() != null) scan(so.value());
            }
            case If i -> {
                scan(i.cond());
                i.then().forEach(this::scan);
                i.otherwise().forEach(this::scan);
            }
            default -> { }
        }
    }

    private void scan(Expr e) {
        switch (e) {
            case Var v when v.scope() == Scope.CLAUSE -> {
                usesFiringLocals |= v.slot() < CARRIED_SLOTS;
                if (!clauseLocals.containsKey(v.slot())) {
                    clauseLocals.put(v.slot(), nextLocal);
                    clauseLocalKinds.put(v.slot(), v.kind());
                    nextLocal += v.kind() == VKind.LONG ? 2 : 1;
                }
            }
            case AssocRef a -> a.keys().forEach(this::scan);
            case AssocObj a -> {
                usesMemory = true;
                a.keys().forEach(this::scan);
            }
            case ArgN a -> scan(a.index());
            case BuiltinVar b when isClock(b.which()) && !clockLocals.containsKey(b.which()) -> {
                clockLocals.put(b.which(), nextLocal);
                nextLocal += 2;
            }
            case Unary u -> scan(u.operand());
            case Binary b -> { scan(b.left()); scan(b.right()); }
            case StrCompare b -> { scan(b.left()); scan(b.right()); }
            case Cast c -> scan(c.operand());
            case Ternary t -> { scan(t.cond()); scan(t.then()); scan(t.otherwise()); }
            case Assign a -> { scan(a.target()); scan(a.value()); }
            case Call c -> {
                usesSites = true;
                usesFiringLocals |= "strtok".equals(c.name());
                c.args().forEach(this::scan);
            }
            case MemOp m when contextMember(m) != null -> { }
            case MemOp m -> {
                usesMemory = true;
                usesSites = true;
                m.args().forEach(this::scan);
            }
            default -> { }
        }
    }

    private static boolean isClock(Builtin b) {
        // walltimestamp is read at each use, as DTrace reads it; timestamp and vtimestamp once a firing
        return b == Builtin.TIMESTAMP || b == Builtin.VTIMESTAMP;
    }

    // ---- fire()

    private void fireBody(CodeBuilder c, Ir.Clause clause) {
        out = c.newLabel();
        // if (Rt.skip(st, probe)) return;
        loadState(c);
        c.aload(L_PROBE);
        c.invokestatic(CD_RT, "skip", MethodTypeDesc.of(CD_boolean, CD_STATE, CD_PROBE));
        c.ifne(out);
        loadState(c);
        c.invokevirtual(CD_STATE, "thread", MethodTypeDesc.of(CD_THREAD));
        c.astore(L_THREAD);
        if (usesMemory) {
            c.aload(L_THREAD);
            c.invokestatic(CD_MEM, "reset", MethodTypeDesc.of(CD_void, CD_THREAD));
        }
        // this-> scalars start as this firing's earlier clauses left them (FiringLocals)
        int carried = 0;
        for (int slot : clauseLocals.keySet()) {
            if (slot < CARRIED_SLOTS) carried = Math.max(carried, slot + 1);
        }
        if (usesFiringLocals) {
            c.aload(L_THREAD);
            c.aload(L_CTX);
            c.aload(L_PROBE);
            c.iload(L_EPID);
            c.loadConstant(carried);
            c.invokestatic(CD_FIRING, "enter", MethodTypeDesc.of(CD_void, CD_THREAD, CD_CTX, CD_PROBE, CD_int, CD_int));
        }
        for (var en : clauseLocals.entrySet()) {
            boolean isLong = clauseLocalKinds.get(en.getKey()) == VKind.LONG;
            if (en.getKey() < CARRIED_SLOTS) {
                c.aload(L_THREAD);
                c.loadConstant(en.getKey());
                c.invokestatic(CD_FIRING, isLong ? "getLong" : "getString",
                        MethodTypeDesc.of(isLong ? CD_long : CD_String, CD_THREAD, CD_int));
                if (isLong) c.lstore(en.getValue());
                else c.astore(en.getValue());
            } else if (isLong) {
                c.lconst_0();
                c.lstore(en.getValue());
            } else {
                c.ldc("");
                c.astore(en.getValue());
            }
        }
        action = 0;
        // context faults (FaultException) become DFaults that say which action faulted
        // timestamp and vtimestamp are fixed for the whole firing, as dtrace's (read at probe entry)
        for (var clock : clockLocals.entrySet()) {
            switch (clock.getKey()) {
                case TIMESTAMP -> {
                    c.aload(L_CTX);
                    c.invokeinterface(CD_CTX, "timestamp", MethodTypeDesc.of(CD_long));
                }
                default -> {
                    // the firing thread's time on CPU, as its provider reads it at the event
                    c.aload(L_CTX);
                    c.invokeinterface(CD_CTX, "vtimestamp", MethodTypeDesc.of(CD_long));
                }
            }
            c.lstore(clock.getValue());
        }
        int actionLocal = nextLocal;
        offsetLocal = nextLocal + 1;
        if (usesSites) {
            c.iconst_0();
            c.istore(offsetLocal);
        }
        Label tryStart = c.newLabel(), tryEnd = c.newLabel(), handler = c.newLabel();
        c.iconst_0();
        c.istore(actionLocal);
        c.labelBinding(tryStart);
        if (clause.predicate() != null) {
            cond(c, clause.predicate());
            c.ifeq(out);
        }
        if (clause.records()) {
            c.aload(L_THREAD);
            c.invokevirtual(CD_THREAD, "begin", MTD_void);
        }
        for (Stmt s : clause.body()) {
            action++;
            c.loadConstant(action);
            c.istore(actionLocal);
            stmt(c, s);
        }
        c.labelBinding(tryEnd);
        if (clause.records()) {
            c.aload(L_THREAD);
            c.iload(L_EPID);
            c.aload(L_CTX);
            c.invokeinterface(CD_CTX, "cpu", MethodTypeDesc.of(CD_int));
            c.invokevirtual(CD_THREAD, "commit", MethodTypeDesc.of(CD_void, CD_int, CD_int));
        }
        c.labelBinding(out);
        c.return_();
        c.labelBinding(handler);
        c.iload(actionLocal);
        if (usesSites) {
            c.iload(offsetLocal);
            c.invokestatic(CD_MEM, "fault", MethodTypeDesc.of(CD_DFAULT, CD_FAULT, CD_int, CD_int));
        } else {
            c.invokestatic(CD_RT, "fault", MethodTypeDesc.of(CD_DFAULT, CD_FAULT, CD_int));
        }
        c.athrow();
        c.exceptionCatch(tryStart, tryEnd, handler, CD_FAULT);
    }

    private void loadState(CodeBuilder c) {
        c.aload(L_THIS);
        c.getfield(self, "st", CD_STATE);
    }

    private void constant(CodeBuilder c, Object o, ClassDesc type) {
        int i = constants.indexOf(o);
        if (i < 0 || constants.get(i) != o) {
            constants.add(o);
            i = constants.size() - 1;
        }
        c.aload(L_THIS);
        c.getfield(self, "k", CD_OBJS);
        c.loadConstant(i);
        c.aaload();
        c.checkcast(type);
    }

    private void stmt(CodeBuilder c, Stmt s) {
        switch (s) {
            case Eval e -> {
                expr(c, e.expr());
                pop(c, e.expr().kind());
            }
            case Trace t -> {
                c.aload(L_THREAD);
                if (t.value().kind() == VKind.STRING) {
                    loadState(c);
                    expr(c, t.value());
                    c.invokestatic(CD_RT, "traceStr", MethodTypeDesc.of(CD_void, CD_THREAD, CD_STATE, CD_String));
                } else {
                    expr(c, t.value());
                    c.loadConstant(t.width());
                    c.loadConstant(t.signed() ? 1 : 0);
                    c.invokestatic(CD_RT, "traceLong", MethodTypeDesc.of(CD_void, CD_THREAD, CD_long, CD_int, CD_boolean));
                }
            }
            case Printf p when p.use() == PrintfUse.PRINTF -> {
                // recorded raw, argument by argument: no array, no boxing (DThread.printf)
                c.aload(L_THREAD);
                constant(c, p.format(), CD_FMT);
                constant(c, p.widths(), CD_int.arrayType());
                c.loadConstant(p.args().size());
                c.invokevirtual(CD_THREAD, "printf", MethodTypeDesc.of(CD_void, CD_RECFMT, CD_int.arrayType(), CD_int));
                for (Expr arg : p.args()) {
                    c.aload(L_THREAD);
                    if (arg.kind() == VKind.LONG) {
                        expr(c, arg);
                        c.invokevirtual(CD_THREAD, "argLong", MethodTypeDesc.of(CD_void, CD_long));
                    } else {
                        loadState(c);
                        expr(c, arg);
                        c.invokestatic(CD_RT, "printfStr", MethodTypeDesc.of(CD_void, CD_THREAD, CD_STATE, CD_String));
                    }
                }
            }
            case Printf p -> {
                c.aload(L_THREAD);
                loadState(c);
                constant(c, p.format(), CD_FMT);
                boxedArray(c, p.args());
                constant(c, p.widths(), CD_int.arrayType());
                c.invokestatic(CD_RT, p.use().name().toLowerCase(java.util.Locale.ROOT), MethodTypeDesc.of(CD_void, CD_THREAD,
                        CD_STATE, CD_FMT, CD_OBJS, CD_int.arrayType()));
            }
            case Printa p -> record(c, new Datum.Printa(p.format(), p.aggs().toArray(Aggregation[]::new)));
            case Clear cl -> record(c, new Datum.Clear(cl.agg()));
            case Trunc t -> {
                if (t.keep() == null) {
                    record(c, new Datum.Trunc(t.agg(), -1, true));
                } else {
                    c.aload(L_THREAD);
                    constant(c, t.agg(), CD_AGG);
                    expr(c, t.keep());
                    c.invokestatic(CD_RT, "trunc", MethodTypeDesc.of(CD_void, CD_THREAD, CD_AGG, CD_long));
                }
            }
            case Normalize n -> {
                c.aload(L_THREAD);
                constant(c, n.agg(), CD_AGG);
                expr(c, n.normal());
                c.invokestatic(CD_RT, "normalize", MethodTypeDesc.of(CD_void, CD_THREAD, CD_AGG, CD_long));
            }
            case Exit e -> {
                c.aload(L_THREAD);
                loadState(c);
                expr(c, e.status());
                c.invokestatic(CD_RT, "exit", MethodTypeDesc.of(CD_void, CD_THREAD, CD_STATE, CD_long));
            }
            case Aggregate a -> aggregate(c, a);
            case TraceMem m -> {
                c.aload(L_THREAD);
                c.aload(L_CTX);
                expr(c, m.addr());
                expr(c, m.size());
                expr(c, m.dsize());
                site(c);
                c.istore(offsetLocal);
                c.invokestatic(CD_MEM, "tracemem", MethodTypeDesc.of(CD_void, CD_THREAD, CD_CTX, CD_long, CD_long, CD_long));
            }
            case Print p -> {
                c.aload(L_THREAD);
                c.aload(L_CTX);
                expr(c, p.addr());
                c.loadConstant(p.size());
                c.loadConstant(p.layout());
                site(c);
                c.istore(offsetLocal);
                c.invokestatic(CD_MEM, p.object() ? "printObject" : "print",
                        MethodTypeDesc.of(CD_void, CD_THREAD, CD_CTX, CD_long, CD_int, CD_int));
            }
            case PrintValue p -> {
                c.aload(L_THREAD);
                if (p.value().kind() == VKind.STRING) {
                    loadState(c);
                    expr(c, p.value());
                    c.loadConstant(p.size());
                    c.loadConstant(p.layout());
                    c.invokestatic(CD_RT, "printStr", MethodTypeDesc.of(CD_void, CD_THREAD, CD_STATE, CD_String, CD_int, CD_int));
                } else {
                    expr(c, p.value());
                    c.loadConstant(p.size());
                    c.loadConstant(p.layout());
                    c.invokestatic(CD_RT, "printLong", MethodTypeDesc.of(CD_void, CD_THREAD, CD_long, CD_int, CD_int));
                }
            }
            case Stack u -> {
                c.aload(L_THREAD);
                loadState(c);
                c.aload(L_CTX);
                c.loadConstant(u.which().ordinal());
                c.loadConstant(u.frames());
                c.invokestatic(CD_RT, "stack", MethodTypeDesc.of(CD_void, CD_THREAD, CD_STATE, CD_CTX, CD_int, CD_int));
            }
            case Setopt so -> {
                c.aload(L_THREAD);
                expr(c, so.name());
                if (so.value() != null) expr(c, so.value());
                else c.aconst_null();
                c.invokestatic(CD_RT, "setopt", MethodTypeDesc.of(CD_void, CD_THREAD, CD_String, CD_String));
            }
            case Spec sp -> {
                c.aload(L_THREAD);
                loadState(c);
                expr(c, sp.id());
                boolean speculate = sp.op() == SpecOp.SPECULATE;
                if (!speculate) {
                    // commit and discard free the buffer at once only on the CPU that wrote it
                    // (loaded before the site, whose offset is that of the next invoke: Rt's)
                    c.aload(L_CTX);
                    c.invokeinterface(CD_CTX, "cpu", MethodTypeDesc.of(CD_int));
                }
                site(c);
                c.istore(offsetLocal);
                if (speculate) {
                    c.invokestatic(CD_RT, "speculate", MethodTypeDesc.of(CD_boolean, CD_THREAD, CD_STATE, CD_long));
                    c.ifeq(out);
                } else {
                    c.invokestatic(CD_RT, sp.op().name().toLowerCase(java.util.Locale.ROOT),
                            MethodTypeDesc.of(CD_void, CD_THREAD, CD_STATE, CD_long, CD_int));
                }
            }
            case If i -> {
                Label otherwise = c.newLabel(), end = c.newLabel();
                cond(c, i.cond());
                c.ifeq(otherwise);
                for (Stmt t : i.then()) stmt(c, t);
                c.goto_(end);
                c.labelBinding(otherwise);
                for (Stmt t : i.otherwise()) stmt(c, t);
                c.labelBinding(end);
            }
        }
    }

    private void record(CodeBuilder c, Datum d) {
        c.aload(L_THREAD);
        constant(c, d, CD_DATUM);
        c.invokestatic(CD_RT, "record", MethodTypeDesc.of(CD_void, CD_THREAD, CD_DATUM));
    }

    private void aggregate(CodeBuilder c, Aggregate a) {
        Aggregation agg = a.agg();
        c.aload(L_THREAD);
        constant(c, agg, CD_AGG);
        if (a.keys().isEmpty() && agg.kind == AggKind.COUNT && a.incr() == null) {
            c.invokevirtual(CD_THREAD, "count", MethodTypeDesc.of(CD_void, CD_AGG));
            return;
        }
        if (a.keys().isEmpty() && agg.kind == AggKind.SUM && a.incr() == null && a.value() != null) {
            expr(c, a.value());
            c.invokevirtual(CD_THREAD, "sum", MethodTypeDesc.of(CD_void, CD_AGG, CD_long));
            return;
        }
        boolean oneKey = a.keys().size() == 1;
        if (oneKey) {
            // the key itself finds the cell: no array, no Tuple (a string key allocates nothing)
            expr(c, a.keys().get(0));
            if (a.keys().get(0).kind() == VKind.LONG) {
                c.invokestatic(CD_Long, "valueOf", MethodTypeDesc.of(CD_Long, CD_long));
            } else if (a.keys().get(0).kind() == VKind.STRING) {
                c.invokestatic(CD_RT, "nonNull", MethodTypeDesc.of(CD_String, CD_String));
            }
        } else if (!a.keys().isEmpty()) {
            boxedArray(c, a.keys());
            c.invokestatic(CD_RT, "tuple", MethodTypeDesc.of(CD_TUPLE, CD_OBJS));
        }
        if (a.value() != null) expr(c, a.value());
        else c.lconst_0();
        if (a.incr() != null) expr(c, a.incr());
        else c.lconst_1();
        if (oneKey) {
            c.invokevirtual(CD_THREAD, "aggregate1", MethodTypeDesc.of(CD_void, CD_AGG, CD_Object, CD_long, CD_long));
        } else if (a.keys().isEmpty()) {
            c.invokevirtual(CD_THREAD, "aggregate", MethodTypeDesc.of(CD_void, CD_AGG, CD_long, CD_long));
        } else {
            c.invokevirtual(CD_THREAD, "aggregate", MethodTypeDesc.of(CD_void, CD_AGG, CD_TUPLE, CD_long, CD_long));
        }
    }

    private void boxedArray(CodeBuilder c, List<Expr> items) {
        c.loadConstant(items.size());
        c.anewarray(CD_Object);
        for (int i = 0; i < items.size(); i++) {
            c.dup();
            c.loadConstant(i);
            expr(c, items.get(i));
            if (items.get(i).kind() == VKind.LONG) {
                c.invokestatic(CD_Long, "valueOf", MethodTypeDesc.of(CD_Long, CD_long));
            } else if (items.get(i).kind() == VKind.STRING) {
                // a key or a printf-like argument: DTrace reads its bytes, a NULL one faults
                c.invokestatic(CD_RT, "nonNull", MethodTypeDesc.of(CD_String, CD_String));
            }
            c.aastore();
        }
    }

    private static void pop(CodeBuilder c, VKind k) {
        if (k == VKind.LONG) c.pop2();
        else c.pop();
    }

    /** Leaves an int on the stack: non-zero when the D condition holds. */
    private void cond(CodeBuilder c, Expr e) {
        if (e.kind() == VKind.STRING) {
            expr(c, e);
            c.invokestatic(CD_RT, "truth", MethodTypeDesc.of(CD_boolean, CD_String));
            return;
        }
        expr(c, e);
        c.lconst_0();
        c.lcmp();
    }

    // ---- expressions

    private void expr(CodeBuilder c, Expr e) {
        switch (e) {
            case Const k -> c.loadConstant(k.value());
            case StrConst s -> c.ldc(s.value());
            case BuiltinVar b -> builtin(c, b.which());
            case ArgN a -> {
                c.aload(L_CTX);
                expr(c, a.index());
                c.l2i();
                c.invokeinterface(CD_CTX, "arg", MethodTypeDesc.of(CD_long, CD_int));
            }
            case Var v -> loadVar(c, v);
            case StackKey k -> {
                loadState(c);
                c.aload(L_CTX);
                c.loadConstant(k.which().ordinal());
                c.loadConstant(k.frames());
                c.invokestatic(CD_RT, "stackKey", MethodTypeDesc.of(CD_FRAMES, CD_STATE, CD_CTX, CD_int, CD_int));
            }
            case AssocObj a -> {
                c.aload(L_THREAD);
                c.loadConstant(a.slot());
                boxedArray(c, a.keys());
                c.loadConstant(a.size());
                c.loadConstant(a.create() ? 1 : 0);
                c.invokestatic(CD_MEM, "assoc", MethodTypeDesc.of(CD_long, CD_THREAD, CD_int, CD_OBJS, CD_int, CD_boolean));
            }
            case AssocRef a -> {
                loadState(c);
                c.loadConstant(a.slot());
                boxedArray(c, a.keys());
                if (a.kind() == VKind.LONG) {
                    c.invokestatic(CD_RT, "assocLong", MethodTypeDesc.of(CD_long, CD_STATE, CD_int, CD_OBJS));
                } else {
                    c.invokestatic(CD_RT, "assocStr", MethodTypeDesc.of(CD_String, CD_STATE, CD_int, CD_OBJS));
                }
            }
            case Unary u -> {
                expr(c, u.operand());
                switch (u.op()) {
                    case NEG -> c.lneg();
                    case BITNOT -> {
                        c.loadConstant(-1L);
                        c.lxor();
                    }
                    case NOT -> {
                        c.lconst_0();
                        c.lcmp();
                        booleanFromInt(c, true);
                    }
                }
            }
            case Binary b -> binary(c, b);
            case StrCompare s -> {
                expr(c, s.left());
                expr(c, s.right());
                c.invokestatic(CD_RT, "strcmp", MethodTypeDesc.of(CD_int, CD_String, CD_String));
                compareResult(c, s.op());
            }
            case Cast k -> {
                expr(c, k.operand());
                if (k.width() < 8) {
                    int sh = 64 - 8 * k.width();
                    c.loadConstant(sh);
                    c.lshl();
                    c.loadConstant(sh);
                    if (k.signed()) c.lshr();
                    else c.lushr();
                }
            }
            case Ternary t -> {
                Label other = c.newLabel(), end = c.newLabel();
                cond(c, t.cond());
                c.ifeq(other);
                expr(c, t.then());
                c.goto_(end);
                c.labelBinding(other);
                expr(c, t.otherwise());
                c.labelBinding(end);
            }
            case Assign a -> assign(c, a);
            case MemOp m when contextMember(m) instanceof String getter -> {
                // curpsinfo->pr_pid and the like are the context's own values (ProcInfo gives
                // them so): read at once, with no lookup of the member by name
                c.aload(L_CTX);
                c.invokeinterface(CD_CTX, getter, MethodTypeDesc.of(CD_long));
            }
            case MemOp m -> {
                List<ClassDesc> params = new ArrayList<>(List.of(CD_THREAD, CD_CTX));
                c.aload(L_THREAD);
                c.aload(L_CTX);
                for (Expr arg : m.args()) {
                    expr(c, arg);
                    params.add(arg.kind() == VKind.LONG ? CD_long : CD_String);
                }
                // a fault in this operation is reported at its offset (set after the arguments,
                // whose own operations set theirs)
                site(c);
                c.istore(offsetLocal);
                c.invokestatic(CD_MEM, m.op(), MethodTypeDesc.of(m.kind() == VKind.LONG ? CD_long : CD_String,
                        params.toArray(ClassDesc[]::new)));
            }
            case Call call -> {
                call(c, call);
                if (call.kind() == VKind.STRING) {
                    loadState(c);
                    c.invokestatic(CD_RT, "cap", MethodTypeDesc.of(CD_String, CD_String, CD_STATE));
                }
            }
        }
    }

    /**
     * The ProbeContext getter that gives a psinfo_t/lwpsinfo_t member ProcInfo takes from the
     * context itself (pr_pid, pr_ppid, pr_lwpid), or null for a member read from /proc.
     */
    private static String contextMember(MemOp m) {
        if (m.args().size() != 1 || !(m.args().get(0) instanceof StrConst f)) return null;
        return switch (m.op()) {
            case "psinfo" -> switch (f.value()) {
                case "pr_pid" -> "pid";
                case "pr_ppid" -> "ppid";
                default -> null;
            };
            case "lwpsinfo" -> "pr_lwpid".equals(f.value()) ? "tid" : null;
            default -> null;
        };
    }

    /**
     * A call of a runtime entry (SubrEntry), its result left as the entry returns it: a string
     * argument that is itself a call is cut to strsize but stays null when it is NULL, so that
     * the callee faults on it as DTrace does (Rt.cap, for every other use, makes NULL "").
     */
    private void call(CodeBuilder c, Call call) {
        SubrEntry entry = SubrEntry.resolve(call.name(), call.args().stream().map(Expr::kind).toList());
        if (entry.state()) loadState(c);
        if (entry.context()) c.aload(L_CTX);
        for (Expr arg : call.args()) {
            if (arg instanceof Call inner && inner.kind() == VKind.STRING) {
                call(c, inner);
                loadState(c);
                c.invokestatic(CD_RT, "capNullable", MethodTypeDesc.of(CD_String, CD_String, CD_STATE));
            } else {
                expr(c, arg);
            }
        }
        site(c);
        c.istore(offsetLocal);
        c.invokestatic(CD_SUBR, call.name(), entry.descriptor(CD_STATE, CD_CTX));
    }

    /** int on stack (0 / non-0 from lcmp) to long 0/1; {@code invert}: 1 when the int is 0. */
    private static void booleanFromInt(CodeBuilder c, boolean invert) {
        Label t = c.newLabel(), end = c.newLabel();
        if (invert) c.ifeq(t);
        else c.ifne(t);
        c.lconst_0();
        c.goto_(end);
        c.labelBinding(t);
        c.lconst_1();
        c.labelBinding(end);
    }

    /** int (a signed comparison result) on stack to long 0/1 for a comparison operator. */
    private static void compareResult(CodeBuilder c, BinOp op) {
        Label t = c.newLabel(), end = c.newLabel();
        switch (op) {
            case LT -> c.iflt(t);
            case LE -> c.ifle(t);
            case GT -> c.ifgt(t);
            case GE -> c.ifge(t);
            case EQ -> c.ifeq(t);
            default -> c.ifne(t);
        }
        c.lconst_0();
        c.goto_(end);
        c.labelBinding(t);
        c.lconst_1();
        c.labelBinding(end);
    }

    private void binary(CodeBuilder c, Binary b) {
        switch (b.op()) {
            case LAND, LOR -> {
                Label shortcut = c.newLabel(), end = c.newLabel();
                cond(c, b.left());
                if (b.op() == BinOp.LAND) c.ifeq(shortcut);
                else c.ifne(shortcut);
                cond(c, b.right());
                booleanFromInt(c, false);
                c.goto_(end);
                c.labelBinding(shortcut);
                if (b.op() == BinOp.LAND) c.lconst_0();
                else c.lconst_1();
                c.labelBinding(end);
                return;
            }
            case LXOR -> {
                cond(c, b.left());
                booleanFromInt(c, false);
                cond(c, b.right());
                booleanFromInt(c, false);
                c.lxor();
                return;
            }
            default -> { }
        }
        expr(c, b.left());
        expr(c, b.right());
        switch (b.op()) {
            case ADD -> c.ladd();
            case SUB -> c.lsub();
            case MUL -> c.lmul();
            case AND -> c.land();
            case OR -> c.lor();
            case XOR -> c.lxor();
            case SHL -> { c.l2i(); c.lshl(); }
            case SHR -> { c.l2i(); if (b.unsigned()) c.lushr(); else c.lshr(); }
            case DIV, MOD -> {
                c.loadConstant(action);
                site(c);
                String m = (b.unsigned() ? "u" : "") + (b.op() == BinOp.DIV ? "div" : "mod");
                c.invokestatic(CD_RT, m, MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_int, CD_int));
            }
            default -> {
                if (b.unsigned()) {
                    c.invokestatic(CD_Long, "compareUnsigned", MethodTypeDesc.of(CD_int, CD_long, CD_long));
                } else {
                    c.lcmp();
                }
                compareResult(c, b.op());
            }
        }
    }

    private void loadVar(CodeBuilder c, Var v) {
        boolean isLong = v.kind() == VKind.LONG;
        switch (v.scope()) {
            case CLAUSE -> {
                int slot = clauseLocals.get(v.slot());
                if (isLong) c.lload(slot);
                else c.aload(slot);
            }
            case GLOBAL -> {
                loadState(c);
                c.loadConstant(v.slot());
                if (isLong) c.invokestatic(CD_RT, "getLong", MethodTypeDesc.of(CD_long, CD_STATE, CD_int));
                else c.invokestatic(CD_RT, "getStr", MethodTypeDesc.of(CD_String, CD_STATE, CD_int));
            }
            case THREAD -> {
                loadState(c);
                c.aload(L_CTX);
                c.loadConstant(v.slot());
                if (isLong) c.invokestatic(CD_RT, "tlsLong", MethodTypeDesc.of(CD_long, CD_STATE, CD_CTX, CD_int));
                else c.invokestatic(CD_RT, "tlsStr", MethodTypeDesc.of(CD_String, CD_STATE, CD_CTX, CD_int));
            }
        }
    }

    /** Stores and leaves the stored value on the stack. */
    private void assign(CodeBuilder c, Assign a) {
        Expr target = a.target();
        boolean isLong = target.kind() == VKind.LONG;
        ClassDesc vt = isLong ? CD_long : CD_String;
        switch (target) {
            case Var v when v.scope() == Scope.CLAUSE -> {
                expr(c, a.value());
                if (!isLong) {
                    // a clause-local string has strsize bytes, as every D variable's string does
                    loadState(c);
                    c.invokestatic(CD_RT, "capNullable", MethodTypeDesc.of(CD_String, CD_String, CD_STATE));
                }
                int slot = clauseLocals.get(v.slot());
                if (v.slot() < CARRIED_SLOTS) {
                    // written through for the firing's later clauses
                    c.aload(L_THREAD);
                    c.loadConstant(v.slot());
                    c.invokestatic(CD_FIRING, isLong ? "keepLong" : "keepString",
                            MethodTypeDesc.of(vt, vt, CD_THREAD, CD_int));
                }
                if (isLong) {
                    c.dup2();
                    c.lstore(slot);
                } else {
                    c.dup();
                    c.astore(slot);
                }
            }
            case Var v when v.scope() == Scope.GLOBAL -> {
                loadState(c);
                c.loadConstant(v.slot());
                expr(c, a.value());
                c.invokestatic(CD_RT, isLong ? "putLong" : "putStr", MethodTypeDesc.of(vt, CD_STATE, CD_int, vt));
            }
            case Var v -> {
                loadState(c);
                c.aload(L_CTX);
                c.loadConstant(v.slot());
                expr(c, a.value());
                c.invokestatic(CD_RT, isLong ? "tlsPutLong" : "tlsPutStr",
                        MethodTypeDesc.of(vt, CD_STATE, CD_CTX, CD_int, vt));
            }
            case AssocRef r -> {
                loadState(c);
                c.loadConstant(r.slot());
                boxedArray(c, r.keys());
                expr(c, a.value());
                c.invokestatic(CD_RT, isLong ? "assocPutLong" : "assocPutStr",
                        MethodTypeDesc.of(vt, CD_STATE, CD_int, CD_OBJS, vt));
            }
            default -> throw new IllegalArgumentException("not assignable: " + target);
        }
    }

    private void builtin(CodeBuilder c, Builtin b) {
        switch (b) {
            case ARG0, ARG1, ARG2, ARG3, ARG4, ARG5, ARG6, ARG7, ARG8, ARG9 -> {
                c.aload(L_CTX);
                c.loadConstant(b.ordinal() - Builtin.ARG0.ordinal());
                c.invokeinterface(CD_CTX, "arg", MethodTypeDesc.of(CD_long, CD_int));
            }
            case PID, PPID, TID -> {
                c.aload(L_CTX);
                c.invokeinterface(CD_CTX, b.name().toLowerCase(java.util.Locale.ROOT), MethodTypeDesc.of(CD_long));
            }
            case CPU -> {
                c.aload(L_CTX);
                c.invokeinterface(CD_CTX, "cpu", MethodTypeDesc.of(CD_int));
                c.i2l();
            }
            case ID -> {
                c.aload(L_PROBE);
                c.invokeinterface(CD_PROBE, "id", MethodTypeDesc.of(CD_int));
                c.i2l();
            }
            case EPID -> {
                c.iload(L_EPID);
                c.i2l();
            }
            case TIMESTAMP, VTIMESTAMP -> c.lload(clockLocals.get(b));
            case WALLTIMESTAMP -> {
                loadState(c);
                c.invokestatic(CD_RT, "walltimestamp", MethodTypeDesc.of(CD_long, CD_STATE));
            }
            case EXECNAME -> {
                c.aload(L_CTX);
                c.invokeinterface(CD_CTX, "execname", MethodTypeDesc.of(CD_String));
            }
            case PROBEPROV, PROBEMOD, PROBEFUNC, PROBENAME -> {
                c.aload(L_PROBE);
                String m = switch (b) {
                    case PROBEPROV -> "provider";
                    case PROBEMOD -> "module";
                    case PROBEFUNC -> "function";
                    default -> "name";
                };
                c.invokeinterface(CD_PROBE, m, MethodTypeDesc.of(CD_String));
            }
        }
    }

}
