/*
 * WallClock: walltimestamp, nanoseconds since the epoch, read afresh at each use in a clause (as
 * DTrace reads it: two reads in one clause differ by the time between them, where timestamp is
 * one value for the whole firing). The JVM's wall clock (Instant.now) ticks in microseconds on
 * Linux, too coarse for that, so the value is the wall time of a base plus the monotonic
 * nanoseconds (System.nanoTime) since it; the base is taken again once a second, so the clock
 * follows the system's (NTP steps included) within that second.
 *
 * Threading: any firing thread. The base is one immutable object in a volatile field; two
 * threads re-basing at once each publish a correct base. Allocation: one small object a second.
 */
package org.jdtrace.libdtrace.rt;

import java.time.Instant;

public final class WallClock {

    private record Base(long wall, long nano) {}

    private static final long REBASE_NS = 1_000_000_000L;

    private volatile Base base = now0();

    private static Base now0() {
        long nano = System.nanoTime();
        Instant i = Instant.now();
        return new Base(i.getEpochSecond() * 1_000_000_000L + i.getNano(), nano);
    }

    /** The wall-clock time now, in nanoseconds since 1970-01-01 UTC. */
    public long now() {
        Base b = base;
        long since = System.nanoTime() - b.nano;
        if (since >= 0 && since <= REBASE_NS) {
            return b.wall + since;
        }
        Base n = now0();
        base = n;
        return n.wall;
    }
}
