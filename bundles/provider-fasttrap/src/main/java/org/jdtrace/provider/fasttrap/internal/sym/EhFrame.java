package org.jdtrace.provider.fasttrap.internal.sym;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSection;

/*
 * Function extents from .eh_frame_hdr and .eh_frame: the unwind tables give every function
 * (symbol or not) its start and length, which is how the pid provider sizes an IFUNC's
 * implementation in a library that has no .symtab (libc's __strlen_avx2 has no symbol at all).
 *
 * Only the encodings every GNU toolchain emits are read: the header's table as datarel sdata4
 * pairs, an FDE's pc_begin as pcrel sdata4 and its pc_range as a 4-byte count; anything else
 * gives no answer. The FDE's own pc_begin must agree with the table entry.
 */
final class EhFrame {

    private EhFrame() {}

    /** {start, size} of the function that contains file address {@code vaddr}, if the tables say. */
    static Optional<long[]> functionAt(ElfFile elf, long vaddr) {
        try {
            Optional<ElfSection> hdrSec = elf.section(".eh_frame_hdr");
            if (hdrSec.isEmpty()) return Optional.empty();
            ElfSection h = hdrSec.get();
            ByteBuffer b = elf.contents(h).order(ByteOrder.LITTLE_ENDIAN);
            int base = b.position();
            if (b.get(base) != 1 || (b.get(base + 1) & 0xff) != 0x1b || (b.get(base + 2) & 0xff) != 0x03
                    || (b.get(base + 3) & 0xff) != 0x3b) {
                return Optional.empty();
            }
            int count = b.getInt(base + 8);
            long hdr = h.addr();
            int lo = 0, hi = count - 1, found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                long init = hdr + b.getInt(base + 12 + mid * 8);
                if (init <= vaddr) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            if (found < 0) return Optional.empty();
            long init = hdr + b.getInt(base + 12 + found * 8);
            long fde = hdr + b.getInt(base + 12 + found * 8 + 4);
            ByteBuffer f = ByteBuffer.wrap(elf.read(fde, 16)).order(ByteOrder.LITTLE_ENDIAN);
            long pcBegin = fde + 8 + f.getInt(8);
            long range = f.getInt(12) & 0xffffffffL;
            if (pcBegin != init || vaddr >= pcBegin + range) return Optional.empty();
            return Optional.of(new long[] {pcBegin, range});
        } catch (ElfException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
