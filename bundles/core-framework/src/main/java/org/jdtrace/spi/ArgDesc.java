package org.jdtrace.spi;

/**
 * A probe argument's description (dtrace_argdesc_t): index, native C type name as D spells it
 * ({@code int}, {@code char *}, {@code uint64_t}) and the translated type, or null if none.
 */
public record ArgDesc(int index, String nativeType, String translatedType) {}
