package org.jdtrace.libdtrace.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

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
    void aStackWithAnUnnamedFrameIsNamedAgainNextTime() {
        SymbolCache cache = new SymbolCache();
        String[] jit = {null};
        LongFunction<String> names = pc -> pc == 0x40 ? jit[0] : "libc.so.6`f";
        assertEquals(List.of("0x40", "libc.so.6`f"), cache.frames(1, new long[] {0x40, 0x50}, names).frames());
        jit[0] = "[jit]`A.run";
        assertEquals(List.of("[jit]`A.run", "libc.so.6`f"), cache.frames(1, new long[] {0x40, 0x50}, names).frames());
    }

    @Test
    void theStackCacheIsBounded() {
        SymbolCache cache = new SymbolCache();
        for (int i = 0; i < SymbolCache.STACK_LIMIT + 10; i++) cache.frames(1, new long[] {i % 100, i}, pc -> "f");
        assertEquals(10, cache.stacks());
    }
}
