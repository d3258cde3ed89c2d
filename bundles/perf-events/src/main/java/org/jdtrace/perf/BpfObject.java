package org.jdtrace.perf;

/** A BPF map or program this bundle created; close() releases its descriptor (idempotent). */
@org.osgi.annotation.versioning.ProviderType
public interface BpfObject extends AutoCloseable {

    int fd();

    /** For maps: sets the 4-byte key's value (4 or 8 bytes wide as the map was made). */
    void update(int key, long value);

    /**
     * For maps with 8-byte values: the 4-byte key's value, or Long.MIN_VALUE when the map has no
     * such key (or is not a map).
     *
     * @since 1.2
     */
    default long lookup(int key) {
        return Long.MIN_VALUE;
    }

    @Override
    void close();
}
