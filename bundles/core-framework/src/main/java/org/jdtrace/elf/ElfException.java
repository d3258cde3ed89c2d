package org.jdtrace.elf;

import java.io.IOException;

/**
 * A file that is not a readable ELF64 little-endian object, or a structure inside it that points
 * outside the file. It is an {@link IOException} so that callers handle I/O and format errors
 * in one place.
 */
public class ElfException extends IOException {

    public ElfException(String message) {
        super(message);
    }

    public ElfException(String message, Throwable cause) {
        super(message, cause);
    }
}
