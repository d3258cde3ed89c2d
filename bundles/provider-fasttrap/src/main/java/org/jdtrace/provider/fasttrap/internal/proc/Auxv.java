package org.jdtrace.provider.fasttrap.internal.proc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;

/** The ELF auxiliary vector of a process, from /proc/PID/auxv. */
final class Auxv {

    static final int AT_PHDR = 3, AT_BASE = 7, AT_ENTRY = 9, AT_SYSINFO_EHDR = 33;

    private Auxv() {}

    /** The value of {@code type}, or 0 when absent or unreadable. */
    static long get(int pid, int type) {
        try {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(org.jdtrace.proc.Procfs.file(pid, "auxv")))
                    .order(ByteOrder.LITTLE_ENDIAN);
            while (b.remaining() >= 16) {
                long t = b.getLong();
                long v = b.getLong();
                if (t == type) return v;
                if (t == 0) break;
            }
        } catch (IOException e) {
            // gone
        }
        return 0;
    }
}
