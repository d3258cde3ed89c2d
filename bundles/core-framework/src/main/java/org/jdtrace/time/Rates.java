/*
 * dtrace's time and rate values, shared by the profile provider's probe names (tick-10ms) and
 * rate options (switchrate=10hz): a positive decimal N with an optional unit. Units: ns/nsec,
 * us/usec, ms/msec, s/sec, m/min, h/hour, d/day (an interval) and hz (a rate). A bare number
 * means hz in a profile probe name (profile-97) and nanoseconds in an option value
 * (libdtrace's dt_opt_rate: switchrate=1000000000 is one second).
 */
package org.jdtrace.time;

import java.util.Map;

public final class Rates {

    public static final long NANOS_PER_SEC = 1_000_000_000L;

    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("ns", 1L), Map.entry("nsec", 1L),
            Map.entry("us", 1_000L), Map.entry("usec", 1_000L),
            Map.entry("ms", 1_000_000L), Map.entry("msec", 1_000_000L),
            Map.entry("s", NANOS_PER_SEC), Map.entry("sec", NANOS_PER_SEC),
            Map.entry("m", 60 * NANOS_PER_SEC), Map.entry("min", 60 * NANOS_PER_SEC),
            Map.entry("h", 3600 * NANOS_PER_SEC), Map.entry("hour", 3600 * NANOS_PER_SEC),
            Map.entry("d", 86400 * NANOS_PER_SEC), Map.entry("day", 86400 * NANOS_PER_SEC));

    private Rates() {}

    /** How a number with no unit is read. */
    public enum Bare { HZ, NANOSECONDS }

    /** The interval {@code spec} denotes in nanoseconds, or -1 when it is malformed or not positive. */
    public static long intervalNanos(String spec, Bare bare) {
        int digits = 0;
        while (digits < spec.length() && Character.isDigit(spec.charAt(digits))) {
            digits++;
        }
        if (digits == 0 || digits > 18) {
            return -1;
        }
        long n = Long.parseLong(spec.substring(0, digits));
        String unit = spec.substring(digits);
        if (n <= 0) {
            return -1;
        }
        if (unit.isEmpty() && bare == Bare.NANOSECONDS) {
            return n;
        }
        if (unit.isEmpty() || unit.equals("hz")) {
            return Math.max(1, NANOS_PER_SEC / n);
        }
        Long mul = UNITS.get(unit);
        if (mul == null) {
            return -1;
        }
        return n > Long.MAX_VALUE / mul ? Long.MAX_VALUE : n * mul;
    }
}
