/*
 * Instrumenter: fbt's ClassFileTransformer (retransform-capable) and the retransformation of
 * loaded classes. It stands for the writes fbt_enable/fbt_disable make to kernel text.
 *
 * The transformer is handed a class's original bytes on every load and retransformation
 * (java.lang.instrument keeps them): for a class of a bundle fbt knows whose `wanted` is not
 * empty it returns Rewriter's output, else null, which leaves (or puts back) the original
 * bytes. So disabling the last probe of a class and retransforming it restores its bytes, and a
 * class loaded later is rewritten as it loads.
 *
 * retransform(classes) finds the loaded Class objects through the bundles' class loaders
 * (Instrumentation.getInitiatedClasses) and retransforms them in one call; when the JVM refuses
 * the batch, one by one, and a class that still fails is marked broken and skipped with one
 * warning line, in fbt's words (the enabling goes on without it). A class Rewriter cannot
 * rewrite (version, size) is left original with one warning line too. What names a type the
 * class's loader cannot find has no probes (FbtProvider.read).
 *
 * Thread-safety: transform runs on any loading thread and reads only volatile snapshots;
 * retransform is called by the provider's worker only.
 */
package org.jdtrace.provider.fbt.internal;

import java.lang.classfile.ClassHierarchyResolver;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class Instrumenter implements ClassFileTransformer {

    private static final Logger LOG = LoggerFactory.getLogger(Instrumenter.class);

    private final Instrumentation inst;
    private final Map<String, List<FbtClass>> byName;

    Instrumenter(Instrumentation inst, Map<String, List<FbtClass>> byName) {
        this.inst = inst;
        this.byName = byName;
        inst.addTransformer(this, true);
    }

    Instrumentation instrumentation() {
        return inst;
    }

    void close() {
        inst.removeTransformer(this);
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain pd,
            byte[] original) {
        if (className == null || loader == null) return null;
        List<FbtClass> candidates = byName.get(className);
        if (candidates == null) return null;
        for (FbtClass c : candidates) {
            Map<String, Rewriter.Sites> w = c.wanted;
            if (w.isEmpty() || c.broken || c.loader() != loader) continue;
            try {
                return Rewriter.rewrite(original, w, resolver(loader));
            } catch (RuntimeException | LinkageError e) {
                c.broken = true;
                LOG.warn("fbt: {} left untraced: {}", c.binaryName, reason(e));
                return null;
            }
        }
        return null;
    }

    /**
     * True when the JVM refused a class because the class itself cannot be linked (HotSpot
     * links a loaded class before redefining it, and a NoClassDefFoundError there, a type its
     * verifier needs and its loader cannot load, is JVMTI_ERROR_INVALID_CLASS, which
     * java.lang.instrument reports as this InternalError): no code of that class can ever run,
     * so its probes could never fire and nothing is lost; said only in the debug log. A refusal
     * of the rewritten bytes is a VerifyError, ClassFormatError or UnsupportedOperationException.
     */
    private static boolean unlinkable(Throwable e) {
        return e instanceof InternalError && e.getMessage() != null && e.getMessage().endsWith("invalid class");
    }

    /**
     * Why Rewriter refused a class, in one line of fbt's own words (the ClassFile API's and the
     * JVM's messages go to the debug log).
     */
    private static String reason(Throwable e) {
        LOG.debug("fbt: rewrite failed", e);
        String m = e.getMessage();
        if (e instanceof Rewriter.TooLarge || m != null && m.startsWith("class file version")) return m;
        if (m != null && m.startsWith("rewritten code does not verify")) return "its rewritten code would not verify";
        return "its code cannot be rewritten";
    }

    /** One cached resolver per class loader, dropped with the loader. */
    private final Map<ClassLoader, ClassHierarchyResolver> resolvers =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    ClassHierarchyResolver resolver(ClassLoader loader) {
        return resolvers.computeIfAbsent(loader, l -> ClassHierarchyResolver.ofResourceParsing(l)
                .orElse(ClassHierarchyResolver.defaultResolver()).cached());
    }

    /** Retransforms the loaded ones of {@code classes}; those not loaded are rewritten when they load. */
    void retransform(List<FbtClass> classes) {
        Map<ClassLoader, Map<String, Class<?>>> loaded = new IdentityHashMap<>();
        List<Class<?>> todo = new ArrayList<>();
        List<FbtClass> owners = new ArrayList<>();
        for (FbtClass c : classes) {
            ClassLoader l = c.loader();
            if (l == null) continue;
            Map<String, Class<?>> byBinary = loaded.computeIfAbsent(l, x -> {
                Map<String, Class<?>> m = new HashMap<>();
                for (Class<?> k : inst.getInitiatedClasses(x)) {
                    if (k.getClassLoader() == x) m.put(k.getName(), k);
                }
                return m;
            });
            Class<?> k = byBinary.get(c.binaryName);
            if (k != null && inst.isModifiableClass(k)) {
                todo.add(k);
                owners.add(c);
            }
        }
        if (todo.isEmpty()) return;
        try {
            inst.retransformClasses(todo.toArray(Class<?>[]::new));
        } catch (UnmodifiableClassException | RuntimeException | LinkageError | InternalError batch) {
            for (int i = 0; i < todo.size(); i++) {
                try {
                    inst.retransformClasses(todo.get(i));
                } catch (UnmodifiableClassException | RuntimeException | LinkageError | InternalError e) {
                    FbtClass c = owners.get(i);
                    if (!c.broken) {
                        c.broken = true;
                        if (unlinkable(e)) {
                            LOG.debug("fbt: {} cannot be linked, left untraced: {}", c.binaryName, e.toString());
                        } else {
                            LOG.warn("fbt: {} left untraced: the JVM refused its rewritten code", c.binaryName);
                            LOG.debug("fbt: {}: {}", c.binaryName, e.toString());
                        }
                    }
                }
            }
        }
    }
}
