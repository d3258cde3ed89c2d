package org.jdtrace.elf;

/**
 * One PLT stub: the address a call to {@code name@plt} goes to, and the GOT slot it jumps
 * through. {@code name} is the imported symbol, or {@code "*IRELATIVE*"} for an IFUNC slot
 * without a symbol.
 */
public record PltEntry(String name, long address, long gotSlot) {}
