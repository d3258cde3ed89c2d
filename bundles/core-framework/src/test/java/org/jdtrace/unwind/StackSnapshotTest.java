package org.jdtrace.unwind;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import org.jdtrace.isa.IsaException;
import org.junit.jupiter.api.Test;

/**
 * A stack copy read through a caller's buffer (the profile's in-place ring record) reads what the
 * copy holds, word for word as java.nio reads the same bytes little-endian, in any order of
 * reads, and a buffer reused for another copy never answers with the last copy's bytes.
 */
class StackSnapshotTest {

    private static final long BASE = 0x7ffd_1234_5000L;

    @Test
    void aBufferedCopyReadsWhatTheSegmentHolds() throws IsaException {
        Random random = new Random(21);
        byte[] bytes = new byte[8192];
        random.nextBytes(bytes);
        try (Arena arena = Arena.ofConfined()) {
            // the copy at an odd offset of a larger record, as in a ring
            MemorySegment record = arena.allocate(bytes.length + 200);
            MemorySegment.copy(bytes, 0, record, ValueLayout.JAVA_BYTE, 136, bytes.length);
            StackSnapshot s = new StackSnapshot().reset(BASE, record, 136, bytes.length, new byte[bytes.length], null);
            ByteBuffer reference = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            // deep first, then shallow, then unaligned words across the fill steps
            int[] offsets = {4000, 8, 0, 8184, 511, 505, 1023, 3000, 7000, 6999};
            for (int off : offsets) {
                assertEquals(reference.getLong(off), s.readLong(BASE + off), "word at +" + off);
            }
            for (int i = 0; i < 2000; i++) {
                int off = random.nextInt(bytes.length - 7);
                assertEquals(reference.getLong(off), s.readLong(BASE + off), "word at +" + off);
            }
            byte[] buf = new byte[64];
            s.read(BASE + 3000, buf, 0, buf.length);
            assertArrayEquals(java.util.Arrays.copyOfRange(bytes, 3000, 3064), buf);
            assertThrows(IsaException.class, () -> s.readLong(BASE + bytes.length - 4), "past the copy, no fallback");
            assertThrows(IsaException.class, () -> s.readLong(BASE - 8), "below the sp");
        }
    }

    @Test
    void aReusedBufferNeverAnswersWithTheLastCopy() throws IsaException {
        byte[] buffer = new byte[4096];
        MemorySegment first = MemorySegment.ofArray(new byte[4096]).fill((byte) 0x11);
        MemorySegment second = MemorySegment.ofArray(new byte[4096]).fill((byte) 0x22);
        StackSnapshot s = new StackSnapshot();
        s.reset(BASE, first, 0, 4096, buffer, null);
        assertEquals(0x1111_1111_1111_1111L, s.readLong(BASE + 4088), "the first copy, read to its end");
        s.reset(BASE, second, 0, 4096, buffer, null);
        assertEquals(0x2222_2222_2222_2222L, s.readLong(BASE + 4088), "the second copy's last word");
        assertEquals(0x2222_2222_2222_2222L, s.readLong(BASE), "and its first");
        // a shorter copy: a word past its end is outside, whatever the buffer held
        s.reset(BASE, second, 0, 64, buffer, null);
        assertThrows(IsaException.class, () -> s.readLong(BASE + 64));
        assertThrows(IllegalArgumentException.class, () -> s.reset(BASE, second, 0, 4096, new byte[100], null), "a buffer shorter than the copy");
    }
}
