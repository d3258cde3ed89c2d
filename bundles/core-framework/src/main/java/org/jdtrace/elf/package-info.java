/**
 * A read-only ELF64 little-endian reader for the providers that instrument user code: headers,
 * sections, segments, symbols ({@code .symtab} else {@code .dynsym}), code bytes by virtual
 * address, PLT slots and SystemTap SDT notes. Entry point: {@link org.jdtrace.elf.ElfFile#open}.
 * Malformed files give {@link org.jdtrace.elf.ElfException}, never an unchecked exception.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package org.jdtrace.elf;
