/*
 * Rewriter: the bytecode fbt puts into a method while one of its probes is enabled, made with the
 * ClassFile API from the class's original bytes (never from bytes another rewrite made). It
 * stands for fbt's patch of a function's prologue and return sites (fbt_enable writing the
 * trap instruction over the instruction it saved).
 *
 * For a method with an enabled entry site, n its D arguments (`this` first for instance methods,
 * except in constructors, where it is not yet initialised; then the parameters; at most 10):
 *     ldc <hook entry n>              // a MethodHandle constant, see below
 *     ldc site; n times <long, Object>
 *     invokevirtual MethodHandle.invokeExact(int, (long, Object) x n)void
 * Each argument is a pair: a primitive as a long (int-like, char and boolean widened, float and
 * double truncated) beside null, a reference as 0L beside it. Nothing is allocated or boxed:
 * one call shape per arity, so the firing path allocates nothing (house rule for probe context).
 * For a method with an enabled return site, before every return instruction (the value kept in
 * a new local) and in a catch-all handler over the original body (rethrowing):
 *     ldc <hook return>; ldc site; ldc bci; <long, Object> of the value (0L, null for void)
 *     invokevirtual MethodHandle.invokeExact(int, int, long, Object)void
 * bci is the return instruction's offset in the original code (javap's numbering), -1 when the
 * method ends by a throw (then the value is the Throwable). A constructor has two handlers: one
 * over its code before its super() or this() call, where `this` is uninitialised (the handler's
 * stack map frame has uninitializedThis, so flagThisUninit, and the handler only fires return
 * and rethrows: the verifier allows nothing else there), and one over the code after the call.
 * So a throw before super() or in the evaluation of its arguments fires return. The call itself
 * is covered by neither, because HotSpot (25) checks a handler over an invokespecial <init> on
 * uninitializedThis twice: with the frame before the call (JVMS 4.10.1.9's exception frame:
 * uninitializedThis, flagThisUninit) and, as after every instruction, with the frame after it
 * (`this` initialised, flagThisUninit forced on by verify_invoke_init's this_uninit). The handler's
 * frame must then have flagThisUninit, which a stack map frame has only with an uninitializedThis
 * local, and that local must accept the initialised type after the call: no frame does both. Tried
 * with the frame written by hand (the ClassFile API's generator merges the two states): locals
 * [uninitializedThis] fails at the call ("Type 'C' (current frame, locals[0]) is not assignable to
 * uninitializedThis"), locals [top] before it ("Current frame's flags are not assignable to stack
 * map frame's"). So a throw out of the super constructor (or this()) does not fire this
 * constructor's return; it fires the super constructor's, where that is traced.
 *
 * The hook constant is a dynamic constant resolved once per class through JDK bootstraps only,
 * so any class loader can resolve it whatever it imports:
 *     ConstantBootstraps.invoke(CallSite.dynamicInvoker,
 *         invoke(Properties.get, invoke(System.getProperties), "org.jdtrace.fbt.entry.2"))
 * i.e. the dynamic invoker of a MutableCallSite that FbtRuntime keeps in the system properties
 * for the life of the JVM; the provider sets its target. A constant MethodHandle invoked exactly
 * is inlined by the JIT, so the call costs what the target costs.
 *
 * Class files older than 55 (Java 11) are raised to 55 (they have stack maps from 50 on; the
 * ClassFile API regenerates them for the rewritten code); older than 50 are refused. Stack
 * maps need the class hierarchy: {@code resolver} reads it from the defining loader's resources.
 *
 * Pure functions: no state, any thread. Failures throw (IllegalArgumentException from the
 * ClassFile API: a method too large, a class it cannot resolve) for the caller to report.
 */
package org.jdtrace.provider.fbt.internal;

import static java.lang.constant.ConstantDescs.CD_CallSite;
import static java.lang.constant.ConstantDescs.CD_MethodHandle;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassElement;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.TypeKind;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.NameAndTypeEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

final class Rewriter {

    /** The most D arguments an entry probe passes (arg0..arg9). */
    static final int MAX_ARGS = 10;

    /** System property keys of the MutableCallSites (FbtRuntime): entry by arity (+ n), return. */
    static final String ENTRY_KEY = "org.jdtrace.fbt.entry.";
    static final String RETURN_KEY = "org.jdtrace.fbt.return.2";

    static final MethodTypeDesc RETURN_TYPE = MethodTypeDesc.of(CD_void, CD_int, CD_int, CD_long, CD_Object);

    private static final ClassDesc CD_Properties = ClassDesc.of("java.util.Properties");
    private static final DynamicConstantDesc<?> PROPERTIES = DynamicConstantDesc.ofNamed(
            ConstantDescs.BSM_INVOKE, "_", CD_Properties,
            MethodHandleDesc.ofMethod(DirectMethodHandleDesc.Kind.STATIC, ClassDesc.of("java.lang.System"),
                    "getProperties", MethodTypeDesc.of(CD_Properties)));
    static final DynamicConstantDesc<?>[] ENTRY_HOOKS = new DynamicConstantDesc<?>[MAX_ARGS + 1];
    static final DynamicConstantDesc<?> RETURN_HOOK = hook(RETURN_KEY);

    static {
        for (int n = 0; n <= MAX_ARGS; n++) ENTRY_HOOKS[n] = hook(ENTRY_KEY + n);
    }

    /** The entry hook's type for {@code n} arguments: (int site, (long, Object) x n)void. */
    static MethodTypeDesc entryType(int n) {
        ClassDesc[] p = new ClassDesc[1 + 2 * n];
        p[0] = CD_int;
        for (int i = 0; i < n; i++) {
            p[1 + 2 * i] = CD_long;
            p[2 + 2 * i] = CD_Object;
        }
        return MethodTypeDesc.of(CD_void, p);
    }

    /** The lowest class-file version fbt rewrites, and the one it raises older ones to. */
    static final int MIN_MAJOR = 50;
    static final int CONDY_MAJOR = 55;
    /** The most bytes of code a method may have (JVMS 4.7.3). */
    static final int MAX_CODE = 65_535;

    /** A rewritten method would exceed the class-file limit on code. */
    static final class TooLarge extends IllegalArgumentException {
        TooLarge(String message) {
            super(message);
        }
    }

    /** The sites of one method name: entry and return site indexes, -1 where not enabled. */
    record Sites(int entry, int ret) {}

    private Rewriter() {}

    private static DynamicConstantDesc<?> hook(String key) {
        DynamicConstantDesc<?> site = DynamicConstantDesc.ofNamed(ConstantDescs.BSM_INVOKE, "_", CD_CallSite,
                MethodHandleDesc.ofMethod(DirectMethodHandleDesc.Kind.VIRTUAL, CD_Properties, "get",
                        MethodTypeDesc.of(CD_Object, CD_Object)),
                PROPERTIES, key);
        return DynamicConstantDesc.ofNamed(ConstantDescs.BSM_INVOKE, "_", CD_MethodHandle,
                MethodHandleDesc.ofMethod(DirectMethodHandleDesc.Kind.VIRTUAL, CD_CallSite, "dynamicInvoker",
                        MethodTypeDesc.of(CD_MethodHandle)),
                site);
    }

    /**
     * True for the methods fbt makes probes for: code, not a static initialiser, not a bridge, and
     * not a method the compiler made under a name of its own that starts with '$' (javac's enum
     * {@code $values}, the build's {@code $typeSwitch$N}: no line of the bundle's source is in them).
     * Lambda bodies ({@code lambda$m$0}) keep their probes: their code is the source's.
     */
    static boolean traceable(MethodModel m) {
        return m.code().isPresent() && !m.methodName().equalsString("<clinit>")
                && !m.flags().has(AccessFlag.BRIDGE)
                && !(m.flags().has(AccessFlag.SYNTHETIC) && m.methodName().stringValue().startsWith("$"));
    }

    /**
     * True for the classes fbt makes probes for: all but those the compiler made (ACC_SYNTHETIC:
     * javac's switch maps, the build's desugared lambda classes, whose one method only calls the
     * lambda body, which has its own probe).
     */
    static boolean traceable(ClassModel c) {
        return !c.flags().has(AccessFlag.SYNTHETIC);
    }

    /**
     * The classes (internal names, array element types) a class's constant pool names: its
     * class entries and the types in the descriptors of the fields and methods it refers to, and
     * of its own methods. A superset of what the code of any of its methods can make a stack map
     * generator ask about; read without parsing any code.
     */
    static Set<String> referencedTypes(ClassModel cm) {
        Set<String> out = new HashSet<>();
        for (PoolEntry e : cm.constantPool()) {
            switch (e) {
                case ClassEntry c -> addType(out, c.asInternalName());
                case NameAndTypeEntry nt -> addDescriptor(out, nt.type().stringValue());
                default -> { }
            }
        }
        for (MethodModel m : cm.methods()) addDescriptor(out, m.methodType().stringValue());
        return out;
    }

    /**
     * The classes one method's rewrite involves: its descriptor's, and those its code names
     * (type checks, allocations, field and method references with their descriptors, constants,
     * handlers' catch types, stack map frames), which the stack map generator may have to place
     * in the class hierarchy.
     */
    static Set<String> referencedTypes(MethodModel m) {
        Set<String> out = new HashSet<>();
        addDescriptor(out, m.methodType().stringValue());
        m.code().ifPresent(code -> {
            for (CodeElement e : code) {
                switch (e) {
                    case java.lang.classfile.instruction.TypeCheckInstruction t -> addType(out, t.type().asInternalName());
                    case NewObjectInstruction n -> addType(out, n.className().asInternalName());
                    case java.lang.classfile.instruction.NewReferenceArrayInstruction n -> addType(out, n.componentType().asInternalName());
                    case java.lang.classfile.instruction.NewMultiArrayInstruction n -> addType(out, n.arrayType().asInternalName());
                    case java.lang.classfile.instruction.FieldInstruction f -> {
                        addType(out, f.owner().asInternalName());
                        addDescriptor(out, f.type().stringValue());
                    }
                    case InvokeInstruction i -> {
                        addType(out, i.owner().asInternalName());
                        addDescriptor(out, i.type().stringValue());
                    }
                    case java.lang.classfile.instruction.InvokeDynamicInstruction i -> addDescriptor(out, i.type().stringValue());
                    case java.lang.classfile.instruction.ConstantInstruction.LoadConstantInstruction l
                            when l.constantEntry() instanceof ClassEntry c -> addType(out, c.asInternalName());
                    case java.lang.classfile.instruction.ExceptionCatch c -> c.catchType().ifPresent(t -> addType(out, t.asInternalName()));
                    default -> { }
                }
            }
            if (code instanceof CodeAttribute a) {
                a.findAttribute(java.lang.classfile.Attributes.stackMapTable()).ifPresent(t -> {
                    for (var f : t.entries()) {
                        for (var v : f.locals()) frameType(out, v);
                        for (var v : f.stack()) frameType(out, v);
                    }
                });
            }
        });
        return out;
    }

    private static void frameType(Set<String> out, java.lang.classfile.attribute.StackMapFrameInfo.VerificationTypeInfo v) {
        if (v instanceof java.lang.classfile.attribute.StackMapFrameInfo.ObjectVerificationTypeInfo o) {
            addType(out, o.className().asInternalName());
        }
    }

    /** {@code name} (an internal name or an array descriptor) as the class it names, if any. */
    private static void addType(Set<String> out, String name) {
        if (name.startsWith("[")) addDescriptor(out, name);
        else out.add(name);
    }

    /** The classes a field or method descriptor names. */
    private static void addDescriptor(Set<String> out, String d) {
        for (int i = d.indexOf('L'); i >= 0; i = d.indexOf('L', i)) {
            int end = d.indexOf(';', i);
            if (end < 0) return;
            out.add(d.substring(i + 1, end));
            i = end + 1;
        }
    }

    /**
     * {@code original} with the methods named in {@code wanted} (by method name: every overload)
     * rewritten. Throws IllegalArgumentException when it cannot (too old, too large, hierarchy).
     */
    static byte[] rewrite(byte[] original, Map<String, Sites> wanted, ClassHierarchyResolver resolver) {
        ClassFile cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver));
        ClassModel cm = cf.parse(original);
        int major = cm.majorVersion();
        if (major < MIN_MAJOR) {
            throw new IllegalArgumentException("class file version " + major + " is older than Java 6");
        }
        ClassTransform t = (ClassBuilder cb, ClassElement ce) -> {
            if (ce instanceof ClassFileVersion v && v.majorVersion() < CONDY_MAJOR) {
                cb.withVersion(CONDY_MAJOR, 0);
            } else if (ce instanceof MethodModel mm && traceable(mm)
                    && wanted.get(mm.methodName().stringValue()) instanceof Sites s) {
                cb.transformMethod(mm, (mb, me) -> {
                    if (me instanceof CodeModel code) {
                        mb.transformCode(code, new Probes(mm, s));
                    } else {
                        mb.with(me);
                    }
                });
            } else {
                cb.with(ce);
            }
        };
        byte[] out;
        try {
            out = cf.transformClass(cm, t);
        } catch (IllegalArgumentException e) {
            // the ClassFile API's words for a method past 65,535 bytes: "Code length N is outside..."
            if (e.getMessage() != null && e.getMessage().startsWith("Code length")) throw new TooLarge(e.getMessage());
            throw e;
        }
        check(cf, out, wanted);
        return out;
    }

    /**
     * What the JVM would refuse, refused here instead: a rewritten method past the 65,535 bytes
     * of code a class file allows, and anything the verifier rejects in a rewritten method (a
     * class retransformed before it is linked is verified only when it links, in the program's
     * thread).
     */
    private static void check(ClassFile cf, byte[] out, Map<String, Sites> wanted) {
        ClassModel cm = cf.parse(out);
        for (MethodModel m : cm.methods()) {
            if (wanted.containsKey(m.methodName().stringValue()) && m.code().orElse(null) instanceof CodeAttribute c
                    && c.codeLength() > MAX_CODE) {
                throw new TooLarge("method " + m.methodName().stringValue()
                        + " too large to instrument (" + c.codeLength() + " bytes of code rewritten)");
            }
        }
        // the rewritten methods only: the others are the original code, which the JVM verifies
        // as it always has (and may need types the stack map generator never has to place)
        byte[] rewritten = cf.transformClass(cm, ClassTransform.dropping(e -> e instanceof MethodModel m
                && !(traceable(m) && wanted.containsKey(m.methodName().stringValue()))));
        List<VerifyError> errors = cf.verify(rewritten);
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("rewritten code does not verify: " + errors.get(0).getMessage().lines()
                    .findFirst().orElse(""));
        }
    }

    /** The code transform of one method. */
    private static final class Probes implements CodeTransform {
        private final MethodModel method;
        private final Sites sites;
        private final boolean isStatic;
        private final boolean isInit;
        private final MethodTypeDesc type;
        private Label start;
        private Label beforeSuper;
        private Label initialised;
        private int bci;
        /** In a constructor: the element index of the super() or this() call, -1 if none found. */
        private final int superCall;
        private int index;

        Probes(MethodModel method, Sites sites) {
            this.method = method;
            this.sites = sites;
            this.isStatic = method.flags().has(AccessFlag.STATIC);
            this.isInit = method.methodName().equalsString("<init>");
            this.type = method.methodTypeSymbol();
            this.superCall = isInit ? superCall(method.code().orElseThrow()) : -1;
        }

        /**
         * The constructor's own super() or this() call: the first invokespecial <init> that no
         * `new` is pending for (javac nests new ... invokespecial <init> pairs). Until it returns
         * `this` is uninitialised: the catch-all handler starts after it.
         */
        private static int superCall(CodeModel code) {
            int pending = 0;
            int i = 0;
            for (CodeElement e : code) {
                if (e instanceof NewObjectInstruction) {
                    pending++;
                } else if (e instanceof InvokeInstruction inv && inv.opcode() == java.lang.classfile.Opcode.INVOKESPECIAL
                        && inv.name().equalsString("<init>")) {
                    if (pending == 0) return i;
                    pending--;
                }
                i++;
            }
            return -1;
        }

        @Override
        public void atStart(CodeBuilder b) {
            if (sites.entry() >= 0) {
                entry(b);
            }
            if (sites.ret() >= 0) {
                start = b.newBoundLabel();
            }
        }

        private void entry(CodeBuilder b) {
            int n = Math.min(MAX_ARGS, type.parameterCount() + (isStatic || isInit ? 0 : 1));
            b.ldc(ENTRY_HOOKS[n]);
            b.loadConstant(sites.entry());
            int i = 0;
            int slot = 0;
            if (!isStatic) {
                if (!isInit) {
                    b.lconst_0().aload(0);
                    i++;
                }
                slot = 1;
            }
            for (ClassDesc p : type.parameterList()) {
                if (i++ >= n) break;
                TypeKind k = TypeKind.from(p);
                b.loadLocal(k, slot);
                pair(b, k);
                slot += k.slotSize();
            }
            b.invokevirtual(CD_MethodHandle, "invokeExact", entryType(n));
        }

        @Override
        public void accept(CodeBuilder b, CodeElement e) {
            if (e instanceof ReturnInstruction r && sites.ret() >= 0) {
                TypeKind k = r.typeKind();
                if (k == TypeKind.VOID) {
                    ret(b, bci, null, 0);
                } else {
                    int tmp = b.allocateLocal(k);
                    if (k.slotSize() == 2) {
                        b.dup2();
                    } else {
                        b.dup();
                    }
                    b.storeLocal(k, tmp);
                    ret(b, bci, k, tmp);
                }
            }
            if (index == superCall && sites.ret() >= 0) {
                beforeSuper = b.newBoundLabel();
            }
            b.with(e);
            if (e instanceof Instruction i) {
                bci += i.sizeInBytes();
            }
            if (index++ == superCall && sites.ret() >= 0) {
                initialised = b.newBoundLabel();
            }
        }

        @Override
        public void atEnd(CodeBuilder b) {
            if (sites.ret() < 0) {
                return;
            }
            Label end = b.newBoundLabel();
            if (isInit && initialised != null) {
                // two handlers: one over the code before the super() or this() call, where
                // `this` is uninitialised (its frame says so, flagThisUninit; the handler never
                // touches `this`, it only rethrows, as the verifier requires), one over the code
                // after it. The call itself cannot be covered: after it `this` is initialised,
                // and no handler frame accepts both states (HotSpot: "Stack map does not match
                // the one at exception handler"), so a throw out of the super constructor
                // itself does not fire this constructor's return.
                thrown(b, start, beforeSuper);
                thrown(b, initialised, end);
            } else if (isInit) {
                thrown(b, start, end); // no super() call found: `this` is never initialised here
            } else {
                thrown(b, start, end);
            }
        }

        /** A catch-all handler over [from, to): the return probe with -1 and the Throwable, rethrown. */
        private void thrown(CodeBuilder b, Label from, Label to) {
            Label handler = b.newBoundLabel();
            int tmp = b.allocateLocal(TypeKind.REFERENCE);
            b.dup().astore(tmp);
            ret(b, -1, TypeKind.REFERENCE, tmp);
            b.athrow();
            b.exceptionCatchAll(from, to, handler);
        }

        private void ret(CodeBuilder b, int at, TypeKind k, int tmp) {
            b.ldc(RETURN_HOOK);
            b.loadConstant(sites.ret());
            b.loadConstant(at);
            if (k == null) {
                b.lconst_0().aconst_null();
            } else {
                b.loadLocal(k, tmp);
                pair(b, k);
            }
            b.invokevirtual(CD_MethodHandle, "invokeExact", RETURN_TYPE);
        }

        /** The value on the stack as the pair (long, Object): a primitive widened or truncated beside null, a reference beside 0L. */
        private static void pair(CodeBuilder b, TypeKind k) {
            switch (k) {
                case REFERENCE -> b.lconst_0().dup2_x1().pop2(); // ref -> 0L, ref
                case LONG -> b.aconst_null();
                case FLOAT -> b.f2l().aconst_null();
                case DOUBLE -> b.d2l().aconst_null();
                default -> b.i2l().aconst_null();
            }
        }

        @Override
        public String toString() {
            return method.methodName().stringValue();
        }
    }
}
