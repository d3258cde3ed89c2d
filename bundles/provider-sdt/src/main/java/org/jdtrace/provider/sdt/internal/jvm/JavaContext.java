/*
 * The probe context of a Java static probe's firing: the calling thread's (pid, tid, execname,
 * cpu come from the framework's per-thread context, ProbeRegistry.threadContext()) with this
 * firing's arguments. One per thread and provider instance, reused by every firing on that
 * thread: filling it allocates nothing.
 *
 * Strings: D reads a USDT probe's char * argument with copyinstr(argN); a Java string has no
 * address, so argN holds a handle, STRING_HANDLE + N (a non-canonical x86-64 address, which no
 * process memory ever has), and copyinstr/copyin of that handle read the string of this firing;
 * any other address faults (BADADDR), as a wild pointer does. argObject(N) is the String itself.
 *
 * Not for sharing between threads; a firing nested on the same thread overwrites the outer one's
 * arguments (as JvmProbeContext does).
 */
package org.jdtrace.provider.sdt.internal.jvm;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jdtrace.sdt.ArgType;
import org.jdtrace.sdt.StaticProbe;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;

final class JavaContext implements ProbeContext {

    /** argN of a string argument is STRING_HANDLE + N. */
    static final long STRING_HANDLE = 0x7a5d_0000_0000_0000L;

    private final ProbeContext thread;
    private final long[] args = new long[StaticProbe.MAX_ARGS];
    private final Object[] objects = new Object[StaticProbe.MAX_ARGS];
    private int n;

    /** {@code thread}: the calling thread's own context, from the framework. */
    JavaContext(ProbeContext thread) {
        this.thread = thread;
    }

    /** Starts a firing with {@code count} arguments, all 0 until set. */
    JavaContext begin(int count) {
        n = Math.min(count, args.length);
        for (int i = 0; i < n; i++) {
            args[i] = 0;
            objects[i] = null;
        }
        return this;
    }

    /**
     * Sets argument {@code i}, declared {@code type} (null past the declared ones), from what the
     * caller passed: {@code o} when not null, else {@code a}.
     */
    void set(int i, ArgType type, long a, Object o) {
        if (type == ArgType.STRING || (type == null && o != null)) {
            Object s = o == null ? (a == 0 ? null : Long.toString(a)) : o instanceof String ? o : String.valueOf(o);
            objects[i] = s;
            args[i] = s == null ? 0 : STRING_HANDLE + i;
            return;
        }
        long v = o == null ? a : toLong(o);
        args[i] = type == ArgType.INT ? (int) v : v;
        objects[i] = null;
    }

    private static long toLong(Object o) {
        return switch (o) {
            case Number x -> x.longValue();
            case Boolean b -> b ? 1 : 0;
            case Character c -> c;
            default -> 0;
        };
    }

    @Override
    public long arg(int i) {
        return i >= 0 && i < n ? args[i] : 0;
    }

    @Override
    public Object argObject(int i) {
        if (i >= 0 && i < n && objects[i] != null) {
            return objects[i];
        }
        return arg(i);
    }

    private String stringAt(long addr) {
        long i = addr - STRING_HANDLE;
        if (i >= 0 && i < n && objects[(int) i] instanceof String s) {
            return s;
        }
        throw new FaultException(FaultException.Kind.BADADDR, addr);
    }

    @Override
    public String copyinstr(long addr, int max) {
        String s = stringAt(addr);
        return max >= 0 && s.length() > max ? s.substring(0, max) : s;
    }

    @Override
    public byte[] copyin(long addr, int len) {
        byte[] b = stringAt(addr).getBytes(StandardCharsets.UTF_8);
        if (len < 0 || len > b.length + 1) {
            throw new FaultException(FaultException.Kind.BADADDR, addr + b.length + 1);
        }
        return Arrays.copyOf(b, len); // the NUL after the string included
    }

    @Override
    public long pid() {
        return thread.pid();
    }

    @Override
    public long ppid() {
        return thread.ppid();
    }

    @Override
    public long tid() {
        return thread.tid();
    }

    @Override
    public String execname() {
        return thread.execname();
    }

    @Override
    public int cpu() {
        return thread.cpu();
    }
}
