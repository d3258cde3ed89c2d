/**
 * The instruction-set SPI: decoding, function analysis, emulation, relocation, ABI access and stack walking, implemented per ISA by a service bundle (property isa=amd64).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.7.0")
package org.jdtrace.isa;
