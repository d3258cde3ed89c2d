/**
 * The seam between dtrace(7d) and libdtrace: the framework (bundle org.jdtrace.core: probes, ECBs,
 * enablings, providers, the consumer) and the D compiler and runtime (bundle org.jdtrace.libdtrace:
 * compiler, runtime state, buffers, aggregations and the consumer's output).
 *
 * <p>The framework knows nothing of D: it asks a {@link org.jdtrace.engine.DSessionFactory} service
 * for a {@link org.jdtrace.engine.DSession} per consumer, matches a compiled statement's probe
 * descriptions, creates one ECB per matched probe and statement, and on a firing calls the
 * statement's {@link org.jdtrace.engine.EcbBody}. libdtrace knows nothing of probes beyond what a
 * firing hands it. libdtrace implements these interfaces ({@code @ProviderType}); the framework
 * only calls them.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.6.0")
package org.jdtrace.engine;
