/*
 * The kernel's own type information (BTF, /sys/kernel/btf/vmlinux), read for the byte offset of a
 * member of a kernel struct, so that a generated BPF program can read a field the tracepoint does
 * not carry (task_struct.exit_code at sched_process_exit, real_parent and tgid for the ppid) with the layout of the running kernel,
 * never a guessed one. The format is include/uapi/linux/btf.h's: a header, the type section (each
 * struct btf_type followed by its kind's data) and the string section. Only what memberOffset
 * needs is decoded. Stateless; the file is read on each call (callers keep what they need).
 */
package org.jdtrace.perf.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.jdtrace.perf.PerfException;

final class Btf {

    static final Path VMLINUX = Path.of("/sys/kernel/btf/vmlinux");
    private static final int STRUCT = 4, UNION = 5;

    private Btf() {}

    /**
     * The byte offset of {@code member} in {@code struct name} (a direct member, not a bit field),
     * from the running kernel's BTF; PerfException when the kernel has no BTF or no such member.
     */
    static int memberOffset(String struct, String member) {
        byte[] file;
        try {
            file = Files.readAllBytes(VMLINUX);
        } catch (IOException e) {
            throw new PerfException("the kernel has no BTF type information (" + VMLINUX + ": " + e.getMessage() + ")", 0);
        }
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        if (file.length < 24 || (b.getShort(0) & 0xffff) != 0xeb9f) throw new PerfException(VMLINUX + " is not BTF", 0);
        int hdrLen = b.getInt(4), typeOff = b.getInt(8), typeLen = b.getInt(12), strOff = b.getInt(16);
        int types = hdrLen + typeOff, strings = hdrLen + strOff;
        for (int p = types; p < types + typeLen; ) {
            int nameOff = b.getInt(p), info = b.getInt(p + 4);
            int vlen = info & 0xffff, kind = (info >>> 24) & 0x1f;
            boolean bitfields = info < 0;
            p += 12;
            if ((kind == STRUCT || kind == UNION) && name(file, strings + nameOff).equals(struct) && vlen > 0) {
                for (int i = 0; i < vlen; i++, p += 12) {
                    if (!name(file, strings + b.getInt(p)).equals(member)) continue;
                    int bits = b.getInt(p + 8) & (bitfields ? 0xffffff : -1);
                    if (bits % 8 != 0) break;
                    return bits / 8;
                }
                throw new PerfException("the kernel's struct " + struct + " has no member " + member, 0);
            }
            p += switch (kind) {
                case 1, 14, 17 -> 4; // int, var, decl_tag
                case 3 -> 12; // array
                case 4, 5, 15, 19 -> 12 * vlen; // struct, union, datasec, enum64
                case 6, 13 -> 8 * vlen; // enum, func_proto
                default -> 0;
            };
        }
        throw new PerfException("the kernel's BTF has no struct " + struct, 0);
    }

    /**
     * Where a generated program finds the current task's parent process id: task_struct's
     * real_parent (a pointer) and, in the parent's task_struct, tgid. Null when the kernel's BTF
     * does not say (the ppid is then read from /proc after the event).
     */
    record Parent(int realParent, int tgid) {}

    static Parent parent() {
        try {
            return new Parent(memberOffset("task_struct", "real_parent"), memberOffset("task_struct", "tgid"));
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

    private static String name(byte[] file, int at) {
        int end = at;
        while (end < file.length && file[end] != 0) end++;
        return new String(file, at, end - at, StandardCharsets.US_ASCII);
    }
}
