package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * D's C type system and memory model, run through a real session: struct, union and bit-field
 * layout against gcc's (the same declarations compiled as C), struct variables of every scope,
 * pointers into scratch, and each refusal with DTrace's D_* tag and line.
 */
class CTypesTest {

    /** Declarations that D and C read alike. */
    private static final String DECLS = """
            struct coords { int x, y; };
            struct rec { char c; long l; short s; char name[5]; };
            union u { char c; int i; long l; short s[3]; };
            struct bits { int a : 1; unsigned int b : 3; int c : 4; char d; unsigned int e : 30; unsigned long f : 40; };
            struct outer { char first; struct coords p; union u v; struct bits b; char tail; };
            """;

    /**
     * The same declarations made the way dtrace's dt_decl makes them, through GNU libctf (the
     * library DTrace on Linux lays D's types out with; libctf-nobfd, part of binutils): integers,
     * a bit-field as an integer type of that many bits, arrays, and each member added with
     * ctf_add_member. Prints the sizes and offsets the D program prints, then the bytes of a
     * struct bits holding {@link #FILL}'s values, each member's value stored at the offset and
     * in the size libctf gives it.
     */
    private static final String LIBCTF = """
            #include <stdio.h>
            #include <stdint.h>
            #include <string.h>
            typedef unsigned long ctf_id_t;
            typedef struct ctf_dict ctf_dict_t;
            typedef struct { uint32_t cte_format, cte_offset, cte_bits; } ctf_encoding_t;
            typedef struct { ctf_id_t ctm_type; unsigned long ctm_offset; } ctf_membinfo_t;
            typedef struct { ctf_id_t ctr_contents, ctr_index; uint32_t ctr_nelems; } ctf_arinfo_t;
            extern ctf_dict_t *ctf_create(int *);
            extern ctf_id_t ctf_add_integer(ctf_dict_t *, uint32_t, const char *, const ctf_encoding_t *);
            extern ctf_id_t ctf_add_struct(ctf_dict_t *, uint32_t, const char *);
            extern ctf_id_t ctf_add_union(ctf_dict_t *, uint32_t, const char *);
            extern ctf_id_t ctf_add_array(ctf_dict_t *, uint32_t, const ctf_arinfo_t *);
            extern int ctf_add_member(ctf_dict_t *, ctf_id_t, const char *, ctf_id_t);
            extern long ctf_type_size(ctf_dict_t *, ctf_id_t);
            extern int ctf_member_info(ctf_dict_t *, ctf_id_t, const char *, ctf_membinfo_t *);
            static ctf_dict_t *fp;
            static ctf_id_t integer(const char *n, unsigned format, unsigned bits, uint32_t root) {
                ctf_encoding_t e = {format, 0, bits};
                return ctf_add_integer(fp, root, n, &e);
            }
            static ctf_id_t array(ctf_id_t of, ctf_id_t index, unsigned n) {
                ctf_arinfo_t a = {of, index, n};
                return ctf_add_array(fp, 1, &a);
            }
            static long off(ctf_id_t s, const char *m) {
                ctf_membinfo_t mi;
                return ctf_member_info(fp, s, m, &mi) == 0 ? (long) (mi.ctm_offset / 8) : -1;
            }
            static unsigned char buf[64];
            static void put(ctf_id_t s, const char *m, long long v) {
                ctf_membinfo_t mi;
                ctf_member_info(fp, s, m, &mi);
                long size = ctf_type_size(fp, mi.ctm_type);
                for (long i = 0; i < size; i++) buf[mi.ctm_offset / 8 + i] |= (unsigned char) (v >> (8 * i));
            }
            int main(void) {
                int err;
                fp = ctf_create(&err);
                ctf_id_t c = integer("char", 3, 8, 1), sh = integer("short", 1, 16, 1), i = integer("int", 1, 32, 1);
                ctf_id_t l = integer("long", 1, 64, 1);
                ctf_id_t coords = ctf_add_struct(fp, 1, "coords");
                ctf_add_member(fp, coords, "x", i); ctf_add_member(fp, coords, "y", i);
                ctf_id_t rec = ctf_add_struct(fp, 1, "rec");
                ctf_add_member(fp, rec, "c", c); ctf_add_member(fp, rec, "l", l); ctf_add_member(fp, rec, "s", sh);
                ctf_add_member(fp, rec, "name", array(c, l, 5));
                ctf_id_t u = ctf_add_union(fp, 1, "u");
                ctf_add_member(fp, u, "c", c); ctf_add_member(fp, u, "i", i); ctf_add_member(fp, u, "l", l);
                ctf_add_member(fp, u, "s", array(sh, l, 3));
                ctf_id_t bits = ctf_add_struct(fp, 1, "bits");
                ctf_add_member(fp, bits, "a", integer("int", 1, 1, 0));
                ctf_add_member(fp, bits, "b", integer("unsigned int", 0, 3, 0));
                ctf_add_member(fp, bits, "c", integer("int", 1, 4, 0));
                ctf_add_member(fp, bits, "d", c);
                ctf_add_member(fp, bits, "e", integer("unsigned int", 0, 30, 0));
                ctf_add_member(fp, bits, "f", integer("unsigned long", 0, 40, 0));
                ctf_id_t outer = ctf_add_struct(fp, 1, "outer");
                ctf_add_member(fp, outer, "first", c); ctf_add_member(fp, outer, "p", coords);
                ctf_add_member(fp, outer, "v", u); ctf_add_member(fp, outer, "b", bits);
                ctf_add_member(fp, outer, "tail", c);
                printf("%ld\\n%ld\\n%ld\\n%ld\\n%ld\\n", ctf_type_size(fp, coords), ctf_type_size(fp, rec),
                        off(rec, "l"), off(rec, "s"), off(rec, "name"));
                printf("%ld\\n%ld\\n%ld\\n", ctf_type_size(fp, u), ctf_type_size(fp, bits), off(bits, "d"));
                printf("%ld\\n%ld\\n%ld\\n%ld\\n%ld\\n", ctf_type_size(fp, outer), off(outer, "p"), off(outer, "v"),
                        off(outer, "b"), off(outer, "tail"));
                put(bits, "a", 1); put(bits, "b", 5); put(bits, "c", 0xd); put(bits, "d", 'z');
                put(bits, "e", 123456789); put(bits, "f", 0x123456789aLL);
                for (long k = 0; k < ctf_type_size(fp, bits); k++) printf("%d ", buf[k]);
                printf("\\n-1 5 -3 122 123456789 78187493530\\n");
                return 0;
            }
            """;

    /** The values stored into a struct bits (-1, 5 and -3 are 1, 5 and 0xd in their widths). */
    private static final String FILL = "b.a = -1; b.b = 5; b.c = -3; b.d = 'z'; b.e = 123456789; b.f = 0x123456789a;";

    @Test
    void layoutIsLibctfs(@TempDir Path dir) throws Exception {
        String[] probes = {
            "sizeof (struct coords)", "sizeof (struct rec)", "offsetof(struct D`rec, l)", "offsetof(struct rec, s)",
            "offsetof(struct rec, name)", "sizeof (union u)", "sizeof (struct bits)", "offsetof(struct bits, d)",
            "sizeof (struct outer)", "offsetof(struct outer, p)", "offsetof(struct outer, v)",
            "offsetof(struct outer, b)", "offsetof(struct outer, tail)",
        };
        StringBuilder d = new StringBuilder(DECLS).append("#pragma D option quiet\nBEGIN {\n");
        for (String p : probes) {
            d.append("printf(\"%d\\n\", ").append(p).append(");\n");
        }
        // the bytes D stores for FILL's values, and the values read back
        d.append("p = (struct bits *) alloca(sizeof (struct bits)); ").append(FILL.replace("b.", "p->"))
                .append(" q = (unsigned char *) p; i = 0;\n");
        for (int k = 0; k < 16; k++) {
            d.append("printf(\"%d \", q[i++]); ");
        }
        d.append("printf(\"\\n%d %d %d %d %u %lu\\n\", p->a, p->b, p->c, p->d, p->e, p->f); exit(0); }\n");
        Path src = dir.resolve("layout.c");
        Files.writeString(src, LIBCTF);
        Path exe = dir.resolve("layout");
        Path libctf = Path.of("/usr/lib/x86_64-linux-gnu/libctf-nobfd.so.0"); // binutils' dependency
        assertTrue(Files.exists(libctf), libctf + " (Debian's libctf-nobfd0, which binutils needs) is missing");
        assertEquals(0, new ProcessBuilder("gcc", "-o", exe.toString(), src.toString(), libctf.toString())
                .inheritIO().start().waitFor());
        Process p = new ProcessBuilder(exe.toString()).start();
        String expected = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        // not C's layout: struct rec is 23 bytes (gcc pads it to 24)
        assertTrue(expected.startsWith("8\n23\n"), expected);
        DRun r = DRun.script(d.toString()).go();
        assertEquals(expected + "\n", r.end(), r.err());
    }

    @Test
    void structVariablesOfEveryScopeCopyAndNest() throws Exception {
        DRun r = DRun.script(DECLS + """
                #pragma D option quiet
                struct outer G;
                this struct outer t;
                self struct coords s;
                BEGIN {
                    G.p.x = 1; G.p.y = -2; G.v.i = 0x01020304; G.b.c = 7; G.tail = 'q';
                    this->t = G;
                    this->t.p.x += 10;
                    this->t.p.y++;
                    self->s = this->t.p;
                    printf("%d %d %d %d %d %c\\n", G.p.x, this->t.p.x, this->t.p.y, self->s.x, G.v.c, this->t.tail);
                    printf("%d %d\\n", G.b.c, this->t.b.c);
                    /* structs as keys: equal contents are one key */
                    k[self->s] = 1;
                    k[this->t.p] = 2;
                    printf("%d\\n", k[self->s]);
                }
                BEGIN {
                    /* this-> variables live on across the clauses of one firing */
                    printf("%d %d\\n", this->t.p.x, self->s.y);
                    exit(0);
                }
                """).go();
        assertEquals("1 11 -1 11 4 q\n7 7\n2\n11 -1\n\n", r.end(), r.err());
    }

    @Test
    void associativeArraysOfStructsHoldAnElementPerKey() throws Exception {
        // struct {...} a[int]: a[k].m stores make element k (zeroed); a missing element read is
        // address 0 plus the member's offset, an invalid address, as DTrace's missing dynamic variable is 0
        DRun r = DRun.script("""
                #pragma D option quiet
                struct {
                    string s;
                    int n;
                } cmd[int];
                int i;
                BEGIN {
                    cmd[i].s = "foo"; cmd[i].n = 3; i++;
                    cmd[i].s = "bar";
                    cmd[i + 5].n = cmd[0].n + 1;
                    cmd[0].n += 10;
                    printf("%s %d [%s] %d %d %d\\n", cmd[0].s, cmd[0].n, cmd[1].s, cmd[1].n, cmd[6].n, sizeof (cmd[0]));
                }
                BEGIN { trace(cmd[9].n); }
                BEGIN { exit(0); }
                ERROR { printf("ERROR kind=%d addr=%d\\n", arg4, arg5); }
                """).go();
        assertEquals("foo 13 [bar] 0 4 260\nERROR kind=1 addr=256\n\n", r.end(), r.err());
    }

    @Test
    void anonymousStructAndUnionMembersAreReachedThroughTheirEnclosingType() throws Exception {
        // C11's anonymous members: the anonymous struct and union are laid out as members of
        // their own (b at 4, c and d sharing 8), and their members are named as the enclosing
        // type's; the bytes are where offsetof says they are
        DRun r = DRun.script("""
                #pragma D option quiet
                struct r { int a; struct { int b; }; union { int c; int d; }; } var;
                BEGIN {
                    var.a = 1; var.b = 2; var.c = 3;
                    p = (struct r *)alloca(sizeof (struct r));
                    p->b = 5; p->d = 6;
                    printf("%d %d %d %d %d %d %d %d\\n", var.a, var.b, var.d, sizeof (var), offsetof(struct r, b),
                        offsetof(struct r, d), *(int *)((char *)p + offsetof(struct r, b)), *(int *)((char *)p + 8));
                    exit(0);
                }
                """).go();
        assertEquals("1 2 3 12 4 8 5 6\n\n", r.end(), r.err());
    }

    @Test
    void aRuntimeIndexOutsideADeclaredArrayIsBadindex() throws Exception {
        // int a[5]; a[i] with i known only at the firing: in [0, 5) it is the element, outside
        // it faults with DTRACEFLT_BADINDEX (11), the index as the fault's value; a struct
        // member array is checked the same way
        DRun r = DRun.script("""
                #pragma D option quiet
                int a[5];
                struct s { int x[2]; } g;
                BEGIN { i = 4; a[i] = 7; g.x[i - 3] = 9; printf("%d %d\\n", a[i], g.x[1]); }
                BEGIN { i = 8; a[i] = 1; }
                BEGIN { j = -1; trace(g.x[j]); }
                BEGIN { exit(0); }
                ERROR { printf("ERROR kind=%d value=%d\\n", arg4, arg5); }
                """).go();
        assertEquals("7 9\nERROR kind=11 value=8\nERROR kind=11 value=-1\n\n", r.end(), r.err());
        assertTrue(r.err().contains("index out of bounds (8)"), r.err());
    }

    @Test
    void aStringAssignedToACharPointerIsReadThroughIt() throws Exception {
        // string and char * are compatible (dt_node_is_argcompat): the pointer addresses the
        // string's bytes (in scratch, for the clause); an int still takes no string
        DRun r = DRun.script("""
                #pragma D option quiet
                char *s, *t;
                BEGIN { s = probeprov; t = "xyz"; printf("%c%c %s %d\\n", s[0], s[5], stringof(t), s[6]); exit(0); }
                """).go();
        assertEquals("de xyz 0\n\n", r.end(), r.err());
        refuse("int x;\nBEGIN { x = \"s\"; }", "D_OP_INCOMPAT", 2, "operands have incompatible types: \"int\" = \"string\"");
        // a cast is no assignment: a string is not scalar (dt_cook_op1's D_CAST_INVAL)
        refuse("BEGIN {\nt = (char *) \"xyz\"; }", "D_CAST_INVAL", 2, "invalid cast expression: \"string\" to \"char *\"");
    }

    @Test
    void aStringMemberTakesStrsizeBytes() throws Exception {
        // the string typedef is char[strsize]: a member after it starts strsize bytes on
        DRun r = DRun.script("""
                #pragma D option quiet
                #pragma D option strsize=16
                struct rec { string name; int n; } g;
                BEGIN { g.name = "a long name that is cut"; g.n = 7;
                    printf("%s %d %d %d\\n", g.name, g.n, offsetof(struct rec, n), sizeof (struct rec)); exit(0); }
                """).go();
        assertEquals("a long name tha 7 16 20\n\n", r.end(), r.err());
    }

    @Test
    void pointersIntoScratchLoadStoreAndArithmetic() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                struct coords { int x, y; };
                BEGIN {
                    p = (int *) alloca(4 * sizeof (int));
                    p[0] = 1; p[3] = 4; *(p + 1) = 2; p[2] = p[0] + p[1];
                    c = (struct coords *) p;
                    printf("%d %d %d %d %d %d %d\\n", p[0], p[1], p[2], p[3], c->y, (c + 1)->x, &p[3] - p);
                    q = (char *) alloca(8);
                    bcopy(p, q, 4);
                    printf("%d %d\\n", q[0], *(int *) q);
                    bcopy("hi", q + 4, 3);
                    printf("%s\\n", stringof(q + 4));
                    exit(0);
                }
                """).go();
        assertEquals("1 2 3 4 2 3 3\n1 1\nhi\n\n", r.end(), r.err());
    }

    @Test
    void aVoidPointerCastToStringReadsTheStringItPointsTo() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { s = alloca(10); bcopy(probename, s, 5); printf("'%s'\\n", (string) s); exit(0); }
                """).go();
        assertEquals("'BEGIN'\n\n", r.end(), r.err());
        assertEquals("D_CAST_INVAL", assertThrows(DTraceException.class, () -> DRun.script("BEGIN { trace((string) 1); }")).tag());
    }

    @Test
    void bcopyOfAnInvalidSizeFaultsWithTheSize() throws Exception {
        // a size past the source's allocation, a negative size: DTRACEFLT_BADSIZE with the size
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { d = alloca(20); s = alloca(10); bcopy(s, d, 20); }
                BEGIN { bcopy("x", alloca(1), -1); }
                BEGIN { s = (char *) alloca(16); bcopy("01", &s[16], 1); }
                BEGIN { exit(0); }
                ERROR { printf("%d %d %d\\n", arg4 == DTRACEFLT_BADSIZE, arg4, arg5); }
                """).go();
        assertEquals("1 10 20\n1 10 -1\n0 1 " + (0x1000000000000010L) + "\n\n", r.end(), r.err());
        assertTrue(r.err().contains("invalid size (0x14) at BPF pc"), r.err());
        assertTrue(r.err().contains("invalid size (0xffffffffffffffff) at BPF pc"), r.err());
    }

    @Test
    void badAddressesFaultAndTracingGoesOn() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { s = (char *) alloca(15); trace(s[16]); }
                BEGIN { n = (int *) NULL; printf("%d\\n", *n); }
                BEGIN { printf("on\\n"); exit(0); }
                ERROR { printf("ERROR clause=%d kind=%d\\n", arg2, arg4); }
                """).go();
        assertEquals("ERROR clause=0 kind=1\nERROR clause=1 kind=1\non\n\n", r.end());
        String err = r.err();
        assertTrue(err.matches("(?s)dtrace: error in dt_clause_0 for probe ID 1 \\(dtrace:::BEGIN\\): invalid address "
                + "\\(0x1000000000000010\\) at BPF pc \\d+\n.*"), err);
        assertTrue(err.contains("error in dt_clause_1 for probe ID 1 (dtrace:::BEGIN): invalid address (0x0) at BPF pc "), err);
    }

    @Test
    void anInlineArrayStandsForItsExpressionWithTheParametersBoundToTheKeys() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                inline int add[int x, int y] = x + y;
                inline string greet[string who] = strjoin("hi ", who);
                inline char low[int v] = v;
                BEGIN { printf("%d %s %d %d\\n", add[2, add[3, 4]], greet[probename], low[0x141], add[1, 2] * 2); exit(0); }
                """).go();
        assertEquals("9 hi BEGIN 65 6\n\n", r.end());
        refuse("inline int add[int x, int y] = x + y;\nBEGIN { trace(add[1]); }", "D_PROTO_LEN", 2,
                "add[ ] prototype mismatch: 1 key passed, 2 expected");
        refuse("inline int add[int x, int y] = x + y;\nBEGIN { add[1, 2] = 3; }", "D_OP_WRITE", 2,
                "operator = can only be applied to a writable variable");
        refuse("inline int f[int x] = \"a\";", "D_OP_INCOMPAT", 1, "inline f definition uses incompatible types");
    }

    @Test
    void aDeclaredGlobalCharArrayIsMemoryWithAddressesAndReadsAsAString() throws Exception {
        // its elements stored one by one, &a[i] their addresses, the whole the string they hold
        DRun r = DRun.script("""
                #pragma D option quiet
                char a[4];
                BEGIN { a[0] = 'h'; a[1] = 'i'; printf("%s %d %d\\n", a, a[1], (int)&a[3] - (int)&a[0]); }
                BEGIN { p = &a[1]; *p = 'o'; printf("%s %d\\n", a, strlen(a)); exit(0); }
                """).go();
        assertEquals("hi 105 3\nho 2\n\n", r.end());
        refuse("char a[4];\nBEGIN { p = &a; }", "D_ADDROF_VAR", 2, "cannot take address of dynamic variable");
    }

    @Test
    void aCastPointerReadsPastAGlobalArrayIntoTheVariablesBlock() throws Exception {
        // the variables' block is whole pages: ((int *)a)[10] is memory (0 until stored to); a
        // pointer past the block's page faults
        DRun r = DRun.script("""
                #pragma D option quiet
                int a[5];
                BEGIN { printf("%d\\n", ((int *)a)[10]); ((int *)a)[10] = 5; printf("%d %d\\n", ((int *)a)[10], a[4]); }
                BEGIN { printf("%d\\n", ((int *)a)[1024]); }
                BEGIN { exit(0); }
                ERROR { printf("ERROR clause=%d kind=%d\\n", arg2, arg4); }
                """).go();
        assertEquals("0\n5 0\nERROR clause=1 kind=1\n\n", r.end(), r.err());
    }

    @Test
    void anArrayCastToAPointerIsItsFirstElementsAddress() throws Exception {
        // a declared array, an array member, and a translator's char array (copied to scratch,
        // NUL-terminated: the byte past the end of the name is 0, further on is unallocated)
        DRun r = DRun.script("""
                #pragma D option quiet
                char g[8];
                int a[4];
                struct s { char name[6]; int v; } st;
                BEGIN { g[0] = 'h'; g[1] = 'i'; a[2] = 7; st.name[0] = 'x'; p = (char *)g;
                    printf("%c %d %c %s %c %d\\n", ((char *)g)[1], ((int *)a)[2], ((char *)st.name)[0],
                        stringof((char *)g), p[0], (uintptr_t)(char *)g == (uintptr_t)&g[0]); }
                BEGIN { n = (char *)curlwpsinfo->pr_name; printf("%s %d\\n", stringof(n), n[strlen(curlwpsinfo->pr_name)]); }
                BEGIN { trace(((char *)curlwpsinfo->pr_name)[100]); }
                BEGIN { exit(0); }
                ERROR { printf("ERROR clause=%d kind=%d\\n", arg2, arg4); }
                """).go();
        String[] lines = r.end().split("\n");
        assertEquals("i 7 x hi h 1", lines[0], r.err());
        assertTrue(lines[1].matches("\\S+ 0"), r.end());
        assertEquals("ERROR clause=2 kind=1", lines[2], r.end());
    }

    @Test
    void aTypeDefinedInATypeNameIsDeclaredAsAtTopLevel() throws Exception {
        // D's type_name takes a struct, union or enum with its body (sizeof, casts, offsetof):
        // laid out as the same declaration at top level, its tag and enumerators usable afterwards
        DRun r = DRun.script("""
                #pragma D option quiet
                struct top { int a; char b; };
                enum te { T0, T1, T2 = 9 };
                BEGIN { printf("%d %d\\n", sizeof (struct { int a; char b; }), sizeof (struct top));
                    p = (struct pt { int x; char c; int y; } *) alloca(sizeof (struct pt)); p->y = 7;
                    printf("%d %d %d\\n", p->y, offsetof(struct pt, y), sizeof (union { char c; long l; }));
                    printf("%d %d\\n", sizeof (enum e { E0, E1, E2 = 9 }) + E2, sizeof (enum te) + T2); }
                BEGIN { q = (struct pt *) alloca(sizeof (struct pt)); q->c = 'z'; printf("%c\\n", q->c); exit(0); }
                """).go();
        String[] lines = r.end().split("\n");
        String[] sizes = lines[0].split(" ");
        assertEquals(sizes[1], sizes[0], r.end());
        assertEquals("7 8 8", lines[1], r.err()); // x at 0, c at 4, y at 5 rounded up to 8
        String[] enums = lines[2].split(" ");
        assertEquals(enums[1], enums[0], r.end());
        assertEquals("z", lines[3], r.err());
        refuse("struct pt { int x; };\nBEGIN { trace(sizeof (struct pt { int z; })); }", "D_DECL_TYPERED", 2,
                "type redeclared: struct pt");
    }

    @Test
    void aMisalignedPointerFaultsAMisalignedMemberDoesNot() throws Exception {
        // DTRACEFLT_BADALIGN (kind 2): an int read through a pointer two bytes into a D array (the
        // guide's alignment error); aligned reads go on, and so does the int of a 5-byte struct's
        // second element, a member of a variable where libctf puts it
        DRun r = DRun.script("""
                #pragma D option quiet
                int a[3];
                struct five { int i; char c; } f[2];
                BEGIN { a[0] = 20; a[1] = 40; u = (uintptr_t)&a[0]; printf("%d %d\\n", *(int *)(u + 4), *(int *)u); }
                BEGIN { u = (uintptr_t)&a[0]; printf("%d\\n", *(int *)(u + 2)); }
                BEGIN { f[1].i = 0x5150; f[1].c = 'z'; printf("%d %x %c\\n", sizeof (f), f[1].i, f[1].c); exit(0); }
                ERROR { printf("ERROR clause=%d kind=%d\\n", arg2, arg4); }
                """).go();
        assertEquals("40 20\nERROR clause=1 kind=2\n10 5150 z\n\n", r.end(), r.err());
        assertTrue(r.err().contains("): invalid alignment (0x"), r.err());
    }

    @Test
    void tracememDumpsBytesAsDtraceDoes() throws Exception {
        byte[] mem = new byte[32];
        System.arraycopy("Linux version 6\0".getBytes(), 0, mem, 0, 16);
        mem[16] = (byte) 0xfe;
        UserContext ctx = new UserContext(new long[] {0x1000}, new long[0], java.util.Map.of(), 0, 0x1000, mem);
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { tracemem(arg0, 18); tracemem(arg0, 14, 2); tracemem(arg0, 4, 0); }
                """).go();
        r.fire(DRun.ENTRY, ctx);
        String head = "\n           " + "  0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n";
        assertEquals(head
                + "         0: 4c 69 6e 75 78 20 76 65 72 73 69 6f 6e 20 36 00  Linux version 6.\n"
                + "        10: fe 00                                            ..\n"
                + head
                + "         0: 4c 69                                            Li\n\n", r.end(), r.err());
    }

    @Test
    void traceOfAStructUnionOrArrayDumpsItsBytes() throws Exception {
        // the object's own bytes (padding included, sizeof of them), printed as a byte stream
        DRun r = DRun.script("""
                #pragma D option quiet
                struct { int a; char b; int c; } st;
                union { int a; short c; } u;
                struct s { short x; } *p;
                int16_t arr[2];
                BEGIN { st.a = 0x1234; st.c = 0x9876; u.a = 0x12345678; arr[1] = -2;
                    p = alloca(sizeof (struct s)); p->x = 0x4142;
                    trace(st); trace(u); trace(*p); trace(arr); }
                """).go();
        String head = "\n           " + "  0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n";
        assertEquals(head
                + "         0: 34 12 00 00 00 00 00 00 76 98 00 00              4.......v...\n"
                + head
                + "         0: 78 56 34 12                                      xV4.\n"
                + head
                + "         0: 42 41                                            BA\n"
                + head
                + "         0: 00 00 fe ff                                      ....\n\n", r.end(), r.err());
    }

    @Test
    void addressesOutsideDsRegionsAreTheProcesss() throws Exception {
        // a provider's handle with high bits set (provider-sdt's Java strings) reads through the context
        long base = 0x7a5d_0000_0000_0000L;
        byte[] mem = "java\0\7\0\0\0".getBytes();
        UserContext ctx = new UserContext(new long[] {base}, new long[0], java.util.Map.of(), 0, base, mem);
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { printf("%s %d %d\\n", stringof((char *) arg0), *(int *) (arg0 + 5), ((char *) arg0)[1]); }
                """).go();
        r.fire(DRun.ENTRY, ctx);
        assertEquals("java 7 97\n\n", r.end(), r.err());
    }

    @Test
    void refusalsCarryDtracesTagsAndLines() {
        refuse("struct coords { int x, y; };\nstruct coords c;\nBEGIN { c.z = 1; }",
                "D_TYPE_MEMBER", 3, "z is not a member of struct coords");
        refuse("struct foo;\nBEGIN { trace(sizeof (struct foo)); }",
                "D_SIZEOF_TYPE", 2, "cannot apply sizeof to an operand of unknown size");
        refuse("struct r {\n struct pirate p;\n int x; };",
                "D_DECL_INCOMPLETE", 2, "incomplete struct/union/enum struct pirate: p");
        refuse("struct b {\n char c : 9; };", "D_DECL_BFSIZE", 2, "bit-field too big for type: c");
        refuse("struct b {\n int c : 0; };", "D_DECL_BFCONST", 2,
                "positive integral constant expression expected as bit-field size");
        refuse("struct b { int c : 2; };\nBEGIN { trace(offsetof(struct b, c)); }", "D_OFFSETOF_BITFIELD", 2,
                "cannot take offset of a bit-field: c");
        refuse("BEGIN { trace(offsetof(int, c)); }", "D_OFFSETOF_TYPE", 1,
                "offsetof operand must be a struct or union type");
        refuse("struct r { int x; };\nstruct r v;\nBEGIN { p = &v; }", "D_ADDROF_VAR", 3,
                "cannot take address of dynamic variable");
        refuse("struct r { int x; };\nstruct r { int y; };", "D_DECL_TYPERED", 2, "type redeclared: struct r");
        refuse("int x;\nBEGIN { trace(x.y); }", "D_OP_SOU", 2,
                "operator . cannot be applied to type \"int\"; must be applied to a struct or union");
        refuse("typedef int n_t;\ntypedef char n_t;", "D_DECL_IDRED", 2, "typedef redeclared: n_t");
        refuse("struct a { int x; }\nstruct b { int y; };", "D_DECL_COMBO", 2, "invalid type combination");
        // the default is DTrace on Linux's: 256 bytes
        refuse("BEGIN { p = alloca(257); }", "D_ALLOCA_SIZE", 1, "alloca(257) size larger than scratchsize 256");
        refuse("#pragma D option scratchsize=1024\nBEGIN { p = alloca(1025); }", "D_ALLOCA_SIZE", 2,
                "alloca(1025) size larger than scratchsize 1024");
        // the size is unsigned (size_t): all ones is the largest size, not -1
        refuse("#pragma D option scratchsize=1024\nBEGIN { p = alloca(0xffffffffffffffff); }", "D_ALLOCA_SIZE", 2,
                "alloca(18446744073709551615) size larger than scratchsize 1024");
    }

    /** Compiling {@code program} fails with {@code tag} at {@code line}, its message holding {@code message}. */
    @Test
    void aTypeNameBeforeAStarAtTopLevelIsADeclarationNotAProbeDescription() throws Exception {
        // dt_lex.l: "int*x" has no ':' and "int" is a type, so it declares x; here x lacks its ';'
        // (its lexer's peek after the unknown x meets the end: "end-of-input", see ParserTest)
        refuse("BEGIN { exit(0); }\n\nint*x\n", "D_SYNTAX", 4, "syntax error near end-of-input");
        // with option pspec, it is a probe description, as -n's are
        refuse("#pragma D option pspec\n\nint*x\n", "D_SYNTAX", 3, "expected predicate and/or actions following probe description");
        DRun r = DRun.script("int*p;\n#pragma D option quiet\nBEGIN { p = (int *) alloca(4); *p = 7; printf(\"%d\\n\", *p); exit(0); }").go();
        assertEquals("7\n\n", r.end(), r.err());
    }

    static void refuse(String program, String tag, int line, String message) {
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script(program));
        assertEquals(tag, e.tag(), e.getMessage());
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }
}
