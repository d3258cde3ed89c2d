package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jdtrace.perf.PerfException;
import org.junit.jupiter.api.Test;

class BtfTest {

    /** A BTF image in include/uapi/linux/btf.h's layout, built up type by type. */
    private static final class Image {
        final ByteBuffer types = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        final ByteArrayOutputStream strings = new ByteArrayOutputStream();

        Image() {
            strings.write(0); // offset 0: the empty name
        }

        int str(String s) {
            if (s.isEmpty()) return 0;
            int at = strings.size();
            strings.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
            strings.write(0);
            return at;
        }

        Image type(String name, int kind, int vlen, int sizeOrType) {
            types.putInt(str(name)).putInt(kind << 24 | vlen).putInt(sizeOrType);
            return this;
        }

        Image member(String name, int type, int bits) {
            types.putInt(str(name)).putInt(type).putInt(bits);
            return this;
        }

        byte[] bytes() {
            byte[] t = java.util.Arrays.copyOf(types.array(), types.position()), s = strings.toByteArray();
            ByteBuffer b = ByteBuffer.allocate(24 + t.length + s.length).order(ByteOrder.LITTLE_ENDIAN);
            b.putShort((short) 0xeb9f).put((byte) 1).put((byte) 0).putInt(24).putInt(0).putInt(t.length).putInt(t.length).putInt(s.length);
            return b.put(t).put(s).array();
        }
    }

    @Test
    void aMemberIsFoundAtItsWholeNameInItsWholeStructAnonymousUnionsIncluded() {
        Image i = new Image();
        i.type("int", 1, 0, 4);
        i.types.putInt(32); // int's encoding word
        i.type("task_struct_x", 4, 1, 8).member("tgid", 1, 0); // 2: a longer struct name first
        i.type("task", 4, 1, 8).member("tgid", 1, 32); // 3: a shorter one
        i.type("task_struct", 4, 3, 64).member("tgi", 1, 0).member("tgid", 1, 64).member("", 5, 128); // 4
        i.type("", 5, 1, 8).member("real_parent", 1, 32); // 5: an anonymous union inside 4
        Btf.Types t = new Btf.Types(i.bytes());
        assertEquals(8, t.offset("task_struct", "tgid"));
        assertEquals(0, t.offset("task_struct", "tgi"));
        assertEquals(20, t.offset("task_struct", "real_parent"));
        assertEquals(4, t.offset("task", "tgid"));
        assertEquals(new Btf.Parent(20, 8), Btf.parent(t));
        assertThrows(PerfException.class, () -> t.offset("task_struct", "tg"));
        assertThrows(PerfException.class, () -> t.offset("task_s", "tgid"));
    }

    @Test
    void readsInSmallPiecesFindWhatTheWholeImageGives() {
        Image i = new Image();
        i.type("int", 1, 0, 4);
        i.types.putInt(32);
        i.type("task_struct_x", 4, 1, 8).member("tgid", 1, 0); // 2
        i.type("task_struct", 4, 3, 64).member("tgi", 1, 0).member("", 5, 128).member("tgid", 1, 64); // 3
        i.type("ptr", 2, 0, 3); // 4: no data after it
        i.type("", 5, 2, 8).member("x", 1, 0).member("", 6, 32); // 5: anonymous, inside 3
        i.type("", 4, 1, 8).member("real_parent", 1, 8); // 6: anonymous, inside 5, after it
        i.type("", 4 | 0x80, 1, 4).member("bits", 1, 3 << 24 | 64); // 7: kind_flag, a bit field
        byte[] image = i.bytes();
        for (int chunk = 1; chunk <= 40; chunk += 3) {
            for (int page = 1; page <= 9; page += 2) {
                Btf.Types t = new Btf.Types((dst, pos) -> {
                    if (pos >= image.length) return -1;
                    int len = (int) Math.min(Math.min(dst.remaining(), 5), image.length - pos); // a short read, as sysfs's
                    dst.put(image, (int) pos, len);
                    return len;
                }, null, chunk, page);
                String at = "chunk " + chunk + " page " + page;
                assertEquals(8, t.offset("task_struct", "tgid"), at);
                assertEquals(0, t.offset("task_struct", "tgi"), at);
                assertEquals(21, t.offset("task_struct", "real_parent"), at);
                assertEquals(16, t.offset("task_struct", "x"), at);
                assertEquals(new Btf.Parent(21, 8), Btf.parent(t), at);
                assertThrows(PerfException.class, () -> t.offset("task_struct", "tg"), at);
                assertThrows(PerfException.class, () -> t.offset("no_such", "tgid"), at);
                assertTrue(t.bytesRead <= image.length, at);
            }
        }
    }

    @Test
    void aFileThatIsNotBtfIsRefused() {
        assertThrows(PerfException.class, () -> new Btf.Types(new byte[10]));
        assertThrows(PerfException.class, () -> new Btf.Types(new byte[64]));
    }

    /**
     * Every member of the structs the programs read, and every member of those structs at all,
     * against bpftool's dump of the running kernel's BTF (bpftool btf dump file ... format raw): the
     * offset where bpftool's member is byte-aligned, PerfException where it is not or is absent.
     */
    @Test
    void theRunningKernelsOffsetsAreBpftools() throws Exception {
        assumeTrue(Files.isReadable(Btf.VMLINUX), "no kernel BTF");
        Path bpftool = java.util.stream.Stream.of("/usr/sbin/bpftool", "/usr/bin/bpftool", "/sbin/bpftool").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
        assumeTrue(bpftool != null, "no bpftool (Debian package bpftool)");
        Process p = new ProcessBuilder(bpftool.toString(), "btf", "dump", "file", Btf.VMLINUX.toString(), "format", "raw")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Bpftool dump = new Bpftool(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals(0, p.waitFor());
        String[][] used = {{"task_struct", "real_parent"}, {"task_struct", "tgid"}, {"task_struct", "se"},
            {"task_struct", "mm"}, {"task_struct", "cred"}, {"task_struct", "group_leader"}, {"task_struct", "comm"},
            {"task_struct", "exit_code"}, {"sched_entity", "sum_exec_runtime"}, {"mm_struct", "arg_start"},
            {"mm_struct", "arg_end"}, {"cred", "euid"}, {"cred", "egid"}};
        int checked = 0;
        try (Btf.Types t = Btf.read()) {
            for (String[] u : used) {
                int bits = dump.memberBits(u[0], u[1]);
                assertTrue(bits >= 0 && bits % 8 == 0, u[0] + "." + u[1] + " in bpftool's dump");
                assertEquals(bits / 8, t.offset(u[0], u[1]), u[0] + "." + u[1]);
            }
            for (String struct : new String[] {"task_struct", "sched_entity", "mm_struct", "cred"}) {
                for (String member : dump.memberNames(struct)) {
                    int bits = dump.memberBits(struct, member);
                    if (bits % 8 == 0) {
                        assertEquals(bits / 8, t.offset(struct, member), struct + "." + member);
                    } else {
                        assertThrows(PerfException.class, () -> t.offset(struct, member), struct + "." + member);
                    }
                    checked++;
                }
            }
            assertThrows(PerfException.class, () -> t.offset("task_struct", "no_such_member"));
        }
        assertTrue(checked > 100, checked + " members");
        Btf.Facts f = Btf.facts();
        assertEquals(new Btf.Parent(dump.memberBits("task_struct", "real_parent") / 8, dump.memberBits("task_struct", "tgid") / 8),
                f.parent());
        assertEquals(new Btf.Leader(dump.memberBits("task_struct", "group_leader") / 8, dump.memberBits("task_struct", "comm") / 8),
                f.leader());
        assertEquals(dump.memberBits("cred", "egid") / 8, f.task().egid());
        try (Btf.Types t = Btf.read()) {
            assertThrows(PerfException.class, () -> t.offset("no_such_struct_here", "x"));
            assertTrue(t.bytesRead > Files.size(Btf.VMLINUX) / 2, "a struct that is not there is looked for to the end");
        }
    }

    /** bpftool's raw dump, read independently of Btf: types by id, struct and union members. */
    private static final class Bpftool {
        record Member(String name, int type, int bits) {}

        record Type(String kind, String name, List<Member> members) {}

        final Map<Integer, Type> types = new HashMap<>();
        final List<Integer> order = new ArrayList<>();

        Bpftool(String text) {
            Pattern head = Pattern.compile("^\\[(\\d+)\\] (\\w+) '([^']*)'.*");
            Pattern member = Pattern.compile("^\\t'([^']*)' type_id=(\\d+) bits_offset=(\\d+).*");
            Type cur = null;
            for (String line : text.split("\n")) {
                Matcher h = head.matcher(line), m = member.matcher(line);
                if (h.matches()) {
                    cur = new Type(h.group(2), h.group(3), new ArrayList<>());
                    types.put(Integer.parseInt(h.group(1)), cur);
                    order.add(Integer.parseInt(h.group(1)));
                } else if (m.matches() && cur != null && (cur.kind.equals("STRUCT") || cur.kind.equals("UNION"))) {
                    cur.members.add(new Member(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
                }
            }
        }

        Type struct(String name) {
            for (int id : order) {
                Type t = types.get(id);
                if ((t.kind.equals("STRUCT") || t.kind.equals("UNION")) && t.name.equals(name) && !t.members.isEmpty()) return t;
            }
            throw new AssertionError("bpftool: no struct " + name);
        }

        int memberBits(String struct, String name) {
            return bits(struct(struct), name);
        }

        private int bits(Type t, String name) {
            for (Member m : t.members) {
                Type inner = types.get(m.type);
                if (m.name.equals("(anon)")) {
                    if (inner != null && (inner.kind.equals("STRUCT") || inner.kind.equals("UNION"))) {
                        int b = bits(inner, name);
                        if (b >= 0) return m.bits + b;
                    }
                } else if (m.name.equals(name)) {
                    return m.bits;
                }
            }
            return -1;
        }

        /** The named members of {@code struct}, its anonymous members' included. */
        List<String> memberNames(String struct) {
            List<String> names = new ArrayList<>();
            collect(struct(struct), names);
            return names;
        }

        private void collect(Type t, List<String> names) {
            for (Member m : t.members) {
                Type inner = types.get(m.type);
                if (!m.name.equals("(anon)")) {
                    names.add(m.name);
                } else if (inner != null && (inner.kind.equals("STRUCT") || inner.kind.equals("UNION"))) {
                    collect(inner, names);
                }
            }
        }
    }

    @Test
    void theRunningKernelsTaskStructHasTheParentsMembers() {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(Btf.VMLINUX), "no kernel BTF");
        Btf.Parent p = Btf.parent();
        // real_parent is a pointer, tgid a pid_t, at distinct places inside task_struct
        org.junit.jupiter.api.Assertions.assertNotNull(p);
        org.junit.jupiter.api.Assertions.assertTrue(p.realParent() % 8 == 0 && p.tgid() % 4 == 0 && p.realParent() != p.tgid(), p.toString());
    }
}
