/*
 * The kernel's own type information (BTF, /sys/kernel/btf/vmlinux), read for the byte offset of a
 * member of a kernel struct, so that a generated BPF program can read a field the tracepoint does
 * not carry (task_struct.exit_code at sched_process_exit, real_parent and tgid for the ppid) with the layout of the running kernel,
 * never a guessed one. The format is include/uapi/linux/btf.h's: a header, the type section (each
 * struct btf_type followed by its kind's data) and the string section. Only what member offsets
 * need is decoded.
 *
 * Reading: a look-up session (Types, from read(); closed after its look-ups) reads only what its
 * look-ups need, by positional reads of the file: the header, the type section CHUNK bytes at a
 * time, indexed (type id -> offset) as it comes and only as far as the wanted struct (or the
 * anonymous struct a member is in), and the names in the string section a PAGE at a time, a few
 * pages kept (PAGES). The structs jdtrace asks for are near the start of the type section
 * (Linux 6.18: task_struct is type 114, cred 530, all within its first 22 KB of 3 MB) and their
 * names near the start of the string section; the file is 5.5 MB that sysfs gives 4 KB a
 * read(2), so reading it whole (1,351 reads) and indexing its 126,600 types cost a profile run's
 * start ~10 ms of system time and more of interpreted indexing. A struct that is not there is
 * looked for to the end of the type section, as before. A session is one thread's; parent(),
 * task(), leader() and facts() each use one, whose struct look-ups are kept (each struct's type
 * section read once). Errors: PerfException (no BTF, not BTF, no such struct or member); the
 * record makers answer null instead.
 */
package org.jdtrace.perf.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jdtrace.perf.PerfException;

final class Btf {

    static final java.nio.file.Path VMLINUX = java.nio.file.Path.of("/sys/kernel/btf/vmlinux");
    private static final int STRUCT = 4, UNION = 5;
    /** Bytes of the type section read at a time. */
    static final int CHUNK = 1 << 16;
    /** Bytes of the string section read at a time, and how many such pages a session keeps. */
    static final int PAGE = 4096, PAGES = 16;

    private Btf() {}

    /** A look-up session of the kernel's BTF (see Reading), for several look-ups; close it after them. */
    static Types read() {
        FileChannel ch;
        try {
            ch = FileChannel.open(VMLINUX);
        } catch (IOException e) {
            throw new PerfException("the kernel has no BTF type information (" + VMLINUX + ": " + e.getMessage() + ")", 0);
        }
        try {
            return new Types(new FileSource(ch), ch, CHUNK, PAGE);
        } catch (RuntimeException e) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // the error above is the one to report
            }
            throw e;
        }
    }

    /** Positional reads of a BTF image (FileChannel.read's contract: bytes read, -1 at the end). */
    interface Source {
        int read(ByteBuffer dst, long position) throws IOException;
    }

    /** A file's positional reads (a class, not a method reference: no lambda to spin at start-up). */
    private record FileSource(FileChannel ch) implements Source {
        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return ch.read(dst, position);
        }
    }

    /** A session: the type section indexed by type id (ids from 1) as far as read, and the strings (see Reading). */
    static final class Types implements AutoCloseable {
        private final Source src;
        private final AutoCloseable owner;
        private final int chunk, page;
        private final long typeStart, strStart;
        private final int typeLen, strLen;
        /** The type section's first {@code have} bytes, read so far. */
        private byte[] types = new byte[0];
        private ByteBuffer b = ByteBuffer.wrap(types);
        private int have;
        /** at[id] = the offset in {@code types} of type id's struct btf_type, for ids below {@code n}. */
        private int[] at = new int[256];
        private int n = 1;
        /** Where the next type not indexed yet starts in {@code types}. */
        private int scanned;
        /** The string section's pages read, the most recently used last. */
        private final Map<Integer, byte[]> pages = new LinkedHashMap<>(PAGES * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, byte[]> eldest) {
                return size() > PAGES;
            }
        };
        /** The type id of each struct looked up (0: none). */
        private final Map<String, Integer> structs = new HashMap<>();
        /** Bytes read from the source (tests, measurements). */
        long bytesRead;

        /** A whole BTF image in memory. */
        Types(byte[] file) {
            this((dst, pos) -> {
                if (pos >= file.length) return -1;
                int len = (int) Math.min(dst.remaining(), file.length - pos);
                dst.put(file, (int) pos, len);
                return len;
            }, null, CHUNK, PAGE);
        }

        /** {@code owner}: closed with the session (null: nothing); {@code chunk}, {@code page}: the read sizes (see Reading). */
        Types(Source src, AutoCloseable owner, int chunk, int page) {
            this.src = src;
            this.owner = owner;
            this.chunk = chunk;
            this.page = page;
            byte[] h = new byte[24];
            if (fill(h, 0, h.length, 0) < h.length) throw new PerfException(VMLINUX + " is not BTF", 0);
            ByteBuffer hb = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
            if ((hb.getShort(0) & 0xffff) != 0xeb9f) throw new PerfException(VMLINUX + " is not BTF", 0);
            long hdrLen = hb.getInt(4) & 0xffffffffL;
            typeStart = hdrLen + (hb.getInt(8) & 0xffffffffL);
            typeLen = Math.max(0, hb.getInt(12));
            strStart = hdrLen + (hb.getInt(16) & 0xffffffffL);
            strLen = Math.max(0, hb.getInt(20));
        }

        /** Reads {@code len} bytes at {@code pos} into {@code dst[off..]}, fewer at the end of the source: how many. */
        private int fill(byte[] dst, int off, int len, long pos) {
            ByteBuffer buf = ByteBuffer.wrap(dst, off, len);
            try {
                while (buf.hasRemaining()) {
                    int r = src.read(buf, pos + buf.position() - off);
                    if (r <= 0) break;
                }
            } catch (IOException e) {
                throw new PerfException("cannot read " + VMLINUX + ": " + e.getMessage(), 0);
            }
            int got = buf.position() - off;
            bytesRead += got;
            return got;
        }

        /** Reads the next chunk of the type section and indexes its whole types; false at the section's end. */
        private boolean more() {
            int want = Math.min(chunk, typeLen - have);
            if (want <= 0) return false;
            if (types.length < have + want) {
                types = Arrays.copyOf(types, Math.min(typeLen, Math.max(have + want, 2 * types.length)));
                b = ByteBuffer.wrap(types).order(ByteOrder.LITTLE_ENDIAN);
            }
            int got = fill(types, have, want, typeStart + have);
            if (got <= 0) return false;
            have += got;
            while (scanned + 12 <= have) {
                int info = b.getInt(scanned + 4);
                int vlen = info & 0xffff, kind = (info >>> 24) & 0x1f;
                int size = 12 + switch (kind) {
                    case 1, 14, 17 -> 4; // int, var, decl_tag
                    case 3 -> 12; // array
                    case 4, 5, 15, 19 -> 12 * vlen; // struct, union, datasec, enum64
                    case 6, 13 -> 8 * vlen; // enum, func_proto
                    default -> 0;
                };
                if (scanned + size > have) break; // the rest of it comes with the next chunk
                if (n == at.length) at = Arrays.copyOf(at, n * 2);
                at[n++] = scanned;
                scanned += size;
            }
            return true;
        }

        /** The offset of type {@code id}'s struct btf_type, read and indexed as far as it; -1 if there is none. */
        private int type(int id) {
            if (id <= 0) return -1;
            while (id >= n) {
                if (!more()) return -1;
            }
            return at[id];
        }

        /**
         * The byte offset of {@code member} in {@code struct name} (not a bit field; a member of an
         * anonymous struct or union inside it counts, as mm_struct keeps its members in one);
         * PerfException when there is no such struct or member.
         */
        int offset(String struct, String member) {
            int id = struct(struct);
            if (id == 0) throw new PerfException("the kernel's BTF has no struct " + struct, 0);
            int bits = memberBits(id, member);
            if (bits < 0 || bits % 8 != 0) {
                throw new PerfException("the kernel's struct " + struct + " has no member " + member, 0);
            }
            return bits / 8;
        }

        /** The id of the first struct or union named {@code name} that has members, or 0. */
        private int struct(String name) {
            Integer known = structs.get(name);
            if (known != null) return known;
            int found = 0;
            for (int id = 1, p; found == 0 && (p = type(id)) >= 0; id++) {
                int info = b.getInt(p + 4);
                int kind = (info >>> 24) & 0x1f;
                if ((kind == STRUCT || kind == UNION) && (info & 0xffff) > 0 && named(b.getInt(p), name)) found = id;
            }
            structs.put(name, found);
            return found;
        }

        /** The bit offset of {@code member} in struct or union {@code id}, anonymous members searched; -1 if none. */
        private int memberBits(int id, String member) {
            int p = type(id), info = b.getInt(p + 4);
            int vlen = info & 0xffff;
            boolean bitfields = info < 0;
            for (int i = 0, m = p + 12; i < vlen; i++, m += 12) {
                int nameOff = b.getInt(m), type = b.getInt(m + 4);
                int bits = b.getInt(m + 8) & (bitfields ? 0xffffff : -1);
                if (nameOff == 0) {
                    int q = type(type); // may index further on (an anonymous type can come later)
                    if (q < 0) continue;
                    int k = (b.getInt(q + 4) >>> 24) & 0x1f;
                    if (k == STRUCT || k == UNION) {
                        int inner = memberBits(type, member);
                        if (inner >= 0) return bits + inner;
                    }
                } else if (named(nameOff, member)) {
                    return bits;
                }
            }
            return -1;
        }

        /**
         * Whether the NUL-terminated name at {@code off} in the string section is {@code name}
         * (ASCII), compared in place: a look-up passes many structs' names, and a String for each
         * cost a run ~20,000 of them.
         */
        private boolean named(int off, String name) {
            int len = name.length();
            if (off < 0 || (long) off + len >= strLen) return false;
            for (int i = 0; i <= len; i++) {
                int c = stringByte(off + i);
                if (c != (i < len ? name.charAt(i) : 0)) return false;
            }
            return true;
        }

        /** The byte at {@code off} (below strLen) of the string section, from its page. */
        private int stringByte(int off) {
            int index = off / page;
            byte[] pg = pages.get(index);
            if (pg == null) {
                int len = (int) Math.min(page, strLen - (long) index * page);
                pg = new byte[len];
                int got = fill(pg, 0, len, strStart + (long) index * page);
                if (got < len) pg = Arrays.copyOf(pg, got);
                pages.put(index, pg);
            }
            int at = off - index * page;
            return at < pg.length ? pg[at] & 0xff : -1;
        }

        @Override
        public void close() {
            if (owner == null) return;
            try {
                owner.close();
            } catch (Exception e) {
                // a read-only file: nothing was written to lose
            }
        }
    }

    /**
     * Where a generated program finds the current task's parent process id: task_struct's
     * real_parent (a pointer) and, in the parent's task_struct, tgid. Null when the kernel's BTF
     * does not say (the ppid is then read from /proc after the event).
     */
    record Parent(int realParent, int tgid) {}

    static Parent parent() {
        try (Types t = read()) {
            return parent(t);
        } catch (PerfException e) {
            return null;
        }
    }

    static Parent parent(Types t) {
        try {
            return new Parent(t.offset("task_struct", "real_parent"), t.offset("task_struct", "tgid"));
        } catch (PerfException e) {
            return null;
        }
    }

    /**
     * Where a generated program finds what the proc provider records of the current task at the
     * event: its time on CPU (task_struct.se, then sched_entity.sum_exec_runtime: D's vtimestamp),
     * its argument strings (task_struct.mm, then mm_struct.arg_start and arg_end: pr_psargs) and
     * its effective credentials (task_struct.cred, then cred.euid and cred.egid, each a kuid_t /
     * kgid_t whose value is its first 4 bytes). Null when the kernel's BTF does not say (those
     * are then read from /proc after the event).
     */
    record Task(int se, int runtime, int mm, int argStart, int argEnd, int cred, int euid, int egid) {}

    static Task task() {
        try (Types t = read()) {
            return task(t);
        } catch (PerfException e) {
            return null;
        }
    }

    static Task task(Types t) {
        try {
            return new Task(t.offset("task_struct", "se"), t.offset("sched_entity", "sum_exec_runtime"),
                    t.offset("task_struct", "mm"), t.offset("mm_struct", "arg_start"), t.offset("mm_struct", "arg_end"),
                    t.offset("task_struct", "cred"), t.offset("cred", "euid"), t.offset("cred", "egid"));
        } catch (PerfException e) {
            return null;
        }
    }

    /**
     * Where a generated program finds the name of the current task's process (its main thread's
     * comm, DTrace's execname): task_struct's group_leader (a pointer) and comm. Null when the
     * kernel's BTF does not say.
     */
    record Leader(int groupLeader, int comm) {}

    static Leader leader() {
        try (Types t = read()) {
            return leader(t);
        } catch (PerfException e) {
            return null;
        }
    }

    static Leader leader(Types t) {
        try {
            return new Leader(t.offset("task_struct", "group_leader"), t.offset("task_struct", "comm"));
        } catch (PerfException e) {
            return null;
        }
    }

    /** The three above from one session (null members: the BTF does not say; all null without BTF). */
    record Facts(Parent parent, Task task, Leader leader) {}

    static Facts facts() {
        try (Types t = read()) {
            return new Facts(parent(t), task(t), leader(t));
        } catch (PerfException e) {
            return new Facts(null, null, null);
        }
    }
}
