package org.jdtrace.spi;

/**
 * A provider cannot do what it was asked ({@link Provider#provide} for a description it cannot
 * honour, {@link Provider#enable} for a probe it cannot arm). The message is what dtrace(1M)
 * shows after its prefix, worded as dtrace words it ({@code failed to grab pid 123: No such
 * process}, {@code failed to lookup 'foo' in module 'a.out'}); {@link #tag()} is the D_* error
 * tag dtrace prints under {@code -xerrtags} ({@code D_PROC_FUNC}), or null.
 *
 * <p>The framework hands it to the consumer that asked, which reports it as one line
 * ({@code dtrace: invalid probe specifier pid123:a.out:foo:entry: failed to lookup ...},
 * {@code dtrace: could not enable tracing: ...}) and exits 1. Other runtime exceptions from a
 * provider are reported the same way, worded by the framework.
 */
public class ProviderException extends RuntimeException {

    private final String tag;

    public ProviderException(String message) {
        this(message, null, null);
    }

    public ProviderException(String message, String tag) {
        this(message, tag, null);
    }

    public ProviderException(String message, String tag, Throwable cause) {
        super(message, cause);
        this.tag = tag;
    }

    /** The D_* error tag ({@code D_PROC_FUNC}), or null. */
    public String tag() {
        return tag;
    }
}
