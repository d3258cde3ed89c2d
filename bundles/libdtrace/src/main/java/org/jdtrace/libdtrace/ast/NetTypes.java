package org.jdtrace.libdtrace.ast;

import java.util.List;

/**
 * The network address types D's network subroutines are declared with (inet_ntoa6(struct
 * in6_addr *), inet_ntop(int, void *), link_ntop(int, void *)), so that a program can lay out an
 * address in scratch space (alloca(sizeof (struct in6_addr))) and fill it member by member. On
 * illumos they come from the kernel's CTF (netinet/in.h); a DTrace on Linux takes the kernel's
 * own definitions, which are its user-space API (linux/in.h, linux/in6.h): {@code struct in_addr
 * { __be32 s_addr; }} and {@code struct in6_addr { union { __u8 u6_addr8[16]; __be16
 * u6_addr16[8]; __be32 u6_addr32[4]; } in6_u; }} (the ALT members are those glibc turns on), laid
 * out as gcc lays them out on x86-64. Immutable after class initialisation.
 */
public final class NetTypes {

    private NetTypes() {}

    public static final DType U8 = new DType.Int("__u8", 1, false);
    public static final DType BE16 = new DType.Int("__be16", 2, false);
    public static final DType BE32 = new DType.Int("__be32", 4, false);

    public static final DType.Sou IN_ADDR = new DType.Sou("struct in_addr", false);
    public static final DType.Sou IN6_ADDR = new DType.Sou("struct in6_addr", false);

    static {
        IN_ADDR.layOut(List.of("s_addr"), List.of(BE32), List.of(0));
        DType.Sou in6u = new DType.Sou("union (anon)", true);
        in6u.layOut(List.of("u6_addr8", "u6_addr16", "u6_addr32"),
                List.of(new DType.Array(U8, 16), new DType.Array(BE16, 8), new DType.Array(BE32, 4)), List.of(0, 0, 0));
        IN6_ADDR.layOut(List.of("in6_u"), List.of(in6u), List.of(0));
    }
}
