package org.jdtrace.libdtrace.cmd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Associative array elements take dynvarsize's space when made and give it back when deleted:
 * one that does not fit is not made (it reads as 0) and counts a dynamic variable drop, reported
 * once. self-> variables too, each at its type's size (see rt.DState). An aggregation key that does
 * not fit aggsize is an aggregation drop.
 */
class DynamicDropsTest {

    @Test
    void elementsBeyondDynvarsizeAreDropsAndDeletesFreeSpace() {
        // an int-keyed int element takes 16 bytes (key 8, value 8): 48 hold three
        String prog = "BEGIN { a[1] = 1; a[2] = 1; a[3] = 1; a[4] = 1; a[1] = 0; a[5] = 1;"
                + " printf(\"%d %d %d %d\\n\", a[2], a[3], a[4], a[5]); exit(0); }";
        try (RealCommand d = new RealCommand()) {
            assertEquals(0, d.run("-q", "-x", "droptags", "-x", "dynvarsize=48", "-n", prog), d.err());
            assertEquals("1 1 0 1\n\n", d.out());
            assertEquals("dtrace: [DTRACEDROP_DYNAMIC] 1 dynamic variable drop\n", d.err());
            // the default (1m) holds them all
            assertEquals(0, d.run("-q", "-n", prog), d.err());
            assertEquals("1 1 1 1\n\n", d.out());
            assertEquals("", d.err());
        }
    }

    @Test
    void threadLocalsTakeTheirTypesSizeAndAZeroStoreFreesIt() {
        // an int thread-local takes 4 bytes, a long 8: 16 hold two ints and a long, not a third int
        String prog = "BEGIN { self->a = 1; self->b = 2; self->l = (long)3; self->c = 4;"
                + " printf(\"%d %d %d %d\\n\", self->a, self->b, self->l, self->c);"
                + " self->a = 0; self->c = 5; printf(\"%d %d\\n\", self->a, self->c); exit(0); }";
        try (RealCommand d = new RealCommand()) {
            assertEquals(0, d.run("-q", "-x", "droptags", "-x", "dynvarsize=16", "-n", prog), d.err());
            assertEquals("1 2 3 0\n0 5\n\n", d.out());
            assertEquals("dtrace: [DTRACEDROP_DYNAMIC] 1 dynamic variable drop\n", d.err());
            // one int fits in 5 bytes, and updating it takes nothing more
            assertEquals(0, d.run("-q", "-x", "dynvarsize=5", "-n",
                    "BEGIN { self->a = 1; self->a = 2; self->a++; printf(\"%d\\n\", self->a); exit(0); }"), d.err());
            assertEquals("3\n\n", d.out());
            assertEquals("", d.err());
        }
    }

    @Test
    void aggregationKeysBeyondAggsizeAreAggregationDrops() {
        // an int-keyed count() entry takes 24 bytes (aggregation 8, key 8, value 8): 48 hold two keys
        String prog = "BEGIN { @[1] = count(); @[2] = count(); @[3] = count(); @[1] = count(); exit(0); }";
        try (RealCommand d = new RealCommand()) {
            assertEquals(0, d.run("-q", "-x", "droptags", "-x", "aggsize=48", "-n", prog), d.err());
            assertEquals("\n        2                1\n        1                2\n", d.out());
            org.junit.jupiter.api.Assertions.assertTrue(
                    d.err().matches("dtrace: \\[DTRACEDROP_AGGREGATION\\] 1 aggregation drop on CPU \\d+\n"), d.err());
            assertEquals(0, d.run("-q", "-n", prog), d.err());
            assertEquals("", d.err());
        }
    }
}
