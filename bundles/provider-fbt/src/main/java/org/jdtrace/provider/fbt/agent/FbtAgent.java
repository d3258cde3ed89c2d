/*
 * FbtAgent: the java agent provider-fbt loads into its own JVM when no Instrumentation service
 * is offered (a Felix that does not know jdtrace). Self-attach is refused inside one JVM, so a
 * short-lived child JVM runs main(): it attaches to the parent through the Attach API and loads
 * the jar this class was copied into; agentmain() then runs in the parent and hands its
 * Instrumentation to the receiver the provider left in the system properties under the one-time
 * key it was given (removing it, so nothing else can take it).
 *
 * It imports nothing: the Attach API is reached by reflection, so the bundle needs no
 * com.sun.tools.attach import, and the class can be copied alone into the agent jar.
 */
package org.jdtrace.provider.fbt.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;

public final class FbtAgent {

    private FbtAgent() {}

    /** In the traced JVM: give {@code inst} to the receiver left under {@code key}. */
    @SuppressWarnings("unchecked")
    public static void agentmain(String key, Instrumentation inst) {
        Object receiver = System.getProperties().remove(key);
        if (receiver instanceof java.util.function.Consumer<?> c) {
            ((java.util.function.Consumer<Object>) c).accept(inst);
        }
    }

    /** In the child JVM: args pid, agent jar, key. Exit status 0 when the agent was loaded. */
    public static void main(String[] args) throws Exception {
        Class<?> vmClass = Class.forName("com.sun.tools.attach.VirtualMachine");
        Object vm = vmClass.getMethod("attach", String.class).invoke(null, args[0]);
        try {
            Method load = vmClass.getMethod("loadAgent", String.class, String.class);
            load.invoke(vm, args[1], args[2]);
        } finally {
            vmClass.getMethod("detach").invoke(vm);
        }
    }
}
