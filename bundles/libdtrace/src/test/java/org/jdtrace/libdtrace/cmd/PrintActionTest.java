package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * print(): the address, then the pointed-to object visited member by member, 44 columns in plus
 * one a level, as DTrace on Linux prints it (zero members left out, a char array up to its NUL, a
 * bit-field by its value, an enum by its enumerator, an anonymous union as "(union)"); printsize
 * cuts the visit with "..."; a type of size 0 or an argument that is no pointer is refused.
 * alloca's scratch starts at 0x1000000000000000 (rt.Mem's scratch region).
 *
 * print() of a value that is no pointer (an integer, a string, an array, a struct, a dynamic
 * variable) is shown as illumos' dtrace_print shows it (dt_print.c): `type value` at the top,
 * `type name = value` for each member four columns a level, integers in hex, a char quoted, a
 * bit-field's width after its name, arrays as `[ e, e ]`, a char array holding a string as that
 * string; the struct's last `}` ends without a newline (dtrace(1M) ends the line of the record).
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

    /** Runs {@code prog} as a quiet script (-q -s FILE), which must exit 0; returns its output. */
    private static String quietScript(RealCommand cmd, String prog) throws Exception {
        Path d = Files.createTempFile("print", ".d");
        try {
            Files.writeString(d, prog);
            assertEquals(0, cmd.run("-q", "-s", d.toString()), cmd.err());
            return cmd.out();
        } finally {
            Files.delete(d);
        }
    }

    @Test
    void printShowsTheObjectMemberByMemberAndPrintsizeCutsIt() throws Exception {
        try (RealCommand cmd = new RealCommand()) {
            assertEquals(EXPECTED + "\n", quietScript(cmd, PROG));
        }
    }

    private static final String VALUES = String.join("\n",
            "enum color { RED, GREEN = 5 };",
            "struct inner { short s; unsigned int flags : 3; unsigned int mode : 5; };",
            "struct outer { long long id; char name[6]; struct inner in; union { uint8_t b; uint32_t w; } u;",
            "\tenum color c; char *p; int arr[3]; struct inner ins[2]; };",
            "struct outer o;",
            "BEGIN",
            "{",
            "\to.id = -2; o.name[0] = 'j'; o.name[1] = 'd'; o.in.flags = 5; o.u.w = 0x1ff; o.c = GREEN;",
            "\to.p = (char *)0x1234; o.arr[2] = 7; o.ins[1].s = 3;",
            "\tprint((char)'a'); print((char)0); print((int)-1); print(\"hello\"); print(o.arr);",
            "\tself->x = 17; print(self->x); print(o.name); print((uint8_t)3); print(o.c);",
            "\tprint(o);",
            "\texit(0);",
            "}");

    private static final String VALUES_SHOWN = String.join("\n",
            "char 'a'",
            "char '\\0'",
            "int 0xffffffff",
            "string \"hello\"",
            "int [3] [ 0, 0, 0x7 ]",
            "int 0x11",
            "char [6] \"jd\"",
            "uint8_t 0x3",
            "enum color GREEN",
            "struct outer {",
            "    long long id = 0xfffffffffffffffe",
            "    char [6] name = [ \"jd\" ]",
            "    struct inner in = {",
            "        short s = 0",
            "        unsigned int flags :3 = 0x5",
            "        unsigned int mode :5 = 0",
            "    }",
            "    union u = {",
            "        uint8_t b = 0xff",
            "        uint32_t w = 0x1ff",
            "    }",
            "    enum color c = GREEN",
            "    char *p = 0x1234",
            "    int [3] arr = [ 0, 0, 0x7 ]",
            "    struct inner [2] ins = [ ",
            "        struct inner {",
            "            short s = 0",
            "            unsigned int flags :3 = 0",
            "            unsigned int mode :5 = 0",
            "        }, ",
            "        struct inner {",
            "            short s = 0x3",
            "            unsigned int flags :3 = 0",
            "            unsigned int mode :5 = 0",
            "        }",
            "    ]",
            "}");

    @Test
    void printOfAValueShowsItsTypeAndValueAsIllumosDoes() throws Exception {
        try (RealCommand cmd = new RealCommand()) {
            assertEquals(VALUES_SHOWN + "\n", quietScript(cmd, VALUES));
            // not quiet: the values follow the probe's columns, and dtrace ends the record's line
            assertEquals(0, cmd.run("-n", "BEGIN { print((short)-1); print(\"a\\tb\"); exit(0); }"), cmd.err());
            String row = cmd.out().lines().skip(1).findFirst().orElseThrow();
            assertEquals(":BEGIN short 0xffff", row.substring(row.indexOf(':')));
            // a string with a character that is not printable is shown as its char[strsize]
            assertTrue(cmd.out().contains("\nstring [ 'a', '\\011', 'b', '\\0', '\\0',"), cmd.out());
            assertTrue(cmd.out().contains("'\\0' ]\n\n"), cmd.out());
        }
    }

    @Test
    void printOfAValueRefusesWhatIllumosRefuses() {
        try (RealCommand cmd = new RealCommand()) {
            assertEquals(1, cmd.run("-xerrtags", "-n", "BEGIN { @a = count(); print(@a); }"));
            assertTrue(cmd.err().contains("[D_PRINT_AGG] print( ) may not be applied to an aggregation"), cmd.err());
            assertEquals(1, cmd.run("-xerrtags", "-n", "BEGIN { print(trace(1)); }"));
            assertTrue(cmd.err().contains("[D_PRINT_VOID] print( ) may not be applied to a void expression"), cmd.err());
            assertEquals(1, cmd.run("-xerrtags", "-n", "struct s; BEGIN { print(*(struct s *)0); }"));
            assertTrue(cmd.err().contains("[D_PRINT_SIZE] print( ) applied to void or sizeless type"), cmd.err());
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
