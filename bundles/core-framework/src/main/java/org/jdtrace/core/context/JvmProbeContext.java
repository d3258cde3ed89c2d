/*
 * The probe context of a JVM-side firing (profile, dtrace, Java-level providers): the calling
 * Java thread is the "current thread" of D. One instance per thread (current()), reused for
 * every firing on that thread, so firing allocates nothing: the firing provider sets the
 * arguments, fires, and the context keeps them until the next firing on that thread.
 *
 * pid and execname are the JVM process's (execname is its comm, as the kernel reports it in
 * /proc/self/comm: "dtrace" under bin/dtrace, whose launcher names the process so, else "java");
 * ppid its parent's; tid the OS thread ID (gettid), looked up once per thread; cpu is
 * sched_getcpu() at the time asked, unless a firing provider pins it (profile-N's per-CPU
 * timers report the CPU index they stand for).
 *
 * Not for sharing between threads. A firing nested on the same thread (a probe fired from
 * inside a clause) overwrites the arguments of the outer one.
 */
package org.jdtrace.core.context;

import org.jdtrace.spi.ProbeContext;

public final class JvmProbeContext implements ProbeContext {

    public static final int NARGS = 10;

    private static final ThreadLocal<JvmProbeContext> CURRENT = ThreadLocal.withInitial(JvmProbeContext::new);
    private static final long PID = ProcessHandle.current().pid();
    private static final String EXECNAME = execname0();
    private static volatile long ppid = -1;

    private final long[] args = new long[NARGS];
    private final Object[] objects = new Object[NARGS];
    /** args and objects are zero (null) from here on: clear() clears only what was set. */
    private int used;
    private long tid = -1;
    private int pinnedCpu = -1;

    private JvmProbeContext() {}

    /** The calling thread's context. */
    public static JvmProbeContext current() {
        return CURRENT.get();
    }

    private static String execname0() {
        try {
            return org.jdtrace.proc.Procfs.comm(org.jdtrace.proc.Procfs.self());
        } catch (java.io.IOException | RuntimeException e) {
            String cmd = ProcessHandle.current().info().command().orElse("java");
            return cmd.substring(cmd.lastIndexOf('/') + 1);
        }
    }

    /** Clears every argument (those set since the last clear: the rest are zero already). */
    public JvmProbeContext clear() {
        for (int i = 0; i < used; i++) {
            args[i] = 0;
            objects[i] = null;
        }
        used = 0;
        assert cleared();
        return this;
    }

    /** Every argument is zero (what clear() claims; a loop, so -ea allocates nothing). */
    private boolean cleared() {
        for (int i = 0; i < NARGS; i++) {
            if (args[i] != 0 || objects[i] != null) return false;
        }
        return true;
    }

    /** Sets arg{@code i}. */
    public JvmProbeContext arg(int i, long value) {
        args[i] = value;
        objects[i] = null;
        if (i >= used) used = i + 1;
        return this;
    }

    /** Sets arg{@code i} and its typed args[i] value (a String, for instance). */
    public JvmProbeContext arg(int i, long value, Object typed) {
        args[i] = value;
        objects[i] = typed;
        if (i >= used) used = i + 1;
        return this;
    }

    /** Sets arg0 and arg1, clearing the others. */
    public JvmProbeContext args(long a0, long a1) {
        clear();
        args[0] = a0;
        args[1] = a1;
        used = 2;
        return this;
    }

    /** Makes cpu() answer {@code cpu} on this thread (-1 to ask the OS again). */
    public JvmProbeContext pinCpu(int cpu) {
        this.pinnedCpu = cpu;
        return this;
    }

    @Override
    public long arg(int i) {
        return i >= 0 && i < NARGS ? args[i] : 0;
    }

    @Override
    public Object argObject(int i) {
        if (i < 0 || i >= NARGS) {
            return 0L;
        }
        Object o = objects[i];
        return o != null ? o : args[i];
    }

    @Override
    public long pid() {
        return PID;
    }

    @Override
    public long ppid() {
        long p = ppid;
        if (p < 0) {
            p = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
            ppid = p;
        }
        return p;
    }

    @Override
    public long tid() {
        long t = tid;
        if (t < 0) {
            t = NativeThreads.gettid();
            tid = t;
        }
        return t;
    }

    @Override
    public String execname() {
        return EXECNAME;
    }

    @Override
    public int cpu() {
        return pinnedCpu >= 0 ? pinnedCpu : NativeThreads.cpu();
    }

    /** A JVM-side probe fires in the calling Java thread: uregs[] are its registers. */
    @Override
    public boolean firesInCallingThread() {
        return true;
    }
}
