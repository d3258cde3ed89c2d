package org.jdtrace.provider.sdt.internal.usdt;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.fasttrap.TargetObject;
import org.jdtrace.fasttrap.TracedTarget;
import org.jdtrace.spi.Probe;

/**
 * What the USDT provider keeps about one process fasttrap follows: the process, its semaphore
 * table and its USDT probes (under every provider name its objects declare), by object.
 */
final class UsdtProcess {

    final TracedTarget target;
    final Semaphores semaphores;
    /** The objects whose notes were read, and the probes made from them. */
    final Map<TargetObject, List<Probe>> probes = new ConcurrentHashMap<>();

    UsdtProcess(TracedTarget target) {
        this.target = target;
        this.semaphores = new Semaphores(target.memory());
    }

    int pid() {
        return target.pid();
    }

    List<Probe> allProbes() {
        return probes.values().stream().flatMap(List::stream).toList();
    }
}
