package org.jdtrace.fasttrap;

import org.jdtrace.isa.IsaException;
import org.osgi.annotation.versioning.ConsumerType;

/** A probe's arguments at a hit (argN): an IsaException becomes a D fault (dtrace:::ERROR). */
@ConsumerType
@FunctionalInterface
public interface ArgumentReader {

    long arg(Hit hit, int index) throws IsaException;
}
