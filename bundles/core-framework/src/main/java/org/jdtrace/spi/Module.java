package org.jdtrace.spi;

/**
 * A loaded module offered to providers (dtps_provide_module). In the JVM-as-kernel mapping, a
 * module is a bundle: {@link #name()} is its symbolic name. {@link #handle()} is the bundle
 * itself ({@code org.osgi.framework.Bundle}) for providers that need it (fbt).
 */
public interface Module {

    String name();

    long id();

    Object handle();
}
