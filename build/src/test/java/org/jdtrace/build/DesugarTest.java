package org.jdtrace.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Desugar against the JVM's own linkage: one program, compiled by javac, runs once as javac wrote
 * it (the metafactory and SwitchBootstraps link its sites) and once desugared; every result must
 * be the same, and no lambda or type switch site may be left.
 */
class DesugarTest {
    /** Every kind of site the bundles have: captures of each width, method references of each kind,
     *  the metafactory's adaptations, a nested class's lambda, pattern switches with guards and null. */
    private static final String SAMPLE = """
            package p;
            import java.util.*;
            import java.util.function.*;
            public class Sample {
                sealed interface Shape permits Circle, Square, Dot {}
                record Circle(int r) implements Shape {}
                record Square(int side) implements Shape {}
                record Dot() implements Shape {}
                interface Tri { boolean test(String s, long l, double d); }
                interface Make { Object make(); }
                private final String name;
                Sample(String name) { this.name = name; }
                private String secret(int i) { return name + "#" + i; }
                private static int twice(int i) { return 2 * i; }
                int width() { return name.length(); }
                static Supplier<String> none() { return () -> "none"; }
                static String kind(Object o) {
                    return switch (o) {
                        case null -> "null";
                        case Circle c when c.r() > 10 -> "big circle";
                        case Circle c -> "circle " + c.r();
                        case Square s -> "square " + s.side();
                        case Shape s -> "shape";
                        case String s -> "string " + s.length();
                        default -> "other";
                    };
                }
                static String shape(Shape s) {
                    return switch (s) { case Circle c -> "C"; case Square q -> "S"; case Dot d -> "D"; };
                }
                class Inner {
                    String viaOuter(int i) { IntFunction<String> f = Sample.this::secret; return f.apply(i); }
                }
                public static List<String> run() {
                    List<String> out = new ArrayList<>();
                    int i = 7; long l = 1L << 40; double d = 2.5; char c = 'x'; boolean b = true;
                    Sample s = new Sample("abc");
                    Supplier<String> cap = () -> i + ":" + l + ":" + d + ":" + c + ":" + b + ":" + s.name;
                    out.add(cap.get());
                    Tri tri = (str, ll, dd) -> str.length() + ll + dd > 3;
                    out.add(String.valueOf(tri.test("ab", 1L, 0.5)));
                    IntUnaryOperator st = Sample::twice;                       // static
                    out.add(String.valueOf(st.applyAsInt(21)));
                    IntFunction<String> priv = s::secret;                      // bound, private
                    out.add(priv.apply(3));
                    ToIntFunction<Sample> unbound = Sample::width;             // unbound virtual
                    out.add(String.valueOf(unbound.applyAsInt(s)));
                    Function<String, Integer> iface = CharSequence::length;    // interface virtual, boxing
                    out.add(String.valueOf(iface.apply("hello")));
                    Supplier<List<String>> ctor = ArrayList::new;              // constructor
                    out.add(ctor.get().getClass().getSimpleName());
                    Function<Integer, Sample> ctor2 = n -> new Sample("n" + n);
                    out.add(ctor2.apply(5).name);
                    Make mk = () -> 42;                                        // box int to Object
                    out.add(String.valueOf(mk.make()));
                    ToIntFunction<Integer> unbox = Integer::intValue;          // unbox
                    out.add(String.valueOf(unbox.applyAsInt(99)));
                    LongSupplier widen = s::width;                             // int widened to long
                    out.add(String.valueOf(widen.getAsLong()));
                    DoubleUnaryOperator wd = Math::abs;
                    out.add(String.valueOf(wd.applyAsDouble(-1.5)));
                    List<String> sink = new ArrayList<>();
                    Consumer<String> drop = sink::add;                         // boolean result dropped
                    drop.accept("kept");
                    out.add(sink.toString());
                    Comparator<String> cmp = Comparator.comparing(String::length);   // interface static use
                    out.add(String.valueOf(cmp.compare("aa", "b")));
                    BiFunction<String, Integer, Character> at = String::charAt;      // char boxed
                    out.add(String.valueOf(at.apply("xyz", 1)));
                    out.add(s.new Inner().viaOuter(9));
                    out.add("same:" + (none() == none()));                     // no capture: one instance
                    for (Object o : new Object[] { null, new Circle(11), new Circle(2), new Square(3), new Dot(), "str", 5 })
                        out.add(kind(o));
                    out.add(shape(new Circle(1)) + shape(new Square(1)) + shape(new Dot()));
                    return out;
                }
            }
            """;

    @TempDir static Path tmp;
    static Path javac, desugared;

    @BeforeAll
    static void compile() throws Exception {
        Path src = tmp.resolve("src/p/Sample.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, SAMPLE);
        javac = tmp.resolve("javac");
        desugared = tmp.resolve("desugared");
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "--release", "25", "-d", javac.toString(), src.toString()));
        copy(javac, desugared);
        Desugar.main(new String[] { desugared.toString() });
    }

    @Test
    void theDesugaredProgramComputesWhatTheLinkedOneDoes() throws Exception {
        List<?> linked = run(javac), ours = run(desugared);
        assertTrue(linked.size() >= 25, linked.toString());
        assertEquals(linked, ours);
        assertTrue(ours.contains("same:true"), "a lambda that captures nothing is one instance: " + ours);
    }

    @Test
    void noLambdaOrTypeSwitchSiteIsLeftAndTheJavacProgramHadThem() throws Exception {
        assertEquals(17 + 2, sites(javac), "javac wrote 17 lambda and 2 type switch sites");
        assertEquals(0, sites(desugared));
    }

    @Test
    void runningItAgainChangesNothing() throws Exception {
        Map<String, byte[]> before = contents(desugared);
        Desugar.main(new String[] { desugared.toString() });
        Map<String, byte[]> after = contents(desugared);
        assertEquals(before.keySet(), after.keySet());
        for (String k : before.keySet()) assertArrayEquals(before.get(k), after.get(k), k);
    }

    @Test
    void aRecompiledHostLosesTheClassesMadeForItsOldSites() throws Exception {
        Path d = tmp.resolve("again");
        copy(desugared, d);
        // javac compiles a source file's classes together: all of them come back with their sites
        try (Stream<Path> s = Files.list(javac.resolve("p"))) {
            for (Path f : s.toList())
                Files.copy(f, d.resolve("p").resolve(f.getFileName().toString()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Path stale = d.resolve("p/Sample$$Lambda$999.class");
        Files.write(stale, new byte[] { 1 });
        Desugar.main(new String[] { d.toString() });
        assertFalse(Files.exists(stale));
        assertEquals(run(javac), run(d));
    }

    private static List<?> run(Path dir) throws Exception {
        try (URLClassLoader l = new URLClassLoader(new URL[] { dir.toUri().toURL() }, ClassLoader.getPlatformClassLoader())) {
            return (List<?>) l.loadClass("p.Sample").getMethod("run").invoke(null);
        }
    }

    private static int sites(Path dir) throws Exception {
        int n = 0;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".class")).toList())
                for (MethodModel m : ClassFile.of().parse(f).methods())
                    if (m.code().isPresent())
                        for (CodeElement e : m.code().get())
                            if (e instanceof InvokeDynamicInstruction i) {
                                String bsm = i.bootstrapMethod().owner().displayName() + "." + i.bootstrapMethod().methodName();
                                if (bsm.equals("LambdaMetafactory.metafactory") || bsm.equals("SwitchBootstraps.typeSwitch")) n++;
                            }
        }
        return n;
    }

    private static Map<String, byte[]> contents(Path dir) throws Exception {
        Map<String, byte[]> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path f : s.filter(Files::isRegularFile).toList()) m.put(dir.relativize(f).toString(), Files.readAllBytes(f));
        }
        return m;
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path f : s.toList()) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) Files.createDirectories(t);
                else Files.copy(f, t);
            }
        }
    }
}
