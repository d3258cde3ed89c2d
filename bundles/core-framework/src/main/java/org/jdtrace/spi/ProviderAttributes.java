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

    /*
     * The providers' stability, one table (provider, module, function, name, arguments), as the
     * Dynamic Tracing Guide's stability section of each provider's chapter tabulates them and
     * illumos' providers pass them to dtrace_register; each bundle that implements a provider
     * declares its row through Provider.attributes (syscall has two bundles: the kernel-event one
     * and the ptrace one that stands in where kernel events are not allowed). USDT and Java
     * static probes declare nothing (UNDECLARED), as a USDT provider whose definition has no
     * #pragma D attributes.
     */

    /** dtrace: BEGIN, END, ERROR. */
    public static final ProviderAttributes DTRACE = parse("Stable/Stable/Common", "Private/Private/Unknown",
            "Private/Private/Unknown", "Stable/Stable/Common", "Stable/Stable/Common");
    /** profile: profile-N, tick-N. */
    public static final ProviderAttributes PROFILE = parse("Evolving/Evolving/Common", "Unstable/Unstable/Unknown",
            "Private/Private/Unknown", "Evolving/Evolving/Common", "Evolving/Evolving/Common");
    /** syscall. */
    public static final ProviderAttributes SYSCALL = parse("Evolving/Evolving/Common", "Private/Private/Unknown",
            "Unstable/Unstable/ISA", "Evolving/Evolving/Common", "Unstable/Unstable/ISA");
    /** proc. */
    public static final ProviderAttributes PROC = parse("Evolving/Evolving/ISA", "Private/Private/Unknown",
            "Private/Private/Unknown", "Evolving/Evolving/ISA", "Evolving/Evolving/ISA");
    /** sched. */
    public static final ProviderAttributes SCHED = parse("Evolving/Evolving/ISA", "Private/Private/Unknown",
            "Private/Private/Unknown", "Evolving/Evolving/ISA", "Evolving/Evolving/ISA");
    /** pid. */
    public static final ProviderAttributes PID = parse("Evolving/Evolving/ISA", "Private/Private/Unknown",
            "Private/Private/Unknown", "Evolving/Evolving/ISA", "Private/Private/Unknown");
    /** fbt, with Common where the guide says ISA: bytecode does not depend on the ISA. */
    public static final ProviderAttributes FBT = parse("Evolving/Evolving/Common", "Private/Private/Unknown",
            "Private/Private/Unknown", "Evolving/Evolving/Common", "Private/Private/Common");

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
