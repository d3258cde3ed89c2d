/**
 * Static probes in Java (DTrace's USDT for bundles, JSDT's successor): a bundle declares a
 * provider and its typed probes once ({@link org.jdtrace.sdt.StaticProvider#define}) and fires
 * them in its code ({@link org.jdtrace.sdt.StaticProbe#fire}); a disabled probe costs one
 * volatile read. The probes appear as {@code provider:bundle::name} while the declaring bundle is
 * started and provider-sdt runs.
 *
 * <p>The package lives in core-framework, not in provider-sdt, for the reason illumos keeps its
 * SDT probe sites in the kernel and not in the sdt module: a bundle that fires probes must
 * resolve, and fire (into nothing), whether or not the provider is there, and must not be
 * refreshed when the provider is stopped, updated or uninstalled. provider-sdt attaches through
 * {@link org.jdtrace.sdt.StaticProbeTable#bind} when it starts and arms the probes that are
 * enabled.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jdtrace.sdt;
