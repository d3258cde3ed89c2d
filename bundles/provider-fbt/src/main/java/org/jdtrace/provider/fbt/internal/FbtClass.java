/*
 * FbtClass: one class of a bundle as fbt knows it (the per-module symbol table fbt_provide_module
 * walks): its name, its traceable methods grouped by name (overloads share one function, hence
 * one pair of probes), and which of them are wanted rewritten now.
 *
 * `wanted` is replaced whole (copy-on-write) under the provider's lock and read without it by
 * the transformer, on whatever thread loads or retransforms the class.
 */
package org.jdtrace.provider.fbt.internal;

import java.util.List;
import java.util.Map;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;

final class FbtClass {

    /** One method of the class file: its descriptor, flags and code length. */
    record Overload(String descriptor, boolean isStatic, int codeLength) {}

    /** The function of one method name, with its overloads and, once created, its probe sites. */
    static final class Function {
        final FbtClass owner;
        final String method;
        final List<Overload> overloads;
        int entrySite = -1;
        int returnSite = -1;
        boolean entryOn;
        boolean returnOn;

        Function(FbtClass owner, String method, List<Overload> overloads) {
            this.owner = owner;
            this.method = method;
            this.overloads = overloads;
        }

        /** The probe function name: the class's binary name, a dot, the method name. */
        String name() {
            return owner.binaryName + "." + method;
        }

        int maxCodeLength() {
            int m = 0;
            for (Overload o : overloads) m = Math.max(m, o.codeLength());
            return m;
        }
    }

    final Bundle bundle;
    final String internalName;
    final String binaryName;
    Map<String, Function> functions = Map.of();
    volatile Map<String, Rewriter.Sites> wanted = Map.of();
    /** The JVM or Rewriter refused it: it stays original (one warning was printed). */
    volatile boolean broken;

    FbtClass(Bundle bundle, String internalName) {
        this.bundle = bundle;
        this.internalName = internalName;
        this.binaryName = internalName.replace('/', '.');
    }

    /** The bundle's class loader now, or null when it has none (not resolved, a fragment). */
    ClassLoader loader() {
        BundleWiring w = bundle.adapt(BundleWiring.class);
        return w == null ? null : w.getClassLoader();
    }

    @Override
    public String toString() {
        return binaryName;
    }
}
