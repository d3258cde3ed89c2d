/*
 * The two facts about the calling thread that Java does not give: its Linux thread ID
 * (gettid(2), what dtrace's tid is for a process thread) and the CPU it runs on
 * (sched_getcpu(3)). Both are FFM downcalls into libc, looked up once. When a symbol is
 * missing (not glibc, not Linux) tid falls back to Thread.threadId() and cpu to 0.
 */
package org.jdtrace.core.context;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

public final class NativeThreads {

    private static final MethodHandle GETTID = downcall("gettid");
    private static final MethodHandle SCHED_GETCPU = downcall("sched_getcpu");

    private NativeThreads() {}

    private static MethodHandle downcall(String name) {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name)
                    .map(addr -> linker.downcallHandle(addr, FunctionDescriptor.of(ValueLayout.JAVA_INT)))
                    .orElse(null);
        } catch (Throwable t) {
            return null;
        }
    }

    /** The OS thread ID of the calling thread. */
    public static long gettid() {
        if (GETTID != null) {
            try {
                return (int) GETTID.invokeExact();
            } catch (Throwable ignored) {
                // fall through
            }
        }
        return Thread.currentThread().threadId();
    }

    /** The CPU the calling thread runs on now, or 0 when unknown. */
    public static int cpu() {
        if (SCHED_GETCPU != null) {
            try {
                int c = (int) SCHED_GETCPU.invokeExact();
                return c < 0 ? 0 : c;
            } catch (Throwable ignored) {
                // fall through
            }
        }
        return 0;
    }
}
