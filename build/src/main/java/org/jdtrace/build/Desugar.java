/*
 * Desugar: links, at build time, the invokedynamic call sites of a bundle's classes that the JVM
 * would otherwise link at run time, on every start of dtrace.
 *
 * Why. bin/dtrace starts a JVM, Felix and the bundles for every command. The JDK's AOT cache
 * (JEP 483/514/515) keeps the bundles' classes, but it links lambdas and pattern switches only for
 * classes of the built-in class loaders; a bundle's class loader is not one. Each lambda, method
 * reference and pattern switch of a bundle therefore spins a hidden class (and LambdaForms) the first
 * time it runs: about half a millisecond each, and a BEGIN-only run met 80 of them
 * (`-Xlog:class+load`: org.jdtrace classes named ...$$Lambda/0x... or ...$$TypeSwitch/0x...).
 * (String concatenation is the third kind; javac's -XDstringConcat=inline, in the parent pom, keeps
 * it out of the class files to begin with.)
 *
 * What. For the classes of one output directory (a bundle's target/classes, after javac, before
 * bnd), every call site bootstrapped by
 *   - LambdaMetafactory.metafactory (a lambda or method reference) becomes an invokestatic of a
 *     factory method of a new class, Host$$Lambda$N, that implements the functional interface: its
 *     fields hold the captured values, its one method adapts the arguments (casts, boxing,
 *     unboxing, widening, as the metafactory does) and calls the implementation method. A lambda
 *     that captures nothing returns one shared instance, so a site that allocated nothing still
 *     allocates nothing (probe context depends on that). The new class is a nestmate of the host
 *     (NestHost/NestMembers), so it may call the host's private lambda bodies as the hidden class
 *     did;
 *   - SwitchBootstraps.typeSwitch whose labels are all classes (a pattern switch over types) becomes
 *     an invokestatic of a private static method of the host, $typeSwitch$N(selector, restart): -1
 *     for null, else the first label from restart on that the selector is an instance of, else the
 *     number of labels: the bootstrap's contract.
 * Every other call site (serializable lambdas, altMetafactory, switches over strings, enums or
 * constants, records' ObjectMethods) is left as javac wrote it.
 *
 * Invariants. Behaviour is the metafactory's and the bootstrap's; the tests of every bundle run on
 * the rewritten classes (this runs in the compile phase, before them). Running it again finds no
 * site left and changes nothing; the classes it made for a host that javac compiled again are
 * deleted first, so none is stale.
 *
 * Failure. A class it cannot rewrite (a conversion it does not know, a type the stack map
 * computation cannot resolve) is written back unchanged, and named on the build's output: it then
 * links at run time as before. Nothing here ever makes a class wrong rather than slower.
 *
 * Counterpart: none in illumos (a C program links at build time anyway); in Java, what retrolambda
 * and Android's D8 do when they desugar lambdas.
 *
 * Usage: java Desugar.java CLASSES_DIR [CLASSPATH]   (CLASSPATH: the module's compile class path,
 * to resolve the types the stack maps of a rewritten method merge)
 */
package org.jdtrace.build;

import java.io.IOException;
import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.NestHostAttribute;
import java.lang.classfile.attribute.NestMembersAttribute;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

public final class Desugar {
    private static final ClassDesc LAMBDA_METAFACTORY = ClassDesc.of("java.lang.invoke.LambdaMetafactory");
    private static final ClassDesc SWITCH_BOOTSTRAPS = ClassDesc.of("java.lang.runtime.SwitchBootstraps");
    private static final String LAMBDA_MARK = "$$Lambda$";
    private static final String FACTORY = "get";
    private static final String INSTANCE = "INSTANCE";

    private final Path dir;
    private final ClassFile cf;
    /** Classes made by this run: written at the end; the stack map computation must know them. */
    private final Map<ClassDesc, byte[]> made = new LinkedHashMap<>();
    /** Nest hosts in other class files that must list new members. */
    private final Map<ClassDesc, List<ClassDesc>> nestAdditions = new HashMap<>();
    private int lambdas, switches, unchanged;

    private Desugar(Path dir, ClassLoader classPath) {
        this.dir = dir;
        ClassHierarchyResolver fromMade = desc -> {
            byte[] b = made.get(desc);
            if (b == null) return null;
            ClassModel m = ClassFile.of().parse(b);
            return m.flags().has(AccessFlag.INTERFACE) ? ClassHierarchyResolver.ClassHierarchyInfo.ofInterface()
                    : ClassHierarchyResolver.ClassHierarchyInfo.ofClass(m.superclass().map(ClassEntry::asSymbol).orElse(null));
        };
        this.cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                fromMade.orElse(ClassHierarchyResolver.defaultResolver())
                        .orElse(ClassHierarchyResolver.ofResourceParsing(classPath)).cached()));
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: Desugar CLASSES_DIR [CLASSPATH]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        if (!Files.isDirectory(dir)) return;                // a module without classes
        List<URL> urls = new ArrayList<>();
        urls.add(dir.toUri().toURL());
        if (args.length == 2)
            for (String e : args[1].split(java.io.File.pathSeparator))
                if (!e.isBlank()) urls.add(Path.of(e).toUri().toURL());
        try (URLClassLoader cp = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Desugar d = new Desugar(dir, cp);
            d.run();
            System.out.printf("desugar: %s: %d lambda and %d type switch call sites linked, %d classes left as they were%n",
                    dir, d.lambdas, d.switches, d.unchanged);
        }
    }

    private void run() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> p.toString().endsWith(".class")).sorted().toList();
        }
        Map<Path, byte[]> rewritten = new LinkedHashMap<>();
        for (Path f : files) {
            if (f.getFileName().toString().contains(LAMBDA_MARK)) continue;
            byte[] bytes = Files.readAllBytes(f);
            ClassModel cm = cf.parse(bytes);
            if (!hasSite(cm)) continue;
            deleteMadeFor(f);
            Map<ClassDesc, byte[]> before = new LinkedHashMap<>(made);
            int l = lambdas, s = switches;
            try {
                rewritten.put(f, rewrite(cm));
            } catch (RuntimeException | LinkageError e) {
                // Leave the class as javac wrote it: it links at run time.
                made.clear();
                made.putAll(before);
                lambdas = l;
                switches = s;
                unchanged++;
                System.out.println("desugar: left " + cm.thisClass().asInternalName() + " as it was: " + e);
            }
        }
        for (var e : made.entrySet())
            Files.write(dir.resolve(internalName(e.getKey()) + ".class"), e.getValue());
        for (var e : rewritten.entrySet()) Files.write(e.getKey(), e.getValue());
        for (var e : nestAdditions.entrySet()) {
            Path f = dir.resolve(internalName(e.getKey()) + ".class");
            ClassModel cm = cf.parse(Files.readAllBytes(f));
            Files.write(f, cf.transformClass(cm, addNestMembers(cm, e.getValue())));
        }
    }

    private static String internalName(ClassDesc c) {
        String d = c.descriptorString();
        return d.substring(1, d.length() - 1);
    }

    private void deleteMadeFor(Path hostFile) throws IOException {
        String base = hostFile.getFileName().toString().replace(".class", "") + LAMBDA_MARK;
        try (Stream<Path> s = Files.list(hostFile.getParent())) {
            for (Path p : s.filter(p -> p.getFileName().toString().startsWith(base)).toList()) Files.delete(p);
        }
    }

    private static boolean hasSite(ClassModel cm) {
        for (MethodModel m : cm.methods()) {
            var code = m.code();
            if (code.isEmpty()) continue;
            for (CodeElement e : code.get())
                if (e instanceof InvokeDynamicInstruction i && (lambdaSite(i) || typeSwitchSite(i))) return true;
        }
        return false;
    }

    private static boolean lambdaSite(InvokeDynamicInstruction i) {
        DirectMethodHandleDesc bsm = i.bootstrapMethod();
        return bsm.owner().equals(LAMBDA_METAFACTORY) && bsm.methodName().equals("metafactory")
                && i.bootstrapArgs().size() == 3;
    }

    private static boolean typeSwitchSite(InvokeDynamicInstruction i) {
        DirectMethodHandleDesc bsm = i.bootstrapMethod();
        if (!bsm.owner().equals(SWITCH_BOOTSTRAPS) || !bsm.methodName().equals("typeSwitch")) return false;
        MethodTypeDesc t = i.typeSymbol();
        if (t.parameterCount() != 2 || t.parameterType(0).isPrimitive() || !t.parameterType(1).equals(ConstantDescs.CD_int)
                || !t.returnType().equals(ConstantDescs.CD_int)) return false;
        for (ConstantDesc c : i.bootstrapArgs())
            if (!(c instanceof ClassDesc cd) || cd.isPrimitive()) return false;
        return true;
    }

    /** The host with its sites replaced; the classes it needs are added to {@link #made}. */
    private byte[] rewrite(ClassModel host) {
        ClassDesc hostDesc = host.thisClass().asSymbol();
        boolean hostIsInterface = host.flags().has(AccessFlag.INTERFACE);
        ClassDesc nestHost = host.findAttribute(java.lang.classfile.Attributes.nestHost())
                .map(a -> a.nestHost().asSymbol()).orElse(hostDesc);
        List<ClassDesc> newMembers = new ArrayList<>();
        List<MethodTypeDesc> switchTypes = new ArrayList<>();
        List<List<ClassDesc>> switchLabels = new ArrayList<>();
        List<ClassDesc> lambdaClass = new ArrayList<>();   // the k-th lambda site's class

        // First pass: make a class for every lambda site (in order, so names are stable).
        int n = 0;
        for (MethodModel m : host.methods()) {
            if (m.code().isEmpty()) continue;
            for (CodeElement e : m.code().get()) {
                if (!(e instanceof InvokeDynamicInstruction i) || !lambdaSite(i)) continue;
                ClassDesc g = ClassDesc.ofInternalName(internalName(hostDesc) + LAMBDA_MARK + n++);
                made.put(g, lambdaClass(g, nestHost, hostDesc, i));
                lambdaClass.add(g);
                newMembers.add(g);
                lambdas++;
            }
        }
        // Second pass, over the same methods in the same order: the k-th lambda site gets the k-th class.
        int[] lambdaSites = {0};
        ClassTransform sites = ClassTransform.transformingMethodBodies((CodeBuilder b, CodeElement e) -> {
            if (e instanceof InvokeDynamicInstruction i && lambdaSite(i)) {
                b.invokestatic(lambdaClass.get(lambdaSites[0]++), FACTORY, i.typeSymbol());
            } else if (e instanceof InvokeDynamicInstruction i && typeSwitchSite(i)) {
                List<ClassDesc> labels = new ArrayList<>();
                for (ConstantDesc c : i.bootstrapArgs()) labels.add((ClassDesc) c);
                int k = switchLabels.size();
                switchLabels.add(labels);
                switchTypes.add(i.typeSymbol());
                b.invokestatic(hostDesc, "$typeSwitch$" + k, i.typeSymbol(), hostIsInterface);
                switches++;
            } else {
                b.with(e);
            }
        });
        ClassTransform helpers = ClassTransform.endHandler(cb -> {
            for (int k = 0; k < switchLabels.size(); k++) typeSwitchMethod(cb, k, switchTypes.get(k), switchLabels.get(k));
        });
        ClassTransform nest = nestHost.equals(hostDesc) ? addNestMembers(host, newMembers) : ClassTransform.ACCEPT_ALL;
        byte[] out = cf.transformClass(host, sites.andThen(helpers).andThen(nest));
        if (lambdaSites[0] != lambdaClass.size()) throw new IllegalStateException("lambda sites moved");
        if (!nestHost.equals(hostDesc) && !newMembers.isEmpty())
            nestAdditions.computeIfAbsent(nestHost, k -> new ArrayList<>()).addAll(newMembers);
        return out;
    }

    /** SwitchBootstraps.typeSwitch's contract for class labels, as a private static method of the host. */
    private static void typeSwitchMethod(ClassBuilder cb, int k, MethodTypeDesc t, List<ClassDesc> labels) {
        cb.withMethodBody("$typeSwitch$" + k, t,
                ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC, c -> {
                    Label notNull = c.newLabel();
                    c.aload(0).ifnonnull(notNull).iconst_m1().ireturn();
                    c.labelBinding(notNull);
                    for (int i = 0; i < labels.size(); i++) {
                        Label next = c.newLabel();
                        c.iload(1).loadConstant(i).if_icmpgt(next);
                        c.aload(0).instanceOf(labels.get(i)).ifeq(next);
                        c.loadConstant(i).ireturn();
                        c.labelBinding(next);
                    }
                    c.loadConstant(labels.size()).ireturn();
                });
    }

    private static ClassTransform addNestMembers(ClassModel host, List<ClassDesc> members) {
        if (members.isEmpty()) return ClassTransform.ACCEPT_ALL;
        List<ClassDesc> all = new ArrayList<>();
        host.findAttribute(java.lang.classfile.Attributes.nestMembers())
                .ifPresent(a -> a.nestMembers().forEach(c -> all.add(c.asSymbol())));
        all.addAll(members);
        return ClassTransform.dropping(e -> e instanceof NestMembersAttribute)
                .andThen(ClassTransform.endHandler(cb -> cb.with(NestMembersAttribute.ofSymbols(all))));
    }

    /** The class of one lambda site: captured values in fields, the functional method, a factory. */
    private byte[] lambdaClass(ClassDesc self, ClassDesc nestHost, ClassDesc host, InvokeDynamicInstruction site) {
        MethodTypeDesc factory = site.typeSymbol();
        ClassDesc fi = factory.returnType();
        String samName = site.name().stringValue();
        MethodTypeDesc sam = (MethodTypeDesc) site.bootstrapArgs().get(0);
        DirectMethodHandleDesc impl = (DirectMethodHandleDesc) site.bootstrapArgs().get(1);
        MethodTypeDesc inst = (MethodTypeDesc) site.bootstrapArgs().get(2);
        MethodTypeDesc implType = impl.invocationType();
        int captured = factory.parameterCount();
        boolean ctor = impl.kind() == DirectMethodHandleDesc.Kind.CONSTRUCTOR;
        if (captured + sam.parameterCount() != implType.parameterCount())
            throw new IllegalStateException("arity: " + site);
        switch (impl.kind()) {
            case STATIC, INTERFACE_STATIC, VIRTUAL, INTERFACE_VIRTUAL, CONSTRUCTOR -> { }
            case SPECIAL, INTERFACE_SPECIAL -> {
                if (!impl.owner().equals(host)) throw new IllegalStateException("invokespecial of another class: " + site);
            }
            default -> throw new IllegalStateException("method handle kind " + impl.kind());
        }
        return cf.build(self, cb -> {
            cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER | ClassFile.ACC_SYNTHETIC);
            cb.withSuperclass(ConstantDescs.CD_Object);
            cb.withInterfaceSymbols(fi);
            cb.with(NestHostAttribute.of(nestHost));
            for (int i = 0; i < captured; i++)
                cb.withField("c" + i, factory.parameterType(i), ClassFile.ACC_PRIVATE | ClassFile.ACC_FINAL);
            MethodTypeDesc init = MethodTypeDesc.of(ConstantDescs.CD_void, factory.parameterList());
            cb.withMethodBody(ConstantDescs.INIT_NAME, init, ClassFile.ACC_PRIVATE, c -> {
                c.aload(0).invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                int slot = 1;
                for (int i = 0; i < captured; i++) {
                    ClassDesc t = factory.parameterType(i);
                    c.aload(0).loadLocal(TypeKind.from(t), slot).putfield(self, "c" + i, t);
                    slot += TypeKind.from(t).slotSize();
                }
                c.return_();
            });
            if (captured == 0) {
                cb.withField(INSTANCE, fi, ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_FINAL);
                cb.withMethodBody(ConstantDescs.CLASS_INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_STATIC, c ->
                        c.new_(self).dup().invokespecial(self, ConstantDescs.INIT_NAME, init)
                                .putstatic(self, INSTANCE, fi).return_());
                cb.withMethodBody(FACTORY, factory, ClassFile.ACC_STATIC, c ->
                        c.getstatic(self, INSTANCE, fi).areturn());
            } else {
                cb.withMethodBody(FACTORY, factory, ClassFile.ACC_STATIC, c -> {
                    c.new_(self).dup();
                    int slot = 0;
                    for (ClassDesc t : factory.parameterList()) {
                        c.loadLocal(TypeKind.from(t), slot);
                        slot += TypeKind.from(t).slotSize();
                    }
                    c.invokespecial(self, ConstantDescs.INIT_NAME, init).areturn();
                });
            }
            cb.withMethodBody(samName, sam, ClassFile.ACC_PUBLIC, c -> {
                if (ctor) c.new_(impl.owner()).dup();
                int p = 0;
                for (int i = 0; i < captured; i++, p++) {
                    ClassDesc t = factory.parameterType(i);
                    c.aload(0).getfield(self, "c" + i, t);
                    convert(c, t, implType.parameterType(p));
                }
                int slot = 1;
                for (int j = 0; j < sam.parameterCount(); j++, p++) {
                    ClassDesc s = sam.parameterType(j);
                    c.loadLocal(TypeKind.from(s), slot);
                    slot += TypeKind.from(s).slotSize();
                    convert(c, s, inst.parameterType(j));
                    convert(c, inst.parameterType(j), implType.parameterType(p));
                }
                String desc = impl.lookupDescriptor();
                MethodTypeDesc lookup = MethodTypeDesc.ofDescriptor(desc);
                switch (impl.kind()) {
                    case STATIC -> c.invokestatic(impl.owner(), impl.methodName(), lookup, false);
                    case INTERFACE_STATIC -> c.invokestatic(impl.owner(), impl.methodName(), lookup, true);
                    case VIRTUAL, SPECIAL -> c.invokevirtual(impl.owner(), impl.methodName(), lookup);
                    case INTERFACE_VIRTUAL, INTERFACE_SPECIAL -> c.invokeinterface(impl.owner(), impl.methodName(), lookup);
                    case CONSTRUCTOR -> c.invokespecial(impl.owner(), ConstantDescs.INIT_NAME, lookup);
                    default -> throw new IllegalStateException();
                }
                ClassDesc r = ctor ? impl.owner() : implType.returnType();
                ClassDesc want = sam.returnType();
                if (want.equals(ConstantDescs.CD_void)) {
                    TypeKind k = TypeKind.from(r);
                    if (k.slotSize() == 2) c.pop2();
                    else if (k.slotSize() == 1) c.pop();
                    c.return_();
                } else {
                    if (r.equals(ConstantDescs.CD_void)) throw new IllegalStateException("void for " + want);
                    convert(c, r, inst.returnType());
                    convert(c, inst.returnType(), want);
                    c.return_(TypeKind.from(want));
                }
            });
        });
    }

    private static final Map<ClassDesc, ClassDesc> BOX = Map.of(
            ConstantDescs.CD_boolean, ConstantDescs.CD_Boolean, ConstantDescs.CD_byte, ConstantDescs.CD_Byte,
            ConstantDescs.CD_char, ConstantDescs.CD_Character, ConstantDescs.CD_short, ConstantDescs.CD_Short,
            ConstantDescs.CD_int, ConstantDescs.CD_Integer, ConstantDescs.CD_long, ConstantDescs.CD_Long,
            ConstantDescs.CD_float, ConstantDescs.CD_Float, ConstantDescs.CD_double, ConstantDescs.CD_Double);

    private static ClassDesc unboxed(ClassDesc wrapper) {
        for (var e : BOX.entrySet()) if (e.getValue().equals(wrapper)) return e.getKey();
        return null;
    }

    /** The metafactory's adaptations of a value on the stack from type {@code from} to {@code to}. */
    private static void convert(CodeBuilder c, ClassDesc from, ClassDesc to) {
        if (from.equals(to)) return;
        if (from.isPrimitive() && to.isPrimitive()) {
            widen(c, from, to);
        } else if (from.isPrimitive()) {
            ClassDesc w = BOX.get(from);
            c.invokestatic(w, "valueOf", MethodTypeDesc.of(w, from));
            if (!to.equals(ConstantDescs.CD_Object) && !to.equals(w)) c.checkcast(to);
        } else if (to.isPrimitive()) {
            ClassDesc p = unboxed(from);
            if (p == null) {
                ClassDesc w = BOX.get(to);
                c.checkcast(w);
                p = to;
                from = w;
            }
            c.invokevirtual(from, p.displayName() + "Value", MethodTypeDesc.of(p));
            widen(c, p, to);
        } else if (!to.equals(ConstantDescs.CD_Object)) {
            c.checkcast(to);
        }
    }

    private static void widen(CodeBuilder c, ClassDesc from, ClassDesc to) {
        if (from.equals(to)) return;
        TypeKind f = TypeKind.from(from).asLoadable(), t = TypeKind.from(to).asLoadable();
        if (f != t) c.conversion(f, t);                    // byte, short, char widen to int for free
    }
}
