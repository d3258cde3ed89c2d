package org.jdtrace.libdtrace.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.jdtrace.engine.DSession;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.junit.jupiter.api.Test;

/** The pid filter hint a statement carries, from its predicate as the session compiles it. */
class PidFilterTest {

    private static long filter(String predicate) throws Exception {
        DSession s = new DSessionFactoryImpl().create();
        s.setOption("target", "4321");
        return s.compile("syscall:::entry " + predicate + " { @ = count(); }", "-n", List.of("dtrace"))
                .statements().get(0).pidFilter();
    }

    @Test
    void aPidEqualityOrAConjunctionWithOneGivesThatPid() throws Exception {
        assertEquals(1234, filter("/pid == 1234/"));
        assertEquals(1234, filter("/1234 == pid/"));
        assertEquals(4321, filter("/pid == $target/"));
        assertEquals(4321, filter("/execname == \"sh\" && pid == $target/"));
        assertEquals(7, filter("/(pid == 7 && arg0 > 3) && tid != 0/"));
    }

    @Test
    void anythingElseGivesNone() throws Exception {
        assertEquals(-1, filter(""));
        assertEquals(-1, filter("/pid == 1 || pid == 2/"));
        assertEquals(-1, filter("/pid != 5/"));
        assertEquals(-1, filter("/!(pid == 5)/"));
        assertEquals(-1, filter("/tid == 5/"));
        assertEquals(-1, filter("/pid == -1/"));
        assertEquals(-1, filter("/pid == 5 ^^ arg0/"));
    }
}
