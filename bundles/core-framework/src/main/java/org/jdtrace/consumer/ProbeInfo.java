package org.jdtrace.consumer;

import java.util.List;

/** One probe as {@code dtrace -l} shows it; {@code args} holds the -v argument types. */
public record ProbeInfo(int id, String provider, String module, String function, String name,
        List<String> args) {}
