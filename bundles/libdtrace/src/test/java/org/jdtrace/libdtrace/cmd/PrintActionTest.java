package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * print(): the address, then the pointed-to object visited member by member, 44 columns in plus
 * one a level, as DTrace on Linux prints it (zero members left out, a char array up to its NUL, a
 * bit-field by its value, an enum by its enumerator, an anonymous union as "(union)"); printsize
 * cuts the visit with "..."; a type of size 0 or an argument that is no pointer is refused.
 * alloca's scratch starts at 0x1000000000000000 (rt.Mem's scratch region).
 */
class PrintActionTest {

    private static final String PROG = String.join("\n",
            "enum color { RED, GREEN = 5 };",
            "struct inner { short s; unsigned int flags : 3; unsigned int mode : 5; };",
            "struct outer {",
            "\tlong long id;",
            "\tchar name[6];",
            "\tstruct inner in;",
            "\tunion { uint8_t b; uint32_t w; } u;",
            "\tenum color c;",
            "\tbool ok;",
            "\tchar *p;",
            "};",
            "BEGIN",
            "{",
            "\to = (struct outer *)alloca(sizeof (struct outer));",
            "\to->id = -2;",
            "\to->name[0] = 'j'; o->name[1] = 'd';",
            "\to->in.flags = 5;",
            "\to->u.w = 0x1ff;",
            "\to->c = GREEN;",
            "\to->ok = 1;",
            "\to->p = (char *)0x1234;",
            "\tprint(o);",
            "\tsetopt(\"printsize\", \"8\");",
            "\tprint(o);",
            "\texit(0);",
            "}");

    private static final String EXPECTED = String.join("\n",
            "0x1000000000000000 = *",
            "                                            (struct outer) {",
            "                                             .id = (long long)-2,",
            "                                             .name = (char [6]) [",
            "                                              (char)'j',",
            "                                              (char)'d',",
            "                                             ],",
            "                                             .in = (struct inner) {",
            "                                              .flags = (unsigned int)5,",
            "                                             },",
            "                                             .u = (union) {",
            "                                              .b = (uint8_t)255,",
            "                                              .w = (uint32_t)511,",
            "                                             },",
            "                                             .c = (enum color)GREEN,",
            "                                             .ok = (bool)1,",
            "                                             .p = (char *)0x1234,",
            "                                            }",
            "0x1000000000000000 = *",
            "                                            (struct outer) {",
            "                                             .id = (long long)-2,",
            "                                             ...",
            "                                            }") + "\n";

    @Test
    void printShowsTheObjectMemberByMemberAndPrintsizeCutsIt() throws Exception {
        Path d = Files.createTempFile("print", ".d");
        try (RealCommand cmd = new RealCommand()) {
            Files.writeString(d, PROG);
            assertEquals(0, cmd.run("-q", "-s", d.toString()), cmd.err());
            assertEquals(EXPECTED + "\n", cmd.out());
        } finally {
            Files.delete(d);
        }
    }

    @Test
    void printRefusesWhatItCannotShow() {
        try (RealCommand cmd = new RealCommand()) {
            assertEquals(1, cmd.run("-n", "struct s; BEGIN { print((struct s *)alloca(8)); }"));
            assertEquals("dtrace: invalid probe specifier struct s; BEGIN { print((struct s *)alloca(8)); }: "
                    + "print( ) argument #1 reference has type 'struct s' with size 0; cannot print( ) it.\n", cmd.err());
            assertEquals(1, cmd.run("-n", "BEGIN { print(1); }"));
            assertEquals("dtrace: invalid probe specifier BEGIN { print(1); }: print( ) argument #1 is incompatible with "
                    + "prototype:\n\tprototype: void *\n\t argument: int\n", cmd.err());
        }
    }
}
