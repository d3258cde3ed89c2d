package org.jdtrace.core.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class JvmProbeContextTest {

    /** /proc/thread-self links to <pid>/task/<tid>: the kernel's own answer for this thread. */
    private static long kernelTid() throws Exception {
        String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
        return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
    }

    @Test
    void identifiesTheProcessAndThreadAsTheKernelDoes() throws Exception {
        JvmProbeContext ctx = JvmProbeContext.current();
        assertEquals(ProcessHandle.current().pid(), ctx.pid());
        assertEquals(ProcessHandle.current().parent().orElseThrow().pid(), ctx.ppid());
        assertEquals(kernelTid(), ctx.tid());
        assertEquals(java.nio.file.Files.readString(Path.of("/proc/self/comm")).strip(), ctx.execname());
        int cpu = ctx.cpu();
        assertTrue(cpu >= 0 && cpu < Runtime.getRuntime().availableProcessors() * 64, "cpu " + cpu);
    }

    @Test
    void eachThreadHasItsOwnReusedContext() throws Exception {
        JvmProbeContext mine = JvmProbeContext.current();
        assertSame(mine, JvmProbeContext.current());
        AtomicLong otherTid = new AtomicLong();
        AtomicLong kernel = new AtomicLong();
        Thread t = new Thread(() -> {
            otherTid.set(JvmProbeContext.current().tid());
            try {
                kernel.set(kernelTid());
            } catch (Exception e) {
                kernel.set(-2);
            }
        });
        t.start();
        t.join();
        assertEquals(kernel.get(), otherTid.get());
        assertNotEquals(mine.tid(), otherTid.get());
    }

    @Test
    void argumentsAreSetByTheFiringProvider() {
        JvmProbeContext ctx = JvmProbeContext.current().clear().arg(0, 5).arg(1, 6, "six");
        assertEquals(5, ctx.arg(0));
        assertEquals(6, ctx.arg(1));
        assertEquals("six", ctx.argObject(1));
        assertEquals(5L, ctx.argObject(0));
        assertEquals(0, ctx.arg(9));
        assertEquals(0, ctx.arg(10));
        ctx.args(1, 2);
        assertEquals(2, ctx.arg(1));
        assertEquals(2L, ctx.argObject(1));
        assertEquals(3, ctx.pinCpu(3).cpu());
        ctx.pinCpu(-1);
    }
}
