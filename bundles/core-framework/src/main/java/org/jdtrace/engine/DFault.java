package org.jdtrace.engine;

import org.jdtrace.spi.FaultException;

/** A fault with the position dtrace reports it at: the action index and DIF offset. */
public final class DFault extends RuntimeException {

    public final FaultException.Kind kind;
    public final long address;
    public final int action;
    public final int offset;

    public DFault(FaultException.Kind kind, long address, int action, int offset) {
        super(kind.text, null, false, false);
        this.kind = kind;
        this.address = address;
        this.action = action;
        this.offset = offset;
    }
}
