package org.jdtrace.libdtrace.rt;

import java.util.Arrays;

/**
 * A key tuple of an associative array or aggregation: Longs and Strings in order.
 * Immutable once built; equality is element-wise.
 */
public final class Tuple {

    public static final Tuple EMPTY = new Tuple(new Object[0]);

    private final Object[] items;
    private final int hash;

    public Tuple(Object[] items) {
        this.items = items;
        this.hash = Arrays.hashCode(items);
    }

    public static Tuple of(Object... items) {
        return new Tuple(items);
    }

    /** The bytes these keys take in dynamic variable space (DState's accounting). */
    long dynvarBytes(int strsize) {
        long n = 0;
        for (Object o : items) n += DState.dynvarValueBytes(o, strsize);
        return n;
    }

    public int size() {
        return items.length;
    }

    public Object get(int i) {
        return items[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tuple t && t.hash == hash && Arrays.equals(t.items, items);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return Arrays.toString(items);
    }
}
