package org.jdtrace.perf;

/** A BPF map or program this bundle created; close() releases its descriptor (idempotent). */
@org.osgi.annotation.versioning.ProviderType
public interface BpfObject extends AutoCloseable {

    int fd();

    /** For maps: sets the 4-byte key's value (4 or 8 bytes wide as the map was made). */
    void update(int key, long value);

    @Override
    void close();
}
