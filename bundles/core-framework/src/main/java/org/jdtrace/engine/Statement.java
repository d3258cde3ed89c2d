package org.jdtrace.engine;

import java.util.List;
import org.jdtrace.spi.ProbeDescription;

/**
 * One compiled statement (dtrace_stmtdesc_t): the probe descriptions it enables and its body.
 * {@code source} is the description list as written, for messages.
 */
public record Statement(List<ProbeDescription> descriptions, String source, EcbBody body) {}
