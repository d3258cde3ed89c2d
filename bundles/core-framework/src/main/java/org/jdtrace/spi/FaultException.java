package org.jdtrace.spi;

/**
 * A fault in probe context (DTRACEFLT_*), unchecked so generated code and lambdas pass it
 * through untouched: the action stops, the framework fires dtrace:::ERROR
 * with the fault and address, and tracing goes on.
 */
public final class FaultException extends RuntimeException {

    /** DTrace's fault kinds, with the words dtrace(1M) prints for them. */
    public enum Kind {
        UNKNOWN(0, "unknown fault"),
        BADADDR(1, "invalid address"),
        BADALIGN(2, "invalid alignment"),
        ILLOP(3, "illegal operation"),
        DIVZERO(4, "divide-by-zero"),
        NOSCRATCH(5, "out of scratch space"),
        KPRIV(6, "invalid kernel access"),
        UPRIV(7, "invalid user access"),
        TUPOFLOW(8, "tuple stack overflow"),
        BADSTACK(9, "bad stack"),
        /** An invalid size given to alloca(), bcopy(), copyin()...: the address is the size. @since 1.5 */
        BADSIZE(10, "invalid size"),
        /** An index out of a scalar array's bounds: the address is the index. @since 1.5 */
        BADINDEX(11, "index out of bounds");

        public final int code;
        public final String text;

        Kind(int code, String text) {
            this.code = code;
            this.text = text;
        }
    }

    private final Kind kind;
    private final long address;

    public FaultException(Kind kind, long address) {
        super(kind.text, null, false, false);
        this.kind = kind;
        this.address = address;
    }

    public Kind kind() {
        return kind;
    }

    public long address() {
        return address;
    }
}
