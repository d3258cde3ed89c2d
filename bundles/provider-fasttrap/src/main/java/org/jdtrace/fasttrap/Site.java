package org.jdtrace.fasttrap;

import org.osgi.annotation.versioning.ProviderType;

/** One user's hold on a shared tracepoint. */
@ProviderType
public interface Site extends AutoCloseable {

    long pc();

    /** Stops this handler; the last one out puts the original instruction back. Idempotent. */
    @Override
    void close();
}
