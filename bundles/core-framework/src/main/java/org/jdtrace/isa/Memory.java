package org.jdtrace.isa;

/** A target's address space as the emulator and stack walker see it. */
public interface Memory {

    /** Reads exactly {@code len} bytes at {@code addr} into {@code buf[off..]}; faults throw. */
    void read(long addr, byte[] buf, int off, int len) throws IsaException;

    void write(long addr, byte[] buf, int off, int len) throws IsaException;

    default long readLong(long addr) throws IsaException {
        byte[] b = new byte[8];
        read(addr, b, 0, 8);
        return java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    default void writeLong(long addr, long value) throws IsaException {
        byte[] b = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(value).array();
        write(addr, b, 0, 8);
    }
}
