package org.jdtrace.libdtrace.print;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.junit.jupiter.api.Test;

class PrintfFormatTest {

    private static String f(String fmt, Object... args) {
        int[] sizes = new int[args.length];
        for (int i = 0; i < args.length; i++) sizes[i] = args[i] instanceof Integer ? 4 : 8;
        Object[] a = new Object[args.length];
        for (int i = 0; i < args.length; i++) a[i] = args[i] instanceof Integer n ? (Object) (long) n : args[i];
        StringBuilder sb = new StringBuilder();
        PrintfFormat.parse(fmt).format(sb, a, sizes);
        return sb.toString();
    }

    @Test
    void integersAsCPrintf() {
        assertEquals("42|   42|42   |00042|+42| 42", f("%d|%5d|%-5d|%05d|%+d|% d", 42L, 42L, 42L, 42L, 42L, 42L));
        assertEquals("-7|  -07|-7   ", f("%i|%5.2d|%-5d", -7L, -7L, -7L));
        assertEquals("ffffffff|4294967295", f("%x|%u", -1, -1));
        assertEquals("ffffffffffffffff|18446744073709551615", f("%x|%u", -1L, -1L));
        assertEquals("0x1f|0X1F|017|0|0", f("%#x|%#X|%#o|%#x|%#o", 31L, 31L, 15L, 0L, 0L));
        assertEquals("-1|255|-1", f("%hhd|%hhu|%hd", 255L, 255L, 65535L));
        assertEquals("   12", f("%*d", 5L, 12L));
        assertEquals("12   |", f("%*d|", -5L, 12L));
        assertEquals("", f("%.0d", 0L));
        assertEquals("100%", f("%d%%", 100L));
        assertEquals("-0009223372036854775808", f("%023d", Long.MIN_VALUE));
    }

    @Test
    void timeAsRfc822AndTheGroupingFlag() {
        // %T: illumos' pfprint_time822, strftime "%a, %d %b %G %T %Z" in the local zone; %G is
        // the ISO week-based year (2021-01-01 is in week 53 of 2020)
        java.util.TimeZone saved = java.util.TimeZone.getDefault();
        try {
            java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("UTC"));
            assertEquals("[Fri, 05 Jan 2024 10:11:12 UTC]", f("[%T]", 1704449472_123456789L));
            assertEquals("[Fri, 01 Jan 2020 00:00:00 UTC]", f("[%T]", 1609459200_000000000L));
            assertEquals("[2024 Jan  5 10:11:12]", f("[%Y]", 1704449472_123456789L));
        } finally {
            java.util.TimeZone.setDefault(saved);
        }
        // %'d: thousands grouping, which the C locale dtrace runs in does not have
        assertEquals("1234567|  1234567", f("%'d|%'9d", 1234567L, 1234567L));
    }

    @Test
    void stringsAndChars() {
        assertEquals("[  abc][abc  ][ab]", f("[%5s][%-5s][%.2s]", "abc", "abc", "abc"));
        assertEquals("hello|", f("%.0s|", "hello"));
        assertEquals("A|    A", f("%c|%5c", 65L, 65L));
        assertEquals("a\\nb", f("%S", "a\nb"));
        assertEquals("0x10", f("%p", 16L));
    }

    @Test
    void floatingAsC() {
        assertEquals("3.141593|3.14|3.141593e+00|3.14159|3.1416", f("%f|%.2f|%e|%g|%.5g", Math.PI, Math.PI, Math.PI, 3.14159, 3.14159));
        assertEquals("0.0001|1e-05|1.23457e+08|100000|1e+06", f("%g|%g|%g|%g|%g", 0.0001, 0.00001, 123456789.0, 100000.0, 1000000.0));
        assertEquals("  1.50|1.500000E+00|2.", f("%6.2f|%E|%#.0f", 1.5, 1.5, 2.0));
    }

    @Test
    void parsesConversionsAndRejectsBadOnes() {
        PrintfFormat p = PrintfFormat.parse("%s %@d %*d\n");
        assertEquals(3, p.conversions().size());
        assertTrue(p.conversions().get(1).agg());
        assertEquals(3, p.argCount());
        assertEquals(PrintfFormat.ArgKind.STRING, p.conversions().get(0).argKind());
        PrintfFormat w = PrintfFormat.parse("%9@x|%-4@d");
        assertTrue(w.conversions().get(0).agg());
        assertEquals(9, w.conversions().get(0).width());
        assertEquals('x', w.conversions().get(0).conv());
        assertTrue(w.conversions().get(1).agg() && w.conversions().get(1).minus());
        assertThrows(IllegalArgumentException.class, () -> PrintfFormat.parse("%q"));
        assertThrows(IllegalArgumentException.class, () -> PrintfFormat.parse("abc %"));
    }

    @Test
    void readsConversionsAsDtraceDoes() throws DTraceException {
        // dt_printf_create: a later '0' or '-' cancels the other; parts in any order; %% counts
        assertEquals("00042|42   |", f("%-05d|%0-5d|", 42L, 42L));
        PrintfFormat p = PrintfFormat.parse("%% %.*d %?p %lld", 1);
        assertEquals(List.of(2, 3, 4), p.conversions().stream().map(PrintfFormat.Conversion::number).toList());
        assertTrue(p.conversions().get(0).precisionStar());
        assertEquals(16, p.conversions().get(1).width());
        assertEquals("%lld", p.conversions().get(2).name());
    }

    @Test
    void refusesMalformedConversionsWithDtracesWording() {
        String[][] bad = {
            {"%d %q", "format conversion #2 is undefined: %q"},
            {"%% %hhhd", "format conversion #2 is undefined: %hhhd"},
            {"abc %", "format conversion #1 name expected before end of format string"},
            {"%**d", "format conversion #1 has more than one '*' specified for the output width"},
            {"%.**d", "format conversion #1 has more than one '*' specified for the output precision"},
            {"%1.2.3d", "format conversion #1 has more than one '.' specified"},
            {"%1$d", "format conversion #1 uses unsupported positional format (%n$)"},
            {"%5%", "format conversion #1 cannot be combined with other format flags: %%"},
        };
        for (String[] b : bad) {
            DTraceException e = assertThrows(DTraceException.class, () -> PrintfFormat.parse(b[0], 3), b[0]);
            assertEquals(b[1], e.getMessage(), b[0]);
            assertEquals("D_SYNTAX", e.tag(), b[0]);
        }
    }
}
