/**
 * The provider SPI: what dtrace(7d) offers to providers (dtrace_register, dtrace_probe_create, dtrace_probe) and what providers implement (dtrace_pops_t).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.12.0")
package org.jdtrace.spi;
