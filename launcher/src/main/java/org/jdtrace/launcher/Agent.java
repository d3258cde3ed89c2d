/*
 * The launcher's java agent: the jar's Launcher-Agent-Class, which `java -jar` (bin/dtrace)
 * starts before main with no flag on the command line. It keeps the JVM's Instrumentation
 * (Can-Retransform-Classes) for Main, which offers it to the bundles as an OSGi service of type
 * java.lang.instrument.Instrumentation (provider-fbt rewrites the classes of bundles with it).
 * Set once, before main; read by the main thread only.
 */
package org.jdtrace.launcher;

import java.lang.instrument.Instrumentation;

public final class Agent {

    private static volatile Instrumentation instrumentation;

    private Agent() {}

    public static void agentmain(String args, Instrumentation inst) {
        instrumentation = inst;
    }

    /** The JVM's Instrumentation, or null when the launcher was not started by java -jar. */
    static Instrumentation instrumentation() {
        return instrumentation;
    }
}
