/*
 * Subr: the runtime entries of D's subroutines (DIF_SUBR_*), public static methods named as the
 * built-ins table (ast.DFunction.entry) names them, called by generated clauses; SubrEntry
 * resolves a name and argument kinds to one of them. A leading DState or ProbeContext parameter
 * is passed by the generated code, the rest are the D arguments (long or String).
 *
 * NULL strings: a string subroutine that returns NULL in DTrace (strchr of a missing
 * character, strtok at the end, json of a missing key...) returns null here. A null reaching a
 * subroutine's string argument faults with BADADDR at address 0, as DTrace faults on a NULL
 * string, and raises dtrace:::ERROR. NULL is kept as it flows: in variables (a thread-local or
 * associative element that does not exist is NULL too, as a missing dynamic variable reads 0 in
 * DTrace), and it faults where DTrace reads the string's bytes: a record (trace, printf), a key,
 * s[i] (at address i). In a comparison NULL equals only NULL and sorts before "" (Rt.strcmp). Results
 * longer than strsize are cut when stored or recorded.
 *
 * Probe context: these run on the firing thread. The string subroutines allocate their result
 * (a D string is a Java String); progenyof, uid, gid, cwd and root read /proc of the firing
 * process, as copyinstr reads its memory.
 */
package org.jdtrace.libdtrace.codegen;

import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

public final class Subr {

    private Subr() {}

    /** A NULL string given to a subroutine: DTrace's invalid address fault at 0. */
    private static String nonNull(String s) {
        if (s == null) throw new FaultException(FaultException.Kind.BADADDR, 0);
        return s;
    }

    /** NULL where a subroutine's string argument is written as NULL (it faults in the callee). */
    public static String nullstr() { return null; }

    /** strlen(): at most strsize, the longest a D string can be. */
    public static long strlen(DState st, String s) {
        return Math.min(nonNull(s).length(), st.options.strsize());
    }

    /** s[i]: the character at i, 0 outside the string (its terminating NUL and beyond). */
    public static long charAt(String s, long i) {
        // s[i] of a NULL string reads address 0 + i: an invalid address
        if (s == null) throw new FaultException(FaultException.Kind.BADADDR, i);
        return i >= 0 && i < s.length() ? s.charAt((int) i) : 0;
    }

    public static String strjoin(String a, String b) { return nonNull(a) + nonNull(b); }

    /**
     * {@code s + n}: D treats a string as a pointer to its characters (dt_cook_op2), so this is the
     * string n characters on ("" past its end). NULL, or a place before the string's start, is an
     * invalid address.
     */
    public static String stroffset(String s, long n) throws FaultException {
        if (s == null) throw new FaultException(FaultException.Kind.BADADDR, n);
        if (n < 0) throw new FaultException(FaultException.Kind.BADADDR, n);
        return n >= s.length() ? "" : s.substring((int) n);
    }

    public static String substr(String s, long index) { return substr(s, index, Integer.MAX_VALUE); }

    /** dtrace's substr: a negative index counts from the end, and one before the start eats the length. */
    public static String substr(String s, long index, long len) {
        long n = nonNull(s).length();
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

    /** index(s, t): the first position of t in s, -1 if none. */
    public static long index(String s, String t) { return index(s, t, 0); }

    /** index(s, t, start): the first position at or after start (a negative start is 0). */
    public static long index(String s, String t, long start) {
        int len = nonNull(s).length();
        nonNull(t);
        long pos = Math.max(0, start);
        if (pos >= len) return t.isEmpty() ? len : -1;
        return s.indexOf(t, (int) pos);
    }

    /** rindex(s, t): the last position of t in s, -1 if none. */
    public static long rindex(String s, String t) { return rindex(s, t, nonNull(s).length()); }

    /** rindex(s, t, start): the last position at or before start (past the end: the end). */
    public static long rindex(String s, String t, long start) {
        int len = nonNull(s).length();
        nonNull(t);
        if (start < 0) return t.isEmpty() ? 0 : -1;
        return s.lastIndexOf(t, (int) Math.min(start, len));
    }

    /** strstr(s, t): s from the first occurrence of t, NULL if none. */
    public static String strstr(String s, String t) {
        int i = nonNull(s).indexOf(nonNull(t));
        return i < 0 ? null : s.substring(i);
    }

    /** strchr(s, c): s from the first c, NULL if none; c is a char (its low byte), NUL finds the end. */
    public static String strchr(String s, long c) {
        char ch = (char) (c & 0xff);
        if (ch == 0) return "";
        int i = nonNull(s).indexOf(ch);
        return i < 0 ? null : s.substring(i);
    }

    /** strrchr(s, c): s from the last c, NULL if none. */
    public static String strrchr(String s, long c) {
        char ch = (char) (c & 0xff);
        if (ch == 0) return "";
        int i = nonNull(s).lastIndexOf(ch);
        return i < 0 ? null : s.substring(i);
    }

    /**
     * strtok(s, delim): the first token of s (leading delimiters skipped), NULL when there is none;
     * the rest of s, from the delimiter that ended the token, is kept for strtok(NULL, delim) in
     * this firing's later clauses (rt.FiringLocals: DTrace keeps it in the firing's machine
     * state), whose own delimiters then apply to it; once no token is left, strtok(NULL, ...)
     * gives NULL. In a firing that has not called strtok(s, ...) yet there is no string: NULL.
     */
    public static String strtok(DState st, String s, String delim) {
        return token(st, nonNull(s), nonNull(delim));
    }

    /** strtok(NULL, delim): the next token of the string the last strtok() was given. */
    public static String strtok(DState st, String delim) {
        return token(st, nonNull(st.thread().strtok), nonNull(delim));
    }

    private static String token(DState st, String s, String delim) {
        int i = 0, n = s.length();
        while (i < n && delim.indexOf(s.charAt(i)) >= 0) i++;
        if (i == n) {
            st.thread().strtok = "";
            return null;
        }
        int j = i;
        while (j < n && delim.indexOf(s.charAt(j)) < 0) j++;
        st.thread().strtok = s.substring(j); // from the delimiter: the next call may take other delimiters
        return s.substring(i, j);
    }

    public static String lltostr(long v) { return Long.toString(v); }

    /**
     * lltostr(v, base) as illumos' DIF_SUBR_LLTOSTR writes it: a base outside 2..36 is an
     * illegal operation; base 10 is signed, any other base the value's 64 bits unsigned, base 16
     * with "0x" before it and base 8 with "0" (lltostr(255, 16) is 0xff, lltostr(8, 8) 010,
     * lltostr(0, 16) 0x0).
     */
    public static String lltostr(long v, long base) {
        checkBase(base);
        if (base == 10) return Long.toString(v);
        String digits = Long.toUnsignedString(v, (int) base);
        return base == 16 ? "0x" + digits : base == 8 && v != 0 ? "0" + digits : digits;
    }

    public static long strtoll(String s) { return strtoll(s, 10); }

    /**
     * strtoll(s, base) as illumos' dtrace_strtoll reads it: a base outside 2..36 is an illegal
     * operation; leading blanks and tabs, then a sign, then (base 16) a "0x" before a hex digit
     * are passed over, and the digits below the base up to the first other character make the
     * value (wrapping past 64 bits, as the C code does); no digits is 0.
     */
    public static long strtoll(String s, long base) {
        checkBase(base);
        nonNull(s);
        int i = 0, n = s.length();
        while (i < n && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) i++;
        boolean neg = false;
        if (i < n && (s.charAt(i) == '-' || s.charAt(i) == '+')) neg = s.charAt(i++) == '-';
        if (base == 16 && i + 2 < n && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')
                && Character.digit(s.charAt(i + 2), 16) >= 0 && s.charAt(i + 2) < 0x80) {
            i += 2;
        }
        long v = 0;
        for (; i < n; i++) {
            char c = s.charAt(i);
            int d = c < 0x80 ? Character.digit(c, 36) : -1;
            if (d < 0 || d >= base) break;
            v = v * base + d;
        }
        return neg ? -v : v;
    }

    /** The bases strtoll and lltostr take (2..36, digits and letters); any other is DTRACEFLT_ILLOP. */
    private static void checkBase(long base) {
        if (base <= 1 || base > 36) throw new FaultException(FaultException.Kind.ILLOP, 0);
    }

    /** toupper(s): ASCII letters upper-cased, every other byte kept. */
    public static String toupper(String s) {
        char[] c = nonNull(s).toCharArray();
        for (int i = 0; i < c.length; i++) if (c[i] >= 'a' && c[i] <= 'z') c[i] -= 32;
        return new String(c);
    }

    /** tolower(s): ASCII letters lower-cased, every other byte kept. */
    public static String tolower(String s) {
        char[] c = nonNull(s).toCharArray();
        for (int i = 0; i < c.length; i++) if (c[i] >= 'A' && c[i] <= 'Z') c[i] += 32;
        return new String(c);
    }

    public static String basename(String s) {
        String t = nonNull(s);
        while (t.length() > 1 && t.endsWith("/")) t = t.substring(0, t.length() - 1);
        if (t.equals("/")) return "/";
        int i = t.lastIndexOf('/');
        return i < 0 ? (t.isEmpty() ? "." : t) : t.substring(i + 1);
    }

    public static String dirname(String s) {
        String t = nonNull(s);
        while (t.length() > 1 && t.endsWith("/")) t = t.substring(0, t.length() - 1);
        int i = t.lastIndexOf('/');
        if (i < 0) return ".";
        if (i == 0) return "/";
        String d = t.substring(0, i);
        while (d.length() > 1 && d.endsWith("/")) d = d.substring(0, d.length() - 1);
        return d;
    }

    /**
     * cleanpath(s): the path with "//" and "/./" made "/", "x/.." and a trailing "/" removed,
     * textually (no file system access); ".." at the start of a relative path stays, at the root
     * it is the root.
     */
    public static String cleanpath(String s) {
        nonNull(s);
        boolean abs = s.startsWith("/");
        java.util.ArrayDeque<String> parts = new java.util.ArrayDeque<>();
        for (String p : s.split("/")) {
            if (p.isEmpty() || p.equals(".")) continue;
            if (p.equals("..")) {
                if (!parts.isEmpty() && !parts.peekLast().equals("..")) {
                    parts.removeLast();
                    continue;
                }
                if (abs) continue;
            }
            parts.addLast(p);
        }
        String joined = String.join("/", parts);
        String out = abs ? "/" + joined : joined;
        return out.isEmpty() ? (s.isEmpty() ? "" : ".") : out;
    }

    public static long htons(long v) { return Short.reverseBytes((short) v) & 0xffffL; }

    public static long ntohs(long v) { return htons(v); }

    public static long htonl(long v) { return Integer.reverseBytes((int) v) & 0xffffffffL; }

    public static long ntohl(long v) { return htonl(v); }

    public static long htonll(long v) { return Long.reverseBytes(v); }

    public static long ntohll(long v) { return htonll(v); }

    /** getmajor(dev): the major number of a Linux (kernel) dev_t. */
    public static long getmajor(long dev) { return (dev >>> 20) & 0xfffL; }

    /** getminor(dev): the minor number of a Linux (kernel) dev_t. */
    public static long getminor(long dev) { return dev & 0xfffffL; }

    /** inet_ntoa(ipaddr_t *): the 4 bytes at addr (network order) as a dotted quad. */
    public static String inet_ntoa(DState st, ProbeContext ctx, long addr) {
        return ipv4(read(st, ctx, addr, 4), 0);
    }

    /**
     * inet_ntoa6(in6_addr_t *): the 16 bytes at addr in RFC 1884 text; an IPv4-mapped or
     * IPv4-compatible address is its IPv4 address alone (a.b.c.d), as DTrace prints it.
     */
    public static String inet_ntoa6(DState st, ProbeContext ctx, long addr) {
        return inet_ntoa6(st, ctx, addr, 0);
    }

    /**
     * inet_ntoa6(addr, strict): strict 0 as above; non-zero the strict IPv4-in-IPv6 form, the
     * ::ffff: or :: prefix kept before the dotted quad, as inet_ntop(AF_INET6, ...) prints it.
     */
    public static String inet_ntoa6(DState st, ProbeContext ctx, long addr, long strict) {
        byte[] b = read(st, ctx, addr, 16);
        String s = ipv6(b);
        return strict == 0 && s.indexOf('.') >= 0 ? ipv4(b, 12) : s;
    }

    /** inet_ntop(AF_INET6, addr): the strict form. */
    private static String inet_ntop6(DState st, ProbeContext ctx, long addr) {
        return ipv6(read(st, ctx, addr, 16));
    }

    /** The n bytes an address argument points to: in D's memory (alloca'd scratch...) or the process. */
    private static byte[] read(DState st, ProbeContext ctx, long addr, int n) {
        return org.jdtrace.libdtrace.rt.Mem.bytes(st.thread(), ctx, addr, n);
    }

    /** inet_ntop(af, addr): AF_INET (2) or AF_INET6 (10); another family is an illegal operation. */
    public static String inet_ntop(DState st, ProbeContext ctx, long af, long addr) {
        return switch ((int) af) {
            case 2 -> inet_ntoa(st, ctx, addr);
            case 10 -> inet_ntop6(st, ctx, addr);
            default -> throw new FaultException(FaultException.Kind.ILLOP, 0);
        };
    }

    /**
     * link_ntop(type, addr): a link-layer address as colon-separated hex bytes, 6 of them for
     * ARPHRD_ETHER (1), 20 for ARPHRD_INFINIBAND (32); another type is an illegal operation.
     */
    public static String link_ntop(DState st, ProbeContext ctx, long type, long addr) {
        int n = switch ((int) type) {
            case 1 -> 6;
            case 32 -> 20;
            default -> throw new FaultException(FaultException.Kind.ILLOP, 0);
        };
        byte[] b = read(st, ctx, addr, n);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) out.append(':');
            out.append(String.format("%02x", b[i] & 0xff));
        }
        return out.toString();
    }

    private static String ipv4(byte[] b, int at) {
        return (b[at] & 0xff) + "." + (b[at + 1] & 0xff) + "." + (b[at + 2] & 0xff) + "." + (b[at + 3] & 0xff);
    }

    /** RFC 1884: IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms keep the dotted quad. */
    static String ipv6(byte[] b) {
        boolean zero10 = true;
        for (int i = 0; i < 10; i++) zero10 &= b[i] == 0;
        int g6 = ((b[10] & 0xff) << 8) | (b[11] & 0xff);
        int g7 = ((b[12] & 0xff) << 8) | (b[13] & 0xff);
        if (zero10 && g6 == 0xffff) return "::ffff:" + ipv4(b, 12);
        if (zero10 && g6 == 0 && g7 != 0) return "::" + ipv4(b, 12);
        return ipv6Groups(b);
    }

    /** Eight hex groups, the longest run of two or more zero groups (the first of equal ones) as "::". */
    static String ipv6Groups(byte[] b) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        int best = -1, bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) { i++; continue; }
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLen) { best = i; bestLen = j - i; }
            i = j;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == best) {
                out.append("::");
                i += bestLen - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') out.append(':');
            out.append(Integer.toHexString(g[i]));
        }
        return out.toString();
    }

    /**
     * json(s, key): the value at a dotted key path ("a.b[2].c") of the JSON text s: a string
     * without its quotes, a number, true, false or null as written, an object or array as its
     * JSON text; NULL when the key is absent or s is not JSON.
     */
    public static String json(String s, String key) {
        return Json.select(nonNull(s), nonNull(key));
    }

    /** progenyof(pid): 1 if the firing process is pid or descends from it. */
    public static long progenyof(ProbeContext ctx, long pid) {
        java.util.Optional<ProcessHandle> p = ProcessHandle.of(ctx.pid());
        for (int depth = 0; p.isPresent() && depth < 4096; depth++) {
            if (p.get().pid() == pid) return 1;
            p = p.get().parent();
        }
        return 0;
    }

    /** uid: the real user id of the firing process (/proc/pid/status), 0 when it is gone. */
    public static long uid(ProbeContext ctx) { return status(ctx.pid(), "Uid"); }

    /** gid: the real group id of the firing process. */
    public static long gid(ProbeContext ctx) { return status(ctx.pid(), "Gid"); }

    private static long status(long pid, String field) {
        try {
            return org.jdtrace.proc.Procfs.status(pid).number(field, 0);
        } catch (java.io.IOException | RuntimeException e) {
            // the process is gone: as for an unreadable field
        }
        return 0;
    }

    /** cwd: the firing process's current working directory. */
    public static String cwd(ProbeContext ctx) { return link(ctx.pid(), "cwd"); }

    /** root: the firing process's root directory. */
    public static String root(ProbeContext ctx) { return link(ctx.pid(), "root"); }

    private static String link(long pid, String name) {
        try {
            return java.nio.file.Files.readSymbolicLink(org.jdtrace.proc.Procfs.file(pid, name)).toString();
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** stackdepth: the frames stack() would record (Java frames at a JVM-side probe). */
    public static long stackdepth(ProbeContext ctx) {
        String[] java = ctx.javaStack(Integer.MAX_VALUE);
        return java != null ? java.length : ctx.stack(Integer.MAX_VALUE).length;
    }

    /** caller: the pc the probed function was called from (the second frame of the stack), 0 if none. */
    public static long caller(ProbeContext ctx) {
        long[] pcs = ctx.stack(2);
        return pcs.length > 1 ? pcs[1] : 0;
    }

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

    /** sym(pc): the kernel symbol+offset where the firing has a kernel (kallsyms), else the address in hex. */
    public static String symname(ProbeContext ctx, long pc) {
        String s = ctx.ksym(pc);
        return s == null ? "0x" + Long.toHexString(pc) : s;
    }

    /** func(pc): module`function, without the offset. */
    public static String funcname(ProbeContext ctx, long pc) { return function(symname(ctx, pc)); }

    /** mod(pc): the module alone. */
    public static String modname(ProbeContext ctx, long pc) { return module(symname(ctx, pc)); }

    /** uaddr(pc): module`function+0xoff, or the address in hex where nothing maps it. */
    public static String uaddrname(ProbeContext ctx, long pc) {
        String s = ctx.usym(pc);
        return s == null ? "0x" + Long.toHexString(pc) : s;
    }

    /** usym(pc) and ufunc(pc): module`function, without the offset. */
    public static String usymname(ProbeContext ctx, long pc) { return function(uaddrname(ctx, pc)); }

    public static String ufuncname(ProbeContext ctx, long pc) { return usymname(ctx, pc); }

    /** umod(pc): the module alone. */
    public static String umodname(ProbeContext ctx, long pc) { return module(uaddrname(ctx, pc)); }

    /** module`function+0xoff without its offset (a bare address stays as it is). */
    private static String function(String sym) {
        int plus = sym.lastIndexOf("+0x");
        return plus > 0 && sym.indexOf('`') >= 0 ? sym.substring(0, plus) : sym;
    }

    /** module`function+0xoff's module (a bare address stays as it is). */
    private static String module(String sym) {
        int tick = sym.indexOf('`');
        return tick > 0 ? sym.substring(0, tick) : sym;
    }

    /**
     * uregs[reg]: the firing's user registers; for a probe that fires in the calling thread
     * (dtrace:::BEGIN...), that thread's own, read now through the ISA. No ISA, or a read that
     * fails, is an illegal operation, as a probe without user registers.
     */
    public static long uregs(DState st, ProbeContext ctx, long reg) {
        if (!ctx.firesInCallingThread()) return ctx.uregs((int) reg);
        org.jdtrace.isa.Abi abi = st.abi;
        if (abi == null) throw new FaultException(FaultException.Kind.ILLOP, 0);
        try {
            return abi.callingThreadUreg((int) reg);
        } catch (org.jdtrace.isa.IsaException e) {
            throw new FaultException(FaultException.Kind.ILLOP, 0);
        }
    }

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

    /**
     * copyout(buf, addr, n): writes the n bytes at buf (D's memory: alloca'd scratch, copyin's,
     * or the process's) into the process at addr.
     */
    public static long copyout(DState st, ProbeContext ctx, long buf, long addr, long n) {
        if (n < 0 || n > Integer.MAX_VALUE) throw new FaultException(FaultException.Kind.BADSIZE, n);
        ctx.copyout(read(st, ctx, buf, (int) n), addr);
        return 0;
    }

    /** copyoutstr(s, addr, len): writes at most len bytes of s and its NUL into the process. */
    public static long copyoutstr(ProbeContext ctx, String s, long addr, long len) {
        byte[] b = (nonNull(s) + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ctx.copyout(java.util.Arrays.copyOf(b, (int) Math.max(0, Math.min(len, b.length))), addr);
        return 0;
    }
}
