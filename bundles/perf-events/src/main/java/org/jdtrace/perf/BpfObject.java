package org.jdtrace.perf;

/** A BPF map or program this bundle created; close() releases its descriptor (idempotent). */
@org.osgi.annotation.versioning.ProviderType
public interface BpfObject extends AutoCloseable {

    int fd();

    /** For maps: sets the 4-byte key's value (4 or 8 bytes wide as the map was made). */
    void update(int key, long value);

    /**
     * For maps with 16-byte values: sets the 4-byte key's value to {@code low} then {@code high}
     * (each in native order).
     *
     * @since 1.5
     */
    default void update(int key, long low, long high) {
        throw new UnsupportedOperationException("not a map of 16-byte values");
    }

    /**
     * For maps with 8-byte values: the 4-byte key's value, or Long.MIN_VALUE when the map has no
     * such key (or is not a map).
     *
     * @since 1.2
     */
    default long lookup(int key) {
        return Long.MIN_VALUE;
    }

    /**
     * For maps of any key and value size: fills {@code value} with the value of {@code key}
     * (a per-CPU map's value is one value per possible CPU, each rounded up to 8 bytes); false when
     * the map has no such key.
     *
     * @since 1.4
     */
    default boolean lookup(byte[] key, byte[] value) {
        return false;
    }

    /**
     * For maps of any key size: fills {@code next} with the key after {@code key} (null: the
     * first key); false when there is none. A walk of a map others update may miss or repeat keys.
     *
     * @since 1.4
     */
    default boolean nextKey(byte[] key, byte[] next) {
        return false;
    }

    @Override
    void close();
}
