/*
 * The fbt provider (illumos fbt.c): fbt:<bundle>:<Class>.<method>:entry|return for every method
 * with code of every class of every bundle, bytecode changed only while a probe is enabled.
 *
 * Modules: provideModule records each resolved bundle. Its probes are made from its class files
 * (Bundle.findEntries *.class, read with the ClassFile API, no class loaded) the first time a
 * description that may name fbt is provided, and at once for bundles that resolve after that:
 * a run that never names fbt never reads a class file. A description whose module part is a
 * plain name reads that bundle only; one with glob characters (or none) reads every pending
 * bundle (the provider has no glob matcher of its own to pick the ones it names). Probes of an uninstalled bundle retire
 * through the framework's module-unload path (destroy drops their sites and classes).
 *
 * Names: the function is the class's binary name, a dot and the method name; the overloads of
 * a name are one function (one entry and one return probe, fired by each); constructors are
 * Class.<init>; static initialisers, bridge methods and what the compiler made (synthetic classes,
 * synthetic $-named methods; lambda bodies keep theirs) have no probes.
 *
 * Argument types (dtps_getargdesc, which the D compiler types args[] from): from the method
 * descriptor, `this` first for instance methods but constructors; primitives as the D integer
 * of their width and sign (byte int8_t, char uint16_t, boolean uint8_t, short, int, long;
 * float and double by name, which D reads as int64_t: their value truncated), String as D's
 * "string", any other reference as its Java class name (a handle D reads with stringof). At
 * return: arg0 int (the offset), arg1 the return type. Overloads that differ: java.lang.Object
 * if both are references, else int64_t.
 *
 * Never traced (fbt refusing to trace itself, as fbt_provide_module skips the modules it
 * needs): the system bundle, the framework and D runtime (org.jdtrace.core), this provider, and
 * the logging bundles the firing path may call; their functions are absent from the list.
 *
 * enable/disable (framework lock held, called for each probe): check, mark the function's
 * entry or return on, recompute the class's `wanted` and queue the class; commit(), at the end
 * of the framework's batch, retransforms every queued class in one call, so enabling 10,000
 * probes costs one retransformation of their classes, not 10,000, and is done when the
 * consumer's go returns. The worker thread (jdtrace-fbt) flushes what is queued outside a batch.
 * Checks that refuse a probe with one line (the consumer prints it): no Instrumentation (the
 * reason, once), a method whose rewritten code would exceed the class-file limits, an enabling
 * that would bring the rewritten methods past fbt-max (-x fbt-max=N through Provider.option, or
 * the configuration pid org.jdtrace.fbt; default 50,000): the consumer's go fails whole and its
 * probes are disabled again.
 *
 * Instrumentation: an OSGi service of type java.lang.instrument.Instrumentation (the launcher
 * registers its agent's), else SelfAttach, tried once at the first enable.
 *
 * Way out: deactivate (bundle stop, framework stop: bin/dtrace's Ctrl-C, SIGTERM and normal
 * end stop the framework) empties every class's `wanted`, retransforms every class it ever
 * rewrote (back to its original bytes), removes the transformer and unbinds the runtime.
 * Disabling (consumer end) restores the classes at the framework's commit.
 *
 * Locking: `lock` guards the tables; it is never held while calling the framework (create,
 * retire) from the worker, and the worker never takes the framework's lock. `flushLock`
 * serialises retransformations and is taken before `lock`; the transformer takes neither.
 */
package org.jdtrace.provider.fbt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.AccessFlag;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jdtrace.spi.ArgDesc;
import org.jdtrace.spi.Module;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.jdtrace.spi.ProviderException;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Component(service = Provider.class, property = "provider.name=fbt", configurationPid = "org.jdtrace.fbt",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = FbtProvider.Config.class)
public final class FbtProvider implements Provider {

    @ObjectClassDefinition(name = "jdtrace fbt provider", description = "fbt limits")
    public @interface Config {
        @AttributeDefinition(description = "maximum number of methods rewritten at once (dtrace -x fbt-max)")
        int fbt$_$max() default DEFAULT_MAX;
    }

    public static final String NAME = "fbt";
    static final int DEFAULT_MAX = 50_000;
    /** Methods with more code than this are rewritten once at enable to see that they still fit. */
    static final int SIZE_CHECK = 16_000;

    /** Bundles whose code the firing path runs: never traced. */
    static final Set<String> UNTRACEABLE = Set.of("org.jdtrace.core", "org.jdtrace.libdtrace", "org.jdtrace.provider.fbt",
            "org.apache.felix.framework", "system.bundle", "slf4j.api", "slf4j.simple",
            "org.apache.aries.spifly.dynamic.bundle");

    private static final Logger LOG = LoggerFactory.getLogger(FbtProvider.class);

    private final Object lock = new Object();
    /** Serialises retransformations (commit on the framework's thread, the worker); taken before `lock`. */
    private final Object flushLock = new Object();
    private volatile ProbeRegistry registry;
    private volatile FbtRuntime runtime;
    private volatile int max = DEFAULT_MAX;
    /** Bundles offered and not yet read, by bundle id. */
    private final Map<Long, Bundle> pending = new LinkedHashMap<>();
    /** Classes of the bundles read, by bundle id. */
    private final Map<Long, List<FbtClass>> modules = new HashMap<>();
    /** Every known class by internal name (the transformer's index). */
    private final Map<String, List<FbtClass>> byName = new ConcurrentHashMap<>();
    private final Set<FbtClass> queued = new LinkedHashSet<>();
    /** Every class ever rewritten and not known to be restored: deactivate restores them. */
    private final Set<FbtClass> touched = new LinkedHashSet<>();
    private boolean eager;
    private int rewrittenMethods;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jdtrace-fbt");
        t.setDaemon(true);
        return t;
    });

    private volatile Instrumentation offered;
    private Instrumenter instrumenter;
    private String noInstrumentation;
    private final long attachTimeoutMs;

    public FbtProvider() {
        this(null, 30_000);
    }

    /** For tests and embedding without DS: {@code inst} null means find one (service, else self-attach). */
    public FbtProvider(Instrumentation inst, long attachTimeoutMs) {
        this.offered = inst;
        this.attachTimeoutMs = attachTimeoutMs;
    }

    @Activate
    void activate(Config config) {
        configure(config);
    }

    @Modified
    void configure(Config config) {
        max = config.fbt$_$max();
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unsetInstrumentation")
    void setInstrumentation(Instrumentation inst) {
        offered = inst;
    }

    void unsetInstrumentation(Instrumentation inst) {
        if (offered == inst) offered = null;
    }

    /** Restores every rewritten class, then lets go of the JVM's instrumentation. */
    @Deactivate
    public void deactivate() {
        worker.shutdown();
        try {
            worker.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        restoreAll();
    }

    private void restoreAll() {
        List<FbtClass> back = new ArrayList<>();
        Instrumenter in;
        synchronized (lock) {
            for (List<FbtClass> l : modules.values()) {
                for (FbtClass c : l) {
                    for (FbtClass.Function f : c.functions.values()) {
                        f.entryOn = false;
                        f.returnOn = false;
                    }
                }
            }
            for (FbtClass c : touched) {
                c.wanted = Map.of();
                back.add(c);
            }
            touched.clear();
            queued.clear();
            rewrittenMethods = 0;
            in = instrumenter;
            instrumenter = null;
        }
        if (in != null) {
            try {
                in.retransform(back);
            } finally {
                in.close();
            }
        }
        FbtRuntime rt = runtime;
        if (rt != null) rt.unbindIfBound();
    }

    public int fbtMax() {
        return max;
    }

    @Override
    public org.jdtrace.spi.ProviderAttributes attributes() {
        return org.jdtrace.spi.ProviderAttributes.FBT;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void attach(ProbeRegistry registry) {
        this.registry = registry;
        // the call sites are bound at the first enable (FbtRuntime.bindOnce): nothing at start-up
        this.runtime = new FbtRuntime(registry);
    }

    @Override
    public void option(String name, long value) {
        if (name.equals("fbt-max")) {
            max = (int) Math.min(Integer.MAX_VALUE, value);
        }
    }

    // ------------------------------------------------------------------ modules and probes

    @Override
    public void provideModule(Module module) {
        if (!(module.handle() instanceof Bundle b) || !traceable(b)) return;
        boolean now;
        synchronized (lock) {
            if (modules.containsKey(b.getBundleId())) return;
            pending.put(b.getBundleId(), b);
            now = eager;
        }
        if (now) readPending(x -> x == b);
    }

    @Override
    public void provide(ProbeDescription desc) {
        // a description that cannot name an fbt probe (another provider's, or a name other than
        // entry and return: BEGIN, tick-1s) reads no class file; dtrace -n BEGIN read them all
        if (!org.jdtrace.spi.Glob.matchesPart(desc.provider(), NAME)
                || !org.jdtrace.spi.Glob.matchesPart(desc.name(), "entry")
                        && !org.jdtrace.spi.Glob.matchesPart(desc.name(), "return")) {
            return;
        }
        synchronized (lock) {
            eager = true;
        }
        // a module part without glob characters names one bundle: only it is read now
        String m = desc.module();
        boolean exact = !m.isEmpty() && m.chars().noneMatch(ch -> "*?[]\\!".indexOf(ch) >= 0);
        readPending(exact ? x -> m.equals(x.getSymbolicName()) : x -> true);
    }

    static boolean traceable(Bundle b) {
        return b.getBundleId() != 0 && b.getSymbolicName() != null && !UNTRACEABLE.contains(b.getSymbolicName())
                && b.getHeaders().get(org.osgi.framework.Constants.FRAGMENT_HOST) == null;
    }

    /** Reads the pending bundles {@code which} accepts and makes their probes. */
    private void readPending(java.util.function.Predicate<Bundle> which) {
        while (true) {
            Bundle b;
            synchronized (lock) {
                b = pending.values().stream().filter(which).findFirst().orElse(null);
                if (b == null) return;
                pending.remove(b.getBundleId());
                modules.put(b.getBundleId(), List.of());
            }
            long t0 = System.nanoTime();
            List<FbtClass> classes = read(b);
            synchronized (lock) {
                if (!modules.containsKey(b.getBundleId())) continue; // retired meanwhile
                modules.put(b.getBundleId(), classes);
                for (FbtClass c : classes) {
                    byName.computeIfAbsent(c.internalName, k -> new CopyOnWriteArrayList<>()).add(c);
                }
            }
            createProbes(b, classes);
            LOG.debug("fbt: {}: {} classes read, probes made in {} ms", b.getSymbolicName(), classes.size(),
                    (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /**
     * The bundle's classes and their traceable methods, from its class files. What cannot be
     * instrumented gets no probes, decided here, as fbt_provide_module skips what it cannot patch: a class the JVM cannot link (linkable), and
     * a method whose code or descriptor names a type the bundle cannot load (an optional import
     * left unwired, a missing class): rewriting it means computing its stack maps again, which
     * needs that type's place in the class hierarchy, which nothing can read (a guess would be
     * refused by the JVM's verifier, or worse, pass it wrongly). Only the classes whose constant
     * pool names such a type have their methods' code read here; the rest cost a look at their
     * constant pool.
     */
    static List<FbtClass> read(Bundle b) {
        List<FbtClass> out = new ArrayList<>();
        Enumeration<URL> e;
        try {
            e = b.findEntries("/", "*.class", true);
        } catch (IllegalStateException gone) {
            return out;
        }
        if (e == null) return out;
        ClassFile cf = ClassFile.of();
        BundleWiring wiring = b.adapt(BundleWiring.class);
        ClassLoader loader = wiring == null ? null : wiring.getClassLoader();
        Map<String, ClassModel> models = new LinkedHashMap<>();
        while (e.hasMoreElements()) {
            URL u = e.nextElement();
            String path = u.getPath();
            if (path.endsWith("module-info.class") || path.endsWith("package-info.class")
                    || path.contains("/META-INF/")) continue;
            ClassModel cm;
            try (InputStream in = u.openStream()) {
                cm = cf.parse(in.readAllBytes());
            } catch (IOException | IllegalArgumentException bad) {
                LOG.debug("fbt: cannot read {} of {}: {}", path, b.getSymbolicName(), bad.toString());
                continue;
            }
            if (Rewriter.traceable(cm)) models.put(cm.thisClass().asInternalName(), cm);
        }
        Map<String, Boolean> linkable = new HashMap<>();
        Map<String, Boolean> loadable = new HashMap<>();
        java.util.function.Predicate<String> visible = n -> loadable.computeIfAbsent(n,
                x -> models.containsKey(x) ? linkable(x, models, loader, linkable)
                        : x.startsWith("java/") || loader == null || loader.getResource(x + ".class") != null);
        for (ClassModel cm : models.values()) {
            if (!linkable(cm.thisClass().asInternalName(), models, loader, linkable)) {
                LOG.debug("fbt: {} of {} cannot be linked (a supertype its bundle cannot load): no probes",
                        cm.thisClass().asInternalName(), b.getSymbolicName());
                continue;
            }
            boolean allVisible = Rewriter.referencedTypes(cm).stream().allMatch(visible);
            FbtClass c = new FbtClass(b, cm.thisClass().asInternalName());
            Map<String, List<FbtClass.Overload>> by = new LinkedHashMap<>();
            for (MethodModel m : cm.methods()) {
                if (!Rewriter.traceable(m)) continue;
                if (!allVisible && !Rewriter.referencedTypes(m).stream().allMatch(visible)) {
                    LOG.debug("fbt: {}.{} of {} names a type its bundle cannot load: no probes",
                            c.binaryName, m.methodName().stringValue(), b.getSymbolicName());
                    continue;
                }
                int len = m.code().map(code -> code instanceof java.lang.classfile.attribute.CodeAttribute a
                        ? a.codeLength() : 0).orElse(0);
                by.computeIfAbsent(m.methodName().stringValue(), k -> new ArrayList<>())
                        .add(new FbtClass.Overload(m.methodType().stringValue(), m.flags().has(AccessFlag.STATIC), len));
            }
            Map<String, FbtClass.Function> fns = new LinkedHashMap<>();
            by.forEach((name, list) -> fns.put(name, new FbtClass.Function(c, name, List.copyOf(list))));
            c.functions = fns;
            out.add(c);
        }
        return out;
    }

    /**
     * True when the JVM can link class {@code name} of a bundle: each of its supertypes is one of
     * the bundle's own linkable classes or a class the bundle's loader finds (a JDK class, an
     * imported one). A supertype from an optional import that is not wired makes loading the
     * class fail (NoClassDefFoundError): no code of it can ever run, and the JVM refuses to
     * retransform it, so it gets no probes (fbt_provide_module skips what it cannot instrument).
     * Memoised in {@code memo}; a cycle (none in valid class files) counts as linkable.
     */
    static boolean linkable(String name, Map<String, ClassModel> own, ClassLoader loader, Map<String, Boolean> memo) {
        Boolean known = memo.get(name);
        if (known != null) return known;
        ClassModel cm = own.get(name);
        boolean ok;
        if (cm == null) {
            ok = name.startsWith("java/") || loader == null || loader.getResource(name + ".class") != null;
        } else {
            memo.put(name, true);
            ok = cm.superclass().map(s -> linkable(s.asInternalName(), own, loader, memo)).orElse(true);
            for (var i : cm.interfaces()) ok = ok && linkable(i.asInternalName(), own, loader, memo);
        }
        memo.put(name, ok);
        return ok;
    }

    private void createProbes(Bundle b, List<FbtClass> classes) {
        ProbeRegistry r = registry;
        FbtRuntime rt = runtime;
        if (r == null || rt == null) return;
        String module = b.getSymbolicName();
        for (FbtClass c : classes) {
            for (FbtClass.Function f : c.functions.values()) {
                // the sites first: create() may enable the probe at once for a retained enabling
                synchronized (lock) {
                    f.entrySite = rt.reserveSite();
                    f.returnSite = rt.reserveSite();
                }
                rt.bindSite(f.entrySite, r.create(NAME, module, f.name(), "entry", new Site(f, true)));
                rt.bindSite(f.returnSite, r.create(NAME, module, f.name(), "return", new Site(f, false)));
            }
        }
    }

    /** A probe's provider argument: its function and which end. */
    record Site(FbtClass.Function function, boolean entry) {}

    @Override
    public void destroy(Probe probe) {
        if (!(probe.providerArg() instanceof Site s)) return;
        FbtClass.Function f = s.function();
        FbtRuntime rt = runtime;
        synchronized (lock) {
            int site = s.entry() ? f.entrySite : f.returnSite;
            if (rt != null && site >= 0) rt.removeSite(site);
            if (s.entry()) f.entrySite = -1;
            else f.returnSite = -1;
            if (f.entrySite < 0 && f.returnSite < 0) {
                forgetIfGone(f.owner);
            }
        }
    }

    /** Drops a class whose every probe was destroyed (its bundle was uninstalled or refreshed). Lock held. */
    private void forgetIfGone(FbtClass c) {
        for (FbtClass.Function f : c.functions.values()) {
            if (f.entrySite >= 0 || f.returnSite >= 0) return;
        }
        long id = c.bundle.getBundleId();
        List<FbtClass> l = modules.get(id);
        if (l != null && l.contains(c)) {
            List<FbtClass> rest = new ArrayList<>(l);
            rest.remove(c);
            if (rest.isEmpty()) modules.remove(id);
            else modules.put(id, rest);
        }
        List<FbtClass> named = byName.get(c.internalName);
        if (named != null) {
            named.remove(c);
            if (named.isEmpty()) byName.remove(c.internalName, named);
        }
    }

    // ------------------------------------------------------------------ enable / disable

    @Override
    public void enable(Probe probe) {
        if (!(probe.providerArg() instanceof Site s)) return;
        FbtClass.Function f = s.function();
        Instrumenter in = instrumenter();
        FbtRuntime rt = runtime;
        if (rt != null) rt.bindOnce(); // before any class is rewritten to call it
        if (f.maxCodeLength() > SIZE_CHECK) {
            checkSize(f, in);
        }
        synchronized (lock) {
            boolean was = f.entryOn || f.returnOn;
            if (!was && rewrittenMethods + f.overloads.size() > max) {
                throw new ProviderException("enabling " + probe.description() + " would rewrite more than fbt-max ("
                        + max + ") methods; raise it with -x fbt-max=N", "D_FBT_MAX");
            }
            if (s.entry()) f.entryOn = true;
            else f.returnOn = true;
            if (!was) rewrittenMethods += f.overloads.size();
            requeue(f.owner, in);
        }
    }

    @Override
    public void disable(Probe probe) {
        if (!(probe.providerArg() instanceof Site s)) return;
        FbtClass.Function f = s.function();
        synchronized (lock) {
            boolean was = f.entryOn || f.returnOn;
            if (s.entry()) f.entryOn = false;
            else f.returnOn = false;
            if (was && !f.entryOn && !f.returnOn) rewrittenMethods -= f.overloads.size();
            if (instrumenter != null) requeue(f.owner, instrumenter);
        }
    }

    /** Recomputes {@code c}'s wanted methods and queues it for the worker. Lock held. */
    private void requeue(FbtClass c, Instrumenter in) {
        assert Thread.holdsLock(lock);
        Map<String, Rewriter.Sites> w = new HashMap<>();
        for (FbtClass.Function f : c.functions.values()) {
            if (f.entryOn || f.returnOn) {
                w.put(f.method, new Rewriter.Sites(f.entryOn ? f.entrySite : -1, f.returnOn ? f.returnSite : -1));
            }
        }
        c.wanted = w.isEmpty() ? Map.of() : Map.copyOf(w);
        if (!w.isEmpty()) touched.add(c);
        if (queued.add(c) && queued.size() == 1) {
            try {
                worker.execute(() -> flush(in));
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // deactivate restores everything
            }
        }
    }

    /** The end of the framework's batch: every queued class is retransformed before it returns. */
    @Override
    public void commit() {
        Instrumenter in;
        synchronized (lock) {
            if (queued.isEmpty()) return;
            in = instrumenter;
        }
        if (in != null) flush(in);
    }

    /** Retransforms every queued class in one call (commit, or the worker for enables outside a batch). */
    private void flush(Instrumenter in) {
        synchronized (flushLock) {
            List<FbtClass> work;
            synchronized (lock) {
                work = new ArrayList<>(queued);
                queued.clear();
            }
            if (work.isEmpty()) return;
            long t0 = System.nanoTime();
            in.retransform(work);
            LOG.debug("fbt: {} classes retransformed in {} ms", work.size(), (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** The Instrumentation in use, null before the first enable (tests). */
    Instrumentation instrumentation() {
        synchronized (lock) {
            return instrumenter == null ? null : instrumenter.instrumentation();
        }
    }

    /** Waits until every queued class is retransformed (tests). */
    public void awaitRetransforms() throws InterruptedException {
        try {
            worker.submit(() -> { }).get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The method's rewritten code must fit in a class file: rewrite it alone to see. */
    private void checkSize(FbtClass.Function f, Instrumenter in) {
        ClassLoader l = f.owner.loader();
        String entry = f.owner.internalName + ".class";
        URL u = f.owner.bundle.getEntry(entry);
        if (u == null || l == null) return;
        try (InputStream bytes = u.openStream()) {
            Rewriter.rewrite(bytes.readAllBytes(), Map.of(f.method, new Rewriter.Sites(0, 1)), in.resolver(l));
        } catch (Rewriter.TooLarge e) {
            throw new ProviderException("fbt:" + f.owner.bundle.getSymbolicName() + ":" + f.name()
                    + ": method too large to instrument (" + f.maxCodeLength() + " bytes of code; "
                    + Rewriter.MAX_CODE + " at most once rewritten)", "D_FBT_SIZE");
        } catch (IOException | IllegalArgumentException e) {
            // unreadable or not rewritable for another reason: the transformer says so when it loads
        }
    }

    /** The instrumenter, made at the first enable; throws the one line when there is no Instrumentation. */
    private Instrumenter instrumenter() {
        synchronized (lock) {
            if (instrumenter != null) return instrumenter;
            if (noInstrumentation != null && offered == null) throw new ProviderException(noInstrumentation);
        }
        Instrumentation inst = offered;
        if (inst == null) {
            try {
                inst = SelfAttach.attach(attachTimeoutMs);
            } catch (IOException | RuntimeException e) {
                String why = "fbt probes cannot be enabled: no java.lang.instrument.Instrumentation in this JVM ("
                        + e.getMessage() + ")";
                synchronized (lock) {
                    noInstrumentation = why;
                }
                throw new ProviderException(why); // the consumer prints it, once
            }
        }
        if (!inst.isRetransformClassesSupported()) {
            String why = "fbt probes cannot be enabled: this JVM's Instrumentation cannot retransform classes";
            synchronized (lock) {
                noInstrumentation = why;
            }
            throw new ProviderException(why);
        }
        synchronized (lock) {
            if (instrumenter == null) instrumenter = new Instrumenter(inst, byName);
            return instrumenter;
        }
    }

    // ------------------------------------------------------------------ arguments

    @Override
    public ArgDesc argDesc(Probe probe, int index) {
        if (!(probe.providerArg() instanceof Site s)) return null;
        FbtClass.Function f = s.function();
        if (!s.entry()) {
            return switch (index) {
                case 0 -> new ArgDesc(0, "int", null);
                case 1 -> new ArgDesc(1, returnType(f), null);
                default -> null;
            };
        }
        String type = null;
        for (FbtClass.Overload o : f.overloads) {
            List<String> params = params(o, f.method.equals("<init>") ? null : f.owner.binaryName);
            String t = index < params.size() ? params.get(index) : null;
            if (type == null) type = t;
            else if (t == null || !t.equals(type)) type = merged(type, t);
            if (type == null) return null;
        }
        return type == null ? null : new ArgDesc(index, type, null);
    }

    private static String returnType(FbtClass.Function f) {
        String t = null;
        for (FbtClass.Overload o : f.overloads) {
            java.lang.constant.MethodTypeDesc d = java.lang.constant.MethodTypeDesc.ofDescriptor(o.descriptor());
            String r = javaName(d.returnType());
            t = t == null || t.equals(r) ? r : merged(t, r);
        }
        return t;
    }

    /**
     * The type of an argument that overloads of one function declare differently: a reference
     * if both are (java.lang.Object), else the 64-bit value as it is passed (a primitive widened,
     * a reference's handle).
     */
    private static String merged(String a, String b) {
        if (b == null) return "int64_t";
        return isReference(a) && isReference(b) ? "java.lang.Object" : "int64_t";
    }

    private static boolean isReference(String t) {
        return t.equals("string") || t.contains(".") || t.endsWith("[]");
    }

    /** The D-visible parameter types of an overload, {@code this} first for instance methods. */
    private static List<String> params(FbtClass.Overload o, String self) {
        List<String> out = new ArrayList<>();
        if (!o.isStatic() && self != null) out.add(self);
        for (java.lang.constant.ClassDesc p : java.lang.constant.MethodTypeDesc.ofDescriptor(o.descriptor()).parameterList()) {
            out.add(javaName(p));
        }
        return out;
    }

    private static String javaName(java.lang.constant.ClassDesc d) {
        if (d.isPrimitive()) {
            // D's integer of the value's width and sign; float and double stay by name (D has no
            // floating point: args[] is their value truncated to int64_t)
            return switch (d.descriptorString()) {
                case "B" -> "int8_t";
                case "C" -> "uint16_t";
                case "Z" -> "uint8_t";
                default -> d.displayName();
            };
        }
        if (d.isArray()) return className(d.componentType()) + "[]";
        if (d.descriptorString().equals("Ljava/lang/String;")) return "string";
        String s = d.descriptorString();
        return s.substring(1, s.length() - 1).replace('/', '.');
    }

    /** Java's name of a class (int, java.lang.String, int[]), for array types. */
    private static String className(java.lang.constant.ClassDesc d) {
        if (d.isPrimitive()) return d.displayName();
        if (d.isArray()) return className(d.componentType()) + "[]";
        String s = d.descriptorString();
        return s.substring(1, s.length() - 1).replace('/', '.');
    }
}
