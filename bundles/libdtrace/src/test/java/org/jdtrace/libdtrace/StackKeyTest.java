package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.spi.ProbeContext;
import org.junit.jupiter.api.Test;

/**
 * stack(), ustack() and jstack() as aggregation keys and printa's %k: D compiled by a real
 * session, fired with user contexts of fixed stacks (UserContext), output compared with what
 * dtrace prints (dt_print_aggs / dt_print_ustack / pfprint_stack layouts).
 */
class StackKeyTest {

    private static final String INDENT = " ".repeat(14);
    private static final Map<Long, String> SYMBOLS = Map.of(0x401000L, "hello`work", 0x402000L, "hello`main",
            0x7f0000001a00L, "libc.so.6`__libc_start_call_main");

    /** work+0x10 <- main+0x2a <- __libc_start_call_main+0x7a. */
    private static UserContext fromMain() {
        return new UserContext(new long[0], new long[] {0x401010, 0x40202a, 0x7f0000001a7aL}, SYMBOLS, 0x100, 0, new byte[0]);
    }

    /** work <- an unmapped pc. */
    private static UserContext fromNowhere() {
        return new UserContext(new long[0], new long[] {0x401000, 0xdead0}, SYMBOLS, 0x100, 0, new byte[0]);
    }

    private static String value(long v) {
        return String.format(" %16d\n", v);
    }

    @Test
    void ustackKeysCountByFramesAndPrintFramesThenTheValue() throws Exception {
        DRun r = DRun.script("test:::entry { @[ustack()] = count(); }").go();
        r.fire(DRun.ENTRY, fromMain()).fire(DRun.ENTRY, fromNowhere()).fire(DRun.ENTRY, fromMain());
        String main = "\n" + INDENT + "hello`work+0x10\n" + INDENT + "hello`main+0x2a\n" + INDENT
                + "libc.so.6`__libc_start_call_main+0x7a\n";
        String nowhere = "\n" + INDENT + "hello`work\n" + INDENT + "0xdead0\n";
        // sorted by value: the stack seen once first
        assertEquals("\n" + nowhere + value(1) + main + value(2), r.end());
    }

    @Test
    void ustackDepthAndAScalarKeyBeforeTheStack() throws Exception {
        DRun r = DRun.script("#pragma D option stackindent=2\ntest:::entry { @[probefunc, ustack(1)] = sum(5); }").go();
        r.fire(DRun.ENTRY, fromMain()).fire(DRun.ENTRY, fromNowhere());
        String func = "  " + String.format("%-50s", "work");
        assertEquals("\n" + func + "\n  hello`work\n" + value(5) + func + "\n  hello`work+0x10\n" + value(5), r.end());
    }

    @Test
    void kernelStackIsEmptyAtAUserProbeAsInTstEmptystack() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\ntest:::entry { @[stack()] = sum(0); }\ntest:::entry { @[stack()] = sum(0); }").go();
        r.fire(DRun.ENTRY, fromMain()).fire(DRun.ENTRY, fromNowhere());
        // pid-usdt/pid/tst.emptystack.r
        assertEquals("\n\n                0\n", r.end());
    }

    @Test
    void stackAndJstackActions() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\ntest:::entry { stack(); printf(\"j\"); jstack(1); }").go();
        r.fire(DRun.ENTRY, fromMain());
        assertEquals("\nj\n" + INDENT + "hello`work+0x10\n\n", r.end());
    }

    @Test
    void printaKConversionFramesIndentedByALeftWidthOrRightAligned() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                test:::entry { @[ustack(2)] = count(); }
                END { printa("%k %@d\\n", @); printa("%-4k|\\n", @); printa("%18k|\\n", @); printa("%.6k|\\n", @); }
                """).go();
        r.fire(DRun.ENTRY, fromMain());
        assertEquals("\nhello`work+0x10\nhello`main+0x2a\n 1\n"
                + "\n    hello`work+0x10\n    hello`main+0x2a\n|\n"
                + "\n   hello`work+0x10\n   hello`main+0x2a\n|\n"
                + "\nhello`\nhello`\n|\n\n", r.end());
    }

    @Test
    void maxframesCapsEveryDepth() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\n#pragma D option maxframes=1\n"
                + "test:::entry { @[ustack()] = count(); @[ustack(3)] = count(); }").go();
        r.fire(DRun.ENTRY, fromMain());
        assertEquals("\n\n" + INDENT + "hello`work+0x10\n" + value(2), r.end());
    }

    @Test
    void jstackKeyOfAJvmProbeIsEmpty() throws Exception {
        DRun r = DRun.script("#pragma D option quiet\nBEGIN { @[jstack()] = count(); printa(\"%k%@d\\n\", @); }").go();
        assertEquals("\n1\n\n", r.end());
    }

    @Test
    void eachPcIsSymbolisedOnceForAHotStack() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        UserContext u = fromMain();
        ProbeContext counting = new ProbeContext() {
            public long arg(int i) { return u.arg(i); }
            public long pid() { return u.pid(); }
            public long ppid() { return u.ppid(); }
            public long tid() { return u.tid(); }
            public String execname() { return u.execname(); }
            public int cpu() { return u.cpu(); }
            public long[] ustack(int max) { return u.ustack(max); }
            public String usym(long pc) {
                lookups.incrementAndGet();
                return u.usym(pc);
            }
        };
        DRun r = DRun.script("#pragma D option quiet\ntest:::entry { @[ustack()] = count(); }").go();
        for (int i = 0; i < 100; i++) r.fire(DRun.ENTRY, counting);
        assertTrue(r.end().endsWith(value(100)));
        assertEquals(3, lookups.get());
    }

    @Test
    void stackKeysAreCheckedAgainstConversionsAndPrototypes() {
        DTraceException e = assertThrows(DTraceException.class,
                () -> DRun.script("BEGIN { @[ustack()] = count(); printa(\"%p\\n\", @); }"));
        assertEquals("D_PRINTF_ARG_TYPE", e.tag());
        assertTrue(e.getMessage().endsWith("prototype: pointer or integer\n\t  argument: stack"), e.getMessage());
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { @[1] = count(); printa(\"%k\\n\", @); }"));
        assertTrue(e.getMessage().contains("prototype: stack"), e.getMessage());
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { @[ustack()] = count(); @[1] = count(); }"));
        assertEquals("D_PROTO_ARG", e.tag());
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { @[ustack(0)] = count(); }"));
        assertTrue(e.getMessage().contains("ustack( ) argument #1 must be a non-zero positive integer constant"));
        e = assertThrows(DTraceException.class, () -> DRun.script("BEGIN { x = ustack(); }"));
        assertEquals("operator = requires an operand of non-void type", e.getMessage());
    }
}
