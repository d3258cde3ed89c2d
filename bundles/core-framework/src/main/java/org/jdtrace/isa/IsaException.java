package org.jdtrace.isa;

/** The one failure type of the ISA SPI: undecodable bytes, a refused instruction, a memory fault. */
public class IsaException extends Exception {

    private final long address;

    public IsaException(String message, long address) {
        super(message);
        this.address = address;
    }

    public long address() {
        return address;
    }
}
