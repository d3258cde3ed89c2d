package org.jdtrace.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

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
    void theRunningKernelsTaskStructHasTheParentsMembers() {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(Btf.VMLINUX), "no kernel BTF");
        Btf.Parent p = Btf.parent();
        // real_parent is a pointer, tgid a pid_t, at distinct places inside task_struct
        org.junit.jupiter.api.Assertions.assertNotNull(p);
        org.junit.jupiter.api.Assertions.assertTrue(p.realParent() % 8 == 0 && p.tgid() % 4 == 0 && p.realParent() != p.tgid(), p.toString());
    }
}
