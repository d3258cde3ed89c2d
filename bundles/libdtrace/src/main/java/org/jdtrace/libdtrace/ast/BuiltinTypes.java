package org.jdtrace.libdtrace.ast;

import java.util.HashMap;
import java.util.Map;

/**
 * The type names D knows before any typedef: C's base types (in any of their spellings, e.g.
 * {@code unsigned}, {@code long int}, {@code signed char}), {@code string}, and the typedefs of
 * D's standard environment ({@code int8_t}..{@code uint64_t}, {@code size_t}, {@code pid_t}...), LP64.
 */
public final class BuiltinTypes {

    private static final Map<String, DType> TYPES = new HashMap<>();

    static {
        put(DType.CHAR, "char", "signed char");
        put(DType.UCHAR, "unsigned char");
        put(DType.SHORT, "short", "short int", "signed short", "signed short int");
        put(DType.USHORT, "unsigned short", "unsigned short int");
        put(DType.INT, "int", "signed", "signed int");
        put(DType.UINT, "unsigned", "unsigned int");
        put(DType.LONG, "long", "long int", "signed long", "signed long int");
        put(DType.ULONG, "unsigned long", "unsigned long int");
        put(DType.LLONG, "long long", "long long int", "signed long long", "signed long long int");
        put(DType.ULLONG, "unsigned long long", "unsigned long long int");
        put(DType.STRING, "string");
        put(new DType.Int("bool", 1, false), "bool", "_Bool");
        put(DType.VOID, "void");
        put(new DType.Float("float", 4), "float");
        put(new DType.Float("double", 8), "double");
        put(new DType.Float("long double", 16), "long double");
        typedef("int8_t", 1, true);
        typedef("int16_t", 2, true);
        typedef("int32_t", 4, true);
        typedef("int64_t", 8, true);
        typedef("uint8_t", 1, false);
        typedef("uint16_t", 2, false);
        typedef("uint32_t", 4, false);
        typedef("uint64_t", 8, false);
        typedef("intptr_t", 8, true);
        typedef("uintptr_t", 8, false);
        typedef("ptrdiff_t", 8, true);
        typedef("size_t", 8, false);
        typedef("ssize_t", 8, true);
        typedef("off_t", 8, true);
        typedef("off64_t", 8, true);
        typedef("loff_t", 8, true);
        typedef("pid_t", 4, true);
        typedef("id_t", 4, true);
        typedef("uid_t", 4, false);
        typedef("gid_t", 4, false);
        typedef("time_t", 8, true);
        typedef("hrtime_t", 8, true);
        typedef("uchar_t", 1, false);
        typedef("ushort_t", 2, false);
        typedef("uint_t", 4, false);
        typedef("ulong_t", 8, false);
        typedef("longlong_t", 8, true);
        typedef("u_longlong_t", 8, false);
        typedef("boolean_t", 4, true);
        typedef("processorid_t", 4, true);
        typedef("psetid_t", 4, true);
        typedef("zoneid_t", 4, true);
        typedef("dev_t", 8, false);
        typedef("major_t", 4, false);
        typedef("minor_t", 4, false);
        typedef("ino_t", 8, false);
        typedef("mode_t", 4, false);
        typedef("nlink_t", 4, false);
        typedef("ipaddr_t", 4, false);
        typedef("in_addr_t", 4, false);
        typedef("in_port_t", 2, false);
        typedef("socklen_t", 4, false);
        typedef("clock_t", 8, true);
        typedef("u_int", 4, false);
        typedef("u_long", 8, false);
        typedef("u_char", 1, false);
        typedef("u_short", 2, false);
        TYPES.put("caddr_t", new DType.Ptr(DType.CHAR));
        // the Linux kernel's fixed-width names (asm-generic/int-ll64.h, linux/types.h), which its
        // types (and so DTrace on Linux's) are written in
        typedef("__s8", 1, true);
        typedef("__s16", 2, true);
        typedef("__s32", 4, true);
        typedef("__s64", 8, true);
        put(NetTypes.U8, "__u8");
        typedef("__u16", 2, false);
        typedef("__u32", 4, false);
        typedef("__u64", 8, false);
        typedef("__le16", 2, false);
        typedef("__le32", 4, false);
        typedef("__le64", 8, false);
        put(NetTypes.BE16, "__be16");
        put(NetTypes.BE32, "__be32");
        typedef("__be64", 8, false);
        typedef("ushort", 2, false); // sys/types.h's (and the kernel's) short names
        typedef("uint", 4, false);
        typedef("ulong", 8, false);
        TYPES.put("struct in_addr", NetTypes.IN_ADDR);
        TYPES.put("struct in6_addr", NetTypes.IN6_ADDR);
        TYPES.put("in6_addr_t", NetTypes.IN6_ADDR);
        TYPES.put("psinfo_t", ProcfsTypes.PSINFO);
        TYPES.put("struct psinfo", ProcfsTypes.PSINFO);
        TYPES.put("lwpsinfo_t", ProcfsTypes.LWPSINFO);
        TYPES.put("struct lwpsinfo", ProcfsTypes.LWPSINFO);
        for (String t : new String[] {"cpuinfo_t", "fileinfo_t", "bufinfo_t",
                "devinfo_t", "conninfo_t", "pktinfo_t", "ipinfo_t", "ifinfo_t", "tcpinfo_t", "tcpsinfo_t",
                "tcplsinfo_t", "udpinfo_t", "udpsinfo_t", "ipv4info_t", "ipv6info_t", "vnode_t", "proc_t",
                "kthread_t", "dtrace_state_t"}) {
            TYPES.put(t, new DType.Tagged(t, 0));
        }
    }

    private static void put(DType t, String... names) {
        for (String n : names) {
            TYPES.put(n, t);
        }
    }

    private static void typedef(String name, int size, boolean signed) {
        TYPES.put(name, new DType.Int(name, size, signed));
    }

    private BuiltinTypes() {}

    /** The type a builtin spelling names, or null. */
    public static DType lookup(String spelling) {
        return TYPES.get(spelling);
    }

    /** True for a single word that names a type by itself (typedef names, {@code string}...). */
    public static boolean isTypedefName(String word) {
        return TYPES.containsKey(word) && word.indexOf(' ') < 0;
    }
}
