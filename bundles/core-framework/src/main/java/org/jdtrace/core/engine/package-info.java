/**
 * The contract between the framework half of core (probes, ECBs, enablings, providers: package
 * {@code org.jdtrace.core.probe} and friends) and the D half (compiler, runtime state, buffers,
 * aggregations and the consumer's output: {@code org.jdtrace.core.d}). Internal, not exported.
 *
 * <p>The framework half knows nothing of D: it matches a statement's probe descriptions, creates
 * one ECB per matched probe and statement, and on a firing calls the statement's
 * {@link org.jdtrace.core.engine.EcbBody}. The D half knows nothing of probes beyond what a firing
 * hands it.
 */
package org.jdtrace.core.engine;
