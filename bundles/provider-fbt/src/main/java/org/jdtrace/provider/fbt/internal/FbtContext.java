/*
 * FbtContext: the probe context of an fbt firing, one per thread, reused (FbtRuntime keeps it
 * in a ThreadLocal): the arguments of the firing plus the framework's own JVM context of the
 * thread (pid, tid, execname, cpu), to which it delegates.
 *
 * Arguments: a primitive (a long from Rewriter) is its value; a reference is its identity
 * hash code (0 for null), computed only when a clause reads it: an opaque handle that copyinstr() turns back into text, the String's
 * characters or Class@hash for any other object (Object.toString's form, computed from
 * getClass().getName() and System.identityHashCode without calling the program's code).
 * argObject(i) gives that text directly. At return arg0 is the return site's bytecode offset
 * (-1 for a throw) and arg1 the value (the Throwable for a throw). Arguments past the method's
 * (entered(n)) read as 0. After the firing (done()) the context holds no reference to the
 * program's objects.
 *
 * javaStack: the firing thread's frames below FbtRuntime, the traced method first, as
 * bundle`Class.method+0xbci (a JDK class's module name, or "jvm", where no bundle defines it).
 * The first frame's offset is the probe's own (0 at entry, the return site at return); deeper
 * frames show the offset of the code running there (rewritten code where a caller is traced
 * too). Allocates (StackWalker), as stack() may.
 *
 * Not thread-safe: confined to its thread.
 */
package org.jdtrace.provider.fbt.internal;

import java.util.ArrayList;
import java.util.List;
import org.jdtrace.spi.FaultException;
import org.jdtrace.spi.ProbeContext;
import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;

final class FbtContext implements ProbeContext {

    static final int NARGS = 10;

    /** The module of a class as stack frames name it. */
    static final ClassValue<String> MODULE = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            Bundle b = FrameworkUtil.getBundle(type);
            if (b != null && b.getSymbolicName() != null) return b.getSymbolicName();
            String m = type.getModule().getName();
            return m != null ? m : "jvm";
        }
    };

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final ProbeContext base;
    /** The thread this context belongs to (FbtRuntime's slot check). */
    final Thread owner = Thread.currentThread();
    private final long[] args = new long[NARGS];
    private final Object[] refs = new Object[NARGS];
    /** How many of args/refs this firing set; the rest read as 0. */
    private int nargs;
    private int bci;
    boolean busy;

    FbtContext(ProbeContext base) {
        this.base = base;
    }

    /** An entry firing of {@code n} arguments, set by set(): its offset is 0. */
    void entered(int n) {
        assert n >= 0 && n <= NARGS;
        nargs = n;
        bci = 0;
    }

    void setReturn(int at, long value, Object ref) {
        args[0] = at;
        refs[0] = null;
        set(1, value, ref);
        nargs = 2;
        bci = at;
    }

    /**
     * Argument {@code i}: {@code ref} when it is not null (its handle, the identity hash, is
     * computed only when a clause reads it), else {@code v}.
     */
    void set(int i, long v, Object ref) {
        args[i] = v;
        refs[i] = ref;
    }

    /** The firing is over: the context keeps no reference to the program's objects. */
    void done() {
        for (int i = 0; i < nargs; i++) refs[i] = null;
        nargs = 0;
    }

    /** The value of argument {@code i < nargs}: a reference's handle, else the long. */
    private long value(int i) {
        Object r = refs[i];
        return r != null ? System.identityHashCode(r) & 0xffff_ffffL : args[i];
    }

    /** A reference argument as D shows it: the String, else Class@hash. */
    static String text(Object o) {
        if (o instanceof String s) return s;
        return o.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(o));
    }

    @Override
    public long arg(int i) {
        return i >= 0 && i < nargs ? value(i) : 0;
    }

    @Override
    public Object argObject(int i) {
        if (i < 0 || i >= nargs) return 0L;
        Object o = refs[i];
        return o != null ? text(o) : args[i];
    }

    @Override
    public String copyinstr(long addr, int max) throws FaultException {
        for (int i = 0; i < nargs; i++) {
            if (refs[i] != null && value(i) == addr) {
                String s = text(refs[i]);
                return s.length() > max ? s.substring(0, max) : s;
            }
        }
        throw new FaultException(FaultException.Kind.BADADDR, addr);
    }

    @Override
    public String[] javaStack(int max) {
        int first = bci;
        List<String> out = WALKER.walk(s -> {
            List<String> f = new ArrayList<>();
            boolean[] below = {false};
            s.dropWhile(fr -> {
                if (fr.getDeclaringClass() == FbtRuntime.class) {
                    below[0] = true;
                    return true;
                }
                return !below[0];
            }).limit(Math.max(0, max)).forEach(fr -> {
                int at = f.isEmpty() ? Math.max(first, 0) : fr.getByteCodeIndex();
                f.add(MODULE.get(fr.getDeclaringClass()) + "`" + fr.getClassName() + "."
                        + fr.getMethodName() + "+0x" + Integer.toHexString(at));
            });
            return f;
        });
        return out.toArray(String[]::new);
    }

    @Override
    public long pid() {
        return base != null ? base.pid() : ProcessHandle.current().pid();
    }

    @Override
    public long ppid() {
        return base != null ? base.ppid() : 0;
    }

    @Override
    public long tid() {
        return base != null ? base.tid() : Thread.currentThread().threadId();
    }

    @Override
    public String execname() {
        return base != null ? base.execname() : "java";
    }

    @Override
    public int cpu() {
        return base != null ? base.cpu() : 0;
    }
}
