package org.jdtrace.libdtrace.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;

/** Options parsed as libdtrace's dt_options.c parses them. */
class OptionsTest {

    private final Options o = new Options();

    @Test
    void defaultsAreLibdtraces() {
        assertEquals(4L << 20, o.get("bufsize"));
        assertEquals(256, o.strsize());
        assertEquals(1_000_000_000L, o.get("switchrate"));
        assertFalse(o.quiet());
        assertNull(o.getString("quiet"));
        assertEquals("4194304", o.getString("bufsize"));
    }

    @Test
    void versionStdcAndIregsTakeOnlyWhatLibdtraceTakes() throws DTraceException {
        o.set("version", "1.13");
        o.set("version", "1.6.3");
        assertEquals(org.jdtrace.libdtrace.ast.DVersion.of(1, 6, 3), o.version());
        o.set("version", "1.6.3");
        // dt_reduce: a version once lowered stays lowered (EDT_VERSREDUCED)
        assertEquals("Requested version conflicts with earlier setting",
                assertThrows(DTraceException.class, () -> o.set("version", "1.13")).getMessage());
        assertEquals(org.jdtrace.libdtrace.ast.DVersion.of(1, 6, 3), o.version());
        assertEquals("Requested version is not supported by compiler",
                assertThrows(DTraceException.class, () -> o.set("version", "99.1")).getMessage());
        assertEquals("Requested version is not supported by compiler",
                assertThrows(DTraceException.class, () -> o.set("version", "1.6.9")).getMessage());
        assertEquals("Version is not properly formatted or is too large",
                assertThrows(DTraceException.class, () -> o.set("version", "1.x")).getMessage());
        assertEquals("Version is not properly formatted or is too large",
                assertThrows(DTraceException.class, () -> o.set("version", "1.4096")).getMessage());
        for (String m : new String[] {"a", "c", "s", "t"}) o.set("stdc", m);
        for (String m : new String[] {"exec", "preinit", "postinit", "main"}) o.set("evaltime", m);
        assertEquals("Invalid value for specified option",
                assertThrows(DTraceException.class, () -> o.set("evaltime", "start")).getMessage());
        assertEquals("Invalid value for specified option",
                assertThrows(DTraceException.class, () -> o.set("stdc", "X")).getMessage());
        o.set("iregs", "8");
        assertEquals("Invalid value for specified option",
                assertThrows(DTraceException.class, () -> o.set("iregs", "9")).getMessage());
        assertEquals("Insufficient registers to generate code",
                assertThrows(DTraceException.class, () -> o.set("iregs", "4")).getMessage());
        assertEquals(0x0100d000, org.jdtrace.libdtrace.ast.DVersion.LATEST, "1.13 as DT_VERSION_NUMBER encodes it");
    }

    @Test
    void sizesTakeSuffixes() throws DTraceException {
        o.set("bufsize", "4m");
        assertEquals(4L << 20, o.get("bufsize"));
        o.set("aggsize", "512k");
        assertEquals(512L << 10, o.get("aggsize"));
        o.set("dynvarsize", "1g");
        assertEquals(1L << 30, o.get("dynvarsize"));
        o.set("strsize", "32");
        assertEquals(32, o.strsize());
        assertEquals("32", o.getString("strsize"));
        assertEquals(Options.parseSize("2t"), 2L << 40);
    }

    @Test
    void ratesAreNanosecondsOrHertz() throws DTraceException {
        o.set("switchrate", "10hz");
        assertEquals(100_000_000L, o.get("switchrate"));
        o.set("aggrate", "1ms");
        assertEquals(1_000_000L, o.get("aggrate"));
        o.set("cleanrate", "500");
        assertEquals(500L, o.get("cleanrate"));
        assertEquals(2_000_000_000L, Options.parseRate("2s"));
        assertEquals(60_000_000_000L, Options.parseRate("1m"));
        assertEquals(0L, Options.parseRate("0hz"));
    }

    @Test
    void booleansTakeNothingOrWords() throws DTraceException {
        o.set("quiet", null);
        assertTrue(o.quiet());
        assertEquals("", o.getString("quiet"));
        o.set("quiet", "off");
        assertFalse(o.quiet());
        o.set("quiet", "yes");
        assertTrue(o.quiet());
        o.set("quiet", "disable");
        assertFalse(o.quiet());
        o.set("flowindent", "1");
        assertTrue(o.isSet("flowindent"));
        o.set("flowindent", "unset");
        assertFalse(o.isSet("flowindent"));
    }

    @Test
    void numbersAreDecimalOctalOrHex() throws DTraceException {
        o.set("nspec", "0x10");
        assertEquals(16, o.get("nspec"));
        o.set("nspec", "010");
        assertEquals(8, o.get("nspec"));
        o.set("target", "1234");
        assertEquals(1234, o.get("target"));
    }

    @Test
    void unknownNamesAndBadValuesAreRejectedInLibdtracesWords() {
        DTraceException e = assertThrows(DTraceException.class, () -> o.set("nosuch", null));
        assertEquals("Invalid option name", e.getMessage());
        e = assertThrows(DTraceException.class, () -> o.set("bufsize", "lots"));
        assertEquals("Invalid value for specified option", e.getMessage());
        assertThrows(DTraceException.class, () -> o.set("bufsize", "4q"));
        assertThrows(DTraceException.class, () -> o.set("switchrate", "fast"));
        assertThrows(DTraceException.class, () -> o.set("quiet", "maybe"));
        assertThrows(DTraceException.class, () -> o.set("nspec", "x"));
        assertThrows(DTraceException.class, () -> o.set("nspec", "-72"));
        assertThrows(DTraceException.class, () -> o.set("strsize", "1"));
        assertEquals(256, o.strsize());
        assertEquals(4L << 20, o.get("bufsize"));
    }
}
