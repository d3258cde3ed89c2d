package org.jdtrace.core.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jdtrace.spi.Glob;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class GlobTest {

    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource(delimiter = '|', value = {
        // literal
        "entry|entry|true", "entry|entr|false", "entry|entryx|false", "''|''|true", "''|x|false",
        // star
        "*|''|true", "*|anything|true", "foo*|foo|true", "foo*|foobar|true", "foo*|fo|false",
        "*bar|foobar|true", "*bar|foobaz|false", "f*r|foobar|true", "f*r|foobaz|false",
        "**|x|true", "a*b*c|aXXbYYc|true", "a*b*c|aXXcYYb|false", "*a*a*a*|aaa|true", "*a*a*a*|aa|false",
        "sys*_*|sys_read|true", "*read*|pread64|true",
        // question mark
        "?|a|true", "?|''|false", "?|ab|false", "f??|foo|true", "f??|fo|false", "tick-?|tick-1|true",
        "*?|''|false", "*?|x|true",
        // sets and ranges
        "[abc]|b|true", "[abc]|d|false", "[a-z]|q|true", "[a-z]|Q|false", "[a-z0-9]|5|true",
        "x[0-9][0-9]|x42|true", "x[0-9][0-9]|x4a|false", "[!x]|y|true", "[!x]|x|false",
        "[!a-c]|b|false", "[!a-c]|d|true", "[]]|]|true", "[]a]|a|true", "[!]]|]|false", "[!]]|a|true",
        "[a-]|-|true", "[a-]|a|true", "[-a]|-|true", "[z-a]|m|false", "[abc|a|false", "[|[|false",
        "tick-[0-9]*|tick-1000|true", "tick-[0-9]*|tick-x|false", "profile-[!0-9]*|profile-97|false",
        // escapes
        "\\*|*|true", "\\*|a|false", "a\\?|a?|true", "a\\?|ab|false", "\\[a]|[a]|true", "a\\|a|false",
        "[\\]]|]|true", "[\\!a]|!|true", "x\\\\|x\\|true",
    })
    void matches(String pattern, String s, boolean expected) {
        assertEquals(expected, Glob.match(pattern, s), pattern + " against " + s);
    }

    @Test
    void globCharactersAreRecognised() {
        assertTrue(Glob.isGlob("a*"));
        assertTrue(Glob.isGlob("a?"));
        assertTrue(Glob.isGlob("[a]"));
        assertTrue(Glob.isGlob("a\\b"));
        assertFalse(Glob.isGlob("syscall"));
        assertFalse(Glob.isGlob(""));
    }

    /** Description parts as providers match them (the pid provider's modules, functions, offsets). */
    @Test
    void partsAsProvidersMatchThem() {
        assertTrue(Glob.matchesPart("", "libc.so.6"), "an empty part is any");
        assertTrue(Glob.matchesPart("libc*", "libc.so.6"));
        assertFalse(Glob.matchesPart("libc", "libc.so.6"), "a literal is itself only");
        assertTrue(Glob.matchesPart("[0-9a-f]", "a"));
        assertFalse(Glob.matchesPart("[abc", "[abc"), "an unterminated set matches nothing, in every provider");
        assertTrue(Glob.isLiteral("malloc"));
        assertFalse(Glob.isLiteral("mall*"));
        assertFalse(Glob.isLiteral(""));
    }

    @Test
    void pathologicalStarsAreLinear() {
        String s = "a".repeat(5000);
        assertFalse(Glob.match("*a*a*a*a*a*a*a*a*a*a*a*b", s));
    }

    @Test
    void emptyPartMatchesAnything() {
        ProbePattern p = new ProbePattern(ProbeDescription.parse("syscall:::entry"));
        assertTrue(p.matches("syscall", "", "", "entry"));
        assertTrue(p.matches("syscall", "libc.so.6", "read", "entry"));
        assertFalse(p.matches("syscall", "m", "f", "return"));
        assertFalse(p.matches("syscallx", "m", "f", "entry"));
        assertTrue(new ProbePattern(ProbeDescription.parse("")).matches("a", "b", "c", "d"));
    }

    @Test
    void providerFamiliesAreAskedToProvide() {
        assertTrue(new ProbePattern(ProbeDescription.parse("pid1234:libc.so.6:malloc:entry")).mayNameProvider("pid"));
        assertTrue(new ProbePattern(ProbeDescription.parse("pid*:::entry")).mayNameProvider("pid"));
        assertTrue(new ProbePattern(ProbeDescription.parse(":::entry")).mayNameProvider("pid"));
        assertTrue(new ProbePattern(ProbeDescription.parse("profile:::tick-1s")).mayNameProvider("profile"));
        assertFalse(new ProbePattern(ProbeDescription.parse("pidx:::entry")).mayNameProvider("pid"));
        assertTrue(new ProbePattern(ProbeDescription.parse("p*d1234::go:entry")).mayNameProvider("pid"), "p*d$target");
        assertFalse(new ProbePattern(ProbeDescription.parse("q*d1234::go:entry")).mayNameProvider("pid"));
        assertFalse(new ProbePattern(ProbeDescription.parse("profile:::tick-1s")).mayNameProvider("dtrace"));
        assertFalse(new ProbePattern(ProbeDescription.parse("fbt:::entry")).mayNameProvider("pid"));
    }
}
