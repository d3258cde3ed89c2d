package org.jdtrace.libdtrace.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;

import org.junit.jupiter.api.Test;

class SymbolCacheTest {

    @Test
    void aStackSeenBeforeIsTheSameFramesWithoutAnotherLookup() {
        SymbolCache cache = new SymbolCache();
        AtomicInteger lookups = new AtomicInteger();
        LongFunction<String> names = pc -> {
            lookups.incrementAndGet();
            return "a.out`f" + pc;
        };
        StackFrames first = cache.frames(7, new long[] {1, 2, 3}, names);
        assertEquals(List.of("a.out`f1", "a.out`f2", "a.out`f3"), first.frames());
        assertEquals(3, lookups.get());
        assertSame(first, cache.frames(7, new long[] {1, 2, 3}, names));
        assertEquals(3, lookups.get());
        // another process or another pc: another stack (its pcs named through the pc cache)
        assertEquals(List.of("a.out`f1", "a.out`f2"), cache.frames(7, new long[] {1, 2}, names).frames());
        assertEquals(3, lookups.get());
        cache.frames(8, new long[] {1, 2, 3}, names);
        assertEquals(6, lookups.get());
        assertEquals(3, cache.stacks());
        assertSame(StackFrames.EMPTY, cache.frames(7, new long[0], names));
    }

    @Test
    void equalStacksOfTwoProcessesAreOneStackFrames() {
        SymbolCache cache = new SymbolCache();
        LongFunction<String> names = pc -> "cfiprof`f+0x" + Long.toHexString(pc);
        StackFrames one = cache.frames(100, new long[] {0x11, 0x22}, names);
        StackFrames two = cache.frames(200, new long[] {0x11, 0x22}, names);
        assertSame(one, two, "the same program's stack in two processes: one key for an aggregation");
        assertSame(two, cache.frames(200, new long[] {0x11, 0x22}, names));
        assertEquals(List.of("cfiprof`f+0x11", "cfiprof`f+0x33"), cache.frames(200, new long[] {0x11, 0x33}, names).frames());
    }

    @Test
    void aStackWithAnUnnamedFrameIsNamedAgainNextTime() {
        SymbolCache cache = new SymbolCache();
        String[] jit = {null};
        LongFunction<String> names = pc -> pc == 0x40 ? jit[0] : "libc.so.6`f";
        assertEquals(List.of("0x40", "libc.so.6`f"), cache.frames(1, new long[] {0x40, 0x50}, names).frames());
        jit[0] = "[jit]`A.run";
        assertEquals(List.of("[jit]`A.run", "libc.so.6`f"), cache.frames(1, new long[] {0x40, 0x50}, names).frames());
    }

    @Test
    void theCachesAreBoundedAndKeepWhatIsSeenAgain() {
        SymbolCache cache = new SymbolCache();
        AtomicInteger lookups = new AtomicInteger();
        LongFunction<String> names = pc -> {
            lookups.incrementAndGet();
            return "a.out`f" + pc;
        };
        long[] hot = {0x10, 0x20, 0x30};
        StackFrames hotFrames = cache.frames(1, hot, names);
        int before = lookups.get();
        // many more stacks and pcs than the caches hold, the hot stack seen between each
        for (int i = 0; i < 3 * SymbolCache.LIMIT; i++) {
            long[] other = {0x1000 + i, 0x20};
            assertEquals(List.of("a.out`f" + (0x1000 + i), "a.out`f32"), cache.frames(1, other, names).frames());
            assertSame(hotFrames, cache.frames(1, new long[] {0x10, 0x20, 0x30}, names));
        }
        assertTrue(cache.stacks() <= SymbolCache.STACK_LIMIT, cache.stacks() + " stacks");
        assertTrue(cache.size() <= SymbolCache.LIMIT, cache.size() + " pcs");
        // each new stack looked up its new pc, never the hot stack's (0x20 stays in the pc cache)
        assertEquals(before + 3 * SymbolCache.LIMIT, lookups.get());
    }

    @Test
    void concurrentFiringsGetTheirOwnStacksNamed() throws Exception {
        SymbolCache cache = new SymbolCache();
        LongFunction<String> names = pc -> "a.out`f" + pc;
        Thread[] threads = new Thread[4];
        AtomicInteger wrong = new AtomicInteger();
        for (int t = 0; t < threads.length; t++) {
            int pid = t;
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 200_000; i++) {
                    long pc = i % 5000;
                    List<String> f = cache.frames(pid, new long[] {pc, pc + 1}, names).frames();
                    if (!f.equals(List.of("a.out`f" + pc, "a.out`f" + (pc + 1)))) wrong.incrementAndGet();
                    if (!("a.out`f" + pc).equals(cache.lookup(pid, pc, names))) wrong.incrementAndGet();
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) t.join();
        assertEquals(0, wrong.get());
    }
}
