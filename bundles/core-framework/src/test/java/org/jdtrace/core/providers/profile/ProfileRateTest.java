package org.jdtrace.core.providers.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.jdtrace.core.providers.profile.ProfileRate.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ProfileRateTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "profile-97, PROFILE, 10309278", "profile-97hz, PROFILE, 10309278", "tick-1, TICK, 1000000000",
        "tick-1s, TICK, 1000000000", "tick-1sec, TICK, 1000000000", "tick-10ms, TICK, 10000000",
        "tick-10msec, TICK, 10000000", "tick-500us, TICK, 500000", "tick-500usec, TICK, 500000",
        "tick-200000ns, TICK, 200000", "tick-200000nsec, TICK, 200000", "tick-2m, TICK, 120000000000",
        "tick-2min, TICK, 120000000000", "tick-1h, TICK, 3600000000000", "tick-1hour, TICK, 3600000000000",
        "tick-1d, TICK, 86400000000000", "tick-1day, TICK, 86400000000000", "profile-4999, PROFILE, 200040",
    })
    void parses(String name, Kind kind, long nanos) {
        assertEquals(new ProfileRate(kind, nanos), ProfileRate.parse(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tick-", "tick-0", "tick-1x", "tick-s", "tick--1", "profile-5001", "tick-100ns",
        "tock-1", "profile-1 s", "tick-1S", "tick-99999999999999999999"})
    void refuses(String name) {
        assertNull(ProfileRate.parse(name));
    }
}
