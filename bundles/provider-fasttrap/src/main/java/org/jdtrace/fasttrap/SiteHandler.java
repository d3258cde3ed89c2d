package org.jdtrace.fasttrap;

import org.osgi.annotation.versioning.ConsumerType;

/** What runs at a tracepoint hit: probe context, lock-free, allocation-free. */
@ConsumerType
@FunctionalInterface
public interface SiteHandler {

    void hit(Hit hit);
}
