/*
 * The DTrace service (the dtrace(7d) device and libdtrace's dtrace_open): each open() makes an
 * independent consumer with its own DSession (from the D half's DSessionFactory service) over
 * the shared framework. The service keeps the consumers it opened and closes those still open
 * when it goes away, so no consumer's enablings outlive it.
 */
package org.jdtrace.core.consumer;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdtrace.consumer.Consumer;
import org.jdtrace.consumer.DTrace;
import org.jdtrace.engine.DSessionFactory;
import org.jdtrace.core.provider.DTraceFramework;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

@Component(service = DTrace.class)
public final class DTraceService implements DTrace {

    /** What dtrace -V prints after "dtrace: ". */
    public static final String VERSION = "Sun D 1.13";

    private final DTraceFramework framework;
    private final DSessionFactory sessions;
    private final Set<Consumer> open = ConcurrentHashMap.newKeySet();

    @Activate
    public DTraceService(@Reference DTraceFramework framework, @Reference DSessionFactory sessions) {
        this.framework = framework;
        this.sessions = sessions;
    }

    @Override
    public Consumer open() {
        ConsumerImpl[] self = new ConsumerImpl[1];
        self[0] = new ConsumerImpl(framework, sessions.create(), () -> open.remove(self[0]));
        open.add(self[0]);
        return self[0];
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Deactivate
    public void deactivate() {
        for (Consumer c : List.copyOf(open)) {
            c.close();
        }
    }
}
