package org.jdtrace.spi;

/**
 * What a provider declares of the stability of its probe descriptions' four parts and of its
 * probes' arguments (dtrace_pattr_t, given to dtrace_register). The D compiler takes a clause's
 * description attributes from them (dtrace -v) and dtrace -lv prints them.
 *
 * @since 1.5
 */
public record ProviderAttributes(Attributes provider, Attributes module, Attributes function, Attributes name,
        Attributes args) {

    /** A provider that declares nothing: Unstable/Unstable/Common throughout (_dtrace_prvdesc). */
    public static final ProviderAttributes UNDECLARED = new ProviderAttributes(Attributes.UNSTABLE_COMMON,
            Attributes.UNSTABLE_COMMON, Attributes.UNSTABLE_COMMON, Attributes.UNSTABLE_COMMON,
            Attributes.UNSTABLE_COMMON);

    /**
     * The syscall provider's, as the Dynamic Tracing Guide tabulates them: one table for each
     * bundle that implements syscall (the kernel-event one and the ptrace one that stands in
     * where kernel events are not allowed).
     */
    public static final ProviderAttributes SYSCALL = parse("Evolving/Evolving/Common", "Private/Private/Unknown",
            "Unstable/Unstable/ISA", "Evolving/Evolving/Common", "Unstable/Unstable/ISA");

    public ProviderAttributes {
        if (provider == null || module == null || function == null || name == null || args == null) {
            throw new IllegalArgumentException("an attribute is missing");
        }
    }

    /** {@code provider/module/function/name/args}, each as {@link Attributes#parse} takes it. */
    public static ProviderAttributes parse(String p, String m, String f, String n, String a) {
        return new ProviderAttributes(Attributes.parse(p), Attributes.parse(m), Attributes.parse(f),
                Attributes.parse(n), Attributes.parse(a));
    }
}
