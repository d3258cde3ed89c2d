package org.jdtrace.core.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProbeTableTest {

    private ProbeTable table;
    private ProbeImpl begin, readEntry, readReturn, writeEntry, mallocEntry, tick;

    private ProbeImpl add(String p, String m, String f, String n) {
        ProbeImpl probe = new ProbeImpl(table.nextId(), p, m, f, n, null, null);
        table.add(probe);
        return probe;
    }

    @BeforeEach
    void setUp() {
        table = new ProbeTable();
        begin = add("dtrace", "", "", "BEGIN");
        readEntry = add("syscall", "", "read", "entry");
        readReturn = add("syscall", "", "read", "return");
        writeEntry = add("syscall", "", "write", "entry");
        mallocEntry = add("pid42", "libc.so.6", "malloc", "entry");
        tick = add("profile", "", "", "tick-1s");
    }

    private List<Integer> ids(String desc) {
        return table.match(new ProbePattern(ProbeDescription.parse(desc))).stream().map(ProbeImpl::id).toList();
    }

    @Test
    void idsStartAtOneAndAreNeverReused() {
        assertEquals(1, begin.id());
        assertEquals(6, tick.id());
        table.remove(tick);
        ProbeImpl again = add("profile", "", "", "tick-1s");
        assertEquals(7, again.id());
        assertNull(table.byId(6));
        assertSame(again, table.byId(7));
    }

    @Test
    void lookupByFourExactNames() {
        assertSame(readEntry, table.lookup("syscall", "", "read", "entry"));
        assertSame(mallocEntry, table.lookup("pid42", "libc.so.6", "malloc", "entry"));
        assertNull(table.lookup("syscall", "", "read", "exit"));
        assertNull(table.lookup("syscall", "x", "read", "entry"));
    }

    @Test
    void matchByEachName() {
        assertEquals(List.of(2, 3, 4), ids("syscall:::"));                  // provider
        assertEquals(List.of(5), ids(":libc.so.6::"));                      // module
        assertEquals(List.of(2, 3), ids("::read:"));                        // function
        assertEquals(List.of(2, 4, 5), ids("entry"));                       // name
        assertEquals(List.of(1), ids("BEGIN"));
        assertEquals(List.of(2), ids("syscall::read:entry"));
        assertEquals(List.of(), ids("syscall::close:entry"));
        assertEquals(List.of(), ids("nosuch:::"));
    }

    @Test
    void matchWithGlobsScans() {
        assertEquals(List.of(1, 2, 3, 4, 5, 6), ids(":::"));
        assertEquals(List.of(2, 3, 4), ids("sys*:::"));
        assertEquals(List.of(2, 4), ids("sys*:::e*"));
        assertEquals(List.of(5), ids("pid[0-9]*::m?lloc:"));
        assertEquals(List.of(2, 3, 4, 5, 6), ids(":::[!BE]*"));
        assertEquals(List.of(2, 3, 4, 5), ids(":::[!BEt]*"));
        assertEquals(List.of(6), ids("profile:::tick-*"));
    }

    @Test
    void removedProbesLeaveEveryIndex() {
        assertTrue(table.remove(readEntry));
        assertNull(table.lookup("syscall", "", "read", "entry"));
        assertEquals(List.of(3), ids("::read:"));
        assertEquals(List.of(4, 5), ids("entry"));
        assertEquals(List.of(3, 4), ids("syscall:::"));
        assertEquals(5, table.size());
    }

    @Test
    void probesOfAModule() {
        assertEquals(List.of(mallocEntry), table.withPart(ProbePattern.MODULE, "libc.so.6"));
        assertEquals(List.of(readEntry, readReturn, writeEntry), table.withPart(ProbePattern.PROVIDER, "syscall"));
    }
}
