/*
 * Rt: the static helpers generated clauses call for everything that is not a few bytecodes
 * (the DTrace VM's subroutine and variable instructions): checked division, variable storage,
 * records. Public because hidden classes in this package link to it.
 */
package org.jdtrace.libdtrace.codegen;

import org.jdtrace.libdtrace.print.PrintfFormat;
import org.jdtrace.libdtrace.rt.DState;
import org.jdtrace.libdtrace.rt.DThread;
import org.jdtrace.libdtrace.rt.Datum;
import org.jdtrace.libdtrace.rt.StackFrames;
import org.jdtrace.libdtrace.rt.Tuple;
import org.jdtrace.engine.DFault;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

public final class Rt {

    private Rt() {}

    /** After exit(), only dtrace:::END and dtrace:::ERROR still run clauses (DTrace's draining). */
    public static boolean skip(DState st, Probe p) {
        if (!st.exitRequested()) {
            // END without exit() (the run stopped): the fill policy's reserve is END's to use now
            if (st.endReserve != 0 && "END".equals(p.name()) && "dtrace".equals(p.provider())) st.ending(true);
            return false;
        }
        if (!"dtrace".equals(p.provider())) return true;
        String n = p.name();
        if ("END".equals(n)) {
            st.ending(true); // exit() in END still sets the status
            return false;
        }
        return !"ERROR".equals(n);
    }

    /** A fault of the probe context (copyin of a bad address...) at action {@code action}. */
    public static DFault fault(FaultException f, int action) {
        return new DFault(f.kind(), f.address(), action, -1);
    }

    public static long div(long a, long b, int action, int offset) {
        if (b == 0) throw new DFault(FaultException.Kind.DIVZERO, 0, action, offset);
        return a / b;
    }

    public static long udiv(long a, long b, int action, int offset) {
        if (b == 0) throw new DFault(FaultException.Kind.DIVZERO, 0, action, offset);
        return Long.divideUnsigned(a, b);
    }

    public static long mod(long a, long b, int action, int offset) {
        if (b == 0) throw new DFault(FaultException.Kind.DIVZERO, 0, action, offset);
        return org.jdtrace.libdtrace.ast.IntegerFolding.modulus(a, b);
    }

    public static long umod(long a, long b, int action, int offset) {
        if (b == 0) throw new DFault(FaultException.Kind.DIVZERO, 0, action, offset);
        return Long.remainderUnsigned(a, b);
    }

    /** walltimestamp, read at each use (see rt.WallClock). */
    public static long walltimestamp(DState st) {
        return st.wallclock.now();
    }

    /**
     * A string subroutine's result, cut to strsize as its scratch buffer would cut it; NULL (null)
     * stays NULL, as the register holding it stays 0 in DTrace.
     */
    public static String cap(String s, DState st) {
        return s == null ? null : str(st, s);
    }

    /** A string subroutine's result passed to another: cut to strsize, null (NULL) kept. */
    public static String capNullable(String s, DState st) {
        return s == null ? null : str(st, s);
    }

    /** {@code s} cut to strsize; NULL (null) stays NULL. */
    public static String str(DState st, String s) {
        if (s == null) return null;
        int max = st.options.strsize(); // strsize characters, then the NUL (as dtrace on Linux)
        return s.length() > max ? s.substring(0, Math.max(0, max)) : s;
    }

    // ---- globals

    public static long getLong(DState st, int slot) {
        return st.longs[slot];
    }

    public static long putLong(DState st, int slot, long v) {
        st.longs[slot] = v;
        return v;
    }

    /** A global string: "" until it is first assigned (DState.stringSlot), null after s = NULL. */
    public static String getStr(DState st, int slot) {
        return st.strings[slot];
    }

    public static String putStr(DState st, int slot, String v) {
        v = str(st, v);
        st.strings[slot] = v;
        return v;
    }

    // ---- self->

    public static long tlsLong(DState st, ProbeContext ctx, int slot) {
        return st.tlsGet(ctx.tid(), slot) instanceof Long l ? l : 0;
    }

    public static long tlsPutLong(DState st, ProbeContext ctx, int slot, long v) {
        st.tlsPut(ctx.tid(), slot, v);
        return v;
    }

    public static String tlsStr(DState st, ProbeContext ctx, int slot) {
        // a thread-local that does not exist (never assigned, or assigned NULL) is NULL
        return st.tlsGet(ctx.tid(), slot) instanceof String s ? s : null;
    }

    public static String tlsPutStr(DState st, ProbeContext ctx, int slot, String v) {
        v = str(st, v);
        st.tlsPut(ctx.tid(), slot, v);
        return v;
    }

    // ---- associative arrays

    public static long assocLong(DState st, int slot, Object[] key) {
        return st.assocGet(slot, new Tuple(key)) instanceof Long l ? l : 0;
    }

    public static long assocPutLong(DState st, int slot, Object[] key, long v) {
        st.assocPut(slot, new Tuple(key), v);
        return v;
    }

    public static String assocStr(DState st, int slot, Object[] key) {
        // an element that does not exist (never assigned, or assigned NULL) is NULL
        return st.assocGet(slot, new Tuple(key)) instanceof String s ? s : null;
    }

    public static String assocPutStr(DState st, int slot, Object[] key, String v) {
        v = str(st, v);
        st.assocPut(slot, new Tuple(key), v);
        return v;
    }

    public static Tuple tuple(Object[] key) {
        return new Tuple(key);
    }

    // ---- records

    public static void traceLong(DThread t, long v, int width, boolean signed) {
        t.traceInt(v, width, signed);
    }

    /** trace() of a string: a NULL string faults at address 0, as DTrace's copy of it does. */
    public static void traceStr(DThread t, DState st, String s) {
        t.traceStr(str(st, nonNull(s)), st.options.strsize());
    }

    /**
     * print() of a string (or char array) of {@code size} bytes, strsize when 0: its bytes up to
     * the NUL and zeros after, as the char[] it stands for is recorded.
     */
    public static void printStr(DThread t, DState st, String s, int size, int layout) {
        byte[] b = new byte[size > 0 ? size : st.options.strsize()];
        byte[] v = nonNull(s).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        System.arraycopy(v, 0, b, 0, Math.min(v.length, b.length));
        t.add(new Datum.Print(0, b, layout, true));
    }

    /** print() of an integer or enum: its {@code size} bytes, little-endian. */
    public static void printLong(DThread t, long v, int size, int layout) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) b[i] = (byte) (v >>> (8 * i));
        t.add(new Datum.Print(0, b, layout, true));
    }

    /** A string argument of the printf() under way (DThread.printf): cut to strsize, recorded raw. */
    public static void printfStr(DThread t, DState st, String s) {
        t.argStr(str(st, nonNull(s)), st.options.strsize());
    }

    /**
     * A string that is read where it is: recorded (trace, printf), or a key of an aggregation or
     * associative array. DTrace copies it byte by byte from its address, so a NULL string is an
     * invalid address (0) there and raises dtrace:::ERROR.
     */
    public static String nonNull(String s) {
        if (s == null) throw new FaultException(FaultException.Kind.BADADDR, 0);
        return s;
    }

    /** A string in a condition: true when it is neither NULL nor empty. */
    public static boolean truth(String s) {
        return s != null && !s.isEmpty();
    }

    public static void printf(DThread t, DState st, PrintfFormat f, Object[] args, int[] widths) {
        t.add(new Datum.Printf(f, args, widths, recordBytes(st, args)));
    }

    public static void system(DThread t, DState st, PrintfFormat f, Object[] args, int[] widths) {
        t.add(new Datum.System(f, args, widths, recordBytes(st, args)));
    }

    public static void freopen(DThread t, DState st, PrintfFormat f, Object[] args, int[] widths) {
        t.add(new Datum.Freopen(f, args, widths, recordBytes(st, args)));
    }

    /** printf-like arguments' bytes in the buffer (strings cut to strsize). */
    private static int recordBytes(DState st, Object[] args) {
        int bytes = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof String s) {
                args[i] = str(st, s);
                bytes += st.options.strsize();
            } else {
                bytes += 8;
            }
        }
        return bytes;
    }

    /**
     * stack(n), ustack(n), jstack(n) actions: the firing's stack, symbolised here in probe context
     * through ProbeContext.usym (not by the consumer, as libdtrace does) because the traced
     * process may be gone, or its mappings changed, when the consumer drains. A probe with no
     * user context (BEGIN, JVM probes) records an empty user stack; at a probe whose context has
     * Java frames (ProbeContext.javaStack: fbt) stack() and jstack() are those frames, already
     * symbolised; stack() is the kernel call chain where the firing has one (kernel samples and
     * tracepoints: ProbeContext.stack), else
     * empty, as DTrace's is at a pid probe. {@code which} is an Ir.StackKind ordinal.
     */
    public static void stack(DThread t, DState st, ProbeContext ctx, int which, int frames) {
        int n = depth(st, which, frames);
        t.add(new Datum.Stack(frames(st, ctx, which, n), n));
    }

    /** stack(), ustack(), jstack() as an aggregation key: the same frames, as a key value. */
    public static StackFrames stackKey(DState st, ProbeContext ctx, int which, int frames) {
        int n = depth(st, which, frames);
        // ustack(): the consumer's cache of whole stacks (a hot key is one lookup of its pcs)
        if (which == Ir.StackKind.USER.ordinal()) return st.symbols.frames(ctx.pid(), ctx.ustack(n), ctx::usym);
        String[] f = frames(st, ctx, which, n);
        return f.length == 0 ? StackFrames.EMPTY : new StackFrames(f);
    }

    /** Ir.StackKind by ordinal, without values()'s copy at every firing. */
    private static final Ir.StackKind[] STACK_KINDS = Ir.StackKind.values();

    /** The frames asked for, else the option's default; never more than option maxframes when set. */
    static int depth(DState st, int which, int frames) {
        long n = frames;
        if (n <= 0) {
            n = st.options.get(switch (STACK_KINDS[which]) {
                case KERNEL -> "stackframes";
                case USER -> "ustackframes";
                case JAVA -> "jstackframes";
            });
        }
        long max = st.options.get("maxframes");
        if (max > 0) n = Math.min(n, max);
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    private static String[] frames(DState st, ProbeContext ctx, int which, int n) {
        if (which != Ir.StackKind.USER.ordinal()) {
            // the JVM is the kernel: at a JVM-side probe stack() and jstack() are its Java frames
            String[] java = ctx.javaStack(n);
            if (java != null) return java;
        }
        if (which == Ir.StackKind.JAVA.ordinal()) {
            // another JVM's thread: the provider's walk with the JVM's frames named, else ustack's
            String[] named = ctx.jstack(n);
            if (named != null) return named;
        }
        if (which == Ir.StackKind.KERNEL.ordinal()) return symboliseKernel(ctx, ctx.stack(n));
        return symbolise(st, ctx, ctx.ustack(n));
    }

    /** Kernel pcs as ProbeContext.ksym prints them (kallsyms), or in hex. */
    private static String[] symboliseKernel(ProbeContext ctx, long[] pcs) {
        String[] frames = new String[pcs.length];
        for (int i = 0; i < pcs.length; i++) {
            String s = ctx.ksym(pcs[i]);
            frames[i] = s == null ? "0x" + Long.toHexString(pcs[i]) : s;
        }
        return frames;
    }

    /** Each pc as usym prints it (through the consumer's cache), or its address in hex when no object maps it. */
    public static String[] symbolise(DState st, ProbeContext ctx, long[] pcs) {
        String[] frames = new String[pcs.length];
        long pid = pcs.length == 0 ? 0 : ctx.pid();
        java.util.function.LongFunction<String> usym = ctx::usym;
        for (int i = 0; i < pcs.length; i++) {
            String s = st.symbols.lookup(pid, pcs[i], usym);
            frames[i] = s == null ? "0x" + Long.toHexString(pcs[i]) : s;
        }
        return frames;
    }

    public static void record(DThread t, Datum d) {
        t.add(d);
    }

    public static void trunc(DThread t, org.jdtrace.libdtrace.rt.Aggregation a, long keep) {
        t.add(new Datum.Trunc(a, keep, false));
    }

    public static void normalize(DThread t, org.jdtrace.libdtrace.rt.Aggregation a, long normal) {
        t.add(new Datum.Normalize(a, normal));
    }

    public static void exit(DThread t, DState st, long status) {
        t.exitAtCommit((int) status);
        t.add(new Datum.Exit((int) status));
    }

    public static void setopt(DThread t, String name, String value) {
        t.add(new Datum.Setopt(name, value));
    }

    /** False: the speculation is not active and the clause stops here. */
    public static boolean speculate(DThread t, DState st, long id) {
        return t.speculate(id);
    }

    /** commit(id) on the firing's CPU (which decides whether the buffer is free at once). */
    public static void commit(DThread t, DState st, long id, int cpu) {
        t.commitSpeculation(id, cpu);
    }

    /** discard(id) on the firing's CPU. */
    public static void discard(DThread t, DState st, long id, int cpu) {
        st.speculations.discard(id, cpu);
    }

    /**
     * D's string comparison, as DTrace on Linux makes it (dtrace-utils' string compare, which its
     * tests operators/tst.str_comparison-basic-with-NULL pin down): a NULL string equals only NULL
     * and sorts before every string, "" included. (illumos' dtrace_strncmp read NULL as "".)
     * Probe context: no allocation.
     */
    public static int strcmp(String a, String b) {
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? -1 : 1;
        }
        return a.compareTo(b);
    }
}
