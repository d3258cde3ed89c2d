package org.jdtrace.isa;

/**
 * A parsed SystemTap SDT argument: size in bytes, negative when signed ({@code -4@...}), and the
 * ISA-specific operand it reads. {@code text} is the spec as written.
 */
public record SdtArgument(int size, String text, Object operand) {}
