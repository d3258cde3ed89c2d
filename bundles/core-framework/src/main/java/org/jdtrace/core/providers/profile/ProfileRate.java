/*
 * A profile probe name parsed: tick-N or profile-N, N as org.jdtrace.time.Rates reads it
 * (profile-97 is 97 times a second, tick-1sec once a second, tick-10ms every 10 ms). Intervals
 * shorter than 200us are refused (dtrace's profile_interval_min), as is anything malformed: no
 * probe is made for them.
 */
package org.jdtrace.core.providers.profile;

import org.jdtrace.time.Rates;

public record ProfileRate(Kind kind, long intervalNanos) {

    public enum Kind { TICK, PROFILE }

    public static final long MIN_INTERVAL_NANOS = 200_000;

    /** Parses a probe name, or returns null when it is not a valid profile probe name. */
    public static ProfileRate parse(String probeName) {
        Kind kind;
        String rest;
        if (probeName.startsWith("tick-")) {
            kind = Kind.TICK;
            rest = probeName.substring(5);
        } else if (probeName.startsWith("profile-")) {
            kind = Kind.PROFILE;
            rest = probeName.substring(8);
        } else {
            return null;
        }
        long interval = Rates.intervalNanos(rest, Rates.Bare.HZ);
        if (interval < MIN_INTERVAL_NANOS) {
            return null;
        }
        return new ProfileRate(kind, interval);
    }
}
