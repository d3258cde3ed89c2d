/*
 * AotTraining: what the launcher does differently in the build's AOT training run
 * (-Djdtrace.aot.training=true, launcher/pom.xml), so that the cache holds every bundle class the
 * run loaded. Outside that run Main makes none and nothing changes.
 *
 * The JVM writes the AOT configuration when it exits, after the framework has stopped, and two
 * things lost bundle classes on the way there:
 *  - A full GC after the stop unloads the classes of every bundle whose class loader nothing
 *    references any more: the profile training run's "Pause Full (Metadata GC Threshold)" at ~3 s
 *    (-Xlog:gc,class+unload) unloaded provider-fasttrap's, -fbt's and -sdt's 56 classes, so every
 *    dtrace run read, parsed and verified them from the jars (-Xlog:class+load: 56 classes of
 *    bundles/ not from the cache). {@link #keep} holds each bundle's class loader, and Main holds
 *    this object until it halts the JVM.
 *  - At exit the JVM links each class the run loaded but never linked, and verification may need
 *    classes that a stopped bundle's class loader no longer loads ("Preload Warning: Verification
 *    failed for ..."): such a class is left out of the cache. {@link #link} links every class of the
 *    kept class loaders while the framework still runs (Class.getDeclaredFields links a class
 *    without initialising it), through the launcher agent's Instrumentation.getAllLoadedClasses.
 *
 * Both run on the launcher's thread; a class that does not link (a genuine VerifyError) is left as
 * the JVM would leave it.
 */
package org.jdtrace.launcher;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;

final class AotTraining {

    /** The system property the build's training run sets. */
    static final String PROPERTY = "jdtrace.aot.training";

    private final Set<ClassLoader> loaders = Collections.newSetFromMap(new IdentityHashMap<>());

    private AotTraining() {}

    /** The training run's, or null in every other run. */
    static AotTraining ofRun() {
        return Boolean.getBoolean(PROPERTY) ? new AotTraining() : null;
    }

    /** Holds the class loaders of these (started) bundles until this object is unreachable. */
    void keep(List<Bundle> bundles) {
        for (Bundle b : bundles) {
            BundleWiring wiring = b.adapt(BundleWiring.class);
            ClassLoader loader = wiring == null ? null : wiring.getClassLoader();
            if (loader != null) {
                loaders.add(loader);
            }
        }
    }

    /** Links every loaded class of the kept class loaders; the number of classes that did not link. */
    int link() {
        Instrumentation inst = Agent.instrumentation();
        if (inst == null) {
            return 0;
        }
        List<Class<?>> classes = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (loaders.contains(c.getClassLoader())) {
                classes.add(c);
            }
        }
        int failed = 0;
        for (Class<?> c : classes) {
            try {
                c.getDeclaredFields();
            } catch (LinkageError e) {
                failed++;
            }
        }
        return failed;
    }

    /** The class loaders kept (for tests). */
    int kept() {
        return loaders.size();
    }
}
