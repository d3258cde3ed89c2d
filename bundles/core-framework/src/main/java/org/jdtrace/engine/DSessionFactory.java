package org.jdtrace.engine;

/**
 * Makes the D half of a consumer. Implemented by the D compiler's DS component and referenced by
 * the framework's DTrace service, so the two halves meet only through this package.
 */
@org.osgi.annotation.versioning.ProviderType
public interface DSessionFactory {

    DSession create();
}
