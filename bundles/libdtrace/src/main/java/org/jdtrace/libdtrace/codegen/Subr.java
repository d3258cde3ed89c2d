/*
 * Subr: D's string and integer subroutines (DIF_SUBR_*) as static methods named as in D, called
 * by generated clauses. Strings are never null; results longer than strsize are cut when stored
 * or recorded.
 */
package org.jdtrace.libdtrace.codegen;

import java.util.Locale;
import org.jdtrace.spi.ProbeContext;

public final class Subr {

    private Subr() {}

    /** strlen(): at most strsize, the longest a D string can be. */
    public static long strlen(org.jdtrace.libdtrace.rt.DState st, String s) {
        return Math.min(s.length(), st.options.strsize());
    }

    /** s[i]: the character at i, 0 outside the string (its terminating NUL and beyond). */
    public static long charAt(String s, long i) { return i >= 0 && i < s.length() ? s.charAt((int) i) : 0; }

    public static String strjoin(String a, String b) { return a + b; }

    public static String substr(String s, long index) { return substr(s, index, Integer.MAX_VALUE); }

    /** dtrace's substr: a negative index counts from the end, and one before the start eats the length. */
    public static String substr(String s, long index, long len) {
        long n = s.length();
        long remaining = len;
        if (index < 0) {
            index += n;
            if (index < 0 && index + remaining > 0) {
                remaining += index;
                index = 0;
            }
        }
        if (index >= n || index < 0) return "";
        if (remaining < 0) {
            remaining += n - index;
            if (remaining < 0) return "";
        }
        long end = Math.min(n, index + remaining);
        return end <= index ? "" : s.substring((int) index, (int) end);
    }

    public static long index(String s, String t) { return s.indexOf(t); }

    public static long index(String s, String t, long from) { return s.indexOf(t, (int) Math.max(0, from)); }

    public static long rindex(String s, String t) { return s.lastIndexOf(t); }

    public static long rindex(String s, String t, long from) { return s.lastIndexOf(t, (int) from); }

    public static String strstr(String s, String t) {
        int i = s.indexOf(t);
        return i < 0 ? "" : s.substring(i);
    }

    public static String strchr(String s, long c) {
        int i = s.indexOf((char) c);
        return i < 0 ? "" : s.substring(i);
    }

    public static String strrchr(String s, long c) {
        int i = s.lastIndexOf((char) c);
        return i < 0 ? "" : s.substring(i);
    }

    public static String lltostr(long v) { return Long.toString(v); }

    public static String lltostr(long v, long base) { return Long.toString(v, (int) base); }

    public static long strtoll(String s) { return strtoll(s, 10); }

    public static long strtoll(String s, long base) {
        try {
            return Long.parseLong(s.trim(), (int) base);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public static String toupper(String s) { return s.toUpperCase(Locale.ROOT); }

    public static String tolower(String s) { return s.toLowerCase(Locale.ROOT); }

    public static String basename(String s) {
        String t = s;
        while (t.length() > 1 && t.endsWith("/")) t = t.substring(0, t.length() - 1);
        if (t.equals("/")) return "/";
        int i = t.lastIndexOf('/');
        return i < 0 ? (t.isEmpty() ? "." : t) : t.substring(i + 1);
    }

    public static String dirname(String s) {
        String t = s;
        while (t.length() > 1 && t.endsWith("/")) t = t.substring(0, t.length() - 1);
        int i = t.lastIndexOf('/');
        if (i < 0) return ".";
        if (i == 0) return "/";
        String d = t.substring(0, i);
        while (d.length() > 1 && d.endsWith("/")) d = d.substring(0, d.length() - 1);
        return d;
    }

    public static long htons(long v) { return Short.reverseBytes((short) v) & 0xffffL; }

    public static long ntohs(long v) { return htons(v); }

    public static long htonl(long v) { return Integer.reverseBytes((int) v) & 0xffffffffL; }

    public static long ntohl(long v) { return htonl(v); }

    public static long htonll(long v) { return Long.reverseBytes(v); }

    public static long ntohll(long v) { return htonll(v); }

    public static long rand() { return java.util.concurrent.ThreadLocalRandom.current().nextInt() & 0xffffffffL; }

    /** args[i] of a probe whose argument i is a string (a Java String): the provider's text. */
    public static String argstr(ProbeContext ctx, long i) {
        Object o = ctx.argObject((int) i);
        return o instanceof String s ? s : o == null ? "" : String.valueOf(o);
    }

    public static String copyinstr(ProbeContext ctx, long addr) { return ctx.copyinstr(addr, 256); }

    public static String copyinstr(ProbeContext ctx, long addr, long max) { return ctx.copyinstr(addr, (int) max); }

    /** copyin(addr, n) read as a string: the bytes up to the first NUL, at most n. */
    public static String copyinbuf(ProbeContext ctx, long addr, long n) {
        byte[] b = ctx.copyin(addr, (int) Math.max(0, Math.min(n, Integer.MAX_VALUE)));
        int len = 0;
        while (len < b.length && b[len] != 0) len++;
        return new String(b, 0, len, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** *(T *)copyin(addr, n): n bytes copied in (a fault if any is unreadable), the first width read as T. */
    public static long copyinload(ProbeContext ctx, long addr, long n, long width, long signed) {
        byte[] b = ctx.copyin(addr, (int) Math.max(0, Math.min(n, Integer.MAX_VALUE)));
        long v = 0;
        for (int i = (int) Math.min(width, b.length) - 1; i >= 0; i--) v = (v << 8) | (b[i] & 0xff);
        int bits = (int) (8 * width);
        return bits < 64 && signed != 0 ? (v << (64 - bits)) >> (64 - bits) : v;
    }

    /** uaddr(pc): module`function+0xoff, or the address in hex where nothing maps it. */
    public static String uaddrname(ProbeContext ctx, long pc) {
        String s = ctx.usym(pc);
        return s == null ? "0x" + Long.toHexString(pc) : s;
    }

    /** usym(pc) and ufunc(pc): module`function, without the offset. */
    public static String usymname(ProbeContext ctx, long pc) {
        String s = uaddrname(ctx, pc);
        int plus = s.lastIndexOf("+0x");
        return plus > 0 && s.indexOf('`') >= 0 ? s.substring(0, plus) : s;
    }

    public static String ufuncname(ProbeContext ctx, long pc) { return usymname(ctx, pc); }

    /** umod(pc): the module alone. */
    public static String umodname(ProbeContext ctx, long pc) {
        String s = uaddrname(ctx, pc);
        int tick = s.indexOf('`');
        return tick > 0 ? s.substring(0, tick) : s;
    }

    public static long uregs(ProbeContext ctx, long reg) { return ctx.uregs((int) reg); }

    public static long ucaller(ProbeContext ctx) { return ctx.ucaller(); }

    public static long errno(ProbeContext ctx) { return ctx.errno(); }

    public static long ustackdepth(ProbeContext ctx) { return ctx.ustack(Integer.MAX_VALUE).length; }

    // the comma operator: both operands evaluated, the right one's value
    public static long seq(long a, long b) { return b; }

    public static String seq(long a, String b) { return b; }

    public static long seq(String a, long b) { return b; }

    public static String seq(String a, String b) { return b; }

    public static long speculation(org.jdtrace.libdtrace.rt.DState st) { return st.speculations.allocate(); }

    // ---- destructive actions (the compiler lets them through only with -w)

    /** raise(signal): sends the signal to the current process. */
    public static long raise(ProbeContext ctx, long signal) {
        ctx.raise((int) signal);
        return 0;
    }

    /** stop(): stops the current process. */
    public static long stop(ProbeContext ctx) {
        ctx.stopProcess();
        return 0;
    }

    /** chill(ns): spins the firing thread for ns nanoseconds. */
    public static long chill(long ns) {
        long end = System.nanoTime() + Math.max(0, Math.min(ns, 500_000_000L));
        while (System.nanoTime() < end) Thread.onSpinWait();
        return 0;
    }

    /** copyoutstr(s, addr, len): writes at most len bytes of s and its NUL into the process. */
    public static long copyoutstr(ProbeContext ctx, String s, long addr, long len) {
        byte[] b = (s + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ctx.copyout(java.util.Arrays.copyOf(b, (int) Math.max(0, Math.min(len, b.length))), addr);
        return 0;
    }

    /** Subroutines that take the consumer state as a hidden first argument. */
    static boolean needsState(String name) {
        return name.equals("speculation") || name.equals("strlen");
    }

    /** Subroutines that take the probe context as a hidden first argument. */
    static boolean needsContext(String name) {
        return switch (name) {
            case "argstr", "uaddrname", "usymname", "ufuncname", "umodname", "copyinstr", "copyinbuf", "copyinload", "uregs", "ucaller", "errno", "ustackdepth", "raise", "stop", "copyoutstr" -> true;
            default -> false;
        };
    }
}
