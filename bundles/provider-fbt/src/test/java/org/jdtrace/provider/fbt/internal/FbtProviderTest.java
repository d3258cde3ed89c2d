package org.jdtrace.provider.fbt.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.classfile.ClassFile;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.felix.framework.Felix;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.consumer.Program;
import org.jdtrace.core.consumer.DTraceService;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.jdtrace.core.module.BundleModule;
import org.jdtrace.core.provider.DTraceFramework;
import org.jdtrace.provider.fbt.fixture.Fixture;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;

/**
 * fbt end to end on a real bundle in a real Felix: the framework and the D compiler and runtime
 * of core-framework constructed by hand, the JVM's Instrumentation by the provider's own
 * self-attach, the fixture classes (test-classes' org.jdtrace.provider.fbt.fixture, plus a
 * generated class with a method too large to rewrite) in a bundle fbt.fixture of their own. The
 * bytes the JVM runs are read back with a second retransform-capable transformer that sees
 * fbt's output; return offsets are checked against javap.
 */
class FbtProviderTest {

    static final String FIXTURE = Fixture.class.getName();
    static final String HUGE = "org/jdtrace/provider/fbt/fixture/Huge";
    static final String ODD = "org/jdtrace/provider/fbt/fixture/Odd";
    static final String ANCIENT = "org/jdtrace/provider/fbt/fixture/Ancient";
    static final String UNLINKABLE = "org/jdtrace/provider/fbt/fixture/Unlinkable";
    static final String UNVERIFIABLE = "org/jdtrace/provider/fbt/fixture/Unverifiable";
    static final String WRONG = "org/jdtrace/provider/fbt/fixture/Wrong";

    static Instrumentation inst;

    private Felix felix;
    private Path storage;
    private Bundle bundle;
    private DTraceFramework framework;
    private FbtProvider fbt;
    private final List<Consumer> consumers = new ArrayList<>();

    @BeforeAll
    static void attach() throws Exception {
        inst = SelfAttach.attach(60_000);
    }

    @BeforeEach
    void start() throws Exception {
        storage = Files.createTempDirectory("jdtrace-fbt-felix");
        Map<String, Object> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put("felix.bootdelegation.implicit", "false");
        felix = new Felix(config);
        felix.start();
        bundle = felix.getBundleContext().installBundle("fbt.fixture", new java.io.ByteArrayInputStream(fixtureJar()));
        bundle.start();
        framework = new DTraceFramework();
        framework.addProvider(new org.jdtrace.core.providers.dtrace.DTraceProvider());
        fbt = new FbtProvider(inst, 60_000);
        framework.addProvider(fbt);
        framework.moduleLoaded(new BundleModule(bundle));
    }

    @AfterEach
    void stop() throws Exception {
        for (Consumer c : consumers) {
            c.close();
        }
        framework.removeProvider(fbt);
        fbt.deactivate();
        framework.deactivate();
        felix.stop();
        felix.waitForStop(10_000);
        try (var walk = Files.walk(storage)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** fbt.fixture: the Fixture class from test-classes and the generated Huge. */
    static byte[] fixtureJar() throws Exception {
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        a.putValue(Constants.BUNDLE_SYMBOLICNAME, "fbt.fixture");
        a.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream j = new JarOutputStream(out, mf)) {
            String entry = FIXTURE.replace('.', '/') + ".class";
            j.putNextEntry(new JarEntry(entry));
            j.write(original());
            j.closeEntry();
            for (Class<?> c : new Class<?>[] {org.jdtrace.provider.fbt.fixture.Base.class,
                    org.jdtrace.provider.fbt.fixture.Early.class}) {
                String e = c.getName().replace('.', '/') + ".class";
                j.putNextEntry(new JarEntry(e));
                try (InputStream in = c.getClassLoader().getResourceAsStream(e)) {
                    in.transferTo(j);
                }
                j.closeEntry();
            }
            j.putNextEntry(new JarEntry(HUGE + ".class"));
            j.write(huge());
            j.closeEntry();
            j.putNextEntry(new JarEntry(ODD + ".class"));
            j.write(odd());
            j.closeEntry();
            j.putNextEntry(new JarEntry(ANCIENT + ".class"));
            j.write(ancient());
            j.closeEntry();
            j.putNextEntry(new JarEntry(UNLINKABLE + ".class"));
            j.write(unlinkable());
            j.closeEntry();
            j.putNextEntry(new JarEntry(UNVERIFIABLE + ".class"));
            j.write(unverifiable());
            j.closeEntry();
            j.putNextEntry(new JarEntry(WRONG + ".class"));
            j.write(wrong());
            j.closeEntry();
        }
        return out.toByteArray();
    }

    static byte[] original() throws Exception {
        try (InputStream in = Fixture.class.getResourceAsStream("Fixture.class")) {
            return in.readAllBytes();
        }
    }

    /** A class whose method big() has 64,200 bytes of code and 201 returns: too large to rewrite with its probes. */
    static byte[] huge() {
        return ClassFile.of().build(ClassDesc.ofInternalName(HUGE), cb -> cb
                .withVersion(ClassFile.JAVA_25_VERSION, 0)
                .withMethodBody("big", MethodTypeDesc.of(ConstantDescs.CD_int), ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, b -> {
                    b.iconst_0().istore(0);
                    for (int i = 0; i < 21_000; i++) {
                        b.iinc(0, 1);
                    }
                    for (int i = 0; i < 200; i++) {
                        var next = b.newLabel();
                        b.iload(0).ifne(next).iload(0).ireturn().labelBinding(next);
                    }
                    b.iload(0).ireturn();
                }));
    }

    /** A class file of Java 5 (version 49, no stack maps): fbt does not rewrite it. */
    static byte[] ancient() {
        return ClassFile.of().build(ClassDesc.ofInternalName(ANCIENT), cb -> cb
                .withVersion(49, 0)
                .withMethodBody("run", MethodTypeDesc.of(ConstantDescs.CD_int), ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                        b -> b.bipush(49).ireturn()));
    }

    /**
     * A class that implements an interface no one has (missing.I, as a class of an optional
     * import left unwired does): the JVM cannot load it, so no code of it can run.
     */
    static byte[] unlinkable() {
        return ClassFile.of().build(ClassDesc.ofInternalName(UNLINKABLE), cb -> cb
                .withVersion(ClassFile.JAVA_25_VERSION, 0)
                .withInterfaceSymbols(ClassDesc.of("missing.I"))
                .withMethodBody("run", ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, b -> b.return_()));
    }

    /**
     * A class the JVM loads but cannot link, though every type it names is a class file of its
     * bundle: give() passes an Object where take() wants a Wrong, so the verifier must load
     * Wrong, whose class file holds another class (NoClassDefFoundError: wrong name).
     */
    static byte[] unverifiable() {
        ClassDesc self = ClassDesc.ofInternalName(UNVERIFIABLE);
        MethodTypeDesc take = MethodTypeDesc.of(ConstantDescs.CD_void, ClassDesc.ofInternalName(WRONG));
        return ClassFile.of().build(self, cb -> cb
                .withVersion(ClassFile.JAVA_25_VERSION, 0)
                .withMethodBody("take", take, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, b -> b.return_())
                .withMethodBody("give", ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, b -> b
                        .new_(ConstantDescs.CD_Object).dup()
                        .invokespecial(ConstantDescs.CD_Object, "<init>", ConstantDescs.MTD_void)
                        .invokestatic(self, "take", take).return_()));
    }

    /** What the bundle has as Wrong.class: a class of another name, without methods. */
    static byte[] wrong() {
        return ClassFile.of().build(ClassDesc.of("org.jdtrace.provider.fbt.fixture.Other"),
                cb -> cb.withVersion(ClassFile.JAVA_25_VERSION, 0));
    }

    /**
     * A class whose pick() merges two classes no one has (missing.A, missing.B) at a branch: the
     * JVM loads and runs it (the stack map says Object), but its stack maps cannot be computed
     * again (no one knows where A and B stand in the hierarchy); plain() names neither.
     */
    static byte[] odd() {
        ClassDesc a = ClassDesc.of("missing.A");
        ClassDesc b = ClassDesc.of("missing.B");
        var knows = java.lang.classfile.ClassHierarchyResolver.of(List.of(), Map.of(a, ConstantDescs.CD_Object,
                b, ConstantDescs.CD_Object)).orElse(java.lang.classfile.ClassHierarchyResolver.defaultResolver());
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(knows)).build(ClassDesc.ofInternalName(ODD), cb -> cb
                .withVersion(ClassFile.JAVA_25_VERSION, 0)
                .withMethodBody("pick", MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_boolean),
                        ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, m -> {
                            var other = m.newLabel();
                            var join = m.newLabel();
                            m.iload(0).ifeq(other).aconst_null().checkcast(a).goto_(join)
                                    .labelBinding(other).aconst_null().checkcast(b)
                                    .labelBinding(join).areturn();
                        })
                .withMethodBody("plain", MethodTypeDesc.of(ConstantDescs.CD_int), ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                        m -> m.bipush(7).ireturn()));
    }

    @Test
    void argsTypedFromMethodDescriptors() throws Exception {
        Object f = fixture().getConstructor(int.class).newInstance(5);
        String out = trace("""
                fbt:fbt.fixture:*Fixture.greet:entry {
                    printf("greet [%s] [%s] %d %d\\n", args[0], stringof(args[0]), args[1], sizeof (args[1]));
                    @[args[0]] = count();
                }
                fbt:fbt.fixture:*Fixture.greet:return { printf("greet returns [%s]\\n", args[1]); }
                fbt:fbt.fixture:*Fixture.add:entry { printf("add %s %d %d\\n", stringof(args[0]), args[1], sizeof (args[1])); }
                fbt:fbt.fixture:*Fixture.prims:entry {
                    printf("prims %d %d %d %d %d %d\\n", args[0], args[1], args[2], args[3], args[4], args[5]);
                    printf("sizes %d %d %d %d %d %d\\n", sizeof (args[0]), sizeof (args[1]), sizeof (args[2]),
                        sizeof (args[3]), sizeof (args[4]), sizeof (args[5]));
                }
                END { printa("key [%s] %@d\\n", @); }
                """, () -> {
            call("greet", new Class<?>[] {String.class, long.class, double.class}, null, "bob", 7L, 2.5);
            call("greet", new Class<?>[] {String.class, long.class, double.class}, null, "bob", 8L, 2.5);
            call("add", new Class<?>[] {int.class}, f, -3);
            call("prims", new Class<?>[] {byte.class, char.class, short.class, int.class, long.class, boolean.class},
                    null, (byte) -1, (char) 0xffff, (short) -2, -3, -4L, true);
        });
        assertTrue(out.contains("greet [bob] [bob] 7 8\n"), out);
        assertTrue(out.contains("greet [bob] [bob] 8 8\n"), out);
        assertTrue(out.contains("greet returns [hi bob]\n"), out);
        String self = FIXTURE + "@" + Integer.toHexString(System.identityHashCode(f));
        assertTrue(out.contains("add " + self + " -3 4\n"), out);
        assertTrue(out.contains("prims -1 65535 -2 -3 -4 1\n"), out);
        assertTrue(out.contains("sizes 1 2 2 4 8 1\n"), out);
        assertTrue(out.contains("key [bob] 2\n"), out);
    }

    @Test
    void argsOfProbesWithDifferentTypesAreRefused() throws Exception {
        // greet's args[0] is a string, add's the Fixture (this): DTrace's answer to a description
        // set whose probes' signatures differ
        DTraceException e = assertThrows(DTraceException.class,
                () -> open("fbt:fbt.fixture:*Fixture.greet:entry, fbt:fbt.fixture:*Fixture.add:entry { trace(args[0]); }"));
        assertEquals("D_ARGS_MULTI", e.tag());
        assertTrue(e.getMessage().startsWith("args[ ] may not be referenced because probe description"), e.getMessage());
        assertTrue(e.getMessage().endsWith("matches an unstable set of probes"), e.getMessage());
        // argN needs no types; a probe with no args[1] (check(int)) beside others differs too
        open("fbt:fbt.fixture:*Fixture.greet:entry, fbt:fbt.fixture:*Fixture.add:entry { trace(arg0); }");
        assertThrows(DTraceException.class, () -> open("fbt:fbt.fixture::entry { trace(args[1]); }"));
    }

    private Consumer open(String program, String... options) throws Exception {
        Consumer c = new DTraceService(framework, new DSessionFactoryImpl()).open();
        consumers.add(c);
        c.setOption("quiet", null);
        for (String o : options) {
            int eq = o.indexOf('=');
            c.setOption(o.substring(0, eq), o.substring(eq + 1));
        }
        Program p = c.compile(program, "fbt.d", List.of("fbt.d"));
        c.exec(p);
        return c;
    }

    /** Runs {@code work} traced by {@code program}; returns what the consumer printed. */
    private String trace(String program, ThrowingRunnable work) throws Exception {
        Consumer c = open(program);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
        c.go(ps, ps);
        fbt.awaitRetransforms();
        work.run();
        c.stop();
        while (c.work() != Consumer.Status.DONE) {
            Thread.sleep(1);
        }
        c.close();
        fbt.awaitRetransforms();
        return out.toString(StandardCharsets.UTF_8);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private Class<?> fixture() throws Exception {
        return bundle.loadClass(FIXTURE);
    }

    private Object call(String method, Class<?>[] types, Object target, Object... args) throws Exception {
        try {
            return fixture().getMethod(method, types).invoke(target, args);
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    /** The bytes the JVM has for {@code c} now, as a transformer after fbt's sees them. */
    static byte[] running(Class<?> c) throws Exception {
        AtomicReference<byte[]> seen = new AtomicReference<>();
        ClassFileTransformer recorder = new ClassFileTransformer() {
            @Override
            public byte[] transform(ClassLoader l, String name, Class<?> k, ProtectionDomain pd, byte[] bytes) {
                if (k == c) seen.set(bytes.clone());
                return null;
            }
        };
        inst.addTransformer(recorder, true);
        try {
            inst.retransformClasses(c);
        } finally {
            inst.removeTransformer(recorder);
        }
        return seen.get();
    }

    /** javap -c's offsets of the return instructions of {@code method}. */
    static List<Integer> javapReturns(String method) throws Exception {
        Path dir = Path.of(Fixture.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javap").toString(),
                "-c", "-p", "-cp", dir.toString(), FIXTURE).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        List<Integer> out = new ArrayList<>();
        boolean in = false;
        for (String line : text.lines().toList()) {
            if (line.startsWith("  ") && !line.startsWith("   ") && line.contains("(")) {
                in = line.contains(" " + method + "(");
            }
            Matcher m = Pattern.compile("^\\s+(\\d+): [ialfd]?return$").matcher(line);
            if (in && m.find()) out.add(Integer.parseInt(m.group(1)));
        }
        return out;
    }

    @Test
    void probesForEveryMethodNamedClassDotMethod() {
        List<String> names = new ArrayList<>();
        for (Probe p : framework.match(ProbeDescription.parse("fbt:fbt.fixture::"))) {
            names.add(p.function() + ":" + p.name());
        }
        for (String f : new String[] {"<init>", "add", "greet", "check", "over", "loop"}) {
            assertTrue(names.contains(FIXTURE + "." + f + ":entry"), f + " in " + names);
            assertTrue(names.contains(FIXTURE + "." + f + ":return"), f + " in " + names);
        }
        // the overloads of over are one function; no <clinit>
        assertEquals(2, names.stream().filter(n -> n.startsWith(FIXTURE + ".over:")).count());
        // and Huge.big, Odd.plain, Ancient.run, Unverifiable.take/give, Base.<init>, Early.<init>,
        // Early.check; not Unlinkable.run nor Odd.pick
        assertEquals(30, names.size(), names.toString());
        assertTrue(framework.match(ProbeDescription.parse("fbt:fbt.fixture:nosuch.Class.m:")).isEmpty());
    }

    @Test
    void entryArgumentsAndReturnValues() throws Exception {
        Object f = fixture().getConstructor(int.class).newInstance(40);
        String out = trace("""
                fbt:fbt.fixture:*Fixture.add:entry { printf("add %d\\n", arg1); }
                fbt:fbt.fixture:*Fixture.add:return { printf("add= %d at %d\\n", arg1, arg0); }
                fbt:fbt.fixture:*greet:entry { printf("greet %s %d %d\\n", copyinstr(arg0), arg1, arg2); }
                fbt:fbt.fixture:*greet:return { printf("greet= %s\\n", copyinstr(arg1)); }
                fbt:fbt.fixture:*over:entry { printf("over %s %d %d\\n", copyinstr(arg0), arg2, arg9); }
                """, () -> {
            assertEquals(42, call("add", new Class<?>[] {int.class}, f, 2));
            assertEquals("hi you", call("greet", new Class<?>[] {String.class, long.class, double.class}, null, "you", -7L, 2.9));
            call("over", new Class<?>[] {long.class}, f, 1L);
        });
        int ret = javapReturns("add").get(0);
        // over(long) has two arguments (this, x): arg2.. read 0, not greet's arg2 of the firing before
        assertEquals("add 2\nadd= 42 at " + ret + "\ngreet you -7 2\ngreet= hi you\nover "
                + FIXTURE + "@" + Integer.toHexString(System.identityHashCode(f)) + " 0 0", out.strip());
    }

    @Test
    void everyWayOutFiresReturnAndAThrowIsArg0MinusOne() throws Exception {
        List<Integer> rets = javapReturns("check");
        String out = trace("""
                fbt:fbt.fixture:*check:entry { printf("in %d\\n", arg0); }
                fbt:fbt.fixture:*check:return /arg0 == -1/ { printf("threw %s\\n", copyinstr(arg1)); }
                fbt:fbt.fixture:*check:return /arg0 != -1/ { printf("returned %d at %d\\n", arg1, arg0); }
                fbt:fbt.fixture:*Fixture.<init>:return /arg0 == -1/ { printf("ctor threw %s\\n", copyinstr(arg1)); }
                fbt:fbt.fixture:*Fixture.<init>:entry { printf("ctor %d\\n", arg0); }
                """, () -> {
            assertEquals(2, call("check", new Class<?>[] {int.class}, null, 2));
            assertTrue(call("check", new Class<?>[] {int.class}, null, 3) instanceof IllegalStateException);
            assertThrows(InvocationTargetException.class, () -> fixture().getConstructor(int.class).newInstance(-1));
        });
        String[] lines = out.strip().split("\n");
        assertEquals("in 2", lines[0]);
        assertEquals("returned 2 at " + rets.get(0), lines[1]);
        assertEquals("in 3", lines[2]);
        assertTrue(lines[3].startsWith("threw java.lang.IllegalStateException@"), out);
        assertEquals("ctor -1", lines[4]);
        assertTrue(lines[5].startsWith("ctor threw java.lang.IllegalArgumentException@"), out);
        assertEquals(6, lines.length, out);
    }

    @Test
    void aConstructorFiresReturnWhenItThrowsBeforeItsSuperCall() throws Exception {
        Class<?> early = bundle.loadClass("org.jdtrace.provider.fbt.fixture.Early");
        String out = trace("""
                fbt:fbt.fixture:*Early.<init>:entry { printf("early %d\\n", arg0); }
                fbt:fbt.fixture:*Early.<init>:return /arg0 == -1/ { printf("early threw %s\\n", copyinstr(arg1)); }
                fbt:fbt.fixture:*Early.<init>:return /arg0 != -1/ { printf("early returned\\n"); }
                fbt:fbt.fixture:*Base.<init>:return /arg0 == -1/ { printf("base threw %s\\n", copyinstr(arg1)); }
                """, () -> {
            for (int v : new int[] {-1, 7, 13, 1}) {
                try {
                    early.getConstructor(int.class).newInstance(v);
                } catch (InvocationTargetException e) {
                    // the constructor's own exception, unchanged by the probes
                    assertEquals(switch (v) {
                        case -1 -> IllegalArgumentException.class;
                        case 7 -> IllegalStateException.class;
                        default -> UnsupportedOperationException.class;
                    }, e.getCause().getClass());
                }
            }
        });
        assertEquals(List.of(
                "early -1", "early threw java.lang.IllegalArgumentException@",  // before super()
                "early 7", "early threw java.lang.IllegalStateException@",      // in super's argument
                // in the super constructor: its own return fires; Early's cannot (no handler may
                // cover the super() call itself: the JVM's verifier refuses it, see Rewriter)
                "early 13", "base threw java.lang.UnsupportedOperationException@",
                "early 1", "early returned"),
                out.strip().lines().map(l -> l.replaceFirst("@[0-9a-f]+$", "@")).toList(), out);
    }

    @Test
    void aFaultingClauseRaisesErrorAndTheMethodGoesOn() throws Exception {
        Object f = fixture().getConstructor(int.class).newInstance(40);
        String out = trace("""
                fbt:fbt.fixture:*Fixture.add:entry { printf("%s\\n", copyinstr(arg1)); }
                fbt:fbt.fixture:*Fixture.add:entry { x = 1 / (arg1 - 2); }
                fbt:fbt.fixture:*Fixture.add:return { printf("still %d\\n", arg1); }
                dtrace:::ERROR { printf("error %d\\n", arg4); }
                """, () -> assertEquals(42, call("add", new Class<?>[] {int.class}, f, 2)));
        // DTRACEFLT_BADADDR (1) for the integer read as a string, DTRACEFLT_DIVZERO (4)
        String probe = "probe ID 6 (fbt:fbt.fixture:" + FIXTURE + ".add:entry)";
        assertEquals("dtrace: error in dt_clause_0 for " + probe + ": invalid address (0x2) at BPF pc #\n"
                + "error 1\n"
                + "dtrace: error in dt_clause_1 for " + probe + ": divide-by-zero at BPF pc #\n"
                + "error 4\nstill 42", out.strip().replaceAll("at BPF pc [1-9][0-9]*", "at BPF pc #"));
    }

    @Test
    void aClassThatCannotBeRewrittenIsSkippedAndTheEnablingGoesOn() throws Exception {
        Class<?> old = bundle.loadClass(ANCIENT.replace('/', '.'));
        byte[] before = running(old);
        Object f = fixture().getConstructor(int.class).newInstance(40);
        String out = trace("""
                fbt:fbt.fixture:*Ancient.run:entry { printf("run\\n"); }
                fbt:fbt.fixture:*Fixture.add:entry { printf("add %d\\n", arg1); }
                """, () -> {
            assertArrayEquals(before, running(old), "left as it was");
            assertEquals(49, old.getMethod("run").invoke(null));
            assertEquals(42, call("add", new Class<?>[] {int.class}, f, 2));
        });
        assertEquals("add 2", out.strip());
    }

    @Test
    void aMethodThatNamesATypeItsBundleCannotLoadHasNoProbesTheOthersOfItsClassHave() throws Exception {
        Class<?> odd = bundle.loadClass(ODD.replace('/', '.'));
        assertEquals(null, odd.getMethod("pick", boolean.class).invoke(null, true));
        assertTrue(framework.match(ProbeDescription.parse("fbt:fbt.fixture:*Odd.pick:")).isEmpty());
        String out = trace("fbt:fbt.fixture:*Odd.plain:return { printf(\"plain %d\\n\", arg1); }",
                () -> assertEquals(7, odd.getMethod("plain").invoke(null)));
        assertEquals("plain 7", out.strip());
    }

    @Test
    void aLoadedClassTheJvmCannotLinkIsLeftAloneWithoutAWord() throws Exception {
        Class<?> bad = bundle.loadClass(UNVERIFIABLE.replace('/', '.'));
        Object f = fixture().getConstructor(int.class).newInstance(40);
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        String out;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            out = trace("""
                    fbt:fbt.fixture:*Unverifiable.give:entry { printf("give\\n"); }
                    fbt:fbt.fixture:*Fixture.add:entry { printf("add %d\\n", arg1); }
                    """, () -> assertEquals(42, call("add", new Class<?>[] {int.class}, f, 2)));
        } finally {
            System.setErr(err);
        }
        assertEquals("add 2", out.strip());
        assertFalse(log.toString(StandardCharsets.UTF_8).contains("Unverifiable"), log.toString(StandardCharsets.UTF_8));
        assertThrows(NoClassDefFoundError.class, () -> bad.getMethod("give").invoke(null));
    }

    @Test
    void aClassTheJvmCannotLinkHasNoProbes() throws Exception {
        assertThrows(NoClassDefFoundError.class, () -> bundle.loadClass(UNLINKABLE.replace('/', '.')));
        assertTrue(framework.match(ProbeDescription.parse("fbt:fbt.fixture:*Unlinkable*:")).isEmpty());
        assertEquals(2, framework.match(ProbeDescription.parse("fbt:fbt.fixture:*Ancient.run:")).size());
    }

    @Test
    void restoredBytesAreTheOriginalOnesAfterDisableAndAfterProviderStop() throws Exception {
        Class<?> k = fixture();
        // the JVM hands transformers the class file it reconstitutes, not the jar's bytes: the
        // same code, maybe another constant pool order. Restored is: byte for byte what it was
        // before tracing, and the jar's code in every method.
        byte[] before = running(k);
        assertSameCode(original(), before);

        Consumer c = open("fbt:fbt.fixture:*Fixture.loop: { }");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(out, true);
        c.go(ps, ps); // the batch's commit has retransformed the class when go returns
        byte[] traced = running(k);
        assertFalse(java.util.Arrays.equals(before, traced), "rewritten while enabled");
        assertTrue(new String(traced, StandardCharsets.ISO_8859_1).contains(Rewriter.ENTRY_KEY));
        assertEquals(9, call("loop", new Class<?>[] {int.class, Object.class}, null, 3, "ab"));
        c.stop();
        while (c.work() != Consumer.Status.DONE) {
            Thread.sleep(1);
        }
        c.close();
        fbt.awaitRetransforms();
        assertArrayEquals(before, running(k), "disabled: the original bytes again");
        assertSameCode(original(), running(k));

        // enabled again, then the provider stops (the bundle's way out): restored as well
        Consumer c2 = open("fbt:fbt.fixture:*Fixture.add:entry { }");
        c2.go(ps, ps);
        fbt.awaitRetransforms();
        assertFalse(java.util.Arrays.equals(before, running(k)));
        framework.removeProvider(fbt);
        fbt.deactivate();
        assertArrayEquals(before, running(k), "provider stopped: the original bytes again");
        assertSameCode(original(), running(k));
    }

    /** Each method's code array in {@code a} and {@code b} are equal. */
    static void assertSameCode(byte[] a, byte[] b) {
        Map<String, byte[]> ca = code(a);
        Map<String, byte[]> cb = code(b);
        assertEquals(ca.keySet(), cb.keySet());
        ca.forEach((m, c) -> assertArrayEquals(c, cb.get(m), m));
    }

    static Map<String, byte[]> code(byte[] classFile) {
        Map<String, byte[]> out = new HashMap<>();
        for (var m : ClassFile.of().parse(classFile).methods()) {
            m.code().ifPresent(c -> out.put(m.methodName() + m.methodType().stringValue(),
                    ((java.lang.classfile.attribute.CodeAttribute) c).codeArray()));
        }
        return out;
    }

    @Test
    void aMethodTooLargeToRewriteIsRefusedWithOneLine() throws Exception {
        Consumer c = open("fbt:fbt.fixture:*Huge.big:entry { }");
        PrintStream ps = new PrintStream(new ByteArrayOutputStream(), true);
        DTraceException e = assertThrows(DTraceException.class, () -> c.go(ps, ps));
        assertTrue(e.getMessage().contains("Huge.big: method too large to instrument"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void anEnablingPastFbtMaxIsRefusedWhole() throws Exception {
        Consumer c = open("fbt:fbt.fixture::entry { }", "fbt-max=3");
        PrintStream ps = new PrintStream(new ByteArrayOutputStream(), true);
        DTraceException e = assertThrows(DTraceException.class, () -> c.go(ps, ps));
        assertTrue(e.getMessage().contains("more than fbt-max (3) methods"), e.getMessage());
        fbt.awaitRetransforms();
        assertSameCode(original(), running(fixture()));
    }

    @Test
    void withoutInstrumentationFbtSaysSoInOneLineAndTheOthersWorkOn() throws Exception {
        framework.removeProvider(fbt);
        fbt.deactivate();
        fbt = new FbtProvider(null, 1); // no service, and a self-attach cannot finish in 1 ms
        framework.addProvider(fbt);
        Consumer c = open("fbt:fbt.fixture:*Fixture.add:entry { }");
        PrintStream ps = new PrintStream(new ByteArrayOutputStream(), true);
        DTraceException e = assertThrows(DTraceException.class, () -> c.go(ps, ps));
        assertTrue(e.getMessage().startsWith("fbt probes cannot be enabled: no java.lang.instrument.Instrumentation"
                + " in this JVM (the attach helper did not finish in 1 ms)"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertEquals("begin", trace("BEGIN { printf(\"begin\\n\"); exit(0); }", () -> { }).strip());
    }

    @Test
    void stackAndJstackAreTheJavaFrames() throws Exception {
        Object f = fixture().getConstructor(int.class).newInstance(1);
        String out = trace("""
                fbt:fbt.fixture:*Fixture.add:entry { stack(); }
                fbt:fbt.fixture:*Fixture.add:return { jstack(2); }
                """, () -> call("add", new Class<?>[] {int.class}, f, 2));
        List<String> frames = out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        int ret = javapReturns("add").get(0);
        assertEquals("fbt.fixture`" + FIXTURE + ".add+0x0", frames.get(0));
        // the caller: this test (on the class path, no bundle: "jvm"), reflection's frames hidden
        assertTrue(frames.get(1).startsWith("jvm`" + FbtProviderTest.class.getName() + ".call+0x"), frames.toString());
        int second = frames.indexOf("fbt.fixture`" + FIXTURE + ".add+0x" + Integer.toHexString(ret));
        assertTrue(second > 1, frames.toString());
        assertEquals(second + 2, frames.size(), "jstack(2): two frames " + frames);
        assertNotNull(fbt.instrumentation());
    }
}
