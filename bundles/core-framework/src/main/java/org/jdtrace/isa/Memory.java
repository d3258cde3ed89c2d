package org.jdtrace.isa;

/** A target's address space as the emulator and stack walker see it. */
public interface Memory {

    /** Reads exactly {@code len} bytes at {@code addr} into {@code buf[off..]}; faults throw. */
    void read(long addr, byte[] buf, int off, int len) throws IsaException;

    void write(long addr, byte[] buf, int off, int len) throws IsaException;

    /**
     * Reads what can be read of {@code len} bytes at {@code addr} into {@code buf[off..]}, in
     * 4 KiB pieces (a page, or a part of one, on every ISA), stopping at the first that faults;
     * answers the count read. A stack walker copies a stack top with it.
     *
     * @since 1.4
     */
    default int readSome(long addr, byte[] buf, int off, int len) {
        int done = 0;
        while (done < len) {
            int piece = (int) Math.min(len - done, 4096 - ((addr + done) & 4095));
            try {
                read(addr + done, buf, off + done, piece);
            } catch (IsaException e) {
                break;
            }
            done += piece;
        }
        return done;
    }

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
