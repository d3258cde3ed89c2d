package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;

/**
 * D's string, network and symbol subroutines and variables run through the built-ins table,
 * compiled by a real session and fired: DTrace's semantics as its guide gives them (NULL where
 * DTrace returns NULL, a fault where it faults on a NULL string), checked against values worked
 * out by hand and, for inet_ntoa6, against java.net's own IPv6 text where RFC 1884 agrees.
 */
class SubroutinesTest {

    private static String quiet(String body) throws Exception {
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { " + body + " exit(0); }").go();
        return r.end();
    }

    @Test
    void searchesReturnTheSuffixOrNull() throws Exception {
        // a NULL result is not printed (printf of it faults, see NullStringsTest): compared
        assertEquals("[llo] [lo] [llo] 1 1 1\n\n", quiet("""
                printf("[%s] [%s] [%s] ", strchr("hello", 'l'), strrchr("hello", 'l'), strstr("hello", "ll"));
                printf("%d %d %d\\n", strchr("hello", 'z') == NULL, strrchr("hello", 'z') == NULL, strstr("hello", "zz") == NULL);"""));
        assertEquals("1 1 1\n\n", quiet("""
                printf("%d %d %d\\n", strchr("abc", 'z') == NULL, strstr("abc", "q") == NULL, strchr("abc", 'a') != NULL);"""));
    }

    @Test
    void aStringPlusAnIntegerIsTheStringThatManyCharactersOn() throws Exception {
        // dt_cook_op2 treats a string as a pointer to its characters, in every kind of variable
        assertEquals("[bcdefgh] [cdefgh] [] [] [2] [2]\n\n", quiet("""
                g = "abcdefgh"; this->l = "12"; self->t = "12"; a[1] = "xyz";
                printf("[%s] [%s] [%s] [%s] [%s] [%s]\\n", g + 1, 2 + g, g + 8, a[1] + 9, this->l + 1, 1 + self->t);"""));
        // every variable's string has strsize bytes: a clause-local one too
        assertEquals("[bcd] [bcd] [bcd]\n\n", DRun.script("#pragma D option quiet\n#pragma D option strsize=4\n"
                + "BEGIN { g = \"abcdefgh\"; this->l = \"abcdefgh\"; self->t = \"abcdefgh\";"
                + " printf(\"[%s] [%s] [%s]\\n\", g + 1, this->l + 1, self->t + 1); }").go().end());
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { g = \"ab\"; trace(g - 1); }\n"
                + "ERROR { printf(\"ERROR kind=%d\\n\", arg4); }\n").go();
        assertEquals("ERROR kind=1\n\n", r.end());
    }

    @Test
    void strtollAndLltostrTakeABaseAsIllumosDoes() throws Exception {
        // dtrace_strtoll: blanks, a sign, a 0x before a hex digit in base 16, then digits below
        // the base up to the first other character
        assertEquals("-31 31 35 511 12 5 42 0 0 -1\n\n", quiet("""
                printf("%d %d %d %d %d %d %d %d %d %d\\n", strtoll("  -0x1f", 16), strtoll("0x1f", 16), strtoll("z", 36),
                    strtoll("777", 8), strtoll("+12abc"), strtoll("101", 2), strtoll("\\t42"), strtoll("0x", 16),
                    strtoll("9", 8), strtoll("-1"));"""));
        // DIF_SUBR_LLTOSTR: base 10 signed, others unsigned; 0x before base 16, 0 before base 8
        assertEquals("0xff 0x0 010 0 -5 z 101 0xffffffffffffffff -9223372036854775808\n\n", quiet("""
                printf("%s %s %s %s %s %s %s %s %s\\n", lltostr(255, 16), lltostr(0, 16), lltostr(8, 8), lltostr(0, 8),
                    lltostr(-5, 10), lltostr(35, 36), lltostr(5, 2), lltostr(-1, 16), lltostr(0x8000000000000000, 10));"""));
        // a base below 2 or above 36 is an illegal operation (DTRACEFLT_ILLOP, 3): ERROR fires
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { x = strtoll("1", 1); printf("not reached\\n"); }
                BEGIN { x = strtoll("1", 37); printf("not reached\\n"); }
                BEGIN { y = lltostr(1, 37); printf("not reached\\n"); }
                BEGIN { y = lltostr(1, 0); printf("not reached\\n"); }
                BEGIN { exit(0); }
                ERROR { printf("ERROR kind=%d\\n", arg4); }
                """).go();
        assertEquals("ERROR kind=3\nERROR kind=3\nERROR kind=3\nERROR kind=3\n\n", r.end(), r.err());
    }

    @Test
    void indexAndRindexWithAndWithoutAStart() throws Exception {
        assertEquals("2 3 3 2 -1 -1 0 5 -1\n\n", quiet("""
                printf("%d %d %d %d %d %d %d %d %d\\n", index("hello", "l"), rindex("hello", "l"), index("hello", "l", 3),
                    rindex("hello", "l", 2), index("hello", "z"), index("hello", "l", 10), index("hello", "", -3),
                    index("hello", "", 9), rindex("hello", "h", -1));"""));
    }

    @Test
    void strtokGoesOnWithNullAndEndsInNull() throws Exception {
        assertEquals("[a] [b] [c] 1 1\n\n", quiet("""
                printf("[%s] ", strtok(",,a,b,,c,", ","));
                printf("[%s] ", strtok(NULL, ","));
                printf("[%s] ", strtok(NULL, ","));
                printf("%d ", strtok(NULL, ",") == NULL);
                printf("%d\\n", strtok(NULL, ",") == NULL);"""));
    }

    @Test
    void strtokGoesOnFromTheDelimiterWithTheNewDelimiters() throws Exception {
        // the ';' that ended "xx" is no delimiter of the second call: it starts its token
        assertEquals("[xx] [;a] [b]\n\n", quiet("""
                printf("[%s] ", strtok("xx;a,b", ";"));
                printf("[%s] ", strtok(NULL, ","));
                printf("[%s]\\n", strtok(NULL, ","));"""));
    }

    @Test
    void strtokAfterTheLastTokenIsNull() throws Exception {
        // "returns NULL if no more tokens are found", also after a token that ended the string
        assertEquals("[a] [b] [NULL] [NULL]\n\n", quiet("""
                printf("[%s] ", strtok("a,b", ","));
                printf("[%s] ", strtok(NULL, ","));
                printf("[%s] ", strtok(NULL, ",") == NULL ? "NULL" : "?");
                printf("[%s]\\n", strtok(NULL, ",") == NULL ? "NULL" : "?");"""));
    }

    @Test
    void theIntegerZeroIsANullString() throws Exception {
        // strlen(0): 0 is NULL where a const char * is wanted; reading it faults at address 0
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { trace(strlen(0)); }
                BEGIN { printf("on\\n"); exit(0); }
                ERROR { printf("ERROR kind=%d addr=%d\\n", arg4, arg5); }
                """).go();
        assertEquals("ERROR kind=1 addr=0\non\n\n", r.end());
    }

    @Test
    void aNullStringGivenToASubroutineFaults() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { printf("one\\n"); trace(strlen(strchr("abc", 'z'))); printf("never\\n"); }
                ERROR { printf("ERROR kind=%d addr=%d\\n", arg4, arg5); exit(0); }
                """).go();
        // the faulting clause's record is discarded, "one" with it, as DTrace discards it
        assertEquals("ERROR kind=1 addr=0\n\n", r.end());
        assertTrue(r.err().matches("dtrace: error in dt_clause_0 for probe ID 1 \\(dtrace:::BEGIN\\): invalid address \\(0x0\\)"
                + " at BPF pc [1-9][0-9]*\n"), r.err());
    }

    @Test
    void caseAndPathSubroutines() throws Exception {
        assertEquals("[ABC-Z9] [abc-z9] [/a/c] [../../y] [/] [c] [/a/b] [.]\n\n", quiet("""
                printf("[%s] [%s] ", toupper("abc-Z9"), tolower("ABC-z9"));
                printf("[%s] [%s] [%s] ", cleanpath("/a/./b//../c/"), cleanpath("../x/../../y"), cleanpath("/.."));
                printf("[%s] [%s] [%s]\\n", basename("/a/b/c//"), dirname("/a/b/c"), dirname("c"));"""));
    }

    @Test
    void jsonSelectsByDottedPath() throws Exception {
        assertEquals("[two] [[1, 2]] [true] [3.5] 1 1\n\n", quiet("""
                printf("[%s] ", json("{\\"a\\": {\\"b\\": [1, \\"two\\", {\\"c\\": true}]}}", "a.b[1]"));
                printf("[%s] ", json("{\\"a\\": {\\"b\\": [1, 2]}}", "a.b"));
                printf("[%s] ", json("{\\"a\\": {\\"b\\": [1, \\"two\\", {\\"c\\": true}]}}", "a.b[2].c"));
                printf("[%s] ", json("[0, 3.5]", "[1]"));
                printf("%d ", json("{\\"a\\": 1}", "b") == NULL);
                printf("%d\\n", json("not json", "a") == NULL);"""));
    }

    @Test
    void byteOrderAndDeviceNumbers() throws Exception {
        assertEquals("3412 78563412 8877665544332211 3412 8 1\n\n", quiet("""
                printf("%x %x %x %x %d %d\\n", htons(0x1234), htonl(0x12345678), htonll(0x1122334455667788),
                    ntohs(0x1234), getmajor(0x800001), getminor(0x800001));"""));
    }

    @Test
    void processVariablesOfTheFiringProcess() throws Exception {
        long pid = ProcessHandle.current().pid();
        String cwd = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/cwd")).toString();
        String uid = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow().split("\\s+")[1];
        assertEquals(uid + " " + cwd + " / 1 1 0\n\n", quiet("""
                printf("%d %s %s %d %d %d\\n", uid, cwd, root, progenyof($pid), progenyof(1), progenyof(-5));"""));
        assertEquals(pid, Long.parseLong(quiet("printf(\"%d\", $pid);").strip()));
    }

    /** main+0x0 <- __libc_start_call_main+0x7a <- an unmapped pc; 127.0.0.1 and ::ffff:10.1.2.3 in memory at 0x1000. */
    private static UserContext context(long... args) {
        byte[] mem = new byte[48];
        mem[0] = 127;
        mem[3] = 1;
        mem[26] = (byte) 0xff;
        mem[27] = (byte) 0xff;
        mem[28] = 10;
        mem[29] = 1;
        mem[30] = 2;
        mem[31] = 3;
        mem[32] = 0x20;
        mem[33] = 0x01;
        mem[34] = 0x0d;
        mem[35] = (byte) 0xb8;
        mem[47] = 1;
        return new UserContext(args, new long[] {0x401000, 0x7f0000001a7aL, 0xdead0},
                Map.of(0x401000L, "hello`main", 0x7f0000001a00L, "libc.so.6`__libc_start_call_main"), 0x100, 0x1000, mem);
    }

    @Test
    void inetAddressesFromTheProcessMemory() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { printf("%s %s %s %s %s %s\\n", inet_ntoa(0x1000), inet_ntoa6(0x1010), inet_ntop(AF_INET, 0x1000),
                    inet_ntop(AF_INET6, 0x1020), inet_ntoa6(0x1010, 1), link_ntop(ARPHRD_ETHER, 0x1020)); }
                """).go();
        r.fire(DRun.ENTRY, context());
        // inet_ntoa6 prints an IPv4-mapped address as its IPv4 address, strictly (second argument
        // non-zero) and through inet_ntop with the ::ffff: prefix
        assertEquals("127.0.0.1 10.1.2.3 127.0.0.1 2001:db8::1 ::ffff:10.1.2.3 20:01:0d:b8:00:00\n\n", r.end());
    }

    @Test
    void inetAddressesFromScratchMemory() throws Exception {
        // the address may point into D's own memory: bytes alloca()'d and stored by the clause
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN { a = (uint8_t *) alloca(6); a[0] = 10; a[1] = 1; a[2] = 2; a[3] = 3; a[4] = 0xfe; a[5] = 0xff;
                    printf("%s %s\\n", inet_ntoa(a), link_ntop(ARPHRD_ETHER, a)); }
                """).go();
        assertEquals("10.1.2.3 0a:01:02:03:fe:ff\n\n", r.end());
    }

    @Test
    void anArrayOfUnsignedBytesIsMemoryThatDecaysToAVoidPointer() throws Exception {
        // uint8_t[] is no string (only char arrays are): a global one is an object with an
        // address, passed to link_ntop's void * as its first element's address
        DRun r = DRun.script("""
                #pragma D option quiet
                uint8_t mac[6];
                BEGIN { mac[0] = 0x10; mac[1] = 0x80; mac[5] = 0xff; p = &mac[1];
                    printf("%s %x %d\\n", link_ntop(ARPHRD_ETHER, mac), *p, sizeof (mac)); }
                """).go();
        assertEquals("10:80:00:00:00:ff 80 6\n\n", r.end());
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("""
                char name[6];
                BEGIN { trace(link_ntop(ARPHRD_ETHER, name)); }
                """));
        assertEquals("D_PROTO_ARG", e.tag());
    }

    @Test
    void inetAddressesLaidOutInTheirOwnStructs() throws Exception {
        // struct in_addr and struct in6_addr are known types (Linux's: in6_u.u6_addr8[16]) that a
        // program fills in scratch space member by member
        DRun r = DRun.script("""
                #pragma D option quiet
                struct in_addr *a4; struct in6_addr *a6;
                BEGIN { a4 = alloca(sizeof (struct in_addr)); a6 = alloca(sizeof (struct in6_addr));
                    a4->s_addr = htonl(0xc0a80117); a6->in6_u.u6_addr8[0] = 0xfe; a6->in6_u.u6_addr8[1] = 0x80;
                    a6->in6_u.u6_addr8[15] = 1; a6->in6_u.u6_addr16[4] = htons(0x214);
                    printf("%d %d %d %s %s %s\\n", sizeof (struct in_addr), sizeof (struct in6_addr),
                        sizeof (a6->in6_u.u6_addr16), inet_ntop(AF_INET, a4), inet_ntoa6(a6),
                        inet_ntop(AF_INET6, (void *) a6)); }
                """).go();
        assertEquals("4 16 16 192.168.1.23 fe80::214:0:0:1 fe80::214:0:0:1\n\n", r.end());
    }

    @Test
    void symbolsAreAggregationKeysPrintedWithPercentAAndByDefault() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { @f[ufunc(arg0)] = count(); @m[umod(ucaller)] = count(); @a[uaddr(ucaller)] = count(); }
                END { printa("%A %@d\\n", @f); printa(@m); printa("%a|\\n", @a); }
                """).go();
        r.fire(DRun.ENTRY, context(0x401010));
        r.fire(DRun.ENTRY, context(0x401020)); // the same function: one key
        assertEquals("hello`main 2\n\n  " + String.format("%-50s", "libc.so.6") + " " + String.format("%16d", 2) + "\n"
                + "libc.so.6`__libc_start_call_main+0x7a|\n\n", r.end());
    }

    @Test
    void percentAInPrintfSymbolisesAUserAddress() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { printf("%A|%A|%a\\n", arg0, ucaller, 0x10); }
                """).go();
        r.fire(DRun.ENTRY, context(0x401010));
        assertEquals("hello`main+0x10|libc.so.6`__libc_start_call_main+0x7a|0x10\n\n", r.end());
    }

    @Test
    void percentAInPrintaSymbolisesAnIntegerKeyAtTheFiring() throws Exception {
        // dt_printf.c: printa's %A is pfprint_uaddr and %a pfprint_addr of the key, as in printf
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { @u[arg0] = count(); @k[arg0, 7] = sum(1); @n[arg0] = count(); }
                END { printa("%A %@d\\n", @u); printa("%a|%d %@d\\n", @k); printa("%A\\n", @n); printa("%x\\n", @n); }
                """).go();
        r.fire(DRun.ENTRY, context(0x401010));
        r.fire(DRun.ENTRY, context(0x401010));
        r.fire(DRun.ENTRY, context(0x401020)); // another offset: another key
        // %a of a user address (no kernel here) and %A of a key that printa also prints with %x: hex
        assertEquals("hello`main+0x20 1\nhello`main+0x10 2\n0x401020|7 1\n0x401010|7 2\n"
                + "0x401020\n0x401010\n401020\n401010\n\n", r.end());
    }

    @Test
    void aSymbolActionIsNotAValue() {
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(org.jdtrace.consumer.DTraceException.class,
                () -> DRun.script("BEGIN { x = ufunc(0); }"));
        assertTrue(e.getMessage().contains("ufunc( )"), e.getMessage());
    }
}
