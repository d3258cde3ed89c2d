/*
 * A bundle as a kernel module (struct modctl): name = symbolic name, id = bundle ID,
 * handle = the Bundle itself, for providers (fbt) that read its classes.
 */
package org.jdtrace.core.module;

import org.jdtrace.spi.Module;
import org.osgi.framework.Bundle;

public record BundleModule(Bundle bundle) implements Module {

    @Override
    public String name() {
        String n = bundle.getSymbolicName();
        return n != null ? n : "bundle" + bundle.getBundleId();
    }

    @Override
    public long id() {
        return bundle.getBundleId();
    }

    @Override
    public Object handle() {
        return bundle;
    }
}
