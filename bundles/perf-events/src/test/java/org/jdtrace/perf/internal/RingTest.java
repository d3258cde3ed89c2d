package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RingTest {

    /** An mmap record's device, as /proc/PID/maps writes it: the Formatter's %02x is the reference. */
    @Test
    void aDeviceNumberIsWrittenAsFormatWouldWriteIt() {
        for (int v : new int[] {0, 1, 9, 10, 15, 16, 0xfd, 0xff, 0x100, 0x103, 0xfffff, Integer.MAX_VALUE, -1}) {
            assertEquals(String.format("%02x", v), Ring.hex2(v), "device number " + v);
        }
    }
}
