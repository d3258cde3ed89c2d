package org.jdtrace.sdt;

/**
 * The type of a static probe's argument, and how D sees it (dtps_getargdesc's native type):
 * integers are arg<i>N</i> as they are; a string is a pointer-like handle in arg<i>N</i> that
 * {@code copyinstr(argN)} reads in that firing, the way a USDT probe's {@code char *} is read.
 */
public enum ArgType {
    /** A Java long: {@code long} in D. */
    LONG("long"),
    /** A Java int (a long passed is narrowed with its sign): {@code int} in D. */
    INT("int"),
    /** A String (any other object passed is shown by its toString()): {@code char *} in D. */
    STRING("char *");

    private final String cType;

    ArgType(String cType) {
        this.cType = cType;
    }

    /** The type as D spells it ({@code dtrace -lv}). */
    public String cType() {
        return cType;
    }
}
