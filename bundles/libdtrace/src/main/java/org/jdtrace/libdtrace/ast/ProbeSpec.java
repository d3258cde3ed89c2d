package org.jdtrace.libdtrace.ast;

import org.jdtrace.spi.ProbeDescription;

/**
 * One probe description of a clause: {@code text} as written, {@code expanded} with macros
 * replaced ({@code pid$target} -> {@code pid1234}), and the four-part {@link ProbeDescription}.
 */
public record ProbeSpec(int line, String text, String expanded, ProbeDescription description) {}
