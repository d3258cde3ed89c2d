package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;

/**
 * ustack(), ucaller and copyin() at a user-level firing: D compiled by a real session and fired
 * with a probe context that has a fixed stack, symbol table and memory (UserContext).
 */
class UserProbeTest {

    private static final String INDENT = " ".repeat(14);

    /** main+0x0 <- __libc_start_call_main+0x7a <- an unmapped pc; memory at 0x1000. */
    private static UserContext context(long... args) {
        byte[] mem = new byte[32];
        ByteBuffer.wrap(mem).order(ByteOrder.LITTLE_ENDIAN).putInt(0, -2).putLong(8, 0x1122334455667788L);
        System.arraycopy("hi!\0".getBytes(), 0, mem, 16, 4);
        return new UserContext(args, new long[] {0x401000, 0x7f0000001a7aL, 0xdead0},
                Map.of(0x401000L, "hello`main", 0x7f0000001a00L, "libc.so.6`__libc_start_call_main"), 0x100, 0x1000, mem);
    }

    @Test
    void ustackPrintsEachFrameIndentedAfterANewline() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { ustack(); printf("two:"); ustack(2); }
                """).go();
        r.fire(DRun.ENTRY, context());
        String stack3 = "\n" + INDENT + "hello`main\n" + INDENT + "libc.so.6`__libc_start_call_main+0x7a\n" + INDENT
                + "0xdead0\n";
        String stack2 = "\n" + INDENT + "hello`main\n" + INDENT + "libc.so.6`__libc_start_call_main+0x7a\n";
        assertEquals(stack3 + "two:" + stack2 + "\n", r.end());
    }

    @Test
    void ustackFollowsTheProbeLineAndStackindent() throws Exception {
        DRun r = DRun.script("#pragma D option stackindent=4\ntest:::entry { ustack(1); }").go();
        r.fire(DRun.ENTRY, context());
        assertEquals("CPU     ID                    FUNCTION:NAME\n" + String.format("%3d %6d %32s ", 0, 4, "work:entry")
                + "\n    hello`main\n\n\n", r.end());
    }

    @Test
    void ustackOfAJvmProbeIsEmpty() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { ustack(); printf(\"end\\n\"); }").go();
        assertEquals("\nend\n\n", r.end());
    }

    @Test
    void ustackNeedsAPositiveConstant() {
        DTraceException e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { ustack(0); }"));
        assertTrue(e.getMessage().contains("ustack( ) argument #1 must be a non-zero positive integer constant"),
                e.getMessage());
    }

    @Test
    void copyinReadsIntegersOfEveryWidthAndStrings() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry {
                    printf("%d %u %d %x\\n", *(int *)copyin(arg0, 4), *(unsigned int *)copyin(arg0, 4),
                        *(char *)copyin(arg0, 1), *(uint64_t *)copyin(arg0 + 8, 8));
                    printf("%x %d\\n", *(unsigned short *)copyin(arg0 + 8, 2), *(long *)copyin(arg0, 8));
                    printf("[%s] [%s]\\n", stringof(copyin(arg0 + 16, 4)), stringof(copyin(arg0 + 16, 2)));
                    trace(stringof(copyin(arg1, 3)));
                }
                """).go();
        r.fire(DRun.ENTRY, context(0x1000, 0x1010));
        assertEquals("-2 4294967294 -2 1122334455667788\n7788 4294967294\n[hi!] [hi]\nhi!\n", r.end());
    }

    @Test
    void copyinOfABadAddressRaisesErrorAndTracingGoesOn() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { printf("a\\n"); printf("%d\\n", *(int *)copyin(arg0, 4)); }
                test:::entry { printf("next %d\\n", *(int *)copyin(arg1, 4)); }
                ERROR { printf("ERROR clause=%d kind=%d addr=%x\\n", arg2, arg4, arg5); }
                """).go();
        r.fire(DRun.ENTRY, context(0x9000, 0x1000));
        // the faulting firing's records are discarded, as DTrace discards the ECB's partial record
        assertEquals("ERROR clause=0 kind=1 addr=9000\nnext -2\n\n", r.end());
        assertTrue(r.err().contains("invalid address (0x9000)"), r.err());
    }

    @Test
    void copyinResultIsAPointerIntoScratchThatLivesUntilTheClauseEnds() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                struct pair { int a; short b; short c; };
                test:::entry {
                    this->p = (int *) copyin(arg0, 16);
                    this->s = (struct pair *) this->p;
                    printf("%d %d %x %x\\n", this->p[0], *this->p, this->s->b & 0xffff, this->p[2]);
                    this->buf = (char *) alloca(4);
                    copyinto(arg1, 3, this->buf);
                    printf("%s\\n", stringof(this->buf));
                    self->q = this->p;
                }
                test:::entry { printf("%d\\n", *self->q); }
                ERROR { printf("ERROR action=%d kind=%d\\n", arg2, arg4); }
                """).go();
        r.fire(DRun.ENTRY, context(0x1000, 0x1010));
        // the second clause reads scratch the first one allocated: freed at its end, a fault
        assertEquals("-2 -2 0 55667788\nhi!\nERROR action=1 kind=1\n\n", r.end());
    }

    @Test
    void ucallerIsTheCallersPc() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\ntest:::entry { printf(\"%x %d\\n\", ucaller, sizeof (ucaller)); }").go();
        r.fire(DRun.ENTRY, context());
        assertEquals("7f0000001a7a 8\n\n", r.end());
    }

    @Test
    void usymUfuncUmodUaddrPrintSymbolised() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { usym(ucaller); printf("|\\n"); ufunc(arg0); printf("|\\n"); umod(ucaller);
                    printf("|\\n"); uaddr(ucaller); printf("|\\n"); uaddr(0xdead0); printf("|\\n"); }
                """).go();
        r.fire(DRun.ENTRY, context(0x401010));
        assertEquals(String.format("  %-50s|\n  %-50s|\n  %-50s|\n  %-50s|\n  %-50s|\n\n",
                "libc.so.6`__libc_start_call_main", "hello`main", "libc.so.6", "libc.so.6`__libc_start_call_main+0x7a",
                "0xdead0"), r.end());
    }
}
