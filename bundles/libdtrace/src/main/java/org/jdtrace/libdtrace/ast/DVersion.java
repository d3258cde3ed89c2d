/*
 * DVersion: the versions of the D language (libdtrace's dt_version.c and _dtrace_versions[]).
 * A version is encoded as DT_VERSION_NUMBER does it, major << 24 | minor << 12 | micro, so that
 * versions compare as integers. Every built-in identifier carries the version that introduced it
 * (DFunction.version(), BuiltinVariable.version(): the DT_VERS_* column of _dtrace_globals[]); a
 * program that asks for an older version (-xversion=, #pragma D option version=) does not see
 * the newer ones, as dt_reduce deletes them from the identifier tables: a call of one is an
 * undefined function, a use of a variable an undefined variable, and the name is free to
 * declare. The version can only go down (EDT_VERSREDUCED) and must be one of the list
 * (EDT_VERSUNDEF); cpp's __SUNW_D_VERSION is the version in force. Constants only: no state.
 */
package org.jdtrace.libdtrace.ast;

import java.util.List;

public final class DVersion {

    private DVersion() {}

    public static final int V1_0 = of(1, 0, 0), V1_1 = of(1, 1, 0), V1_2 = of(1, 2, 0), V1_3 = of(1, 3, 0),
            V1_5 = of(1, 5, 0), V1_6 = of(1, 6, 0), V1_7 = of(1, 7, 0), V1_8 = of(1, 8, 0), V1_9 = of(1, 9, 0),
            V1_10 = of(1, 10, 0), V1_11 = of(1, 11, 0), V1_13 = of(1, 13, 0);

    /** The versions a program may ask for, oldest first (_dtrace_versions[]). */
    public static final List<Integer> DEFINED = List.of(
            of(1, 0, 0), of(1, 1, 0), of(1, 2, 0), of(1, 2, 1), of(1, 2, 2), of(1, 3, 0), of(1, 4, 0), of(1, 4, 1),
            of(1, 5, 0), of(1, 6, 0), of(1, 6, 1), of(1, 6, 2), of(1, 6, 3), of(1, 7, 0), of(1, 7, 1), of(1, 8, 0),
            of(1, 8, 1), of(1, 9, 0), of(1, 9, 1), of(1, 10, 0), of(1, 11, 0), of(1, 12, 0), of(1, 12, 1), V1_13);

    /** The version this compiler implements (DT_VERS_LATEST; dtrace -V's "Sun D 1.13"). */
    public static final int LATEST = V1_13;

    /** DT_VERSION_NUMBER. */
    public static int of(int major, int minor, int micro) {
        return (major & 0xff) << 24 | (minor & 0xfff) << 12 | (micro & 0xfff);
    }

    /** dt_version_str2num: {@code M.m[.u]}, or -1 when malformed or out of range. */
    public static int parse(String s) {
        if (s == null || !s.matches("\\d{1,9}\\.\\d{1,9}(\\.\\d{1,9})?")) return -1;
        String[] p = s.split("\\.");
        int major = Integer.parseInt(p[0]), minor = Integer.parseInt(p[1]), micro = p.length > 2 ? Integer.parseInt(p[2]) : 0;
        if (major > 0xff || minor > 0xfff || micro > 0xfff) return -1;
        return of(major, minor, micro);
    }

    /** dt_version_num2str: {@code M.m}, with {@code .u} when not 0. */
    public static String toString(int v) {
        int micro = v & 0xfff;
        return (v >>> 24) + "." + ((v >>> 12) & 0xfff) + (micro == 0 ? "" : "." + micro);
    }
}
