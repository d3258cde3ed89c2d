package org.jdtrace.consumer;

import java.util.List;
import org.jdtrace.spi.ProviderAttributes;

/**
 * One probe as {@code dtrace -l} shows it; {@code args} holds the -v argument types and
 * {@code attributes} the stability its provider declares (-v).
 */
public record ProbeInfo(int id, String provider, String module, String function, String name,
        List<String> args, ProviderAttributes attributes) {

    /** A probe whose provider declares no attributes. */
    public ProbeInfo(int id, String provider, String module, String function, String name, List<String> args) {
        this(id, provider, module, function, name, args, ProviderAttributes.UNDECLARED);
    }
}
