/*
 * The kernel's own type information (BTF, /sys/kernel/btf/vmlinux), read for the byte offset of a
 * member of a kernel struct, so that a generated BPF program can read a field the tracepoint does
 * not carry (task_struct.exit_code at sched_process_exit, real_parent and tgid for the ppid) with the layout of the running kernel,
 * never a guessed one. The format is include/uapi/linux/btf.h's: a header, the type section (each
 * struct btf_type followed by its kind's data) and the string section. Only what member offsets
 * need is decoded. Stateless; the file is read on each call of read(), memberOffset, parent() and
 * task() (callers keep what they need).
 */
package org.jdtrace.perf.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.jdtrace.perf.PerfException;

final class Btf {

    static final Path VMLINUX = Path.of("/sys/kernel/btf/vmlinux");
    private static final int STRUCT = 4, UNION = 5;

    private Btf() {}

    /**
     * The byte offset of {@code member} in {@code struct name} (not a bit field; a member of an
     * anonymous struct or union inside it counts, as mm_struct keeps its members in one), from
     * the running kernel's BTF; PerfException when the kernel has no BTF or no such member.
     */
    static int memberOffset(String struct, String member) {
        return read().offset(struct, member);
    }

    /** The kernel's BTF, read once for several look-ups. */
    static Types read() {
        byte[] file;
        try {
            file = Files.readAllBytes(VMLINUX);
        } catch (IOException e) {
            throw new PerfException("the kernel has no BTF type information (" + VMLINUX + ": " + e.getMessage() + ")", 0);
        }
        return new Types(file);
    }

    /** The type section indexed by type id (ids from 1), and the strings. */
    static final class Types {
        private final byte[] file;
        private final ByteBuffer b;
        private final int strings;
        private final int[] at; // at[id] = the offset of type id's struct btf_type

        Types(byte[] file) {
            this.file = file;
            b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
            if (file.length < 24 || (b.getShort(0) & 0xffff) != 0xeb9f) throw new PerfException(VMLINUX + " is not BTF", 0);
            int hdrLen = b.getInt(4), typeOff = b.getInt(8), typeLen = b.getInt(12), strOff = b.getInt(16);
            int types = hdrLen + typeOff;
            strings = hdrLen + strOff;
            int[] ids = new int[1 << 16];
            int n = 1;
            for (int p = types; p < types + typeLen; ) {
                if (n == ids.length) ids = java.util.Arrays.copyOf(ids, n * 2);
                ids[n++] = p;
                int info = b.getInt(p + 4);
                int vlen = info & 0xffff, kind = (info >>> 24) & 0x1f;
                p += 12 + switch (kind) {
                    case 1, 14, 17 -> 4; // int, var, decl_tag
                    case 3 -> 12; // array
                    case 4, 5, 15, 19 -> 12 * vlen; // struct, union, datasec, enum64
                    case 6, 13 -> 8 * vlen; // enum, func_proto
                    default -> 0;
                };
            }
            at = java.util.Arrays.copyOf(ids, n);
        }

        int offset(String struct, String member) {
            for (int id = 1; id < at.length; id++) {
                int p = at[id], info = b.getInt(p + 4);
                int kind = (info >>> 24) & 0x1f;
                if ((kind == STRUCT || kind == UNION) && (info & 0xffff) > 0 && named(file, strings + b.getInt(p), struct)) {
                    int bits = memberBits(id, member);
                    if (bits < 0 || bits % 8 != 0) {
                        throw new PerfException("the kernel's struct " + struct + " has no member " + member, 0);
                    }
                    return bits / 8;
                }
            }
            throw new PerfException("the kernel's BTF has no struct " + struct, 0);
        }

        /** The bit offset of {@code member} in struct or union {@code id}, anonymous members searched; -1 if none. */
        private int memberBits(int id, String member) {
            int p = at[id], info = b.getInt(p + 4);
            int vlen = info & 0xffff;
            boolean bitfields = info < 0;
            for (int i = 0, m = p + 12; i < vlen; i++, m += 12) {
                int nameOff = b.getInt(m), type = b.getInt(m + 4);
                int bits = b.getInt(m + 8) & (bitfields ? 0xffffff : -1);
                if (nameOff == 0 && type > 0 && type < at.length) {
                    int k = (b.getInt(at[type] + 4) >>> 24) & 0x1f;
                    if (k == STRUCT || k == UNION) {
                        int inner = memberBits(type, member);
                        if (inner >= 0) return bits + inner;
                    }
                } else if (named(file, strings + nameOff, member)) {
                    return bits;
                }
            }
            return -1;
        }
    }

    /**
     * Where a generated program finds the current task's parent process id: task_struct's
     * real_parent (a pointer) and, in the parent's task_struct, tgid. Null when the kernel's BTF
     * does not say (the ppid is then read from /proc after the event).
     */
    record Parent(int realParent, int tgid) {}

    static Parent parent() {
        try {
            return parent(read());
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
        try {
            return task(read());
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
        try {
            return new Leader(memberOffset("task_struct", "group_leader"), memberOffset("task_struct", "comm"));
        } catch (PerfException e) {
            return null;
        }
    }

    /**
     * Whether the NUL-terminated name at {@code at} is {@code name} (ASCII), compared in place:
     * a look-up passes every struct's name, and a String for each cost a run ~20,000 of them.
     */
    private static boolean named(byte[] file, int at, String name) {
        int n = name.length();
        if (at < 0 || at + n >= file.length || file[at + n] != 0) return false;
        for (int i = 0; i < n; i++) {
            if (file[at + i] != name.charAt(i)) return false;
        }
        return true;
    }
}
